"""Random search and successive halving drivers (protocol §6, eq. 2.21-2.22)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import MinMaxScaler
from sklearn.svm import SVC

from esmo.tuning.halving import stratified_rows
from esmo.tuning.search import (
    TRIAL_COLUMNS,
    HalvingRound,
    random_search,
    successive_halving,
    successive_halving_schedule,
)


class Oracle(BaseEstimator, ClassifierMixin):
    """Deterministic fake: right on every sample whose difficulty is below ``skill``.

    Column 0 of X holds the true label and column 1 a difficulty in [0, 1), so
    the accuracy on any part is the share of its difficulties below ``skill``,
    whatever the training data. ``fit`` records what it saw.
    """

    def __init__(self, skill: float = 0.5):
        self.skill = skill

    def fit(self, X, y, **fit_params):
        self.classes_ = np.unique(y)
        self.seen_y_ = np.asarray(y).copy()
        self.fit_params_ = fit_params
        self.n_iter_ = len(y)
        self.stopped_early_ = self.skill < 0.5
        return self

    def predict(self, X):
        return np.where(X[:, 1] < self.skill, X[:, 0], -X[:, 0])


def oracle_data(n: int, seed: int, minority: float = 0.5):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < minority, 1, -1)
    difficulty = (np.arange(n) + 0.5) / n  # evenly spread: accuracy = skill exactly
    X = np.column_stack([y, rng.permutation(difficulty)])
    return X, y


def make_oracle(row: pd.Series) -> Oracle:
    return Oracle(skill=float(row["skill"]))


def configs_with(skills) -> pd.DataFrame:
    return pd.DataFrame({"config_id": np.arange(len(skills)) + 100, "skill": skills})


@pytest.fixture(scope="module")
def parts():
    X_train, y_train = oracle_data(400, seed=1)
    X_val, y_val = oracle_data(100, seed=2)
    X_test, y_test = oracle_data(50, seed=3)
    return X_train, y_train, X_val, y_val, X_test, y_test


# -- schedule ---------------------------------------------------------------------------


def test_schedule_k8():
    assert successive_halving_schedule(8, 800) == [
        HalvingRound(8, 100),
        HalvingRound(4, 200),
        HalvingRound(2, 400),
        HalvingRound(1, 800),
    ]


def test_schedule_k100_floors_odd_rounds():
    rounds = successive_halving_schedule(100, 1000)
    assert len(rounds) == math.floor(math.log2(100)) + 1 == 7
    assert [r.n_candidates for r in rounds] == [100, 50, 25, 12, 6, 3, 1]
    assert [r.budget for r in rounds] == [10, 20, 40, 83, 166, 333, 1000]


@pytest.mark.parametrize("k", [1, 2, 3, 7, 31, 64, 100, 400])
def test_schedule_invariants(k):
    n_train = 5000
    rounds = successive_halving_schedule(k, n_train)
    assert len(rounds) == math.floor(math.log2(k)) + 1
    for t, r in enumerate(rounds):
        assert r.n_candidates == math.floor(k / 2**t)
        assert r.budget == math.floor(n_train / r.n_candidates)
    assert rounds[-1].n_candidates == 1 and rounds[-1].budget == n_train


@pytest.mark.parametrize(
    ("k", "n", "message"),
    [(0, 100, "n_candidates"), (8, 0, "n_train"), (8, 31, "too small"), (2.5, 100, "integer")],
)
def test_schedule_rejects_bad_input(k, n, message):
    with pytest.raises(ValueError, match=message):
        successive_halving_schedule(k, n)


# -- random search ----------------------------------------------------------------------


def test_random_search_picks_best_validation_with_ties_to_earlier(parts):
    configs = configs_with([0.3, 0.8, 0.6, 0.8, 0.1])
    result = random_search(make_oracle, configs, *parts)
    assert result.config_id == 101  # 0.8 twice: the earlier wins
    assert result.val_accuracy == pytest.approx(0.8)
    assert result.test_accuracy == pytest.approx(0.8)  # the chosen model's, on test
    trials = result.trials
    assert list(trials.columns) == TRIAL_COLUMNS
    assert trials["config_id"].tolist() == [100, 101, 102, 103, 104]
    assert (trials["round"] == 0).all() and (trials["n_samples"] == 400).all()
    np.testing.assert_allclose(trials["val_accuracy"], [0.3, 0.8, 0.6, 0.8, 0.1])
    assert result.total_iterations == 5 * 400
    assert result.fit_seconds == pytest.approx(trials["fit_seconds"].sum())
    assert trials["stopped_early"].tolist() == [True, False, False, False, True]


def test_random_search_passes_fit_params_and_works_without_test(parts):
    X_train, y_train, X_val, y_val, _, _ = parts
    seen = []

    def make(row):
        est = Oracle(skill=float(row["skill"]))
        seen.append(est)
        return est

    result = random_search(
        make, configs_with([0.5, 0.7]), X_train, y_train, X_val, y_val,
        fit_params={"X_val": X_val, "y_val": y_val},
    )  # fmt: skip
    assert math.isnan(result.test_accuracy)
    assert all(est.fit_params_["X_val"] is X_val for est in seen)


def test_random_search_with_svc_matches_manual_loop():
    """A real estimator: the driver equals picking argmax by hand."""
    X, y = load_breast_cancer(return_X_y=True)
    X = MinMaxScaler().fit_transform(X)[::3]
    y = y[::3]
    X_tr, y_tr, X_val, y_val = X[:120], y[:120], X[120:], y[120:]
    configs = pd.DataFrame({"config_id": [0, 1, 2], "C": [0.01, 1.0, 100.0]})
    make = lambda row: SVC(C=row["C"], gamma=1.0, shrinking=False)  # noqa: E731
    result = random_search(make, configs, X_tr, y_tr, X_val, y_val)
    manual = [make(r).fit(X_tr, y_tr).score(X_val, y_val) for _, r in configs.iterrows()]
    assert result.config_id == int(np.argmax(manual))
    np.testing.assert_allclose(result.trials["val_accuracy"], manual)
    n_iter = [int(make(r).fit(X_tr, y_tr).n_iter_[0]) for _, r in configs.iterrows()]
    assert result.trials["n_iter"].tolist() == n_iter


def test_total_iterations_is_nan_without_n_iter(parts):
    class NoIter(Oracle):
        def fit(self, X, y, **fit_params):
            super().fit(X, y)
            del self.n_iter_, self.stopped_early_
            return self

    result = random_search(lambda row: NoIter(row["skill"]), configs_with([0.5]), *parts)
    assert math.isnan(result.total_iterations)
    assert result.trials["n_iter"].isna().all() and result.trials["stopped_early"].isna().all()


# -- successive halving -----------------------------------------------------------------


def test_successive_halving_keeps_top_half_by_validation(parts):
    skills = np.random.default_rng(7).permutation(np.linspace(0.2, 0.9, 8))
    configs = configs_with(skills)
    result = successive_halving(make_oracle, configs, *parts, random_state=0)
    trials = result.trials
    assert trials.groupby("round").size().tolist() == [8, 4, 2, 1]
    assert trials.groupby("round")["n_samples"].first().tolist() == [50, 100, 200, 400]
    for t in range(1, 4):
        previous = trials[trials["round"] == t - 1]
        expected = previous.nlargest(len(previous) // 2, "val_accuracy", keep="first")
        assert set(trials.loc[trials["round"] == t, "config_id"]) == set(expected["config_id"])
    best = configs.loc[np.argmax(skills), "config_id"]
    assert result.config_id == best
    assert result.val_accuracy == pytest.approx(skills.max())
    assert result.test_accuracy == pytest.approx(round(skills.max() * 50) / 50)
    assert result.total_iterations == 8 * 50 + 4 * 100 + 2 * 200 + 400


def test_successive_halving_ties_go_to_the_earlier_config(parts):
    # 0.6 three times: only the first two of them survive round 0 (k=6 -> 3 kept)
    configs = configs_with([0.2, 0.6, 0.9, 0.6, 0.6, 0.1])
    trials = successive_halving(make_oracle, configs, *parts, random_state=0).trials
    assert trials.loc[trials["round"] == 1, "config_id"].tolist() == [101, 102, 103]


def test_successive_halving_k100_round_sizes():
    X_train, y_train = oracle_data(1000, seed=4)
    X_val, y_val = oracle_data(100, seed=5)
    configs = configs_with(np.linspace(0.1, 0.9, 100))
    result = successive_halving(
        make_oracle, configs, X_train, y_train, X_val, y_val, random_state=1
    )
    per_round = result.trials.groupby("round").agg(
        n=("config_id", "size"), samples=("n_samples", "first")
    )
    assert per_round["n"].tolist() == [100, 50, 25, 12, 6, 3, 1]
    assert per_round["samples"].tolist() == [10, 20, 40, 83, 166, 333, 1000]
    assert math.isnan(result.test_accuracy)


def test_subsamples_are_stratified_with_two_per_class():
    # a 5 % minority: proportional allocation of 10 samples would give it 0 or 1
    X_train, y_train = oracle_data(1000, seed=9, minority=0.05)
    X_val, y_val = oracle_data(100, seed=10)
    fitted = []

    def make(row):
        fitted.append(Oracle(float(row["skill"])))
        return fitted[-1]

    successive_halving(
        make, configs_with(np.linspace(0.1, 0.9, 100)), X_train, y_train, X_val, y_val,
        random_state=3,
    )  # fmt: skip
    share = np.mean(y_train == 1)
    for est in fitted:
        n_pos = np.count_nonzero(est.seen_y_ == 1)
        n_neg = est.seen_y_.size - n_pos
        assert n_pos >= 2 and n_neg >= 2
        # stratified: the proportional share, rounded, unless topped up to two
        assert abs(n_pos - max(2.0, share * est.seen_y_.size)) <= 1


def test_stratified_subsample_is_a_subset_without_repeats():
    y = np.array([1] * 30 + [-1] * 70)
    idx = stratified_rows(y, 20, np.random.RandomState(0), draw="resample")
    assert idx.size == 20 and np.unique(idx).size == 20
    assert np.count_nonzero(y[idx] == 1) == 6


def test_successive_halving_is_deterministic_for_a_seed(parts):
    configs = configs_with(np.linspace(0.3, 0.7, 8))

    def run(seed):
        fitted = []

        def make(row):
            fitted.append(Oracle(float(row["skill"])))
            return fitted[-1]

        successive_halving(make, configs, *parts, random_state=seed)
        return [est.seen_y_.tolist() for est in fitted]

    assert run(5) == run(5)
    assert run(5) != run(6)


def test_successive_halving_round_shares_one_subsample(parts):
    fitted = []

    def make(row):
        fitted.append(Oracle(float(row["skill"])))
        return fitted[-1]

    successive_halving(make, configs_with(np.linspace(0.3, 0.7, 4)), *parts, random_state=0)
    round0 = [est.seen_y_ for est in fitted[:4]]
    assert all(np.array_equal(round0[0], seen) for seen in round0)


# -- bad input --------------------------------------------------------------------------


@pytest.mark.parametrize("search", [random_search, successive_halving])
def test_empty_configs_rejected(parts, search):
    kwargs = {"random_state": 0} if search is successive_halving else {}
    with pytest.raises(ValueError, match="configs is empty"):
        search(make_oracle, configs_with([]), *parts, **kwargs)


def test_too_small_training_part_rejected(parts):
    X_train, y_train, X_val, y_val, _, _ = parts
    with pytest.raises(ValueError, match="too small"):
        successive_halving(
            make_oracle, configs_with(np.full(200, 0.5)), X_train[:300], y_train[:300],
            X_val, y_val, random_state=0,
        )  # fmt: skip


def test_mismatched_parts_rejected(parts):
    X_train, y_train, X_val, y_val, X_test, y_test = parts
    configs = configs_with([0.5])
    with pytest.raises(ValueError, match="one label per row"):
        random_search(make_oracle, configs, X_train, y_train[:-1], X_val, y_val)
    with pytest.raises(ValueError, match="both X_test and y_test"):
        random_search(make_oracle, configs, X_train, y_train, X_val, y_val, X_test)
    with pytest.raises(ValueError, match="unique"):
        random_search(make_oracle, configs_with([0.5, 0.6]).assign(config_id=1), *parts)
    with pytest.raises(ValueError, match="two or more classes"):
        successive_halving(
            make_oracle, configs, X_train, np.ones_like(y_train), X_val, y_val, random_state=0
        )
