"""The one-run sweep held against separately run early-stopped fits, inside the workflow.

The thesis part's step beyond the thesis is that one SMO run per SVM
configuration gives every early-stopping configuration's outcome
(:mod:`esmo.papers.thesis.sweep_jobs`). The unit tests prove it on small
problems; this check repeats it on the run's own data: for a sample of one
sweep job's configurations, each early-stopping configuration is fitted on its
own (one :func:`esmo.solver.smo.run_smo` per pair, tracking that configuration
alone) and its stop, flag and accuracies are set beside the sweep's row.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from esmo.early_stopping import EarlyStopping, EarlyStoppingSet
from esmo.papers.common.reproduction import CLAIM_COLUMNS
from esmo.papers.common.tables import require_columns
from esmo.solver.params import SolverParams
from esmo.solver.smo import run_smo

#: The outcome columns compared, each as ``sweep_<c>`` and ``separate_<c>``.
COMPARED = ["n_iter", "stopped_early", "val_accuracy", "test_accuracy"]


def separate_fits(
    fold_data: tuple[np.ndarray, ...],
    svm_configs: pd.DataFrame,
    es_configs: pd.DataFrame,
    *,
    metric: str,
    kernel: str,
    max_iter: int,
    cache_size_mb: float,
    shrinking: bool,
    rule: str = EarlyStopping.rule,
) -> pd.DataFrame:
    """Every (SVM configuration, ES configuration) pair fitted on its own, as the sweep tracks it.

    The evaluation is the sweep's (``incremental``), so both read the same
    decision values. Columns: ``config_id, es_id, metric`` and :data:`COMPARED`,
    plus the separate fit's ``seconds``.
    """
    require_columns(svm_configs, ["config_id", "C", "gamma", "tol"], "svm_configs")
    require_columns(es_configs, ["es_id", "patience", "es_tol", "interval"], "es_configs")
    X_tr, y_tr, X_val, y_val, X_te, y_te = fold_data
    rows = []
    for svm in svm_configs.itertuples(index=False):
        params = SolverParams(
            kernel=kernel,
            C=float(svm.C),
            gamma=float(svm.gamma) if kernel == "rbf" else 1.0,
            tol=float(svm.tol),
            max_iter=max_iter,
            cache_size_mb=cache_size_mb,
            shrinking=shrinking,
        )
        for es in es_configs.itertuples(index=False):
            config = EarlyStopping(
                patience=int(es.patience),
                tol=float(es.es_tol),
                interval=int(es.interval),
                metric=metric,
                rule=rule,
            )
            start = time.perf_counter()
            result, track = run_smo(
                X_tr,
                y_tr,
                params,
                configs=EarlyStoppingSet.of([config]),
                X_val=X_val,
                y_val=y_val,
                X_test=X_te,
                y_test=y_te,
                evaluation="incremental",
            )
            seconds = time.perf_counter() - start
            stopped = bool(result.stopped_early)
            rows.append(
                {
                    "config_id": int(svm.config_id),
                    "es_id": int(es.es_id),
                    "metric": metric,
                    "n_iter": int(result.n_iter),
                    "stopped_early": stopped,
                    "val_accuracy": float(track.val_accuracy[0]) if stopped else np.nan,
                    "test_accuracy": float(track.test_accuracy[0]) if stopped else np.nan,
                    "seconds": seconds,
                }
            )
    return pd.DataFrame(rows)


def compare_with_sweep(sweep: pd.DataFrame, separate: pd.DataFrame) -> pd.DataFrame:
    """The sweep's rows beside the separate fits', pair by pair, with ``equal`` per pair.

    A configuration that never stopped ends with the reference run in both: its
    accuracies are the converged model's, which the sweep's table records and a
    separate fit need not repeat, so they are compared only for stopped pairs.
    """
    keys = ["config_id", "es_id", "metric"]
    require_columns(sweep, [*keys, *COMPARED], "sweep")
    require_columns(separate, [*keys, *COMPARED], "separate")
    joined = separate.merge(
        sweep[[*keys, *COMPARED]], on=keys, how="left", suffixes=("_separate", "_sweep")
    )
    missing = joined["n_iter_sweep"].isna()
    if missing.any():
        raise ValueError(
            f"the sweep table lacks {int(missing.sum())} of the pairs fitted separately; "
            "pass the sweep job the fits were sampled from"
        )
    stopped = joined["stopped_early_separate"].astype(bool)
    equal = (joined["n_iter_separate"] == joined["n_iter_sweep"]) & (
        stopped == joined["stopped_early_sweep"].astype(bool)
    )
    for c in ("val_accuracy", "test_accuracy"):
        equal &= ~stopped | (joined[f"{c}_separate"] == joined[f"{c}_sweep"])
    return joined.assign(equal=equal)


def sweep_claim(comparison: pd.DataFrame, where: str) -> pd.DataFrame:
    """The check as a claim of the thesis part's step beyond: every pair equal."""
    require_columns(comparison, ["equal", "stopped_early_separate", "seconds"], "comparison")
    n, equal = len(comparison), int(comparison["equal"].sum())
    stopped = int(comparison["stopped_early_separate"].astype(bool).sum())
    return pd.DataFrame(
        [
            {
                "claim": "beyond.sweep_equals_separate_fits",
                "section": "beyond the thesis (docs/thesis-protocol.md sec 5)",
                "statement": "one SMO run per SVM configuration gives each early-stopping "
                "configuration's stop, flag and accuracies, as its own fit does",
                "measure": f"{equal} of {n} pairs equal ({stopped} stopped early) on {where}; "
                f"the separate fits took {comparison['seconds'].sum():.1f} s",
                "holds": equal == n,
            }
        ],
        columns=CLAIM_COLUMNS[:5],
    )
