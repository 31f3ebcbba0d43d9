"""One cell of the gradient paper's experiments: what it tunes, how it scores, that it is seeded."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification
from sklearn.svm import SVC

from esmo.papers.gradient import cells as exp
from esmo.papers.gradient.data import make_problem

SETTINGS = {
    "grid": {
        "log2_C": {"start": -5, "stop": 15, "num": 3},
        "log2_gamma": {"start": -15, "stop": 3, "num": 3},
    },
    "smo": {"tol": 1e-3, "max_iter": 1_000_000, "shrinking": False},
    "tuner": {"max_fun": 6, "min_iter": 3, "rtol": 1e-3, "sharpness": 10.0},
    "ard": {"max_fun": 4},
    "negative_cost": 0.01,
    "contour_test_rows": 100,
}
TIMING = ["cpu_seconds", "smo_seconds", "solve_seconds", "rest_seconds", "refit_seconds"]


@pytest.fixture(scope="module")
def problem():
    X, y = make_classification(400, 6, n_informative=4, weights=[0.7], random_state=0)
    return make_problem("splice", X, np.where(y == 1, 1, -1).astype(np.int8), 150, seed=1)


def test_hard_measures_match_the_notes_counts():
    y = np.array([1, 1, 1, -1, -1, -1, -1, -1])
    pred = np.array([1, 1, -1, 1, -1, -1, -1, -1])
    tp, fp, n_pos, n_neg, lam = 2, 1, 3, 5, 0.1
    m = exp.hard_measures(y, pred, lam)
    assert m["error"] == pytest.approx(100 * (n_pos - tp + fp) / 8)
    assert m["f_measure"] == pytest.approx(2 * tp / (n_pos + tp + fp))
    assert m["weighted_error"] == pytest.approx(
        100 * (n_pos - tp + lam * fp) / (n_pos + lam * n_neg)
    )


def test_grid_cell_picks_the_least_cv_error_and_scores_like_an_svc(problem):
    row, detail = exp.grid_cell(problem, SETTINGS)
    assert row["nf"] == len(detail) == 9 and not row["stopped"]
    assert row["cv_error"] == pytest.approx(100 * detail["cv_error"].min())
    # oracle: scikit-learn's SVC at the picked point, on the same scaled rows
    svc = SVC(C=2 ** row["log2_C"], gamma=2 ** row["log2_gamma"], tol=1e-6).fit(
        problem.X_train, problem.y_train
    )
    reference = 100 * np.mean(svc.predict(problem.X_test) != problem.y_test)
    assert row["test_error"] == pytest.approx(reference, abs=1.0)
    assert row["smo_seconds"] <= row["cpu_seconds"]


def test_grid_time_limit_stops_after_the_first_row(problem):
    row, detail = exp.grid_cell(problem, SETTINGS, time_limit_s=0.0)
    assert row["stopped"] and row["nf"] == 3 and math.isnan(row["test_error"])
    assert row["termination"] == "time limit"


def test_grad_cell_is_seeded_by_the_cell_and_its_test_error_is_an_svcs(problem):
    row, history = exp.run_cell(problem, "grad", SETTINGS)
    again, _ = exp.run_cell(problem, "grad", SETTINGS)
    pd.testing.assert_frame_equal(row.drop(columns=TIMING), again.drop(columns=TIMING))
    r = row.iloc[0]
    assert 1 <= r["nf"] <= SETTINGS["tuner"]["max_fun"] and len(history) == r["nf"]
    assert history["log2_C"].iloc[0] == 0 and history["log2_gamma"].iloc[0] == 0  # C = gamma = 1
    svc = SVC(C=2 ** r["log2_C"], gamma=2 ** r["log2_gamma"], tol=1e-6).fit(
        problem.X_train, problem.y_train
    )
    assert r["test_error"] == pytest.approx(
        100 * np.mean(svc.predict(problem.X_test) != problem.y_test), abs=1.0
    )


def test_grad_ard_starts_at_grads_optimum_with_one_gamma_per_feature(problem):
    grad, _ = exp.run_cell(problem, "grad", SETTINGS)
    row, history = exp.run_cell(problem, "grad_ard", SETTINGS, grad_row=grad.iloc[0])
    assert history["log2_C"].iloc[0] == pytest.approx(grad["log2_C"].iloc[0])
    assert history["log2_gamma"].iloc[0] == pytest.approx(grad["log2_gamma"].iloc[0])
    assert row["n_hyperparameters"].iloc[0] == 1 + problem.X_train.shape[1]
    with pytest.raises(ValueError, match="pass grad_row"):
        exp.run_cell(problem, "grad_ard", SETTINGS)


def test_table3_methods_tune_what_the_note_says(problem):
    m2, _ = exp.run_cell(problem, "wer2_direct", SETTINGS)
    # method 2: C_- = lambda C_+ throughout
    assert m2["log2_C_neg"].iloc[0] - m2["log2_C_pos"].iloc[0] == pytest.approx(np.log2(0.01))
    assert m2["theta0"].iloc[0] == 0 and m2["n_hyperparameters"].iloc[0] == 2
    m4, _ = exp.run_cell(problem, "wer4_bias", SETTINGS)
    assert m4["n_hyperparameters"].iloc[0] == 6  # C_+, C_-, m_+, m_-, gamma, theta_0
    assert 0 <= m4["test_weighted_error"].iloc[0] <= 100


def test_f_measure_cells_keep_or_tune_the_threshold(problem):
    direct, _ = exp.run_cell(problem, "f_direct", SETTINGS)
    bias, history = exp.run_cell(problem, "f_bias", SETTINGS)
    assert direct["theta0"].iloc[0] == 0 and history["theta0"].iloc[0] == 0
    assert 0 <= bias["test_f_measure"].iloc[0] <= 1 and bias["n_hyperparameters"].iloc[0] == 3


def test_restarts_start_inside_the_box_from_their_own_seed(problem):
    starts = [exp.restart_start(problem, SETTINGS, k) for k in range(3)]
    assert len({s["log2_C"] for s in starts}) == 3
    assert all(-5 <= s["log2_C"] <= 15 and -15 <= s["log2_gamma"] <= 3 for s in starts)
    assert exp.restart_start(problem, SETTINGS, 1) == starts[1]


def test_fig1_test_cell_scores_every_grid_point_on_the_subsample(problem):
    row, detail = exp.run_cell(problem, "fig1_test", SETTINGS)
    assert len(detail) == 9 and row["n_test"].iloc[0] == 100
    assert detail["test_error"].between(0, 100).all()


def test_unknown_method_names_the_known_ones(problem):
    with pytest.raises(ValueError, match="unknown method 'bogus'.*grid"):
        exp.run_cell(problem, "bogus", SETTINGS)
