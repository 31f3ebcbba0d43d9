"""MDL model selection (issue 16): the description length, the search, the CV baseline, the data."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, ParameterGrid, ParameterSampler, StratifiedKFold
from sklearn.svm import SVC

from esmo import SMOClassifier
from esmo.mdl.cross_validation import grid_cv
from esmo.mdl.description_length import (
    SIGMA2_READINGS,
    all_description_lengths,
    description_length,
    n_model_parameters,
)
from esmo.mdl.search import MDLSearch, solver_base
from esmo.papers.common.statistics import wilcoxon_paired
from esmo.papers.mdl.analysis import paired_comparison
from esmo.papers.mdl.comparison import (
    IN_BOX,
    classification_metrics,
    e1_comparison,
    grid_values,
    holdout_comparison,
)
from esmo.papers.mdl.wdbc import holdout_split, load_wdbc

LOG2_2PIE = math.log2(2 * math.pi * math.e)


@pytest.fixture(scope="module")
def wdbc_small():
    """A stratified 150-row training part of WDBC, z-scored (labels +1 malignant)."""
    X, y = load_wdbc()
    X_tr, y_tr, X_te, y_te = holdout_split(X, y, seed=3, test_size=0.2)
    return X_tr[:150], y_tr[:150], X_te, y_te


# --- the description length -------------------------------------------------------------


def test_dl_closed_form_on_a_hand_example():
    # f = (2, 0, 0, -2): mean 0, population variance 2; N = 4, N_M = 3
    f = np.array([2.0, 0.0, 0.0, -2.0])
    expected = 0.5 * 3 * 2.0 + 0.5 * 4 * math.log2(2 * math.pi * math.e * 2.0)
    assert description_length(f, 3) == pytest.approx(expected, rel=1e-14)


def test_label_readings_closed_forms():
    f = np.array([2.0, 0.0, 0.0, -2.0])
    y = np.array([1.0, 1.0, -1.0, -1.0])
    # one error (f = 0 predicts -1 for a +1): log2 C(4, 1) + log2 5
    assert description_length(f, 0, y=y, sigma2="error_code") == pytest.approx(
        math.log2(4) + math.log2(5)
    )
    # logistic: 2 log2(1 + e^-2) + 2 log2 2
    assert description_length(f, 0, y=y, sigma2="logistic_code") == pytest.approx(
        2 * math.log2(1 + math.exp(-2.0)) + 2.0
    )
    # within class: classes {2, 0} and {0, -2}, each squared deviation 1: sigma^2 = 1
    assert description_length(f, 0, y=y, sigma2="within_class_var") == pytest.approx(2 * LOG2_2PIE)
    # residuals y - f = (-1, 1, -1, 1): variance 1; clipped: (0, 1, -1, 0), variance 1/2
    assert description_length(f, 0, y=y, sigma2="residual_var") == pytest.approx(2 * LOG2_2PIE)
    assert description_length(f, 0, y=y, sigma2="clipped_residual_var") == pytest.approx(
        2 * math.log2(math.pi * math.e)
    )
    assert description_length(
        f, 0, sigma2="feature_space_var", feature_space_variance=0.5
    ) == pytest.approx(2 * math.log2(math.pi * math.e))


def test_decision_variance_ignores_the_bias():
    f = np.random.default_rng(0).normal(size=50)
    assert description_length(f + 3.7, 10) == pytest.approx(description_length(f, 10), rel=1e-12)


def test_constant_decision_values_have_infinite_dl_not_nan():
    f = np.full(10, -0.3)
    assert description_length(f, 0) == math.inf
    assert description_length(f + 1e-17 * np.arange(10), 0) == math.inf  # rounding noise
    lengths = all_description_lengths(f, 0, np.array([1.0, -1.0] * 5), 0.0)
    assert not any(math.isnan(v) for v in lengths.values())


def test_bad_decision_values_and_arguments_are_rejected():
    with pytest.raises(ValueError, match="NaN"):
        description_length(np.array([0.0, np.nan, 1.0]), 1)
    with pytest.raises(ValueError, match="sigma2 must be one of"):
        description_length(np.array([0.0, 1.0]), 1, sigma2="variance")
    with pytest.raises(ValueError, match="needs the labels"):
        description_length(np.array([0.0, 1.0]), 1, sigma2="logistic_code")
    with pytest.raises(ValueError, match="non-negative integer"):
        description_length(np.array([0.0, 1.0]), -1)


def test_n_model_parameters_rules():
    alpha = np.array([0.0, 0.5, 1.0, 1.0, 0.2])
    assert n_model_parameters(alpha, 1.0, "all_sv") == 4
    assert n_model_parameters(alpha, 1.0, "free_sv") == 2
    assert n_model_parameters(alpha, 1.0, "all_sv_plus_bias") == 5


# --- the search against independent oracles ---------------------------------------------


def _svc_description_lengths(X, y, candidates):
    """DL of every candidate from scikit-learn's SVC (LIBSVM), fitted independently."""
    out = []
    for c in candidates:
        svc = SVC(C=c["C"], gamma=c["gamma"], tol=1e-8, shrinking=False).fit(X, y)
        out.append(description_length(svc.decision_function(X), len(svc.support_)))
    return np.array(out)


