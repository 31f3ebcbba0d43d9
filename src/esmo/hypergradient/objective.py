"""The k-fold smoothed validation objective as a function of ``u``, with its gradient and cost.

Each evaluation trains one SMO per fold, pools the folds' smoothed counts
(:mod:`esmo.hypergradient.validation`), and sums the folds' hypergradient
pieces (:mod:`esmo.hypergradient.fold`): the paper's k-fold scheme, with the
splits fixed for the whole run. The inner solves are exact (SMO to ``tol``),
early-stopped on each fold's validation part by the smoothed error itself, or
run to a tolerance that tightens with each evaluation (``tol_k = max(tol, 0.1
0.5^k)``, an inexact-solve schedule in the style of HOAG); with ``warm_start``
each fold's SMO starts from that fold's previous alphas.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from esmo.early_stopping import EarlyStopping
from esmo.hypergradient.fold import INNER_MAX_ITER, FoldFit, fit_fold, fold_gradient
from esmo.hypergradient.space import Space
from esmo.hypergradient.validation import hard_measures, smoothed_value
from esmo.solver.params import SolverParams
from esmo.solver.tracking import SMOOTHING_T

#: The early-stopping metrics the solver computes with its own sigmoid (sharpness SMOOTHING_T).
SMOOTHED_METRICS = frozenset({"smoothed_error", "f_measure"})

#: How each fold's SMO is solved inside the tuning loop.
INNER_SOLVES: tuple[str, ...] = ("exact", "early_stopped", "tol_schedule")


@dataclass(frozen=True)
class InnerSolve:
    """How the tuning loop's SMO fits are run (see the module docstring)."""

    mode: str = "exact"
    tol: float = SolverParams.tol
    max_iter: int = INNER_MAX_ITER
    early_stopping: EarlyStopping | None = None
    warm_start: bool = False
    kernel_dtype: type = np.float64
    shrinking: bool = SolverParams.shrinking
    solver: str = "fan"

    def tol_at(self, k: int) -> float:
        """SMO's tolerance at the ``k``-th evaluation (0-based)."""
        if self.mode == "tol_schedule":
            return max(self.tol, 0.1 * 0.5**k)
        return self.tol


@dataclass
class Evaluation:
    """One point's objective, gradient in ``u``, hard CV measures and cost."""

    u: np.ndarray
    value: float
    gradient: np.ndarray | None
    hard: dict[str, float]
    smo_seconds: float
    solve_seconds: float
    gradient_seconds: float
    smo_iterations: int
    iteration_limit_hits: int
    n_fits: int
    solve_methods: list[str] = field(default_factory=list)
    fits: list[FoldFit] = field(default_factory=list, repr=False)

    @property
    def seconds(self) -> float:
        return self.smo_seconds + self.solve_seconds + self.gradient_seconds


