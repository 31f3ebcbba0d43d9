"""k-fold cross-validated grid search through the same fits as :class:`~esmo.mdl.search.MDLSearch`.

The baseline MDL is measured against (the paper's sec 4.2): every candidate is
fitted on k - 1 folds and scored by accuracy on the held-out fold, the mean
over folds selects, ties going to the first candidate (``GridSearchCV``'s
rule). Folds are ``StratifiedKFold(k)`` without shuffling, what
``GridSearchCV(cv=k)`` uses for a classifier. Fitting through
:func:`~esmo.mdl.grid_fits.iter_grid_fits`, like MDL, makes the two
costs comparable: the same solver, the same kernel reuse, the same clock.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from sklearn.model_selection import StratifiedKFold

from esmo.mdl.grid_fits import iter_grid_fits
from esmo.solver.params import SolverParams


def grid_cv(
    X: np.ndarray,
    y: np.ndarray,
    candidates: Sequence[Mapping[str, Any]],
    base: SolverParams,
    *,
    n_splits: int = 4,
) -> dict[str, Any]:
    """Mean k-fold accuracy of every candidate (labels in {-1, +1}) and the selected one.

    Returns a dict of arrays like ``GridSearchCV.cv_results_``
    (``split{k}_test_score``, ``mean_test_score``, ``rank_test_score``), the
    summed ``n_iter`` and ``fit_time`` over folds, and ``best_index`` and
    ``cost`` (fits, SMO iterations, seconds; the refit on all of ``X`` is the
    caller's).
    """
    y = np.asarray(y, dtype=np.float64)
    if np.unique(y).size != 2:
        raise ValueError("cross-validation needs both classes in y ({-1, +1})")
    start = time.perf_counter()
    n_cand = len(candidates)
    scores = np.empty((n_splits, n_cand))
    n_iter = np.zeros(n_cand, dtype=np.int64)
    fit_time = np.zeros(n_cand)
    kernel_time = 0.0
    folds = StratifiedKFold(n_splits).split(X, y)
    for s, (train, held_out) in enumerate(folds):
        for fit in iter_grid_fits(X[train], y[train], candidates, base, X_eval=X[held_out]):
            predicted = np.where(fit.decision_eval > 0, 1.0, -1.0)
            scores[s, fit.index] = np.mean(predicted == y[held_out])
            n_iter[fit.index] += fit.n_iter
            fit_time[fit.index] += fit.fit_seconds
            kernel_time += fit.kernel_seconds
    mean = scores.mean(axis=0)
    rank = np.searchsorted(np.sort(-mean), -mean, side="left") + 1
    result: dict[str, Any] = {f"split{s}_test_score": scores[s] for s in range(n_splits)}
    result |= {
        "mean_test_score": mean,
        "rank_test_score": rank,
        "n_iter": n_iter,
        "fit_time": fit_time,
        "best_index": int(np.argmax(mean)),  # the first of equal maxima
        "cost": {
            "n_fits": n_splits * n_cand,
            "n_iter": int(n_iter.sum()),
            "fit_seconds": float(fit_time.sum()),
            "kernel_seconds": kernel_time,
            "seconds": time.perf_counter() - start,
        },
    }
    return result