def test_search_picks_the_brute_force_minimum_over_svc(wdbc_small):
    X, y, _, _ = wdbc_small
    grid = {"C": [1.0, 10.0, 100.0], "gamma": [0.003, 0.03, 0.3]}
    # both solved tightly, so their optima agree to rounding whatever their paths
    search = MDLSearch(SMOClassifier(tol=1e-8), grid).fit(X, y)
    oracle = _svc_description_lengths(X, y, list(ParameterGrid(grid)))
    np.testing.assert_allclose(search.cv_results_["description_length"], oracle, rtol=1e-7)
    assert search.best_index_ == int(np.argmin(oracle))
    assert search.best_params_ == list(ParameterGrid(grid))[int(np.argmin(oracle))]
    assert search.best_score_ == -search.best_description_length_
    assert search.cost_["n_fits"] == 9
    assert search.cost_["n_iter"] == search.cv_results_["n_iter"].sum() > 0
    # rank 1 is the shortest
    assert search.cv_results_["rank_description_length"][search.best_index_] == 1


def test_search_on_sampled_candidates_and_string_labels(wdbc_small):
    X, y, X_te, y_te = wdbc_small
    labels = np.where(y == 1, "M", "B")
    dist = {"C": [0.5, 2.0, 8.0], "gamma": [0.01, 0.05, 0.2]}
    search = MDLSearch(param_distributions=dist, n_iter=4, random_state=0, record_readings=True)
    search.fit(X, labels)
    assert search.cv_results_["params"] == list(ParameterSampler(dist, 4, random_state=0))
    # every reading recorded from the same fits, the selected one among them
    np.testing.assert_array_equal(
        search.cv_results_["dl_decision_var"], search.cv_results_["description_length"]
    )
    assert {f"dl_{r}" for r in SIGMA2_READINGS} <= set(search.cv_results_)
    assert search.cost_["ablation_seconds"] > 0
    assert set(search.predict(X_te)) <= {"B", "M"}
    # classes_[1] = "M" is positive: DL is label-sign invariant, the refit predicts the same
    svc = SVC(**search.best_params_, shrinking=False).fit(X, labels)
    assert np.mean(search.predict(X_te) == svc.predict(X_te)) >= 0.98


def test_cv_baseline_selects_what_gridsearchcv_on_svc_selects(wdbc_small):
    X, y, _, _ = wdbc_small
    grid = {"C": [1.0, 10.0], "gamma": [0.01, 0.1, 1.0]}
    candidates = list(ParameterGrid(grid))
    ours = grid_cv(X, y, candidates, solver_base(SMOClassifier(), X), n_splits=4)
    oracle = GridSearchCV(SVC(tol=1e-3, shrinking=False), grid, cv=StratifiedKFold(4)).fit(X, y)
    np.testing.assert_allclose(ours["mean_test_score"], oracle.cv_results_["mean_test_score"])
    assert ours["best_index"] == oracle.best_index_
    assert ours["cost"]["n_fits"] == 4 * len(candidates)


def test_every_point_a_support_vector_is_scored(wdbc_small):
    X, y, _, _ = wdbc_small
    # a kernel near the identity: every point must carry its own weight
    search = MDLSearch(param_grid={"C": [1.0], "gamma": [100.0]}).fit(X, y)
    assert search.cv_results_["n_support"][0] == len(y)
    assert np.isfinite(search.best_description_length_)


