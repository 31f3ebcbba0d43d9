"""The paper's baseline: one RBF SVM tuned by K-fold grid search, then refitted on all its rows.

Protocol sec 4: ``StratifiedKFold(K, shuffle=True)`` over the same grid and tie
rule as the ensemble, scored by mean validation accuracy, then a refit of the
chosen (C, gamma) on all rows. With ``early_stopped`` every cross-validation fit
stops early on the fold it is validated on (sec 7); the refit has no
validation data and runs to convergence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.model_selection import StratifiedKFold
from sklearn.utils.validation import check_X_y

from esmo.ensembles.grid import FitLog, SVMSettings, cross_validated_search, pick


@dataclass
class TunedSVM:
    """The refitted SVM, its (C, gamma), every grid point's CV score, the folds and the fit log."""

    model: Any
    C: float
    gamma: float
    scores: np.ndarray
    folds: list[tuple[np.ndarray, np.ndarray]]
    log: FitLog


def tune_single_svm(
    X: np.ndarray,
    y: np.ndarray,
    grid: np.ndarray,
    *,
    n_folds: int = 10,
    early_stopped: bool = False,
    grid_tie: str = "first",
    settings: SVMSettings | None = None,
    random_state: int = 0,
) -> TunedSVM:
    """K-fold grid search on ``(X, y)`` and the refit; every fit's cost is in ``log``."""
    X, y = check_X_y(X, y, dtype=np.float64, order="C")  # once: the fits skip the checks
    labels, counts = np.unique(y, return_counts=True)
    if labels.size != 2 or counts.min() < n_folds:
        found = dict(zip(labels.tolist(), counts.tolist(), strict=True))
        raise ValueError(
            f"{n_folds}-fold cross-validation needs {n_folds} rows of each of two classes, got "
            f"class counts {found}; use more rows or fewer folds."
        )
    settings = settings or SVMSettings()
    rng = np.random.default_rng(random_state)
    cv = StratifiedKFold(n_folds, shuffle=True, random_state=int(rng.integers(2**31 - 1)))
    folds = list(cv.split(np.zeros(y.size), y))
    log = FitLog()
    scores = cross_validated_search(X, y, grid, folds, settings, log, early_stopped=early_stopped)
    C, gamma = grid[pick(scores, grid_tie, rng)]
    model, _ = log.fit(settings.svm(C, gamma), X, y, stage="refit", subensemble=-1, index=0)
    return TunedSVM(model, float(C), float(gamma), scores, folds, log)
