"""Fig 1.1's data: the validation accuracy of the SMO iterate after m iterations."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import accuracy_score

from esmo.estimators.smo_classifier import SMOClassifier
from esmo.papers.thesis.timed_fits import total_iterations
from esmo.solver.params import SolverParams


def validation_curve_along_iterations(
    X_tr: Any,
    y_tr: Any,
    X_val: Any,
    y_val: Any,
    *,
    C: float,
    gamma: float,
    tol: float,
    checkpoints: Sequence[int],
    kernel: str = "rbf",
    shrinking: bool = SolverParams.shrinking,
) -> pd.DataFrame:
    """Fig 1.1: validation accuracy of the SMO iterate after m iterations, for each checkpoint m.

    The SMO path is deterministic and early stopping is off, so a fit with
    ``max_iter = m`` returns exactly the iterate the full run reaches after m
    iterations (with its bias); each checkpoint is one such fit. The curve ends
    at the first checkpoint where SMO converges (``converged`` is then True and
    ``n_iter`` the iterations to convergence); later checkpoints would repeat
    that point. ``shrinking`` is the solver's. Returns ``checkpoint, n_iter,
    val_accuracy, converged``.
    """
    marks = np.unique(np.asarray(checkpoints))
    if marks.size == 0 or marks[0] < 1 or not np.issubdtype(marks.dtype, np.integer):
        raise ValueError(
            f"checkpoints must be positive integers, got {list(checkpoints)!r}; e.g. "
            "np.unique(np.geomspace(1, 1e5, 30).astype(int))"
        )
    rows = []
    for m in marks.tolist():
        model = SMOClassifier(
            kernel=kernel, C=C, gamma=gamma, tol=tol, max_iter=m, shrinking=shrinking
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X_tr, y_tr)
        converged = not model.max_iter_reached_
        rows.append(
            {
                "checkpoint": m,
                "n_iter": total_iterations(model),
                "val_accuracy": float(accuracy_score(y_val, model.predict(X_val))),
                "converged": converged,
            }
        )
        if converged:
            break
    return pd.DataFrame(rows)
