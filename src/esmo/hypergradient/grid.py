"""The Grid baseline: every (C, gamma) of a log2 grid scored by the pooled k-fold error.

The paper's 15 x 15 grid (note, section 4: log2 C in [-5, 15], log2 gamma in
[-15, 3]) on the same fixed folds as the gradient method, so the comparison is
paired. Each cell also records the smoothed error the gradient method
minimises (for fig 1's contours) and its cost.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from esmo.hypergradient.fold import INNER_MAX_ITER
from esmo.hypergradient.objective import CrossValidationObjective, InnerSolve
from esmo.hypergradient.space import Space
from esmo.solver.params import SolverParams
from esmo.solver.smo import blas_controller
from esmo.solver.tracking import SMOOTHING_T

#: The paper's grid: 15 values per axis, uniform in log2 (note, section 4).
LOG2_C_GRID = np.linspace(-5.0, 15.0, 15)
LOG2_GAMMA_GRID = np.linspace(-15.0, 3.0, 15)


def grid_search_cv(
    X: np.ndarray,
    y: np.ndarray,
    folds: Sequence[tuple[np.ndarray, np.ndarray]],
    log2_C: Sequence[float] = LOG2_C_GRID,
    log2_gamma: Sequence[float] = LOG2_GAMMA_GRID,
    *,
    tol: float = SolverParams.tol,
    max_iter: int = INNER_MAX_ITER,
    sharpness: float = SMOOTHING_T,
    shrinking: bool = SolverParams.shrinking,
) -> dict[str, np.ndarray]:
    """Score every cell (C outer, gamma inner) on ``folds``; labels in {-1, +1}.

    Returns one entry per cell, like ``cv_results_``: ``log2_C``, ``log2_gamma``,
    ``cv_error`` (hard, pooled), ``smoothed_error`` (the direct method's),
    ``smo_seconds``, ``seconds`` (CPU) and ``smo_iterations``.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    space = Space(("C", "gamma"), X.shape[1])
    inner = InnerSolve(tol=tol, max_iter=max_iter, shrinking=shrinking)
    objective = CrossValidationObjective(X, y, folds, space, sharpness=sharpness, inner=inner)
    rows = []
    with blas_controller().limit(limits=1, user_api="blas"):  # CPU seconds as GradientSearchCV's
        for c in log2_C:
            for g in log2_gamma:
                ev = objective.evaluate(np.array([c, g]), gradient=False)
                rows.append(
                    (
                        c,
                        g,
                        ev.hard["error"],
                        ev.value,
                        ev.smo_seconds,
                        ev.seconds,
                        ev.smo_iterations,
                    )
                )
    names = (
        "log2_C",
        "log2_gamma",
        "cv_error",
        "smoothed_error",
        "smo_seconds",
        "seconds",
        "smo_iterations",
    )
    return {name: np.array([row[k] for row in rows]) for k, name in enumerate(names)}


def best_grid_cell(table: Mapping[str, Any]) -> dict[str, float]:
    """The cell Grid picks: the least ``cv_error``; ties go to the smaller C, then the smaller gamma."""
    error = np.asarray(table["cv_error"], dtype=np.float64)
    log2_C = np.asarray(table["log2_C"], dtype=np.float64)
    log2_gamma = np.asarray(table["log2_gamma"], dtype=np.float64)
    best = np.lexsort((log2_gamma, log2_C, error))[0]
    return {name: np.asarray(column)[best].item() for name, column in table.items()}