def test_one_class_and_bad_grids_get_clear_errors(wdbc_small):
    X, y, _, _ = wdbc_small
    with pytest.raises(ValueError, match="one class"):
        MDLSearch(param_grid={"C": [1.0]}).fit(X, np.ones_like(y))
    with pytest.raises(ValueError, match="can vary only"):
        MDLSearch(param_grid={"kernel": ["rbf"]}).fit(X, y)
    with pytest.raises(ValueError, match="exactly one of"):
        MDLSearch().fit(X, y)
    with pytest.raises(ValueError, match="early_stopping"):
        MDLSearch(SMOClassifier(early_stopping=True), {"C": [1.0]}).fit(X, y)


def test_every_candidate_infinite_is_an_error_not_a_nan_choice():
    # two separable points per class far apart at a tiny gamma: every f identical up to rounding
    X = np.array([[0.0], [1e-9], [2e-9], [3e-9]])
    y = np.array([1, 1, -1, -1])
    with pytest.raises(ValueError, match="infinite description length"):
        MDLSearch(param_grid={"C": [1e-6], "gamma": [1e-6]}).fit(X, y)


# --- data, experiment and statistics ------------------------------------------------------


def test_wdbc_split_has_the_papers_test_counts():
    X, y = load_wdbc()
    assert X.shape == (569, 30) and (y == 1).sum() == 212
    X_tr, y_tr, X_te, y_te = holdout_split(X, y, seed=0)
    assert (len(y_tr), len(y_te), int((y_te == 1).sum())) == (455, 114, 42)
    np.testing.assert_allclose(X_tr.mean(axis=0), 0.0, atol=1e-12)


def test_grid_values_contain_the_papers_decades():
    Cs = grid_values(1.0, 1000.0, 100)
    np.testing.assert_allclose(Cs[[0, 33, 66, 99]], [1.0, 10.0, 100.0, 1000.0])
    assert grid_values(1.0, 1000.0, 100, "linear")[1] == pytest.approx(1 + 999 / 99)


def test_classification_metrics_reconstruct_table_2():
    # the paper's MDL row: TP 40, FN 2, FP 1, TN 71
    y = np.array([1] * 42 + [-1] * 72)
    f = np.array([1.0] * 40 + [-1.0] * 2 + [1.0] * 1 + [-1.0] * 71)
    m = classification_metrics(y, f)
    assert (m["tp"], m["fn"], m["fp"], m["tn"]) == (40, 2, 1, 71)
    assert round(m["accuracy"], 4) == 0.9737 and round(m["recall"], 4) == 0.9524
    assert round(m["f1"], 4) == 0.9639 and round(m["precision"], 4) == 0.9756


def test_holdout_comparison_is_consistent(wdbc_small):
    X, y, X_te, y_te = wdbc_small
    grid, selection, cost = holdout_comparison(
        X, y, X_te, y_te, [1.0, 10.0, 100.0], [0.003, 0.03, 0.3]
    )
    by = selection.set_index("method")
    assert by.loc["oracle", "accuracy"] == grid["test_accuracy"].max()
    assert by.loc["oracle", "test_rank"] == 1
    k = grid["dl"].idxmin()
    assert (by.loc["mdl", "C"], by.loc["mdl", "gamma"]) == (grid["C"][k], grid["gamma"][k])
    assert by.loc["mdl", "accuracy"] == pytest.approx(grid["test_accuracy"][k])
    costs = cost.set_index("method")
    assert costs.loc["mdl", "n_fits"] == 9 and costs.loc["cv", "n_fits"] == 4 * 9 + 1
    assert set(f"dl_{r}" for r in SIGMA2_READINGS) <= set(grid.columns)


