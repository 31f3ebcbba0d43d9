"""The method adapters: traces, costs and the handed-back model (docs/benchmark-protocol.md sec 3-5)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pandas as pd
import pytest
from conftest import DATASETS

from esmo.benchmark import methods
from esmo.benchmark.data import Split
from esmo.benchmark.methods import FIT_LOGS, METHODS, MethodUnavailable, SearchSpace
from esmo.benchmark.run import anytime_records
from esmo.benchmark.trace import FINAL_KEYS, TRACE_COLUMNS, incumbents

SPACE = SearchSpace((-10.0, 10.0), (-10.0, 10.0), grid_step=5)  # 5 x 5 points
SHARED = {
    "n_folds": 3,
    "holdout_fraction": 0.25,
    "early_stopping": {"patience": 109, "es_tol": 0.000229, "interval": 1},
}
BUDGETS = {
    "grid_svc": {},
    "random_svc": {"n_iter": 8},
    "halving_svc": {"n_candidates": 9, "factor": 3},
    "optuna_svc": {"n_trials": 6},
    "sklearnex_svc": {"n_iter": 4},
    "esmo_rs": {"n_configs": 8},
    "esmo_rs_es": {"n_configs": 8},
    "esmo_sh": {"n_configs": 8},
    "esmo_sh_es": {"n_configs": 8},
    "esmo_sh_iter": {"n_configs": 8},
    "esmo_hyperband": {},
    "esmo_optuna": {"n_configs": 6},
    "esmo_gradient": {"max_fun": 5},
    "esmo_gradient_es": {"max_fun": 5},
    "esmo_mdl": {},
    "esmo_path": {},
    "esmo_ensemble": {"n_subensembles": 2, "train_proportion": 0.2},
    "esmo_ensemble_halving": {"n_subensembles": 2, "train_proportion": 0.2},
    "esmo_pegasos_es": {"n_configs": 6, "epochs": 3},
}
BASELINES = ("grid_svc", "random_svc", "halving_svc", "optuna_svc")


@pytest.fixture(scope="module")
def problem():
    """160 rows of breast cancer (scaled, labels {-1, +1})."""
    X, y = DATASETS["breast_cancer"]
    rows = np.sort(np.random.default_rng(0).choice(y.size, 160, replace=False))
    return X[rows], y[rows].astype(int)


def run(name, problem, seed=0):
    X, y = problem
    return METHODS[name].adapter({**SHARED, **BUDGETS[name]}, SPACE, X, y, seed)


@pytest.fixture(scope="module")
def results(problem):
    return {
        name: run(name, problem)
        for name in METHODS
        if name != "sklearnex_svc" or importlib.util.find_spec("sklearnex")
    }


def test_every_registered_method_has_a_budget_here():
    assert set(BUDGETS) == set(METHODS)


@pytest.mark.parametrize("name", BASELINES)
def test_a_baselines_trace_reproduces_its_search(name, results):
    result = results[name]
    search = result.search
    best = search.best_params if name == "optuna_svc" else search.best_params_
    last = result.trace.iloc[-1]
    assert (last["C"], last["gamma"]) == (best["C"], best["gamma"])
    assert (result.final["C"], result.final["gamma"]) == (best["C"], best["gamma"])
    assert result.model.get_params()["C"] == best["C"]
    # the cost is the wrapper's log: every fit and score, the refit included
    assert result.final["cpu_seconds"] == pytest.approx(sum(r.cpu_seconds for r in result.log))
    refit = result.log[-1]
    assert refit.call == "fit" and refit.n_rows == 160
    assert last["cpu_seconds"] + refit.cpu_seconds == pytest.approx(result.final["cpu_seconds"])
    fits = [r for r in result.log if r.call == "fit"]
    assert result.final["n_iter"] == sum(r.n_iter for r in fits)
    assert not FIT_LOGS  # every log is handed over, none left behind


def test_the_grid_is_searched_candidate_by_candidate(results):
    result = results["grid_svc"]
    trace, search = result.trace, result.search
    assert len(trace) == 25 and list(trace["n_evaluations"]) == list(range(1, 26))
    # each candidate: its 3 folds' fits and scores, in ParameterGrid order
    fits = [r for r in result.log if r.call == "fit"][:-1]
    assert [(r.C, r.gamma) for r in fits[::3]] == [
        (p["C"], p["gamma"]) for p in search.cv_results_["params"]
    ]
    assert np.all(np.diff(trace["cpu_seconds"]) > 0)
    # the incumbent: the best mean CV accuracy so far, the first of equals
    scores = search.cv_results_["mean_test_score"]
    for k, row in trace.iterrows():
        assert row["selection_score"] == scores[: k + 1].max()
        first = int(np.argmax(scores[: k + 1]))
        assert (row["C"], row["gamma"]) == tuple(search.cv_results_["params"][first].values())


def test_halving_keeps_the_best_of_the_largest_resource(results):
    result = results["halving_svc"]
    res = result.search.cv_results_
    levels = res["n_resources"]
    assert len(set(levels)) > 1 and list(levels) == sorted(levels)
    for k, row in result.trace.iterrows():
        top = np.flatnonzero(levels[: k + 1] == levels[: k + 1].max())
        best = top[np.argmax(res["mean_test_score"][top])]
        assert row["C"] == res["params"][best]["C"]
    assert result.search.best_index_ == best


@pytest.mark.parametrize("name", sorted(set(METHODS) - {"sklearnex_svc"}))
def test_every_trace_is_consistent_with_its_final_model(name, results, problem):
    result = results[name]
    trace = result.trace
    assert list(trace.columns) == TRACE_COLUMNS and set(result.final) == set(FINAL_KEYS)
    assert np.all(np.diff(trace["cpu_seconds"]) >= 0)
    assert np.all(np.diff(trace["n_evaluations"]) > 0)
    assert result.final["cpu_seconds"] >= trace["cpu_seconds"].iloc[-1] > 0
    assert result.final["n_evaluations"] == trace["n_evaluations"].iloc[-1]
    X, y = problem
    assert set(result.model.predict(X)) <= {-1, 1}
    if result.incumbent_model is None:  # the ensembles: no (C, gamma) of their own
        assert np.isnan(result.final["C"]) and len(trace) == 1
    else:
        last = trace.iloc[-1]
        assert last["C"] == pytest.approx(result.final["C"])
        assert last["gamma"] == pytest.approx(result.final["gamma"])


@pytest.mark.parametrize(
    "name", ["grid_svc", "random_svc", "optuna_svc", "esmo_rs", "esmo_rs_es", "esmo_mdl",
             "esmo_gradient", "esmo_gradient_es", "esmo_pegasos_es"],
)  # fmt: skip
def test_one_resource_level_incumbents_only_improve(name, results):
    scores = results[name].trace["selection_score"].to_numpy()
    assert np.all(np.diff(scores) >= 0)


def test_early_stopping_makes_the_same_draws_cheaper_in_iterations(results):
    plain, early = results["esmo_rs"].search, results["esmo_rs_es"].search
    pd.testing.assert_series_equal(
        pd.Series(plain.cv_results_["param_C"]), pd.Series(early.cv_results_["param_C"])
    )
    assert early.cost_["n_iter"] < plain.cost_["n_iter"]


def test_the_same_seed_draws_the_same_candidates(problem):
    again = run("random_svc", problem)
    first = run("random_svc", problem)
    assert again.trace[["C", "gamma"]].equals(first.trace[["C", "gamma"]])


@pytest.mark.skipif(
    importlib.util.find_spec("sklearnex") is not None, reason="scikit-learn-intelex is installed"
)
def test_sklearnex_svc_is_unavailable_without_its_library(problem):
    with pytest.raises(MethodUnavailable, match="scikit-learn-intelex"):
        run("sklearnex_svc", problem)


def test_the_incumbent_rule():
    assert list(incumbents([0.5, 0.7, 0.7, 0.6, np.nan, 0.8])) == [0, 1, 1, 1, 1, 5]
    # a larger resource level takes over whatever its score; then the best of that level
    levels = [1, 1, 3, 3, 9]
    assert list(incumbents([0.9, 0.8, 0.5, 0.6, 0.1], levels)) == [0, 0, 2, 3, 4]
    # ties to the smaller key (candidate order) when evaluations come in another order
    assert list(incumbents([0.5, 0.5, 0.5], ties=[2, 0, 1])) == [0, 1, 1]


def test_a_trace_estimator_must_expose_the_trace_and_cost(problem):
    class Partial:
        def fit(self, X, y):
            self.trace_ = pd.DataFrame({"order": [0], "cpu_seconds": [1.0]})
            self.cost_ = {"cpu_seconds": 1.0}
            return self

    adapter = methods.trace_estimator(lambda budget, space, seed: Partial())
    with pytest.raises(ValueError, match="lacks .*n_iter.*"):
        adapter({}, SPACE, *problem, 0)


def test_a_trace_estimator_in_esmo_tunings_shape(problem):
    """A trace_ without ``order``, a refit row and no incumbent at first: read as the benchmark's."""

    class Search:
        def fit(self, X, y):
            nan = float("nan")
            self.trace_ = pd.DataFrame(
                {
                    "stage": ["search", "search", "search", "refit"],
                    "cpu_seconds": [0.1, 0.2, 0.3, 0.5],
                    "n_iter": [10, 20, 30, 45],
                    "kernel_evaluations": [1, 2, 3, 4],
                    "n_evaluations": [1, 2, 3, 3],
                    "C": [nan, 1.0, 1.0, 1.0],
                    "gamma": [nan, 0.5, 0.5, 0.5],
                    "selection_score": [nan, 0.8, 0.8, 0.8],
                }
            )
            keys = ("cpu_seconds", "n_iter", "kernel_evaluations", "n_evaluations")
            self.cost_ = dict(zip(keys, (0.5, 45, 4, 3), strict=True))
            self.best_params_, self.best_score_ = {"C": 1.0, "gamma": 0.5}, 0.8
            self.best_estimator_ = methods._smo(1.0, 0.5).fit(X, y)
            return self

    result = methods.trace_estimator(lambda budget, space, seed: Search())({}, SPACE, *problem, 0)
    assert list(result.trace.columns) == TRACE_COLUMNS and list(result.trace["order"]) == [0, 1, 2]
    assert result.final["cpu_seconds"] == 0.5 and result.final["n_evaluations"] == 3
    X, y = problem
    split = Split(np.arange(100), np.arange(100, 160), X[:100], y[:100], X[100:], y[100:])
    records = anytime_records(result, split, "d", 0, "m")
    # the row without an incumbent is not a record; one incumbent, then the final model
    assert list(records["n_evaluations"]) == [2, 3] and list(records["final"]) == [False, True]


