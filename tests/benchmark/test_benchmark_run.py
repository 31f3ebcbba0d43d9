"""One job's anytime records (docs/benchmark-protocol.md sec 4) and their collection."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import DATASETS
from sklearn.svm import SVC

from esmo.benchmark import run
from esmo.benchmark.data import Split

SETTINGS = {
    "space": {"log2_C": [-10, 10], "log2_gamma": [-10, 10]},
    "grid_step": 5,
}
BUDGETS = {
    "grid_svc": {"n_folds": 3},
    "halving_svc": {"n_candidates": 9, "factor": 3, "n_folds": 3},
    "esmo_sh_es": {
        "n_configs": 8,
        "holdout_fraction": 0.25,
        "early_stopping": {"patience": 109, "es_tol": 0.000229, "interval": 1},
    },
    "esmo_ensemble": {"n_subensembles": 2, "train_proportion": 0.2},
}


@pytest.fixture(scope="module")
def split():
    X, y = DATASETS["breast_cancer"]
    y = y.astype(np.int8)
    rng = np.random.default_rng(1)
    train, test = np.split(rng.permutation(y.size)[:260], [160])
    return Split(train, test, X[train], y[train], X[test], y[test])


@pytest.fixture(scope="module")
def records(split):
    return {
        method: run.run_method(split, "cancer", 4, method, {**SETTINGS, "budget": budget})
        for method, budget in BUDGETS.items()
    }


@pytest.mark.parametrize("method", sorted(BUDGETS))
def test_the_last_record_is_the_final_model_at_its_full_cost(method, records):
    table = records[method]
    assert list(table.columns) == run.RECORD_COLUMNS
    assert list(table["step"]) == list(range(len(table)))
    assert list(table["final"]) == [False] * (len(table) - 1) + [True]
    assert (table["dataset"].unique(), table["seed"].unique()) == (["cancer"], [4])
    assert np.all(table["cpu_seconds"].iloc[-1] >= table["cpu_seconds"])
    assert np.all(np.diff(table["cpu_seconds"]) >= 0)
    assert table["test_accuracy"].between(0, 1).all()


def test_a_record_per_incumbent_change(records):
    table = records["grid_svc"]
    changes = table[~table["final"]]
    params = list(zip(changes["C"], changes["gamma"], strict=True))
    assert len(set(params)) == len(params)  # each incumbent recorded once, when it appeared
    assert np.all(np.diff(changes["selection_score"]) > 0)


def test_an_incumbents_accuracy_is_its_refit_on_the_whole_training_part(records, split):
    table = records["halving_svc"]
    for _, row in table[~table["final"]].iterrows():
        model = SVC(C=row["C"], gamma=row["gamma"]).fit(split.X_train, split.y_train)
        assert row["test_accuracy"] == np.mean(model.predict(split.X_test) == split.y_test)


def test_an_ensemble_has_only_its_final_record(records):
    table = records["esmo_ensemble"]
    assert (
        len(table) == 1 and table["final"].all() and table[["C", "gamma"]].isna().to_numpy().all()
    )


def test_a_skipped_method_leaves_an_empty_table_and_collect_reads_it(records, tmp_path):
    paths = []
    for k, table in enumerate([records["grid_svc"], run.no_records(), records["esmo_sh_es"]]):
        paths.append(tmp_path / f"{k}.csv")
        table.to_csv(paths[-1], index=False)
    collected = run.collect_records(paths)
    assert list(collected.columns) == run.RECORD_COLUMNS
    assert list(collected["method"].unique()) == ["esmo_sh_es", "grid_svc"]  # sorted
    assert len(collected) == len(records["grid_svc"]) + len(records["esmo_sh_es"])
    assert run.collect_records(paths[1:2]).empty


def test_records_do_not_depend_on_the_run_but_for_the_costs(records, split):
    again = run.run_method(
        split, "cancer", 4, "esmo_sh_es", {**SETTINGS, "budget": BUDGETS["esmo_sh_es"]}
    )
    cost = ["cpu_seconds"]
    pd.testing.assert_frame_equal(
        again.drop(columns=cost), records["esmo_sh_es"].drop(columns=cost)
    )
