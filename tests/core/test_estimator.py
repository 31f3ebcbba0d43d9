"""SMOClassifier: scikit-learn compatibility, LIBSVM agreement, early stopping, errors."""

from __future__ import annotations

import warnings
from unittest.mock import patch

import numpy as np
import pytest
from conftest import DATASETS
from sklearn.datasets import make_classification
from sklearn.ensemble import BaggingClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from esmo.estimators.smo_classifier import SMOClassifier

# SVC's own expected failures (scikit-learn's PER_ESTIMATOR_XFAIL_CHECKS lists exactly these
# for SVC): a weight of 2 bounds one alpha by 2C, which two copies of the point reach only
# within tol. Nothing else may fail.
EXPECTED_FAILURES = {
    "check_sample_weight_equivalence_on_dense_data": "C * weight is not repeating samples",
    "check_sample_weight_equivalence_on_sparse_data": "C * weight is not repeating samples",
}


@parametrize_with_checks(
    [SMOClassifier()], expected_failed_checks=lambda estimator: EXPECTED_FAILURES
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("labels", [("no", "yes"), (3, 7), (-1, 1)])
@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_matches_svc_for_any_two_labels(labels, kernel):
    X, y = DATASETS["breast_cancer"]
    y_lab = np.where(y > 0, labels[1], labels[0])
    ours = SMOClassifier(kernel=kernel, C=8.0, tol=1e-3).fit(X, y_lab)
    svc = SVC(kernel=kernel, C=8.0, tol=1e-3, shrinking=False).fit(X, y_lab)
    assert ours.n_iter_ == svc.n_iter_[0]
    np.testing.assert_array_equal(ours.classes_, svc.classes_)
    np.testing.assert_array_equal(ours.support_, np.sort(svc.support_))
    np.testing.assert_allclose(ours.decision_function(X), svc.decision_function(X), atol=1e-4)
    np.testing.assert_array_equal(ours.predict(X), svc.predict(X))
    assert ours.gamma_ == pytest.approx(svc._gamma)
    assert not ours.stopped_early_ and not ours.max_iter_reached_


def test_early_stopping_with_internal_split_is_reproducible():
    X, y = DATASETS["synthetic"]
    params = dict(C=1000.0, gamma=2.0, early_stopping=True, n_iter_no_change=3, random_state=0)
    a = SMOClassifier(**params).fit(X, y)
    b = SMOClassifier(**params).fit(X, y)
    full = SMOClassifier(C=1000.0, gamma=2.0).fit(X, y)
    assert a.stopped_early_ and a.n_iter_ == b.n_iter_
    assert a.n_iter_ < full.n_iter_
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


def test_explicit_validation_data_are_used():
    X, y = DATASETS["breast_cancer"]
    X_tr, y_tr, X_val, y_val = X[:400], y[:400], X[400:], y[400:]
    es = SMOClassifier(
        C=100.0, gamma=3.0, early_stopping=True, n_iter_no_change=1, validation_interval=4
    )
    es.fit(X_tr, y_tr, X_val=X_val, y_val=y_val)
    plain = SMOClassifier(C=100.0, gamma=3.0).fit(X_tr, y_tr)
    # p = 1: stops at the first check (after iterations 1, 5, 9, ...) that does not improve
    assert es.stopped_early_ and es.n_iter_ % 4 == 1 and es.n_iter_ < plain.n_iter_
    loose = SMOClassifier(C=100.0, gamma=3.0, early_stopping=True, n_iter_no_change=10**8)
    loose.fit(X_tr, y_tr, X_val=X_val, y_val=y_val)
    assert loose.n_iter_ == plain.n_iter_ and not loose.stopped_early_
    np.testing.assert_array_equal(loose.dual_coef_, plain.dual_coef_)


def test_max_iter_warns_and_is_recorded():
    X, y = DATASETS["breast_cancer"]
    with pytest.warns(Warning, match="max_iter"):
        clf = SMOClassifier(C=100.0, max_iter=3).fit(X, y)
    assert clf.max_iter_reached_ and clf.n_iter_ == 3


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"C": 0.0}, "C"),
        ({"C": -2.0}, "C"),
        ({"gamma": 0.0}, "gamma"),
        ({"gamma": -1.0}, "gamma"),
        ({"kernel": "sigmoid"}, "kernel"),
        ({"es_metric": "f1"}, "es_metric must be one of"),
        ({"n_iter_no_change": -1}, "n_iter_no_change must hold non-negative integers"),
        ({"n_iter_no_change": 2.5}, "n_iter_no_change must hold non-negative integers"),
        ({"es_tol": np.inf}, "es_tol must be a non-negative finite number"),
        ({"validation_interval": 0}, "validation_interval must hold positive integers"),
        ({"restore_best": "yes"}, "restore_best must hold booleans"),
        ({"solver": "keerthi", "early_stopping": True}, "only supported by solver='fan'"),
    ],
)
def test_bad_parameters(params, message):
    X, y = DATASETS["iris"]
    with pytest.raises(ValueError, match=message):
        SMOClassifier(**params).fit(X, y)


