"""Training jobs (esmo.papers.thesis.sweep_jobs) against separate sweeps per configuration and table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import DATASETS

from esmo.early_stopping import EarlyStopping
from esmo.papers.thesis.scoring import REFERENCE_ES_ID
from esmo.papers.thesis.sweep_jobs import COLUMNS, sweep_chunk, sweep_chunk_tables
from esmo.solver.sweep import sweep_early_stopping

X, Y = DATASETS["synthetic"]
FOLD = (X[:150], Y[:150], X[150:220], Y[150:220], X[220:], Y[220:])
SVM = pd.DataFrame(
    {"config_id": [7, 3], "C": [4.0, 300.0], "gamma": [0.5, 3.0], "tol": [1e-3, 0.01]}
)
ES = pd.DataFrame(
    {
        "es_id": [0, 1, 2],
        "patience": [1, 10, 400],
        "es_tol": [0.0, 1e-3, 0.0],
        "interval": [1, 3, 2],
    }
)
METRICS = ("accuracy", "hinge")


def _job():
    return sweep_chunk(
        FOLD, SVM, ES, metrics=METRICS, kernel="rbf", max_iter=100_000, dataset="syn", fold=2
    )


def test_job_rows_equal_separate_sweeps():
    table = _job()
    assert list(table.columns) == COLUMNS
    assert len(table) == len(SVM) * len(METRICS) * (1 + len(ES))
    keys = table[["metric", "es_id", "config_id"]]
    assert keys.equals(keys.sort_values(["metric", "es_id", "config_id"]).reset_index(drop=True))
    assert (
        (table.dataset == "syn").all() and (table.kernel == "rbf").all() and (table.fold == 2).all()
    )
    for svm in SVM.itertuples():
        for metric in METRICS:
            configs = [
                EarlyStopping(e.patience, e.es_tol, e.interval, metric) for e in ES.itertuples()
            ]
            sweep = sweep_early_stopping(
                *FOLD[:4], configs, C=svm.C, gamma=svm.gamma, tol=svm.tol, X_test=FOLD[4], y_test=FOLD[5]
            )  # fmt: skip
            rows = table[(table.config_id == svm.config_id) & (table.metric == metric)]
            ref = rows[rows.es_id == REFERENCE_ES_ID].iloc[0]
            assert ref.n_iter == sweep.reference["n_iter"] and not ref.stopped_early
            assert ref.val_accuracy == sweep.reference["val_accuracy"]
            assert ref.test_accuracy == sweep.reference["test_accuracy"]
            tracked = rows[rows.es_id >= 0].sort_values("es_id")
            np.testing.assert_array_equal(tracked.n_iter, sweep.stop_iter)
            np.testing.assert_array_equal(tracked.stopped_early, sweep.stopped_early)
            np.testing.assert_array_equal(tracked.val_accuracy, sweep.val_accuracy)
            np.testing.assert_array_equal(tracked.test_accuracy, sweep.test_accuracy)
    assert table.stopped_early.any() and not table.stopped_early.all()


def test_job_without_svm_configurations_is_an_error():
    with pytest.raises(ValueError, match="svm_configs is empty"):
        sweep_chunk(
            FOLD,
            SVM.iloc[:0],
            ES,
            metrics=METRICS,
            kernel="rbf",
            max_iter=10,
            dataset="syn",
            fold=0,
        )


def test_tables_tracked_together_equal_tables_tracked_alone():
    """E1's and E4's tables in one run per SVM configuration: each equals its own job's table."""
    interval = pd.DataFrame(
        {
            "es_id": [0, 1, 2, 3],
            "patience": [2, 1, 30, 5],
            "es_tol": [0.0, 1e-2, 1e-4, 0.0],
            "interval": [1, 7, 4, 64],
        }
    )
    tables = [(ES, METRICS), (interval, ("accuracy",))]
    kwargs = dict(kernel="rbf", max_iter=100_000, dataset="syn", fold=2)
    together = sweep_chunk_tables(FOLD, SVM, tables, **kwargs)
    assert len(together) == len(tables)
    for table, (es, metrics) in zip(together, tables, strict=True):
        alone = sweep_chunk(FOLD, SVM, es, metrics=metrics, **kwargs)
        pd.testing.assert_frame_equal(table, alone, check_exact=True)
        assert table.stopped_early.any()


def test_job_without_es_tables_is_an_error():
    with pytest.raises(ValueError, match="es_tables is empty"):
        sweep_chunk_tables(FOLD, SVM, [], kernel="rbf", max_iter=10, dataset="syn", fold=0)
