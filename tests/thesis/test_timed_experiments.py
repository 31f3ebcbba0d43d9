"""Tests of the E3/E4/appendix A measurements and fig 1.1's curve (esmo.papers.thesis.hpo)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification
from sklearn.metrics import accuracy_score
from sklearn.preprocessing import MinMaxScaler
from sklearn.svm import SVC

from esmo.early_stopping import J_HIGH as J_HIGH_RULE
from esmo.estimators.smo_classifier import SMOClassifier
from esmo.papers.thesis import timed_fits
from esmo.papers.thesis.hpo import (
    HPO_COLUMNS,
    METHODS,
    THESIS_METHODS,
    e3_scores,
    es_config_of,
    run_hpo_methods,
)
from esmo.papers.thesis.illustrations import validation_curve_along_iterations
from esmo.papers.thesis.scoring import score
from esmo.papers.thesis.solver_comparison import compare_solvers, make_solver
from esmo.tuning import search as search_module
from esmo.tuning.search import random_search

J_HIGH = es_config_of(J_HIGH_RULE)


def _problem(n: int = 200, seed: int = 0):
    X, y = make_classification(
        n_samples=n, n_features=6, n_informative=4, flip_y=0.1, random_state=seed
    )
    X, y = MinMaxScaler().fit_transform(X), np.where(y == 1, 1, -1)
    a, b = int(0.6 * n), int(0.8 * n)
    return X[:a], y[:a], X[a:b], y[a:b], X[b:], y[b:]


def _configs(k: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "config_id": np.arange(k),
            "C": 2.0 ** rng.uniform(-5, 10, k),
            "gamma": 2.0 ** rng.uniform(-6, 3, k),
            "tol": 2.0 ** rng.uniform(-8, -1, k),
        }
    )


class Clock:
    """A virtual ``time`` module: the fake's fits advance it by their scripted cost, so every
    duration the experiment measures is known exactly, whatever the machine is doing."""

    now = 0.0

    @classmethod
    def perf_counter(cls) -> float:
        return cls.now


class FakeSVM:
    """Stands in for SMOClassifier: scripted iterations and costs, and a log of every fit.

    A configuration converges after ``round(100 * C)`` iterations; with early
    stopping it stops at half of that and each fit pays ``CHECK_COST`` seconds of
    "validation checks". The first fit of each variant (with or without ES) is flagged as the "compiling" one.
    """

    log: list[dict] = []
    compiled: set[bool] = set()
    ITER_COST = 2e-5
    CHECK_COST = 0.01
    COMPILE_COST = 0.05

    def __init__(self, kernel, C, gamma, tol, max_iter, early_stopping=False, **es):
        self.C, self.max_iter, self.early_stopping = C, max_iter, early_stopping

    def fit(self, X, y, X_val=None, y_val=None):
        natural = round(100 * self.C)
        planned = natural // 2 if self.early_stopping else natural
        self.n_iter_ = planned if self.max_iter == -1 else min(planned, self.max_iter)
        self.stopped_early_ = self.early_stopping and self.n_iter_ < natural
        first = self.early_stopping not in FakeSVM.compiled
        FakeSVM.compiled.add(self.early_stopping)
        Clock.now += (
            self.n_iter_ * self.ITER_COST
            + (self.CHECK_COST if self.early_stopping else 0.0)
            + (self.COMPILE_COST if first else 0.0)
        )
        FakeSVM.log.append({"es": self.early_stopping, "n": len(y), "first": first})
        self.threshold_ = float(np.median(X[:, 0])) + 0.01 * self.C
        return self

    def predict(self, X):
        return np.where(X[:, 0] > self.threshold_, 1, -1)


@pytest.fixture
def fake(monkeypatch):
    FakeSVM.log, FakeSVM.compiled = [], set()
    for module in (search_module, timed_fits):
        monkeypatch.setattr(module, "time", Clock)
    return FakeSVM


def test_warm_up_fits_each_variant_before_any_timed_fit(fake):
    """Compilation (each variant's first fit) happens in the warm-up, never in a timed fit."""
    X_tr, y_tr, X_val, y_val, X_te, y_te = _problem(120)
    configs = _configs(8).assign(C=np.linspace(0.5, 2.0, 8))
    out = run_hpo_methods(
        X_tr, y_tr, X_val, y_val, X_te, y_te, configs, J_HIGH, random_state=0, estimator=fake
    )
    log = pd.DataFrame(fake.log)
    firsts = log.index[log["first"]].tolist()
    assert sorted(log.loc[firsts, "es"]) == [False, True]
    assert firsts == [0, 1]  # both variants compiled before the first search fit
    assert (log.loc[firsts, "n"] == 8).all()  # on a tiny slice: four rows of each class
    # warm-up: one plain fit and one ES fit per evaluation (auto, fresh); every other fit
    # is a search fit or an ES overhead replay (one per ES fit)
    assert log.loc[:2, "n"].tolist() == [8, 8, 8] and not log.loc[2, "first"]
    n_es_fits = int(out.loc[out["early_stopping"], "n_fits"].sum())
    assert len(log) == 3 + out["n_fits"].sum() + n_es_fits


def test_es_overhead_measures_the_checks_alone(fake):
    """The replay difference recovers the scripted check cost of every ES fit."""
    X_tr, y_tr, X_val, y_val, X_te, y_te = _problem(120)
    configs = _configs(4).assign(C=[1.0, 2.0, 3.0, 4.0])
    out = run_hpo_methods(
        X_tr,
        y_tr,
        X_val,
        y_val,
        X_te,
        y_te,
        configs,
        J_HIGH,
        methods=("RS", "RS+ES"),
        random_state=0,
        estimator=fake,
    ).set_index("method")
    assert out.loc["RS", "es_overhead_seconds"] == 0.0
    # each ES fit is replayed for exactly its T iterations without ES: what remains is the
    # scripted check cost (a replay of any other length would leave T' * ITER_COST more or less)
    assert out.loc["RS+ES", "es_overhead_seconds"] == pytest.approx(4 * fake.CHECK_COST, rel=1e-9)
    # the ES fits ran half the iterations (scripted), all stopped early
    assert out.loc["RS+ES", "total_iterations"] == out.loc["RS", "total_iterations"] / 2
    assert out.loc["RS+ES", "n_stopped_early"] == 4


def test_run_hpo_methods_with_smo_classifier_matches_a_direct_random_search():
    X_tr, y_tr, X_val, y_val, X_te, y_te = _problem(200)
    configs = _configs(8)
    out = run_hpo_methods(
        X_tr, y_tr, X_val, y_val, X_te, y_te, configs, J_HIGH, max_iter=100_000, random_state=1
    )
    assert list(out.columns) == HPO_COLUMNS
    assert out["method"].tolist() == list(METHODS)
    out = out.set_index("method")
    # oracle: the same random search done by hand
    direct = random_search(
        lambda r: SMOClassifier(C=r["C"], gamma=r["gamma"], tol=r["tol"], max_iter=100_000),
        configs,
        X_tr,
        y_tr,
        X_val,
        y_val,
        X_te,
        y_te,
    )
    assert out.loc["RS", "config_id"] == direct.config_id
    assert out.loc["RS", "test_accuracy"] == direct.test_accuracy
    assert out.loc["RS", "total_iterations"] == direct.total_iterations
    # RS fits every configuration; SH with k = 8 runs 8 + 4 + 2 + 1 fits
    assert out.loc["RS", "n_fits"] == out.loc["RS+ES", "n_fits"] == 8
    assert out.loc["SH", "n_fits"] == out.loc["SH+ES", "n_fits"] == 15
    # ES never adds iterations (same path, ends no later)
    assert out.loc["RS+ES", "total_iterations"] <= out.loc["RS", "total_iterations"]
    # the thesis's cost model (fresh checks) changes the seconds, never the outcome: the
    # fresh and the tracked decision values differ in the last bits only
    for method in ("RS+ES", "SH+ES"):
        for column in ("config_id", "test_accuracy", "total_iterations", "n_stopped_early"):
            assert out.loc[method, column] == out.loc[f"{method} fresh", column]
    assert np.isfinite(out["es_overhead_seconds"]).all()


def test_run_hpo_methods_rejects_bad_input():
    X_tr, y_tr, X_val, y_val, X_te, y_te = _problem(100)
    with pytest.raises(ValueError, match="es_config lacks"):
        run_hpo_methods(
            X_tr, y_tr, X_val, y_val, X_te, y_te, _configs(4), {"patience": 3}, random_state=0
        )
    with pytest.raises(ValueError, match="unknown methods"):
        run_hpo_methods(
            X_tr,
            y_tr,
            X_val,
            y_val,
            X_te,
            y_te,
            _configs(4),
            J_HIGH,
            methods=("GridSearch",),
            random_state=0,
        )
    with pytest.raises(ValueError, match="RBF"):
        run_hpo_methods(
            X_tr,
            y_tr,
            X_val,
            y_val,
            X_te,
            y_te,
            _configs(4).assign(gamma=np.nan),
            J_HIGH,
            random_state=0,
        )


def _per_fold() -> pd.DataFrame:
    rows = []
    hand = {  # method: (accuracies of folds 0, 1; seconds of folds 0, 1)
        "RS": ((0.90, 0.90), (10.0, 10.0)),
        "RS+ES": ((0.90, 0.88), (6.0, 4.0)),
        "SH": ((0.80, 0.80), (2.0, 3.0)),
        "SH+ES": ((0.70, 0.90), (15.0, 15.0)),
    }
    for method, (accs, secs) in hand.items():
        for fold in (0, 1):
            rows.append(
                {
                    "dataset": "w1a",
                    "fold": fold,
                    "method": method,
                    "test_accuracy": accs[fold],
                    "val_accuracy": accs[fold],
                    "fit_seconds": secs[fold],
                    "total_iterations": 100,
                    "es_overhead_seconds": 0.5 if method.endswith("ES") else 0.0,
                }
            )
    return pd.DataFrame(rows)


def test_e3_scores_use_rs_without_es_seconds_as_reference_for_every_method():
    out = e3_scores(_per_fold(), beta=0.995).set_index("method")
    assert out.index.tolist() == list(THESIS_METHODS)
    assert (out["seconds_ref"] == 20.0).all()
    # hand values: S = 0.995 acc + 0.005 (1 - seconds / 20)
    assert out.loc["RS", "score"] == pytest.approx(0.995 * 0.90)
    assert out.loc["RS+ES", "score"] == pytest.approx(0.995 * 0.89 + 0.005 * 0.5)
    assert out.loc["SH", "score"] == pytest.approx(0.995 * 0.80 + 0.005 * 0.75)
    assert out.loc["SH+ES", "score"] == pytest.approx(0.995 * 0.80 + 0.005 * -0.5)
    # every method is compared with RS (which ties with itself), not with its own
    # search without ES
    assert out["win"].tolist() == [0.5, 0.0, 0.0, 0.0]
    assert out.loc["SH", "seconds"] == 5.0
    assert out.loc["RS+ES", "test_accuracy_std"] == pytest.approx(0.01)
    assert out.loc["RS+ES", "es_overhead_seconds"] == 1.0
    # at beta = 0 only time counts: the faster SH now wins
    cheap = e3_scores(_per_fold(), beta=0.0).set_index("method")
    assert cheap.loc["SH", "win"] == 1.0
    assert cheap.loc["SH", "score"] == pytest.approx(score(0.8, 5.0, 20.0, 0.0))


def test_e3_scores_rejects_missing_reference_and_uneven_folds():
    table = _per_fold()
    with pytest.raises(ValueError, match="no 'RS' rows"):
        e3_scores(table[table["method"] != "RS"], beta=0.995)
    with pytest.raises(ValueError, match="different numbers of folds"):
        e3_scores(table.drop(index=table.index[-1]), beta=0.995)
    with pytest.raises(ValueError, match="concatenate"):
        e3_scores(pd.concat([table, table]), beta=0.995)


def test_compare_solvers_six_rows_and_fan_variants_agree():
    X_tr, y_tr, _, _, X_te, y_te = _problem(150)
    out = compare_solvers(X_tr, y_tr, X_te, y_te, C=4.0, gamma=1.0, tol=1e-3)
    assert out["solver"].tolist() == [
        "keerthi_own_rule",
        "keerthi",
        "fan_plain",
        "fan",
        "libsvm_shrinking",
        "libsvm",
    ]
    out = out.set_index("solver")
    # Keerthi's own rule allows twice LIBSVM's violation on the same path: it stops sooner
    assert out.loc["keerthi_own_rule", "n_iter"] <= out.loc["keerthi", "n_iter"]
    assert out.loc["fan", "test_accuracy"] == out.loc["fan_plain", "test_accuracy"]
    # LIBSVM without shrinking runs the same algorithm as the numba solver
    libsvm = SVC(C=4.0, gamma=1.0, tol=1e-3, shrinking=False).fit(X_tr, y_tr)
    assert out.loc["libsvm", "n_iter"] == int(libsvm.n_iter_[0])
    assert out.loc["fan", "n_iter"] == out.loc["libsvm", "n_iter"]
    assert (out["seconds"] > 0).all() and not out["max_iter_reached"].any()
    with pytest.raises(ValueError, match="unknown solvers"):
        compare_solvers(X_tr, y_tr, X_te, y_te, C=1.0, gamma=1.0, tol=1e-3, solvers=("cvx",))


def test_libsvm_shrinking_is_scikit_learns_default_svc():
    # C = 30 on this problem is one where shrinking changes LIBSVM's path (513 vs 566
    # iterations), so the test tells the two SVC solvers apart
    X_tr, y_tr, _, _, X_te, y_te = _problem(150)
    params = {"C": 30.0, "gamma": 1.0, "tol": 1e-3}
    default = SVC(**params).fit(X_tr, y_tr)
    assert default.shrinking  # scikit-learn's default
    off = SVC(**params, shrinking=False).fit(X_tr, y_tr)
    assert default.n_iter_[0] != off.n_iter_[0]
    ours = make_solver("libsvm_shrinking", **params, max_iter=-1).fit(X_tr, y_tr)
    assert ours.n_iter_[0] == default.n_iter_[0]
    np.testing.assert_array_equal(ours.support_, default.support_)
    np.testing.assert_array_equal(ours.dual_coef_, default.dual_coef_)
    out = compare_solvers(
        X_tr, y_tr, X_te, y_te, **params, solvers=("libsvm_shrinking", "libsvm")
    ).set_index("solver")
    assert out.loc["libsvm_shrinking", "n_iter"] == default.n_iter_[0]
    assert out.loc["libsvm", "n_iter"] == off.n_iter_[0]
    assert out.loc["libsvm_shrinking", "test_accuracy"] == accuracy_score(
        y_te, default.predict(X_te)
    )


def test_validation_curve_ends_at_the_converged_model():
    X_tr, y_tr, X_val, y_val, _, _ = _problem(150)
    params = {"C": 50.0, "gamma": 2.0, "tol": 1e-3}
    curve = validation_curve_along_iterations(
        X_tr, y_tr, X_val, y_val, checkpoints=[1, 3, 10, 30, 100, 10**4, 10**5], **params
    )
    full = SMOClassifier(**params).fit(X_tr, y_tr)
    last = curve.iloc[-1]
    assert last["converged"] and not curve["converged"].iloc[:-1].any()
    assert last["n_iter"] == full.n_iter_
    assert last["val_accuracy"] == accuracy_score(y_val, full.predict(X_val))
    assert 10**5 not in curve["checkpoint"].tolist()  # stops at convergence
    early = curve.iloc[:-1]
    assert (early["n_iter"] == early["checkpoint"]).all()
    with pytest.raises(ValueError, match="positive integers"):
        validation_curve_along_iterations(X_tr, y_tr, X_val, y_val, checkpoints=[0, 5], **params)
