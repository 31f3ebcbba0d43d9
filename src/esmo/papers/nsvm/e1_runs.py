"""Kernel Pegasos inside the thesis's random search (docs/nsvm-protocol.md, sec 7): one E1 fold.

Per SVM configuration ``(C, gamma)`` of the thesis's sampled RBF table, two
solvers each train once while every early-stopping configuration is tracked:
esmo's SMO to convergence (the thesis's E1 fit) and kernel Pegasos for
``epochs`` passes (``T = epochs * m`` steps at ``lam = 1/(C m)``, the same
C-SVM without the bias). For a fixed seed, stopping changes neither path, so
each run gives every configuration's stop exactly (:func:`sweep_early_stopping`,
:func:`sweep_pegasos`). Rows with ``es_id = -1`` are the runs without early
stopping.

The cost is kernel evaluations: the kernel rows a fit computes (SMO's cache
misses, Pegasos's violations) times their training columns, plus their
validation columns when the fit tracks early stopping. Test columns are the
experiment's bookkeeping, not a cost a user pays, so they are not counted.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from esmo.early_stopping import EarlyStoppingSet
from esmo.papers.thesis.scoring import REFERENCE_ES_ID
from esmo.solver.params import SolverParams
from esmo.solver.pegasos import sweep_pegasos
from esmo.solver.sweep import SweepResult, sweep_early_stopping

#: The solvers compared, and the columns of a fold's table.
SOLVERS = ("smo", "pegasos")
COLUMNS = [
    "solver",
    "config_id",
    "es_id",
    "n_iter",
    "stopped_early",
    "val_accuracy",
    "test_accuracy",
    "kernel_rows",
    "kernel_evaluations",
]


def pegasos_seed(seed: int, fold: int, config_id: int) -> int:
    """The seed of one Pegasos run: fixed by the experiment's seed, the fold and the configuration,
    so a fold's table does not depend on which other folds or configurations run."""
    return int(np.random.SeedSequence([seed, fold, config_id]).generate_state(1)[0])


def fold_table(
    fold_data: tuple[np.ndarray, ...],
    svm_configs: pd.DataFrame,
    es_configs: pd.DataFrame,
    *,
    epochs: float,
    seed: int,
    fold: int,
    rule: str,
    max_iter: int = SolverParams.max_iter,
    cache_size_mb: float = SolverParams.cache_size_mb,
    shrinking: bool = SolverParams.shrinking,
) -> pd.DataFrame:
    """Both solvers on one fold: one row per solver, SVM configuration and ``es_id`` (-1: none).

    ``fold_data`` is ``(X_train, y_train, X_val, y_val, X_test, y_test)`` with labels
    in {-1, +1}; ``svm_configs`` has ``config_id, C, gamma, tol`` (``tol`` is SMO's);
    ``es_configs`` has ``es_id, patience, es_tol, interval``, each read on validation
    accuracy under the stopping ``rule``; SMO shrinks with ``shrinking``. SMO's reference row counts the rows of its
    tracked run, which equal a plain fit's when every row stays cached (the
    workflow's cache holds the E1 datasets whole).
    """
    if epochs <= 0:
        raise ValueError(f"epochs must be positive (T = epochs * m steps), got {epochs!r}.")
    X_tr, y_tr, X_val, y_val, X_te, y_te = fold_data
    configs = EarlyStoppingSet.of(es_configs[["patience", "es_tol", "interval"]].assign(rule=rule))
    m = len(y_tr)
    n_steps = max(1, round(epochs * m))
    parts = []
    for row in svm_configs.itertuples(index=False):
        C, gamma = float(row.C), float(row.gamma)
        smo = sweep_early_stopping(
            X_tr, y_tr, X_val, y_val, configs, X_test=X_te, y_test=y_te, kernel="rbf",
            C=C, gamma=gamma, tol=float(row.tol), max_iter=max_iter, cache_size_mb=cache_size_mb,
            shrinking=shrinking,
        )  # fmt: skip
        pegasos = sweep_pegasos(
            X_tr, y_tr, X_val, y_val, configs, X_test=X_te, y_test=y_te, lam=1.0 / (C * m),
            n_steps=n_steps, gamma=gamma, random_state=pegasos_seed(seed, fold, row.config_id),
        )  # fmt: skip
        for solver, sweep in zip(SOLVERS, (smo, pegasos), strict=True):
            parts.append(
                _rows(solver, int(row.config_id), sweep, es_configs["es_id"], m, len(y_val))
            )
    return pd.concat(parts, ignore_index=True)[COLUMNS]


def _rows(
    solver: str, config_id: int, sweep: SweepResult, es_ids: pd.Series, m: int, n_val: int
) -> pd.DataFrame:
    """One run's rows: the reference (no early stopping), then each configuration's stop."""
    ref = sweep.reference

    def column(key: str, tracked: np.ndarray) -> np.ndarray:
        return np.concatenate([[ref[key]], tracked])

    es_id = np.concatenate([[REFERENCE_ES_ID], es_ids.to_numpy(dtype=np.int64)])
    rows = column("kernel_rows", sweep.stop_kernel_rows).astype(np.int64)
    return pd.DataFrame(
        {
            "solver": solver,
            "config_id": config_id,
            "es_id": es_id,
            "n_iter": column("n_iter", sweep.stop_iter).astype(np.int64),
            "stopped_early": np.concatenate([[False], sweep.stopped_early]),
            "val_accuracy": column("val_accuracy", sweep.val_accuracy),
            "test_accuracy": column("test_accuracy", sweep.test_accuracy),
            "kernel_rows": rows,
            # a tracking fit's rows carry the validation columns too
            "kernel_evaluations": rows * np.where(es_id == REFERENCE_ES_ID, m, m + n_val),
        }
    )
