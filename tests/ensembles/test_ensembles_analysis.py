"""The ensembles paper's cells and tables: seeds and splits, fit counts, slopes, claims, by hand."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from esmo.data import uci
from esmo.ensembles.cost_model import ensemble_fits
from esmo.ensembles.estimator import SVMEnsembleClassifier
from esmo.ensembles.grid import SVMSettings
from esmo.papers.ensembles import analysis as an
from esmo.papers.ensembles import cells as exp


def test_loglog_slope_of_a_power_law_ignores_the_first_points():
    n = np.array([100, 200, 400, 800, 1600])
    t = 3e-6 * n**1.7
    t[:2] = [5.0, 5.0]  # start-up costs: the paper leaves the first points out
    assert an.loglog_slope(n, t, last=3) == pytest.approx(1.7)
    assert an.loglog_slope(n[::-1], t[::-1], last=3) == pytest.approx(1.7)  # order-free


def _cells(rows):
    base = {col: 0 for col in exp.CELL_COLUMNS}
    return pd.DataFrame([{**base, **row} for row in rows])


def test_summary_std_is_the_sample_std_and_times_use_the_first_reps():
    rows = [
        dict(dataset="twonorm", method="svm", search="exhaustive", sampling="",
             train_proportion=np.nan, n_train=200, rep=r, accuracy=a, cpu_seconds=s)
        for r, a, s in [(0, 0.90, 1.0), (1, 0.92, 3.0), (2, 0.97, 100.0)]
    ]  # fmt: skip
    summary = an.summarise(_cells(rows), time_reps=2)
    row = summary.iloc[0]
    assert row["n_reps"] == 3
    assert row["accuracy_mean"] == pytest.approx(93.0)
    assert row["accuracy_std"] == pytest.approx(np.std([90, 92, 97], ddof=1))
    assert row["time_s"] == pytest.approx(2.0)


def _table():
    return pd.DataFrame(
        {
            "dataset": ["magic04"] * 4,
            "method": ["ensemble", "ensemble", "svm", "svm"],
            "setting": ["tp 0.01", "tp 0.05", "N 200", "N 1000"],
            "train_proportion": [0.01, 0.05, np.nan, np.nan],
            "n_train": [10000, 10000, 200, 1000],
            "n_reps": [2, 2, 2, 2],
            "accuracy_mean": [86.0, 84.0, 80.0, 90.0],
            "accuracy_std": [0.5, 0.4, 1.0, 0.3],
            "time_s": [10.0, 1000.0, 1.0, 100.0],
            "time_std": [0.5, 20.0, 0.1, 3.0],
        }
    )


def test_matched_time_interpolates_the_svm_in_log_time():
    matched = an.matched_time(_table())
    inside = matched.iloc[0]
    # t = 10 lies halfway between 1 and 100 in log time: the SVM scores 85 there
    assert inside["svm_accuracy_at_time"] == pytest.approx(85.0)
    assert inside["difference"] == pytest.approx(1.0) and bool(
        inside["ensemble_at_least_as_accurate"]
    )
    outside = matched.iloc[1]  # slower than every SVM measured
    assert math.isnan(outside["svm_accuracy_at_time"])


def test_best_time_ratio():
    best = an.best_time_ratio(_table()).iloc[0]
    assert best["ensemble_setting"] == "tp 0.01" and best["svm_setting"] == "N 1000"
    assert best["svm_over_ensemble_time"] == pytest.approx(10.0)


def test_variants_are_paired_on_the_repetitions_both_ran():
    def cell(search, rep, accuracy, cpu, search_cpu):
        return {"dataset": "twonorm", "method": "ensemble", "sampling": "structured",
                "train_proportion": 0.05, "n_train": 10000, "search": search, "rep": rep,
                "accuracy": accuracy, "cpu_seconds": cpu, "search_cpu_seconds": search_cpu,
                "n_iter": 1, "kernel_evaluations": 1}  # fmt: skip

    # exhaustive on five repetitions, halving on the first three; rep 4's exhaustive
    # accuracy is far off, and an unpaired comparison would read it in
    exhaustive = [0.978, 0.976, 0.980, 0.975, 0.900]
    cells = pd.DataFrame(
        [cell("exhaustive", r, a, 60.0, 50.0) for r, a in enumerate(exhaustive)]
        + [cell("halving", r, a - d, 15.0, 5.0)
           for r, (a, d) in enumerate(zip(exhaustive[:3], (0.001, 0.002, 0.003), strict=True))]
    )  # fmt: skip
    table = an.variants_table(cells, n_train=10000, datasets=["twonorm"], beta=0.995)
    ref = table[table["search"] == "exhaustive"].iloc[0]
    halving = table[table["search"] == "halving"].iloc[0]
    assert ref["n_reps"] == halving["n_reps"] == 3
    assert ref["accuracy_mean"] == pytest.approx(97.8)
    assert halving["difference"] == pytest.approx(-0.2)  # points: -0.1, -0.2, -0.3
    assert halving["difference_sd"] == pytest.approx(0.1)
    assert halving["difference_se"] == pytest.approx(-0.2 / (0.1 / math.sqrt(3)))
    assert halving["speed_up"] == pytest.approx(4.0) and halving["rho"] == pytest.approx(0.1)
    assert halving["score"] == pytest.approx(0.995 * 0.976 + 0.005 * 0.75)
    # another dataset, or no exhaustive cell to pair with: no rows
    assert an.variants_table(cells, n_train=10000, datasets=["magic04"]).empty
    only = cells[cells["search"] == "halving"]
    assert an.variants_table(only, n_train=10000, datasets=["twonorm"]).empty


def test_a_variant_cell_draws_the_exhaustive_cells_shares():
    assert exp.seed_name("ens-halving-tp0.05") == "ens-exhaustive-tp0.05"
    assert exp.seed_name("svm-early_stopped-n200") == "svm-exhaustive-n200"
    assert exp.seed_name("ens-exhaustive-tp0.2-n100") == "ens-exhaustive-tp0.2-n100"
    # the same random_state gives the same shares and folds, whatever the search
    split = exp.repetition_split("twonorm", 0, seed=0, n_train=300, n_test=50)
    models = [
        SVMEnsembleClassifier(n_subensembles=2, train_proportion=0.2, C_grid=[1.0, 4.0],
                              gamma_grid=[0.1], grid_search=search, random_state=7,
                              sh_min_samples=10).fit(split.X_train, split.y_train)
        for search in ("exhaustive", "halving", "early_stopped")
    ]  # fmt: skip
    for other in models[1:]:
        for a, b in zip(models[0].shares_, other.shares_, strict=True):
            np.testing.assert_array_equal(a, b)
        for a, b in zip(models[0].parts_, other.parts_, strict=True):
            np.testing.assert_array_equal(a, b)


def test_table1_beside_the_paper():
    paper = pd.DataFrame(
        {"key": ["table1.magic04.ensemble.tp0.01.accuracy_mean",
                 "table1.magic04.ensemble.tp0.01.accuracy_std",
                 "table1.magic04.ensemble.tp0.01.time_s",
                 "table1.magic04.ensemble.tp0.01.time_s_std"],
         "value": [82.82, 0.63, 6.4, 0.2]}
    )  # fmt: skip
    beside = an.table1_beside_paper(_table(), paper).iloc[0]
    se = math.sqrt(0.63**2 / 20 + 0.5**2 / 2)
    assert beside["difference"] == pytest.approx(86.0 - 82.82)
    assert beside["difference_se"] == pytest.approx((86.0 - 82.82) / se)
    assert beside["paper_wall_s"] == 6.4 and not beside["within_paper_std"]
    assert beside["paper_wall_s_std"] == 0.2 and beside["our_cpu_s_std"] == 0.5


def test_synthetic_splits_are_fresh_per_repetition_and_fixed_by_the_seed():
    a = exp.repetition_split("twonorm", 0, seed=0, n_train=100, n_test=50)
    b = exp.repetition_split("twonorm", 0, seed=0, n_train=100, n_test=50)
    c = exp.repetition_split("twonorm", 1, seed=0, n_train=100, n_test=50)
    np.testing.assert_array_equal(a.X_train, b.X_train)
    assert not np.allclose(a.X_train, c.X_train)
    assert a.X_test.shape == (50, 20) and (a.y_train == 1).sum() == 50


def test_uci_split_uses_the_rest_as_test_and_learns_the_encoding_on_training_rows():
    rng = np.random.default_rng(0)
    table = uci.Table(
        numeric=rng.normal(size=(60, 2)),
        categorical=rng.choice(["a", "b", "c"], size=(60, 1)),
        y=np.where(rng.random(60) < 0.5, 1, -1).astype(np.int8),
        numeric_names=("x1", "x2"),
        categorical_names=("c",),
    )
    split = exp.repetition_split("bank", 0, seed=0, n_train=40, n_test=0, table=table)
    assert split.X_train.shape[0] == 40 and split.X_test.shape[0] == 20
    np.testing.assert_allclose(split.X_train.mean(axis=0), 0.0, atol=1e-12)
    with pytest.raises(ValueError, match="leaves no test rows"):
        exp.repetition_split("bank", 0, seed=0, n_train=60, n_test=0, table=table)


def test_ci_smoke_cell_counts_its_fits_and_both_arms_share_the_search():
    """Protocol sec 5's CI smoke: the fit count 2 B GSize + B T, accuracy > 0.9 on Twonorm."""
    split = exp.repetition_split("twonorm", 0, seed=0, n_train=1000, n_test=2000)
    rows = exp.ensemble_cell(
        split, train_proportion=0.1, n_subensembles=2, grid_step=4, search="exhaustive",
        settings=SVMSettings(), random_state=0, arms=("structured", "subbagging"),
    )  # fmt: skip
    assert [r["sampling"] for r in rows] == ["structured", "subbagging"]
    for row in rows:
        assert row["n_fits"] == ensemble_fits(2, 10, 30) and row["accuracy"] > 0.9
    assert rows[0]["params"] == rows[1]["params"]
    assert rows[0]["search_n_iter"] == rows[1]["search_n_iter"]
    svm = exp.single_svm_cell(
        split, n_train=200, grid_step=4, n_folds=5, search="exhaustive",
        settings=SVMSettings(), random_state=0,
    )[0]  # fmt: skip
    assert svm["n_fits"] == 30 * 5 + 1 and svm["accuracy"] > 0.9


def test_table_1s_times_come_with_their_stds():
    """Every one of Table 1's 77 times has its std of 4 runs beside it, in the same unit."""
    path = (
        Path(__file__).resolve().parents[2] / "workflow" / "data" / "ensembles" / "paper_values.csv"
    )
    paper = pd.read_csv(path).set_index("key")
    times = [k for k in paper.index if k.endswith(".time_s")]
    assert len(times) == 77
    for key in times:
        std = paper.loc[f"{key}_std"]
        assert 0 < std["value"] < paper.loc[key, "value"] and std["unit"] == paper.loc[key, "unit"]
