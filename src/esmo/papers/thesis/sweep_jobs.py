"""One training job of the early-stopping sweeps (E1, E2, appendix B, E4).

Early stopping never changes the SMO path, only where it ends (protocol §5), so
each SVM configuration is trained once to convergence while every
early-stopping configuration, for every objective, is tracked inside that run;
configurations of several tables (E1's and E4's) can share the run
(:func:`sweep_chunk_tables`). The job's output is a tidy table per ES table
that the scoring module aggregates.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from esmo.early_stopping import EarlyStopping, EarlyStoppingSet
from esmo.papers.thesis.scoring import REFERENCE_ES_ID
from esmo.solver.params import SolverParams
from esmo.solver.sweep import SweepResult, sweep_early_stopping

#: Columns of a training-job table, in order (docs/architecture.md).
COLUMNS = [
    "dataset",
    "kernel",
    "metric",
    "fold",
    "config_id",
    "es_id",
    "n_iter",
    "stopped_early",
    "max_iter_reached",
    "val_accuracy",
    "test_accuracy",
]
_OUTCOME_COLUMNS = (
    "config_id",
    "n_iter",
    "stopped_early",
    "max_iter_reached",
    "val_accuracy",
    "test_accuracy",
)


def _after_reference(value, tracked: np.ndarray, n_ref: int) -> np.ndarray:
    """A column of one job block: the reference run's ``value`` ``n_ref`` times, then ``tracked``."""
    return np.concatenate([np.full(n_ref, value), tracked])


def config_chunk(svm_configs: pd.DataFrame, chunk: int, chunk_size: int) -> pd.DataFrame:
    """The ``chunk``-th block of ``chunk_size`` SVM configurations, in id order."""
    if chunk < 0 or chunk_size < 1:
        raise ValueError(f"chunk must be >= 0 and chunk_size >= 1, got {chunk}, {chunk_size}")
    ordered = svm_configs.sort_values("config_id", kind="stable")
    block = ordered.iloc[chunk * chunk_size : (chunk + 1) * chunk_size]
    if block.empty:
        raise ValueError(
            f"chunk {chunk} of size {chunk_size} is empty: there are only "
            f"{len(ordered)} SVM configurations"
        )
    return block