def test_pegasos_counts_kernel_values_as_the_smo_searches_do(results, problem):
    """Each candidate: its rows over fit and holdout points, and its holdout predictions."""
    search = results["esmo_pegasos_es"].search
    per_fit = search.cv_results_["kernel_evaluations"]
    assert len(per_fit) == search.n_configs and np.all(per_fit > 0)
    # the refit stops never: a row of the n training points per violation (alpha counts them)
    refit = search.best_estimator_.alpha_.sum() * len(problem[1])
    assert search.cost_["kernel_evaluations"] == per_fit.sum() + refit
    assert (
        results["esmo_pegasos_es"].final["kernel_evaluations"] == search.cost_["kernel_evaluations"]
    )


def test_the_shared_kernel_path_searches_grid_svcs_grid_and_folds(results, problem):
    """One CV path per gamma: the grid's 25 candidates on grid_svc's folds, warm-started
    along C, so its best mean CV accuracy is grid_svc's up to the warm starts' tolerance."""
    path, grid = results["esmo_path"], results["grid_svc"]
    assert path.final["n_evaluations"] == grid.final["n_evaluations"] == 5 * 5
    assert abs(path.final["selection_score"] - grid.final["selection_score"]) <= 0.02
    # kernel values: per gamma the matrix of all n rows (its upper half), and of each fold's
    # held-out block the rows of the points that were ever support vectors (test_path.py)
    X, y = problem
    blocks = sum(len(t) * len(h) for t, h in methods._folds(SHARED, 0).split(X, y))
    held_out = path.trace["kernel_evaluations"].iloc[-1] - 5 * len(y) * (len(y) + 1) // 2
    assert 0 < held_out < 5 * blocks