def test_bad_data():
    X, y = DATASETS["iris"]
    with pytest.raises(ValueError, match="one class"):
        SMOClassifier().fit(X, np.ones_like(y))
    # three classes are one-vs-one now (tests/core/test_svc_parity.py)
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        SMOClassifier().fit(X, np.linspace(0.0, 1.0, len(y)))
    X_bad = X.copy()
    X_bad[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        SMOClassifier().fit(X_bad, y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        SMOClassifier().fit(X, y[:-2])
    with pytest.raises(ValueError, match="features"):
        SMOClassifier(early_stopping=True).fit(X, y, X_val=X[:, :2], y_val=y)
    with pytest.raises(ValueError, match="not seen in y"):
        SMOClassifier(early_stopping=True).fit(X, y, X_val=X, y_val=np.full_like(y, 5.0))


def test_validation_data_are_checked_like_the_training_data():
    """X_val goes through validate_data(reset=False): feature count and names as fitted."""
    pd = pytest.importorskip("pandas")
    X, y = DATASETS["breast_cancer"]
    names = [f"f{k}" for k in range(X.shape[1])]
    X_df = pd.DataFrame(X, columns=names)
    clf = SMOClassifier(early_stopping=True, n_iter_no_change=2)
    with pytest.raises(ValueError, match="X_val has 5 features, but SMOClassifier is expecting 30"):
        clf.fit(X, y, X_val=X[:20, :5], y_val=y[:20])
    renamed = X_df.iloc[:20].rename(columns={"f0": "other"})
    with pytest.raises(ValueError, match="feature names"):
        clf.fit(X_df, y, X_val=renamed, y_val=y[:20])
    clf.fit(X_df, y, X_val=X_df.iloc[:40], y_val=y[:40])  # the same columns pass


def test_validation_data_without_early_stopping_warn():
    X, y = DATASETS["breast_cancer"]
    with pytest.warns(UserWarning, match="ignored: no validation objective is read"):
        SMOClassifier().fit(X, y, X_val=X[:20], y_val=y[:20])


@pytest.mark.parametrize("solver", ["fan", "keerthi", "fan_plain"])
def test_max_iter_means_the_same_for_every_solver(solver):
    """0 leaves alpha at 0 (and warns), k stops after k pair updates, -1 is LIBSVM's own limit."""
    X, y = DATASETS["iris"]
    with pytest.warns(Warning, match="max_iter"):
        none = SMOClassifier(solver=solver, max_iter=0).fit(X, y)
    assert none.n_iter_ == 0 and none.max_iter_reached_ and none.support_.size == 0
    with pytest.warns(Warning, match="max_iter"):
        five = SMOClassifier(solver=solver, max_iter=5).fit(X, y)
    assert five.n_iter_ == 5 and five.max_iter_reached_
    full = SMOClassifier(solver=solver, max_iter=-1).fit(X, y)
    assert not full.max_iter_reached_
    capped = SMOClassifier(solver=solver, max_iter=10**7).fit(X, y)  # LIBSVM's cap for n < 10^5
    assert full.n_iter_ == capped.n_iter_
    if solver == "fan":  # float32 kernel values: LIBSVM's path, iteration for iteration
        assert full.n_iter_ == SVC(gamma="scale", shrinking=False).fit(X, y).n_iter_[0]


def _three_classes():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    return (X - X.mean(0)) / X.std(0), np.array(["setosa", "versicolor", "virginica"])[y]


@pytest.mark.parametrize("data", ["two", "three"])
def test_unchecked_fit_is_libsvm_and_equals_the_checked_one(data):
    """check_input=False (the ensembles' many small fits) skips checks, never changes the model."""
    if data == "two":
        X, y = DATASETS["breast_cancer"]
        y = np.where(y > 0, "yes", "no")
    else:
        X, y = _three_classes()
    fast = SMOClassifier(C=8.0).fit(X, y, check_input=False)
    svc = SVC(C=8.0, shrinking=False).fit(X, y)
    np.testing.assert_array_equal(np.ravel(fast.n_iter_), svc.n_iter_)
    np.testing.assert_array_equal(fast.classes_, svc.classes_)
    np.testing.assert_allclose(
        fast.decision_function(X, check_input=False), svc.decision_function(X), atol=1e-4
    )
    np.testing.assert_array_equal(fast.predict(X, check_input=False), svc.predict(X))
    checked = SMOClassifier(C=8.0).fit(X, y)
    np.testing.assert_array_equal(fast.dual_coef_, checked.dual_coef_)
    np.testing.assert_array_equal(fast.intercept_, checked.intercept_)


def test_unchecked_fit_reads_validation_data_as_the_checked_one():
    X, y = DATASETS["breast_cancer"]
    params = dict(
        C=100.0, gamma=3.0, early_stopping=True, n_iter_no_change=1, validation_interval=4
    )
    data = dict(X=X[:400], y=y[:400], X_val=X[400:], y_val=y[400:])
    fast = SMOClassifier(**params).fit(**data, check_input=False)
    checked = SMOClassifier(**params).fit(**data)
    assert fast.stopped_early_ and fast.n_iter_ == checked.n_iter_
    np.testing.assert_array_equal(fast.dual_coef_, checked.dual_coef_)


def test_the_iteration_limit_warning_quotes_the_limit_reached():
    """max_iter=-1 is LIBSVM's max(10**7, 100 n): the warning names that, not '-1' (issue 35)."""
    X, y = DATASETS["breast_cancer"]
    with pytest.warns(ConvergenceWarning, match=r"after 5 iterations, at max_iter=5,"):
        SMOClassifier(C=100.0, gamma=1.0, max_iter=5).fit(X, y)
    with pytest.warns(ConvergenceWarning, match=r"LIBSVM's own limit max\(10\*\*7, 100 n\)"):
        with patch("esmo.solver.params.SolverParams.iteration_limit", lambda self, n: 5):
            SMOClassifier(C=100.0, gamma=1.0, max_iter=-1).fit(X, y)


def test_a_bad_validation_set_is_named_x_val_not_x():
    """scikit-learn's checks call every input X: a NaN or a wrong width in X_val was reported
    as X's (issue 35, item 8)."""
    X, y = DATASETS["breast_cancer"]
    X_val = X[:20].copy()
    X_val[0, 0] = np.nan
    clf = SMOClassifier(early_stopping=True)
    with pytest.raises(ValueError, match=r"^Input X_val contains NaN"):
        clf.fit(X, y, X_val=X_val, y_val=y[:20])
    with pytest.raises(ValueError, match=r"^X_val has 3 features, but SMOClassifier is expecting"):
        clf.fit(X, y, X_val=X[:20, :3], y_val=y[:20])


def test_mdl_search_names_its_grid_for_a_bad_value():
    """A negative gamma in param_grid was reported as kernel_matrix's parameter."""
    from esmo import MDLSearch

    X, y = DATASETS["breast_cancer"]
    with pytest.raises(
        ValueError, match=r"'gamma' parameter of MDLSearch's param_grid \(candidate 1"
    ):
        MDLSearch(param_grid={"C": [1.0], "gamma": [0.5, -1.0]}).fit(X, y)


def test_zero_weights_drop_points_as_svc_does():
    """SVC trains without zero-weight points (LIBSVM's remove_zero_weight): the same
    iterations, support vectors and decision values. SVC's support_ then indexes the points of
    positive weight, not X (so X[svc.support_] are not its support vectors); ours indexes X."""
    X, y = DATASETS["breast_cancer"]
    w = np.random.default_rng(0).integers(0, 3, y.shape[0]).astype(float)
    ours = SMOClassifier(C=4.0, gamma=0.5).fit(X, y, sample_weight=w)
    svc = SVC(C=4.0, gamma=0.5, shrinking=False).fit(X, y, sample_weight=w)
    assert ours.n_iter_ == svc.n_iter_[0]
    kept = np.flatnonzero(w > 0)
    order = np.argsort(kept[svc.support_])  # SVC lists them by class, ours by index
    np.testing.assert_array_equal(ours.support_, kept[svc.support_][order])
    np.testing.assert_array_equal(ours.support_vectors_, svc.support_vectors_[order])
    np.testing.assert_allclose(ours.decision_function(X), svc.decision_function(X), atol=1e-9)


def test_zero_weights_keep_balanced_class_weights_over_every_point():
    X, y = DATASETS["breast_cancer"]
    w = np.where(np.arange(y.shape[0]) % 3 == 0, 0.0, 1.0)
    kw = {"C": 2.0, "gamma": 0.5, "class_weight": "balanced"}
    ours = SMOClassifier(**kw).fit(X, y, sample_weight=w)
    svc = SVC(**kw, shrinking=False).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(ours.class_weight_, svc.class_weight_)
    np.testing.assert_allclose(ours.decision_function(X), svc.decision_function(X), atol=1e-9)


def test_a_class_left_without_weight_and_negative_weights_are_refused():
    X, y = DATASETS["breast_cancer"]
    with pytest.raises(ValueError, match=r"zero for every point of class\(es\) \[1\.0\]"):
        SMOClassifier().fit(X, y, sample_weight=(y < 0).astype(float))
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        SMOClassifier().fit(X, y, sample_weight=np.where(y > 0, 1.0, -1.0))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bagging_equals_bagging_svc(seed):
    """BaggingClassifier passes bootstrap counts, zeros included, as sample_weight: it failed
    on SMOClassifier (zero weights refused) and now predicts as it does on SVC."""
    X, y = DATASETS["breast_cancer"]
    kw = {"n_estimators": 5, "random_state": seed}
    ours = BaggingClassifier(SMOClassifier(C=4.0, gamma=0.5), **kw).fit(X, y)
    svc = BaggingClassifier(SVC(C=4.0, gamma=0.5, shrinking=False), **kw).fit(X, y)
    np.testing.assert_array_equal(ours.predict(X), svc.predict(X))
    np.testing.assert_allclose(ours.decision_function(X), svc.decision_function(X), atol=1e-9)


@parametrize_with_checks([SMOClassifier(probability=True, random_state=0)])
def test_sklearn_compatible_with_probabilities(estimator, check):
    """predict_proba and predict_log_proba under scikit-learn's checks (no expected failure
    beyond SVC's two on weights)."""
    if check.func.__name__ in EXPECTED_FAILURES:
        pytest.xfail(EXPECTED_FAILURES[check.func.__name__])
    check(estimator)


@pytest.mark.parametrize("seed", [0, 7, 10, 14])
def test_probabilities_agree_with_predict_where_svcs_do_not(seed):
    """scikit-learn #13211: SVC(probability=True)'s most probable class differs from its own
    predict on these draws (1-3 of 60 points); esmo's never does (B = 0 by construction)."""
    X, y = make_classification(60, n_features=4, flip_y=0.2, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # SVC's probability is deprecated in 1.9
        svc = SVC(probability=True, random_state=0).fit(X, y)
    assert np.any(svc.classes_[svc.predict_proba(X).argmax(1)] != svc.predict(X))
    ours = SMOClassifier(probability=True, random_state=0).fit(X, y)
    P = ours.predict_proba(X)
    np.testing.assert_array_equal(ours.classes_[P.argmax(1)], ours.predict(X))
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert ours.probA_[0] > 0 and ours.probB_[0] == 0.0


def test_multiclass_probabilities_agree_with_the_vote():
    """Iris: SVC's coupled probabilities disagree with its vote on one flower; esmo's winner
    leads every row (the coupled values reordered where they would not)."""
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    ours = SMOClassifier(probability=True, random_state=0).fit(X, y)
    P = ours.predict_proba(X)
    np.testing.assert_array_equal(ours.classes_[P.argmax(1)], ours.predict(X))
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert ours.probA_.shape == (3,) and np.all(ours.probA_ > 0)


def test_exact_zero_decision_values_resolve_as_predict_does():
    from esmo.estimators.probability import binary_probability, winner_first

    p = binary_probability(np.array([-1.0, 0.0, 1.0]), 2.0)
    assert p[0] < 0.5 < p[1] < p[2]  # f = 0 predicts classes_[1]: just above one half
    probs, moved = winner_first(np.array([[0.5, 0.3, 0.2], [0.4, 0.4, 0.2]]), np.array([1, 1]))
    assert moved == 2 and probs[0].tolist() == [0.3, 0.5, 0.2]  # a tie ahead counts too
    assert probs[1].argmax() == 1  # an equal value before the winner is passed


def test_platt_slope_matches_a_direct_minimisation():
    """Oracle: the cross-entropy of Platt's targets minimised over a by a fine grid."""
    from esmo.estimators.probability import platt_slope

    rng = np.random.default_rng(0)
    f = rng.normal(size=200)
    pos = rng.random(200) < 1.0 / (1.0 + np.exp(-1.7 * f))
    t = np.where(pos, (pos.sum() + 1) / (pos.sum() + 2), 1 / ((~pos).sum() + 2))
    grid = np.linspace(0.01, 10, 20001)
    z = grid[:, None] * f[None, :]
    loss = -(t * -np.logaddexp(0, -z) + (1 - t) * -np.logaddexp(0, z)).sum(axis=1)
    assert platt_slope(f, pos) == pytest.approx(grid[np.argmin(loss)], abs=1e-3)
    assert platt_slope(-np.abs(f) * np.where(pos, 1, -1), pos) == pytest.approx(1e-8, rel=1e-3)
