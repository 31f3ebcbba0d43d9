"""Many SMO fits of one training set, each gamma's kernel computed once for all its C values.

A model-selection search over (C, gamma) fits every configuration on the same
points and needs each fit's decision values on them (the description length)
or on held-out points (validation accuracy, test metrics). Those decision
values need kernel columns ``K(x, x_sv)``; computing them per fit would cost a
kernel evaluation per (point, support vector) and fit. Here the kernel of all
points against the training points is computed once per gamma (one BLAS
product) and every fit of that gamma reads its support-vector columns from it.
The SMO solver keeps its own on-demand float32 rows (its iteration path, like
LIBSVM's, depends on them); the decision values are float64, as
:func:`esmo.solver.smo.decision_values` computes them.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from esmo.solver import sparse
from esmo.solver.kernels import kernel_matrix
from esmo.solver.params import SolverParams
from esmo.solver.smo import run_smo

#: The hyperparameters a configuration may set; the rest come from the base solver parameters.
SEARCHABLE = ("C", "gamma", "tol")


@dataclass(frozen=True)
class GridFit:
    """One configuration's fit: its dual solution and its decision values.

    ``decision_train`` holds ``f(x_i)`` at the training points,
    ``decision_eval`` at the evaluation points (empty without them).
    ``feature_space_variance`` is ``mean K_ii - mean K_ij`` over the training
    points (it depends on gamma only). ``kernel_seconds`` is the time of the
    shared kernel charged to the first fit of its gamma (0 for the others), so
    the column sums to the search's kernel time.
    """

    index: int
    params: dict[str, float]
    alpha: np.ndarray
    rho: float
    n_iter: int
    max_iter_reached: bool
    decision_train: np.ndarray
    decision_eval: np.ndarray
    feature_space_variance: float
    fit_seconds: float
    kernel_seconds: float

    @property
    def n_support(self) -> int:
        return int(np.count_nonzero(self.alpha > 0))


def check_configurations(configs: Sequence[Mapping[str, Any]]) -> list[dict[str, float]]:
    """The configurations as plain dicts of floats; an unknown or missing key is an error."""
    out = []
    for k, config in enumerate(configs):
        unknown = sorted(set(config) - set(SEARCHABLE))
        if unknown:
            raise ValueError(
                f"configuration {k} sets {unknown}; a search can vary only {list(SEARCHABLE)}"
            )
        out.append({key: float(value) for key, value in config.items()})
    if not out:
        raise ValueError("no configurations to fit; give a non-empty grid or n_iter >= 1")
    return out


def iter_grid_fits(
    X: Any,
    y: np.ndarray,
    configs: Sequence[Mapping[str, Any]],
    base: SolverParams,
    *,
    X_eval: Any = None,
) -> Iterator[GridFit]:
    """Fit every configuration on ``(X, y)`` (labels in {-1, +1}), grouped by gamma.

    Yields one :class:`GridFit` per configuration, the configurations of one
    gamma together (in first-appearance order), each carrying its ``index`` in
    ``configs``. ``base`` gives the kernel, tolerance, iteration limit and
    cache; a configuration overrides ``C``, ``gamma`` and ``tol``.
    """
    configs = check_configurations(configs)
    if sparse.is_sparse(X):  # CSR stays sparse; the kernel below is dense all the same
        X = sparse.as_csr(X)
        X_eval = None if X_eval is None else sparse.csr_of(X_eval, "X_eval")
    else:
        X = np.ascontiguousarray(X, dtype=np.float64)
        X_eval = None if X_eval is None else np.asarray(X_eval, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    n = X.shape[0]
    X_all = X if X_eval is None else sparse.stack([X, X_eval])
    groups: dict[float, list[int]] = {}
    for k, config in enumerate(configs):
        groups.setdefault(config.get("gamma", base.gamma), []).append(k)
    for gamma, members in groups.items():
        start = time.perf_counter()
        K = kernel_matrix(X_all, X, base.kernel, gamma)
        feature_space_variance = float(np.mean(np.diag(K[:n])) - np.mean(K[:n]))
        kernel_seconds = time.perf_counter() - start
        for k in members:
            params = replace(base, **{**configs[k], "gamma": gamma})
            start = time.perf_counter()
            result, _ = run_smo(X, y, params)
            fit_seconds = time.perf_counter() - start
            sv = np.flatnonzero(result.alpha > 0)
            f = K[:, sv] @ (result.alpha[sv] * y[sv]) - result.rho
            yield GridFit(
                index=k,
                params={"C": params.C, "gamma": gamma, "tol": params.tol},
                alpha=result.alpha,
                rho=result.rho,
                n_iter=result.n_iter,
                max_iter_reached=result.max_iter_reached,
                decision_train=f[:n],
                decision_eval=f[n:],
                feature_space_variance=feature_space_variance,
                fit_seconds=fit_seconds,
                kernel_seconds=kernel_seconds,
            )
            kernel_seconds = 0.0
