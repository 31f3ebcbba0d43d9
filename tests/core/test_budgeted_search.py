"""The budget-aware searches as estimators (esmo.tuning.estimators, esmo.tuning.optuna_search).

Oracles: hand-written loops of SMOClassifier fits, fresh fits to a budget,
Li et al.'s table 1, the thesis's E4 driver; and the bookkeeping against its
own definition (costs that add up, incumbents that are the running best).
"""

from __future__ import annotations

import inspect
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import DATASETS
from scipy.stats import expon, loguniform
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import ParameterSampler, train_test_split

import esmo
from esmo.early_stopping import J_HIGH
from esmo.estimators.smo_classifier import SMOClassifier
from esmo.tuning.budgeted import TRACE_COLUMNS
from esmo.tuning.estimators import (
    HyperbandSVM,
    RandomSearchSVM,
    SuccessiveHalvingSVM,
    hyperband_brackets,
    iteration_halving_schedule,
)
from esmo.tuning.optuna_search import OptunaSearchSVM
from esmo.tuning.search import successive_halving

X, Y = DATASETS["breast_cancer"]
SPACE = {"C": loguniform(2.0**-3, 2.0**8), "gamma": loguniform(2.0**-4, 2.0**3)}
J_HIGH_PARAMS = {
    "early_stopping": True,
    "n_iter_no_change": J_HIGH.patience,
    "es_tol": J_HIGH.tol,
    "validation_interval": J_HIGH.interval,
}


@pytest.fixture(scope="module")
def parts():
    """A fixed training part and holdout of breast cancer (what the searches split off)."""
    return train_test_split(X, Y, test_size=0.2, stratify=Y, random_state=0)