class CrossValidationObjective:
    """``f(u)`` and ``df/du`` of a smoothed validation function over fixed folds.

    ``sigmoid`` is ``scaled`` (direct or hyperparameter-bias method) or ``fitted``
    (Platt's minimisation method); see :func:`esmo.hypergradient.validation.smoothed_value`.
    """

    def __init__(
        self,
        X: np.ndarray,
        y: np.ndarray,
        folds: Sequence[tuple[np.ndarray, np.ndarray]],
        space: Space,
        *,
        objective: str = "error",
        sigmoid: str = "scaled",
        sharpness: float = SMOOTHING_T,
        negative_cost: float = 1.0,
        inner: InnerSolve | None = None,
    ) -> None:
        self.X, self.y, self.folds, self.space = X, y, list(folds), space
        self.objective, self.sharpness, self.negative_cost = objective, sharpness, negative_cost
        self.sigmoid = sigmoid
        self.inner = inner or InnerSolve()
        rule = self.inner.early_stopping
        if (
            self.inner.mode == "early_stopped"
            and sigmoid == "scaled"
            and rule is not None
            and rule.metric in SMOOTHED_METRICS
            and sharpness != SMOOTHING_T
        ):
            raise ValueError(
                f"The inner early stopping reads the solver's {rule.metric} with sharpness "
                f"{SMOOTHING_T} (esmo.solver.tracking.SMOOTHING_T), not this objective's "
                f"{sharpness}; keep sharpness={SMOOTHING_T} or stop on another metric."
            )
        self.n_evaluations = 0
        self._warm: list[np.ndarray | None] = [None] * len(self.folds)

    def warm_from(self, alphas: Sequence[np.ndarray]) -> None:
        """Start the next evaluation's fold fits from these alphas (one array per fold)."""
        if len(alphas) != len(self.folds):
            raise ValueError(
                f"warm_from needs one alpha array per fold ({len(self.folds)}), got {len(alphas)}."
            )
        self._warm = [np.asarray(alpha, dtype=np.float64) for alpha in alphas]

    def evaluate(
        self, u: np.ndarray, *, gradient: bool = True, keep_fits: bool = False
    ) -> Evaluation:
        """Train every fold at ``u``; the value, and the gradient when asked."""
        h = self.space.decode(np.asarray(u, dtype=np.float64))
        tol = self.inner.tol_at(self.n_evaluations)
        self.n_evaluations += 1
        fits = []
        for k, (train, val) in enumerate(self.folds):
            fit = fit_fold(
                self.X[train],
                self.y[train],
                self.X[val],
                self.y[val],
                h,
                tol=tol,
                max_iter=self.inner.max_iter,
                warm_alpha=self._warm[k] if self.inner.warm_start else None,
                early_stopping=self.inner.early_stopping
                if self.inner.mode == "early_stopped"
                else None,
                kernel_dtype=self.inner.kernel_dtype,
                shrinking=self.inner.shrinking,
                solver=self.inner.solver,
            )
            if self.inner.warm_start:
                self._warm[k] = fit.result.alpha
            fits.append(fit)
        start = time.process_time()
        outputs = [fit.outputs for fit in fits]
        labels = [fit.y_val for fit in fits]
        smoothed = smoothed_value(
            outputs,
            labels,
            objective=self.objective,
            sigmoid=self.sigmoid,
            theta0=h.theta0,
            sharpness=self.sharpness,
            negative_cost=self.negative_cost,
        )
        hard = hard_measures(outputs, labels, theta0=h.theta0, negative_cost=self.negative_cost)
        other = time.process_time() - start + sum(fit.other_seconds for fit in fits)
        solve_seconds, methods, grad_u = 0.0, [], None
        if gradient:
            partials = {"C_pos": 0.0, "C_neg": 0.0, "m_pos": 0.0, "m_neg": 0.0, "gamma": 0.0}
            for fit, g in zip(fits, smoothed.output_gradients, strict=True):
                piece = fold_gradient(fit, g, per_feature=self.space.kernel == "ard")
                for name in partials:
                    partials[name] = partials[name] + getattr(piece, name)
                solve_seconds += piece.solve_seconds
                other += piece.other_seconds
                methods.append(piece.solve_method)
            partials["theta0"] = smoothed.dtheta0
            grad_u = self.space.chain(h, partials)
        return Evaluation(
            u=np.array(u, dtype=np.float64),
            value=smoothed.value,
            gradient=grad_u,
            hard=hard,
            smo_seconds=sum(fit.smo_seconds for fit in fits),
            solve_seconds=solve_seconds,
            gradient_seconds=other,
            smo_iterations=sum(fit.result.n_iter for fit in fits),
            iteration_limit_hits=sum(bool(fit.result.max_iter_reached) for fit in fits),
            n_fits=len(fits),
            solve_methods=methods,
            fits=fits if keep_fits else [],
        )


def warm_up() -> None:
    """Load every compiled path a tuning run takes (cold, tracked, warm-started) on a tiny problem.

    numba loads each compiled function from its cache at the first call, a
    fraction of a second a run on a small dataset would otherwise be charged
    with; experiments that time runs call this first.
    """
    X = np.linspace(0.0, 1.0, 40).reshape(20, 2)
    y = np.where(np.arange(20) % 2 == 0, 1.0, -1.0)
    folds = [(np.arange(0, 12), np.arange(12, 20)), (np.arange(8, 20), np.arange(0, 8))]
    space = Space(("C", "gamma"), 2)
    rule = EarlyStopping(patience=1, tol=0.0, interval=1, metric="smoothed_error")
    for inner in (
        InnerSolve(),
        InnerSolve(mode="early_stopped", early_stopping=rule, warm_start=True),
    ):
        objective = CrossValidationObjective(X, y, folds, space, inner=inner)
        for u in (np.zeros(2), np.ones(2)):
            objective.evaluate(u)
