"""What SVC users expect: one-vs-one multiclass, n_support_, coef_, verbose; LIBSVM is the oracle."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import load_digits, load_iris
from sklearn.preprocessing import MinMaxScaler
from sklearn.svm import SVC

from esmo import SMOClassifier


def _scaled(loader, n=None):
    X, y = loader(return_X_y=True)
    return MinMaxScaler().fit_transform(X)[:n], y[:n]


IRIS = _scaled(load_iris)
DIGITS = _scaled(load_digits, 400)  # ten classes, 45 pairs


@pytest.mark.parametrize("shrinking", [False, True])
@pytest.mark.parametrize("data", [IRIS, DIGITS], ids=["iris", "digits"])
@pytest.mark.parametrize("kernel", ["rbf", "linear"])
@pytest.mark.parametrize("shape", ["ovo", "ovr"])
def test_multiclass_equals_svc(data, kernel, shape, shrinking):
    X, y = data
    params = dict(
        kernel=kernel,
        C=10.0,
        gamma=0.5,
        tol=1e-3,
        decision_function_shape=shape,
        shrinking=shrinking,
    )
    svc = SVC(**params).fit(X, y)
    ours = SMOClassifier(**params).fit(X, y)
    np.testing.assert_array_equal(ours.classes_, svc.classes_)
    # the same SMO path in every pair: iterations, support vectors, coefficients
    np.testing.assert_array_equal(ours.n_iter_, svc.n_iter_)
    np.testing.assert_array_equal(ours.support_, svc.support_)
    np.testing.assert_array_equal(ours.n_support_, svc.n_support_)
    np.testing.assert_allclose(ours.dual_coef_, svc.dual_coef_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(ours.intercept_, svc.intercept_, rtol=0, atol=1e-10)
    X_new = np.random.default_rng(0).random((50, X.shape[1]))
    for Z in (X, X_new):
        assert ours.decision_function(Z).shape == svc.decision_function(Z).shape
        np.testing.assert_allclose(ours.decision_function(Z), svc.decision_function(Z), atol=1e-9)
        np.testing.assert_array_equal(ours.predict(Z), svc.predict(Z))
    if kernel == "linear":
        np.testing.assert_allclose(ours.coef_, svc.coef_, atol=1e-10)


@pytest.mark.parametrize("shrinking", [False, True])
def test_multiclass_class_weight_equals_svc(shrinking):
    X, y = IRIS
    for class_weight in ("balanced", {0: 0.5, 1: 2.0, 2: 1.0}):
        params = dict(C=4.0, gamma=1.0, class_weight=class_weight, shrinking=shrinking)
        svc = SVC(**params).fit(X, y)
        ours = SMOClassifier(**params).fit(X, y)
        np.testing.assert_array_equal(ours.n_iter_, svc.n_iter_)
        np.testing.assert_allclose(ours.class_weight_, svc.class_weight_)
        np.testing.assert_allclose(ours.decision_function(X), svc.decision_function(X), atol=1e-9)


def test_binary_n_support_and_coef_equal_svc():
    X, y = IRIS[0][50:], IRIS[1][50:]  # versicolor vs virginica
    svc = SVC(kernel="linear", C=2.0).fit(X, y)
    ours = SMOClassifier(kernel="linear", C=2.0).fit(X, y)
    np.testing.assert_array_equal(ours.n_support_, svc.n_support_)
    np.testing.assert_allclose(ours.coef_, svc.coef_, atol=1e-10)
    # coef_ is the primal form of the decision function
    np.testing.assert_allclose(X @ ours.coef_[0] + ours.intercept_[0], ours.decision_function(X))
    with pytest.raises(AttributeError, match="linear kernel"):
        _ = SMOClassifier(kernel="rbf").fit(X, y).coef_


def test_multiclass_early_stopping_and_warm_start_run_per_pair():
    X, y = IRIS
    clf = SMOClassifier(C=100.0, gamma=2.0, early_stopping=True, n_iter_no_change=2, random_state=0)
    clf.fit(X, y)
    assert clf.n_iter_.shape == (3,) and clf.stopped_early_.any()
    full = SVC(C=100.0, gamma=2.0).fit(X, y)  # shrinking, as SMOClassifier's default
    assert (clf.n_iter_ <= full.n_iter_).all()
    # a fit cut by max_iter and continued equals the uninterrupted one, pair by pair
    with pytest.warns(Warning):
        warm = SMOClassifier(C=100.0, gamma=2.0, max_iter=5, warm_start=True).fit(X, y)
    warm.set_params(max_iter=-1).fit(X, y)
    np.testing.assert_array_equal(warm.n_iter_, full.n_iter_)
    np.testing.assert_allclose(warm.decision_function(X), full.decision_function(X), atol=1e-9)


def test_verbose_reports_each_binary_fit(capsys):
    X, y = IRIS
    SMOClassifier(verbose=1).fit(X, y)
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 3  # three pairs
    assert all("iterations" in line and "support vectors" in line for line in lines)
    SMOClassifier().fit(X, y)
    assert capsys.readouterr().out == ""


def test_probabilities_through_calibration():
    """No probability=True: CalibratedClassifierCV gives them from the decision values."""
    X, y = IRIS
    proba = CalibratedClassifierCV(SMOClassifier(gamma=1.0), cv=3).fit(X, y).predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert (proba.argmax(axis=1) == y).mean() > 0.9


def test_multilabel_targets_are_refused():
    X, y = IRIS
    with pytest.raises(ValueError, match="1d array"):
        SMOClassifier().fit(X, np.column_stack([y, y]))