def _quiet_fit(clf, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return clf.fit(*args, **kwargs)


SEARCHES = {
    "rs": lambda: RandomSearchSVM(param_distributions=SPACE, n_iter=6, random_state=0),
    "rs_es": lambda: RandomSearchSVM(
        param_distributions=SPACE, n_iter=6, early_stopping=True, random_state=0
    ),
    "sh_samples": lambda: SuccessiveHalvingSVM(
        param_distributions=SPACE, n_candidates=8, random_state=0
    ),
    "sh_iter": lambda: SuccessiveHalvingSVM(
        param_distributions=SPACE,
        n_candidates=8,
        resource="n_iter",
        max_resources=400,
        random_state=0,
    ),  # fmt: skip
    "hyperband": lambda: HyperbandSVM(
        param_distributions=SPACE, max_resources=243, min_resources=9, random_state=0
    ),
    "optuna": lambda: OptunaSearchSVM(
        param_distributions=SPACE, n_trials=12, pruning_interval=20, random_state=0
    ),
}


@pytest.fixture(scope="module")
def fitted():
    """Each search fitted once on breast cancer (module scope: the tests only read them)."""
    return {name: make().fit(X, Y) for name, make in SEARCHES.items()}


# -- random search: a loop of SMOClassifier fits ------------------------------------------


@pytest.mark.parametrize("early_stopping", [False, True])
def test_random_search_equals_a_hand_written_loop_of_fits(parts, early_stopping):
    X_tr, X_val, y_tr, y_val = parts  # the split the search makes: stratified, seeded
    search = RandomSearchSVM(
        param_distributions=SPACE, n_iter=6, early_stopping=early_stopping, random_state=0
    ).fit(X, Y)
    scores, iterations, kernel_values, params = [], [], [], []
    for p in ParameterSampler(SPACE, 6, random_state=0):
        es = J_HIGH_PARAMS if early_stopping else {}
        val = {"X_val": X_val, "y_val": y_val} if early_stopping else {}
        clf = SMOClassifier(C=p["C"], gamma=p["gamma"], **es).fit(X_tr, y_tr, **val)
        scores.append(np.mean(clf.predict(X_val) == y_val))
        iterations.append(clf.n_iter_)
        kernel_values.append(clf.n_kernel_evaluations_ + clf.support_.size * y_val.size)
        params.append({"C": p["C"], "gamma": p["gamma"]})
    res = search.cv_results_
    assert res["params"] == params
    np.testing.assert_array_equal(res["mean_test_score"], scores)
    np.testing.assert_array_equal(res["n_iter"], iterations)
    np.testing.assert_array_equal(res["kernel_evaluations"], kernel_values)
    best = int(np.argmax(scores))  # the first of equal maxima
    assert search.best_index_ == best and search.best_params_ == params[best]
    assert search.best_score_ == scores[best]
    assert res["rank_test_score"][best] == 1
    refit = SMOClassifier(**params[best]).fit(X, Y)
    np.testing.assert_array_equal(search.decision_function(X), refit.decision_function(X))
    assert search.cost_["refit_n_iter"] == refit.n_iter_


def test_halving_on_samples_is_the_thesis_e4_driver(parts):
    X_tr, X_val, y_tr, y_val = parts
    search = SuccessiveHalvingSVM(param_distributions=SPACE, n_candidates=8, random_state=3)
    search.fit(X_tr, y_tr, X_val=X_val, y_val=y_val)
    configs = list(ParameterSampler(SPACE, 8, random_state=3))
    table = pd.DataFrame(configs, columns=["C", "gamma"]).rename_axis("config_id").reset_index()
    e4 = successive_halving(
        lambda row: SMOClassifier(C=row["C"], gamma=row["gamma"]),
        table, X_tr, y_tr, X_val, y_val, random_state=3,
    )  # fmt: skip
    res = search.cv_results_
    np.testing.assert_array_equal(res["config_id"], e4.trials["config_id"])
    np.testing.assert_array_equal(res["iter"], e4.trials["round"])
    np.testing.assert_array_equal(res["n_resources"], e4.trials["n_samples"])
    np.testing.assert_array_equal(res["mean_test_score"], e4.trials["val_accuracy"])
    np.testing.assert_array_equal(res["n_iter"], e4.trials["n_iter"])
    assert res["config_id"][search.best_index_] == e4.config_id
    assert search.best_score_ == e4.val_accuracy


# -- halving on SMO iterations: survivors resume -------------------------------------------


def test_iteration_halving_resumes_fits_exactly_and_costs_less_than_restarting(parts):
    X_tr, X_val, y_tr, y_val = parts
    search = SuccessiveHalvingSVM(
        param_distributions=SPACE, n_candidates=8, resource="n_iter", eta=2, max_resources=400,
        random_state=1,
    ).fit(X_tr, y_tr, X_val=X_val, y_val=y_val)  # fmt: skip
    res = search.cv_results_
    assert iteration_halving_schedule(8, 400, 2) == [(8, 50), (4, 100), (2, 200), (1, 400)]
    np.testing.assert_array_equal(res["n_resources"], [50] * 8 + [100] * 4 + [200] * 2 + [400])
    restarting = 0
    resumed_a_fit = False
    for config_id in np.unique(res["config_id"]):
        mine = res["config_id"] == config_id
        params = res["params"][int(np.flatnonzero(mine)[0])]
        for budget in res["n_resources"][mine]:
            restarting += _quiet_fit(
                SMOClassifier(**params, max_iter=int(budget)), X_tr, y_tr
            ).n_iter_
        last = int(res["n_resources"][mine].max())
        fresh = _quiet_fit(SMOClassifier(**params, max_iter=last), X_tr, y_tr)
        # a configuration's iterations over its rounds are those of one fit to its last budget
        assert res["n_iter"][mine].sum() == fresh.n_iter_
        resumed_a_fit |= bool(np.count_nonzero(res["n_iter"][mine]) > 1)
        if config_id in search.final_round_estimators_:
            survivor = search.final_round_estimators_[config_id]
            np.testing.assert_array_equal(survivor.support_, fresh.support_)
            np.testing.assert_array_equal(survivor.dual_coef_, fresh.dual_coef_)
            assert survivor.intercept_[0] == fresh.intercept_[0]
            np.testing.assert_array_equal(
                survivor.decision_function(X_val), fresh.decision_function(X_val)
            )
    assert resumed_a_fit, "the budgets must cut some fit, or nothing was resumed"
    assert sorted(search.final_round_estimators_) == [res["config_id"][-1]]
    assert res["n_iter"].sum() < restarting


# -- Hyperband: Li et al.'s bracket arithmetic --------------------------------------------

#: Li et al. (JMLR 2018), table 1: (n_i, r_i) of every bracket s for R = 81, eta = 3.
PAPER_TABLE_1 = {
    4: [(81, 1), (27, 3), (9, 9), (3, 27), (1, 81)],
    3: [(34, 3), (11, 9), (3, 27), (1, 81)],
    2: [(15, 9), (5, 27), (1, 81)],
    1: [(8, 27), (2, 81)],
    0: [(5, 81)],
}


def test_hyperband_brackets_are_the_papers_table_1():
    brackets = hyperband_brackets(81, 3)
    assert {len(b) - 1: [tuple(r) for r in b] for b in brackets} == PAPER_TABLE_1
    assert [len(b) - 1 for b in brackets] == [4, 3, 2, 1, 0]  # the most explorative first
    # in SMO iterations: min_resources is the unit
    scaled = hyperband_brackets(810, 3, min_resources=10)
    assert [[(n, r // 10) for n, r in b] for b in scaled] == [
        list(v) for v in PAPER_TABLE_1.values()
    ]


def test_hyperband_runs_the_brackets_it_plans(parts):
    X_tr, X_val, y_tr, y_val = parts
    search = HyperbandSVM(param_distributions=SPACE, max_resources=81, min_resources=1, eta=3)
    search.fit(X_tr, y_tr, X_val=X_val, y_val=y_val)
    res = search.cv_results_
    ran = {}
    for s, i, r in zip(res["bracket"], res["iter"], res["n_resources"], strict=True):
        ran.setdefault(int(s), {}).setdefault(int(i), []).append(int(r))
    assert {
        s: [(len(v), v[0]) for _, v in sorted(rounds.items())] for s, rounds in ran.items()
    } == (PAPER_TABLE_1)
    assert np.unique(res["config_id"]).size == 81 + 34 + 15 + 8 + 5  # fresh ones per bracket
    assert res["n_resources"][search.best_index_] == 81  # handed back from the largest budget


# -- the bookkeeping ----------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SEARCHES))
def test_costs_add_up_in_cost_trace_and_cv_results(fitted, name):
    search = fitted[name]
    res, trace, cost = search.cv_results_, search.trace_, search.cost_
    assert list(trace.columns) == TRACE_COLUMNS
    last = trace.iloc[-1]
    for key in ("cpu_seconds", "n_iter", "kernel_evaluations", "n_evaluations", "n_fits"):
        assert cost[key] == last[key]
    assert cost["n_iter"] == res["n_iter"].sum() + cost["refit_n_iter"]
    assert (
        cost["kernel_evaluations"]
        == res["kernel_evaluations"].sum() + cost["refit_kernel_evaluations"]
    )
    assert cost["n_evaluations"] == len(res["params"]) == (trace["stage"] == "search").sum()
    assert cost["cpu_seconds"] >= res["cpu_seconds"].sum() + cost["refit_cpu_seconds"]
    assert (np.diff(trace["cpu_seconds"]) >= 0).all() and (np.diff(trace["n_iter"]) >= 0).all()
    assert trace["stage"].iloc[-1] == "refit" and trace["index"].iloc[-1] == search.best_index_
    fitted_rows = (res["n_iter"] > 0) | (res["kernel_evaluations"] > 0)
    assert cost["n_fits"] == np.count_nonzero(fitted_rows) + 1
    for key in ("params", "param_C", "param_gamma", "mean_test_score", "rank_test_score"):
        assert len(res[key]) == cost["n_evaluations"]
    assert sorted(search.best_params_) == ["C", "gamma"]


@pytest.mark.parametrize("name", sorted(SEARCHES))
def test_trace_incumbents_are_the_running_best(fitted, name):
    """The incumbent after each evaluation: the best score on the largest budget so far."""
    search = fitted[name]
    res, trace = search.cv_results_, search.trace_
    budgets = res.get("n_resources", np.zeros(len(res["params"])))
    eligible = ~res.get("pruned", np.zeros(len(res["params"]), dtype=bool))
    best = None
    for i, row in trace[trace["stage"] == "search"].iterrows():
        key = (budgets[i], res["mean_test_score"][i])
        changed = bool(eligible[i] and (best is None or key > best[1]))
        if changed:
            best = (i, key)
        assert row["incumbent_changed"] == changed
        assert row["C"] == res["params"][best[0]]["C"]
        assert row["gamma"] == res["params"][best[0]]["gamma"]
        assert row["selection_score"] == res["mean_test_score"][best[0]]
    assert best[0] == search.best_index_ and search.best_score_ == best[1][1]
    assert res["rank_test_score"][search.best_index_] == 1


def test_refit_false_keeps_no_model_and_charges_no_refit():
    search = RandomSearchSVM(param_distributions=SPACE, n_iter=3, refit=False, random_state=0)
    search.fit(X, Y)
    assert not hasattr(search, "best_estimator_")
    assert search.trace_["stage"].iloc[-1] == "search"
    assert search.cost_["refit_n_iter"] == 0 and search.cost_["n_fits"] == 3
    with pytest.raises(AttributeError, match="refit=True"):
        search.predict(X)


@pytest.mark.parametrize("name", sorted(SEARCHES))
def test_clone_and_get_params_round_trip(name):
    search = SEARCHES[name]().set_params(validation_fraction=0.3, early_stopping=J_HIGH)
    params = search.get_params()
    assert {"estimator", "param_distributions", "early_stopping", "validation_fraction",
            "refit", "random_state"} <= set(params)  # fmt: skip
    assert set(inspect.signature(type(search)).parameters) == set(params)
    twin = clone(search)
    assert twin is not search and twin.get_params().keys() == params.keys()
    assert twin.validation_fraction == 0.3 and twin.early_stopping == J_HIGH
    with pytest.raises(TypeError):
        type(search)(no_such_parameter=1)


def test_the_searches_are_public_names():
    assert esmo.RandomSearchSVM is RandomSearchSVM
    assert esmo.SuccessiveHalvingSVM is SuccessiveHalvingSVM
    assert esmo.HyperbandSVM is HyperbandSVM
    assert esmo.OptunaSearchSVM is OptunaSearchSVM


# -- Optuna ---------------------------------------------------------------------------------


def test_optuna_pruning_spends_fewer_smo_iterations_on_the_same_seed():
    pytest.importorskip("optuna")

    def run(pruner):
        return OptunaSearchSVM(
            param_distributions=SPACE, n_trials=20, pruner=pruner, pruning_interval=20,
            random_state=0,
        ).fit(X, Y)  # fmt: skip

    pruned, again, plain = run("median"), run("median"), run(None)
    assert pruned.cost_["n_iter"] < plain.cost_["n_iter"]
    assert pruned.cost_["n_iter"] == again.cost_["n_iter"]  # a count, not a time: deterministic
    assert pruned.cv_results_["pruned"].sum() > 0 and plain.cv_results_["pruned"].sum() == 0
    res = pruned.cv_results_
    assert np.isnan(res["mean_test_score"][res["pruned"]]).all()
    assert not res["pruned"][pruned.best_index_]
    for name in ("best_params_", "best_score_", "best_estimator_", "cost_", "trace_", "study_"):
        assert hasattr(pruned, name) and hasattr(plain, name)
    assert set(pruned.cv_results_) == set(plain.cv_results_)


def test_optuna_missing_is_a_clear_import_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "optuna", None)  # import optuna now raises ImportError
    with pytest.raises(ImportError, match=r"pip install esmo\[optuna\]"):
        OptunaSearchSVM(n_trials=2).fit(X, Y)


# -- bad input: refused before any fit ----------------------------------------------------


@pytest.mark.parametrize(
    ("search", "message"),
    [
        (RandomSearchSVM(n_iter=0), "'n_iter' parameter"),
        (RandomSearchSVM(param_distributions={"C": (10.0, 1.0)}), r"\['C'\].*empty"),
        (RandomSearchSVM(param_distributions={"gamma": loguniform(4, 2)}), r"\['gamma'\].*empty"),
        (RandomSearchSVM(param_distributions={"tol": [1e-3]}), r"names \['tol'\]"),
        (RandomSearchSVM(validation_fraction=0.001), "validation_fraction=0.001 holds out 1"),
        (RandomSearchSVM(estimator=SMOClassifier(kernel="linear")), "kernel='rbf'"),
        (RandomSearchSVM(estimator=SMOClassifier(early_stopping=True)), "search's early_stop"),
        (SuccessiveHalvingSVM(n_candidates=500), "n_candidates=500"),
        (SuccessiveHalvingSVM(eta=3), "eta=3 applies to resource='n_iter'"),
        (
            SuccessiveHalvingSVM(resource="n_iter", n_candidates=32, max_resources=20),
            "max_resources=20 is below one SMO iteration",
        ),
        (HyperbandSVM(max_resources=5, min_resources=10), "min_resources <= max_resources"),
        (HyperbandSVM(eta=1), "'eta' parameter"),
        (OptunaSearchSVM(param_distributions={"C": expon()}), "Optuna cannot"),
        (OptunaSearchSVM(pruner="mean"), "pruner must be"),
    ],
)
def test_bad_input_is_refused_with_the_fix_before_any_fit(monkeypatch, search, message):
    if isinstance(search, OptunaSearchSVM):
        pytest.importorskip("optuna")

    def no_fit(*args, **kwargs):
        raise AssertionError("a fit ran before the input was checked")

    monkeypatch.setattr(SMOClassifier, "fit", no_fit)
    with pytest.raises(ValueError, match=message):
        search.fit(X, Y)


def test_a_holdout_without_both_classes_is_refused(parts):
    X_tr, X_val, y_tr, y_val = parts
    one_class = y_val == 1
    with pytest.raises(ValueError, match="holdout .* holds no row of class"):
        RandomSearchSVM(n_iter=2).fit(X_tr, y_tr, X_val=X_val[one_class], y_val=y_val[one_class])
    y = np.array([1] * 40 + [-1] * 2)
    with pytest.raises(ValueError, match="holds no row of class|too few"):
        RandomSearchSVM(n_iter=2, validation_fraction=0.03).fit(np.eye(42), y)
