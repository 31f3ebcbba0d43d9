"""The solver's parameters: one object, validated in one place, holding every default.

Every entry point (``solve_smo``, ``sweep_early_stopping``, the reference
solvers, ``SMOClassifier``) builds a :class:`SolverParams`, so a value means the
same and is rejected with the same message wherever it is given. The rules are
written once, in scikit-learn's declarative form (:data:`SOLVER_CONSTRAINTS`),
which the estimator also declares as its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions, validate_parameter_constraints

KERNELS: tuple[str, ...] = ("linear", "rbf")

#: ``max_iter`` meaning "no limit of the caller's": LIBSVM's own limit applies (as in SVC).
NO_LIMIT = -1

#: LIBSVM's own iteration limit is ``max(LIBSVM_MIN_ITER, 100 n)`` (``Solver::Solve``).
LIBSVM_MIN_ITER = 10_000_000

SOLVER_CONSTRAINTS: dict[str, list] = {
    "kernel": [StrOptions(set(KERNELS))],
    "C": [Interval(Real, 0, None, closed="neither")],
    "gamma": [Interval(Real, 0, None, closed="neither")],
    "tol": [Interval(Real, 0, None, closed="neither")],
    "max_iter": [Interval(Integral, NO_LIMIT, None, closed="left")],
    "cache_size_mb": [Interval(Real, 0, None, closed="neither")],
    "kernel_dtype": [type],
    "shrinking": ["boolean"],
    "n_jobs": [Interval(Integral, 1, None, closed="left")],
}


def _positive(value: object) -> bool:
    return isinstance(value, Real) and 0 < value < math.inf


# SOLVER_CONSTRAINTS as plain predicates: a fit checks them in about a microsecond
# (scikit-learn's checks take about fifty), and a value that fails one goes through
# scikit-learn's validation for its message. A test holds the two to the same verdicts.
FAST_CHECKS = {
    "kernel": lambda v: isinstance(v, str) and v in KERNELS,
    "C": _positive,
    "gamma": _positive,
    "tol": _positive,
    "max_iter": lambda v: isinstance(v, Integral) and v >= NO_LIMIT,
    "cache_size_mb": _positive,
    "kernel_dtype": lambda v: isinstance(v, type),
    "shrinking": lambda v: isinstance(v, bool | np.bool_),
    "n_jobs": lambda v: isinstance(v, Integral) and v >= 1,
}


def check_parameters(values: dict[str, object], caller: str) -> None:
    """Check ``values`` (some of SolverParams' fields) by SOLVER_CONSTRAINTS, quickly.

    The quick predicates decide; only a value that fails one goes through
    scikit-learn's validation, which raises with its message.
    """
    if not all(FAST_CHECKS[name](value) for name, value in values.items()):
        rules = {name: SOLVER_CONSTRAINTS[name] for name in values}
        validate_parameter_constraints(rules, values, caller_name=caller)


@dataclass(frozen=True)
class SolverParams:
    """What an SMO run solves and how: kernel, box ``C``, tolerance, iteration limit, kernel store.

    ``gamma`` is the RBF width (ignored by the linear kernel). ``tol`` bounds the
    maximal KKT violation ``m(a) - M(a)`` at convergence. ``max_iter`` caps the
    pair updates; -1 (the default, SVC's) leaves LIBSVM's own cap,
    ``max(10^7, 100 n)``. ``cache_size_mb`` bounds the kernel-row store (with
    shrinking on large problems, the rows' active columns take up to a quarter
    more: :mod:`esmo.solver.active_view`);
    ``kernel_dtype`` is its precision (float32 like LIBSVM's ``Qfloat``, or
    float64). ``shrinking`` (the default, SVC's) sets aside, as LIBSVM does,
    the bounded points that cannot enter the next working pair
    (:mod:`esmo.solver.shrinking`): the iterations of ``SVC()``, where
    ``shrinking=False`` takes those of ``SVC(shrinking=False)``. ``n_jobs``
    threads fill each long kernel row of dense points (:mod:`esmo.solver.row_cache`)
    and share the passes over many active points (every point without shrinking)
    (:mod:`esmo.solver.working_set`); the run is the same to the bit for any ``n_jobs``.
    """

    kernel: str = "rbf"
    C: float = 1.0
    gamma: float = 1.0
    tol: float = 1e-3
    max_iter: int = NO_LIMIT
    cache_size_mb: float = 1024.0
    kernel_dtype: type = np.float32
    shrinking: bool = True
    n_jobs: int = 1

    def __post_init__(self) -> None:
        check_parameters({name: getattr(self, name) for name in _FIELDS}, "the SMO solver")
        if np.dtype(self.kernel_dtype) not in (np.float32, np.float64):
            raise ValueError(
                f"kernel_dtype must be np.float32 or np.float64, got {self.kernel_dtype!r}."
            )
        for name in ("C", "gamma", "tol", "cache_size_mb"):
            object.__setattr__(self, name, float(getattr(self, name)))
        object.__setattr__(self, "max_iter", int(self.max_iter))
        object.__setattr__(self, "shrinking", bool(self.shrinking))
        object.__setattr__(self, "n_jobs", int(self.n_jobs))

    @property
    def kernel_code(self) -> int:
        """The compiled code's kernel number: 0 linear, 1 RBF."""
        return KERNELS.index(self.kernel)

    def iteration_limit(self, n: int) -> int:
        """The pair updates a run on ``n`` points may make: ``max_iter``, or LIBSVM's cap for -1."""
        if self.max_iter == NO_LIMIT:
            return max(LIBSVM_MIN_ITER, 100 * n)
        return self.max_iter


_FIELDS = tuple(f.name for f in fields(SolverParams))