def test_e1_selections_in_the_box_are_those_of_the_boxed_configurations(wdbc_small):
    """The ``_in_box`` rows (selection confined to the paper's box, from the full run's fits)
    equal the plain rows of a second run given only the configurations inside the box."""
    X, y, X_te, y_te = wdbc_small
    rng = np.random.default_rng(0)
    configs = pd.DataFrame(
        {"config_id": np.arange(12), "C": 2.0 ** rng.uniform(-5, 12, 12),
         "gamma": 2.0 ** rng.uniform(-15, 2, 12), "tol": 1e-3}
    )  # fmt: skip
    box = {"C": [1.0, 1000.0], "gamma": [0.001, 1.0]}
    inside = configs["C"].between(*box["C"]) & configs["gamma"].between(*box["gamma"])
    assert 2 <= inside.sum() < len(configs)  # the draw puts some configurations outside
    parts = (X[:90], y[:90], X[90:], y[90:], X_te, y_te)
    full = e1_comparison(*parts, configs, box=box).set_index("method")
    boxed = e1_comparison(*parts, configs[inside]).set_index("method")
    assert set(boxed.index) | {m + IN_BOX for m in boxed.index} == set(full.index)
    for method, row in boxed.iterrows():
        ours = full.loc[method + IN_BOX]
        assert ours["config_id"] == row["config_id"] and inside[row["config_id"]]
        assert ours["test_accuracy"] == row["test_accuracy"]
        assert ours["selection_score"] == pytest.approx(row["selection_score"])
    # a box holding no configuration adds no rows rather than a choice from outside it
    empty = e1_comparison(*parts, configs, box={"C": [1e6, 1e7], "gamma": [1.0, 2.0]})
    assert not empty["method"].str.endswith(IN_BOX).any()


def test_paired_wilcoxon_matches_the_exact_distribution():
    # six positive differences of distinct size: R- = 0, exact two-sided p = 2 / 2^6
    a = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    result = wilcoxon_paired(a, np.zeros(6))
    assert result["pvalue"] == pytest.approx(2 / 64)
    assert (result["a_wins"], result["b_wins"]) == (6, 0)
    # one negative among them, the smallest: R- = 1, and R- <= 1 in 2 of the 64 sign patterns
    flipped = wilcoxon_paired(a * np.array([-1, 1, 1, 1, 1, 1]), np.zeros(6))
    assert flipped["pvalue"] == pytest.approx(2 * 2 / 64)
    assert wilcoxon_paired(np.ones(4), np.ones(4))["pvalue"] == 1.0


def test_paired_comparison_pairs_by_seed():
    rows = []
    for seed in range(6):
        rows.append({"seed": seed, "method": "mdl", "accuracy": 0.9 + 0.01 * seed})
        rows.append({"seed": seed, "method": "cv", "accuracy": 0.9})
    table = paired_comparison(pd.DataFrame(rows), metrics=["accuracy"])
    assert table["a_wins"].iloc[0] == 5 and table["b_wins"].iloc[0] == 0
    assert table["mean_difference"].iloc[0] == pytest.approx(0.025)


def test_decision_variance_reading_is_unbounded_below_as_c_shrinks():
    """With every alpha at its bound C, f = C g - rho: halving C takes exactly N bits off DL (a).

    Why reading (a) runs to the smallest C of any grid that allows it (the sensitivity grids).
    """
    X, y = load_wdbc()
    X_tr, y_tr, _, _ = holdout_split(X, y, seed=1)
    keep = np.concatenate([np.flatnonzero(y_tr == 1)[:60], np.flatnonzero(y_tr == -1)[:60]])
    X_b, y_b = X_tr[keep], y_tr[keep]
    search = MDLSearch(param_grid={"C": [1e-4, 5e-5], "gamma": [0.01]}).fit(X_b, y_b)
    n_sv, dl = search.cv_results_["n_support"], search.cv_results_["description_length"]
    assert list(n_sv) == [120, 120]
    assert dl[0] - dl[1] == pytest.approx(120.0, rel=1e-9)
    assert search.best_params_["C"] == 5e-5


def test_max_iter_hits_are_scored_flagged_and_warned(wdbc_small):
    X, y, _, _ = wdbc_small
    with pytest.warns(ConvergenceWarning, match="stopped at max_iter"):
        search = MDLSearch(SMOClassifier(max_iter=3), {"C": [1.0, 10.0], "gamma": [0.1]}).fit(X, y)
    assert search.cv_results_["max_iter_reached"].all()
    assert np.isfinite(search.cv_results_["description_length"]).all()


def test_mdl_selection_needs_no_analysis_extra():
    """MDLSearch, the description length and the CV baseline are core: no pandas or plotting."""
    script = (
        "import importlib.abc, sys\n"
        "class Block(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('pandas', 'matplotlib', 'seaborn', 'statsmodels'):\n"
        "            raise ImportError(name + ' is blocked')\n"
        "sys.meta_path.insert(0, Block())\n"
        "from esmo import MDLSearch\n"
        "from esmo.mdl.description_length import description_length\n"
        "from esmo.mdl.cross_validation import grid_cv\n"
        "from esmo.papers.mdl.wdbc import load_wdbc\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