def n_chunks(n_configs: int, chunk_size: int) -> int:
    """How many chunks of ``chunk_size`` cover ``n_configs`` configurations."""
    return max(1, -(-n_configs // chunk_size))


def sweep_chunk(
    fold_data: tuple[np.ndarray, ...],
    svm_configs: pd.DataFrame,
    es_configs: pd.DataFrame,
    *,
    metrics: Sequence[str],
    kernel: str,
    max_iter: int,
    dataset: str,
    fold: int,
    cache_size_mb: float = SolverParams.cache_size_mb,
    shrinking: bool = SolverParams.shrinking,
    rule: str = EarlyStopping.rule,
) -> pd.DataFrame:
    """Train each SVM configuration once and track every ES configuration.

    ``fold_data`` is ``(X_train, y_train, X_val, y_val, X_test, y_test)``;
    ``es_configs`` has ``es_id, patience, es_tol, interval``; every
    configuration is tracked once per objective in ``metrics``, under the
    stopping ``rule`` (:data:`esmo.early_stopping.RULES`); the solver shrinks
    with ``shrinking`` (the workflow's ``solver.shrinking``).
    """
    (table,) = sweep_chunk_tables(
        fold_data,
        svm_configs,
        [(es_configs, metrics)],
        kernel=kernel,
        max_iter=max_iter,
        dataset=dataset,
        fold=fold,
        cache_size_mb=cache_size_mb,
        shrinking=shrinking,
        rule=rule,
    )
    return table


def sweep_chunk_tables(
    fold_data: tuple[np.ndarray, ...],
    svm_configs: pd.DataFrame,
    es_tables: Sequence[tuple[pd.DataFrame, Sequence[str]]],
    *,
    kernel: str,
    max_iter: int,
    dataset: str,
    fold: int,
    cache_size_mb: float = SolverParams.cache_size_mb,
    shrinking: bool = SolverParams.shrinking,
    rule: str = EarlyStopping.rule,
) -> list[pd.DataFrame]:
    """:func:`sweep_chunk` for several ES tables at once: each SVM configuration trained once.

    ``es_tables`` holds ``(es_configs, metrics)`` pairs; the result holds, in the
    same order, the table :func:`sweep_chunk` returns for each pair (every
    configuration under the stopping ``rule``). The SMO path
    does not depend on what is tracked (early stopping only decides where a fit
    ends, and each configuration reads its own state), so one run tracking every
    table's configurations gives each table exactly its own run's rows, for one
    training instead of one per table: E1's and E4's tables share their RBF runs.
    """
    if svm_configs.empty:
        raise ValueError(
            "svm_configs is empty; a training job needs at least one SVM configuration."
        )
    if not es_tables:
        raise ValueError("es_tables is empty; pass at least one (es_configs, metrics) pair.")
    X_tr, y_tr, X_val, y_val, X_te, y_te = fold_data
    per_table = [
        pd.concat([es.assign(metric=metric) for metric in metrics], ignore_index=True)
        for es, metrics in es_tables
    ]
    # every table's configurations in one set; table t owns rows [bounds[t], bounds[t + 1])
    tracked = pd.concat(per_table, ignore_index=True)
    bounds = np.cumsum([0, *(len(t) for t in per_table)])
    configs = EarlyStoppingSet.of(
        tracked[["patience", "es_tol", "interval", "metric"]].assign(rule=rule)
    )
    results = []
    for row in svm_configs.itertuples(index=False):
        gamma = float(row.gamma) if kernel == "rbf" else 1.0
        result = sweep_early_stopping(
            X_tr,
            y_tr,
            X_val,
            y_val,
            configs,
            kernel=kernel,
            C=float(row.C),
            gamma=gamma,
            tol=float(row.tol),
            max_iter=max_iter,
            cache_size_mb=cache_size_mb,
            shrinking=shrinking,
            X_test=X_te,
            y_test=y_te,
            # one reading of the decision values for every interval, as E4 compares them:
            # "auto" would evaluate the longest afresh, in float64 rather than the rows'
            # float32, and classify a few points near the boundary differently
            evaluation="incremental",
        )
        results.append((int(row.config_id), result))
    return [
        _job_table(
            results,
            slice(bounds[t], bounds[t + 1]),
            per_table[t],
            list(metrics),
            dataset=dataset,
            kernel=kernel,
            fold=fold,
        )
        for t, (_, metrics) in enumerate(es_tables)
    ]


def _job_table(
    results: list[tuple[int, SweepResult]],
    rows: slice,
    tracked: pd.DataFrame,
    metrics: list[str],
    *,
    dataset: str,
    kernel: str,
    fold: int,
) -> pd.DataFrame:
    """One ES table's training-job table from the sweeps' configurations ``rows``.

    Per SVM configuration: one reference row per metric, then one row per tracked
    configuration of ``tracked``; columns gathered as arrays, one table at the end.
    """
    metric_col = np.concatenate([np.asarray(metrics, dtype=object), tracked["metric"].to_numpy()])
    es_id_col = np.concatenate(
        [np.full(len(metrics), REFERENCE_ES_ID, dtype=np.int64), tracked["es_id"].to_numpy()]
    )
    n_ref, n_tracked = len(metrics), len(tracked)
    parts: dict[str, list] = {name: [] for name in _OUTCOME_COLUMNS}
    for config_id, result in results:
        ref = result.reference
        stopped_early = result.stopped_early[rows]
        columns = {
            "config_id": np.full(n_ref + n_tracked, config_id, dtype=np.int64),
            "n_iter": _after_reference(ref["n_iter"], result.stop_iter[rows], n_ref),
            "stopped_early": _after_reference(False, stopped_early, n_ref),
            "max_iter_reached": _after_reference(
                ref["max_iter_reached"], ref["max_iter_reached"] & ~stopped_early, n_ref
            ),
            "val_accuracy": _after_reference(ref["val_accuracy"], result.val_accuracy[rows], n_ref),
            "test_accuracy": _after_reference(
                ref["test_accuracy"], result.test_accuracy[rows], n_ref
            ),
        }
        for name, values in columns.items():
            parts[name].append(values)
    n_svm = len(parts["config_id"])
    table = pd.DataFrame(
        {
            "dataset": dataset,
            "kernel": kernel,
            "metric": np.tile(metric_col, n_svm),
            "fold": fold,
            "es_id": np.tile(es_id_col, n_svm),
            **{name: np.concatenate(values) for name, values in parts.items()},
        }
    )
    table = table.astype(
        {"n_iter": "int64", "stopped_early": "bool", "max_iter_reached": "bool", "es_id": "int64"}
    )
    return (
        table[COLUMNS]
        .sort_values(["metric", "es_id", "config_id"], kind="stable")
        .reset_index(drop=True)
    )
