"""esmo.estimators.base: what every estimator shares behaves the same in every estimator.

gamma's resolution and its guard, the early-stopping parameters' rules (one
patience floor), the label checks and encoding, and the validation split.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DATASETS
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC

from esmo.early_stopping import J_HIGH, EarlyStopping
from esmo.ensembles.estimator import SVMEnsembleClassifier
from esmo.ensembles.grid import SVMSettings
from esmo.estimators.base import SVMClassifierBase, encode_labels, resolve_gamma
from esmo.estimators.pegasos_classifier import PegasosClassifier
from esmo.estimators.smo_classifier import SMOClassifier
from esmo.hypergradient.search import GradientSearchCV
from esmo.mdl.search import MDLSearch
from esmo.solver.params import SolverParams
from esmo.solver.tracking import SMOOTHING_T


def _nsvm(**params):
    pytest.importorskip("torch", reason="the NSVM classifiers need esmo[nsvm] (PyTorch)")
    from esmo.nsvm.estimators import NSVM1Classifier
    from esmo.nsvm.networks import ringnorm_mlp

    return NSVM1Classifier(network=lambda: ringnorm_mlp(3), n_steps=5, random_state=0, **params)


def _problem(n: int = 40, scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = scale * rng.random((n, 3))
    return X, np.r_[np.zeros(n // 2), np.ones(n - n // 2)]


# every estimator that resolves gamma='scale' itself, as a function of gamma
SCALE_GAMMA = {
    "SMOClassifier": lambda gamma: SMOClassifier(gamma=gamma),
    "PegasosClassifier": lambda gamma: PegasosClassifier(gamma=gamma, n_steps=50),
    "MDLSearch": lambda gamma: MDLSearch(SMOClassifier(gamma=gamma), {"C": [1.0]}),
}


@pytest.mark.parametrize("name", sorted(SCALE_GAMMA))
def test_gamma_scale_is_svcs_value_in_every_estimator(name):
    X, y = DATASETS["breast_cancer"]
    svc = SVC(gamma="scale").fit(X, y)
    assert resolve_gamma("scale", X) == svc._gamma
    fitted = SCALE_GAMMA[name]("scale").fit(X, y)
    model = fitted.best_estimator_ if name == "MDLSearch" else fitted
    assert model.gamma_ == svc._gamma
    assert SCALE_GAMMA[name]("auto").fit(X, y).predict(X).shape == y.shape


@pytest.mark.parametrize("name", sorted(SCALE_GAMMA))
@pytest.mark.parametrize(
    ("scale", "message"),
    [
        # var(X) ~ 1e-321: 1 / (d var(X)) is inf
        (1e-160, r"gamma='scale' is 1 / \(n_features var\(X\)\), which overflows float64"),
        # var(X) itself overflows
        (1e200, r"gamma='scale' needs the variance of X, which overflows float64"),
    ],
)
def test_gamma_scale_on_tiny_or_huge_variance_is_refused_alike(name, scale, message):
    X, y = _problem(scale=scale)
    with pytest.raises(ValueError, match=message):
        SCALE_GAMMA[name]("scale").fit(X, y)


def test_gamma_guard_in_a_narrower_dtype():
    X, _ = _problem()
    assert resolve_gamma(1e300, X) == 1e300
    with pytest.raises(ValueError, match="overflows float32.*dtype='float64'"):
        resolve_gamma(1e300, X, "float32")
    assert resolve_gamma("auto", X) == 1.0 / 3
    assert resolve_gamma("scale", np.ones((4, 2))) == 1.0  # constant X, as SVC


# every estimator, given the same bad patience (-1) under its own parameter's name
BAD_PATIENCE = {
    "SMOClassifier": (lambda: SMOClassifier(n_iter_no_change=-1), "n_iter_no_change"),
    "PegasosClassifier": (lambda: PegasosClassifier(n_iter_no_change=-1), "n_iter_no_change"),
    "SVMEnsembleClassifier": (
        lambda: SVMEnsembleClassifier(es_patience=-1, train_proportion=0.5),
        "es_patience",
    ),
    "MDLSearch": (
        lambda: MDLSearch(SMOClassifier(n_iter_no_change=-1), {"C": [1.0]}),
        "n_iter_no_change",
    ),
    "GradientSearchCV": (
        lambda: GradientSearchCV(
            inner="early_stopped", inner_early_stopping=EarlyStopping(patience=-1, tol=0.0)
        ),
        "patience",
    ),
    "NSVM1Classifier": (
        lambda: _nsvm(early_stopping=EarlyStopping(patience=-1, tol=0.0)),
        "patience",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_PATIENCE))
def test_a_bad_patience_gets_the_same_named_error_everywhere(name):
    build, parameter = BAD_PATIENCE[name]
    X, y = _problem()
    with pytest.raises(
        ValueError, match=rf"^{parameter} must hold non-negative integers, got \S*-1"
    ):
        build().fit(X, y)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"es_tol": -0.1}, "es_tol must be a non-negative finite number"),
        ({"es_tol": np.inf}, "es_tol must be a non-negative finite number"),
        ({"es_interval": 0}, "es_interval must hold positive integers"),
        ({"es_patience": 2.5}, "es_patience must hold non-negative integers"),
    ],
)
def test_the_ensembles_early_stopping_parameters_follow_the_same_rules(params, message):
    X, y = _problem()
    with pytest.raises(ValueError, match=message):
        SVMEnsembleClassifier(train_proportion=0.5, **params).fit(X, y)


def test_patience_zero_is_accepted_everywhere_and_never_stops():
    """The one floor is 0 (published rule: p = 0 never stops, docs/protocol.md section 5)."""
    X, y = DATASETS["synthetic"]
    plain = SMOClassifier(C=1000.0, gamma=2.0).fit(X[:200], y[:200])
    es = SMOClassifier(C=1000.0, gamma=2.0, early_stopping=True, n_iter_no_change=0)
    es.fit(X[:200], y[:200], X_val=X[200:], y_val=y[200:])
    assert not es.stopped_early_ and es.n_iter_ == plain.n_iter_
    grid = dict(C_grid=[1.0, 8.0], gamma_grid=[0.5, 4.0], n_subensembles=2, random_state=0)
    exhaustive = SVMEnsembleClassifier(**grid).fit(X, y)
    never = SVMEnsembleClassifier(grid_search="early_stopped", es_patience=0, **grid).fit(X, y)
    np.testing.assert_array_equal(never.grid_scores_, exhaustive.grid_scores_)
    assert not never.fits_["stopped_early"].any()


def test_j_high_is_the_ensembles_default_rule():
    assert (J_HIGH.patience, J_HIGH.tol, J_HIGH.interval) == (109, 0.000229, 1)
    settings, ensemble = SVMSettings(), SVMEnsembleClassifier()
    assert (settings.es_patience, settings.es_tol, settings.es_interval) == (
        J_HIGH.patience,
        J_HIGH.tol,
        J_HIGH.interval,
    )
    assert ensemble._early_stopping_config() == J_HIGH
    svm = settings.svm(1.0, 1.0, early_stopping=True)
    assert svm._early_stopping_config() == J_HIGH


def test_solver_defaults_come_from_solver_params():
    for estimator in (SMOClassifier(), SVMEnsembleClassifier(), SVMSettings()):
        assert estimator.tol == SolverParams.tol
        assert estimator.max_iter == SolverParams.max_iter
        assert estimator.cache_size_mb == SolverParams.cache_size_mb
    assert GradientSearchCV().tol == SolverParams.tol


def test_the_tuners_sharpness_is_the_solvers():
    assert GradientSearchCV().sharpness == SMOOTHING_T
    X, y = _problem()
    rule = EarlyStopping(patience=2, tol=0.0, interval=5, metric="smoothed_error")
    other = GradientSearchCV(
        cv=2, max_fun=2, inner="early_stopped", inner_early_stopping=rule, sharpness=5.0
    )
    with pytest.raises(ValueError, match="sharpness 10.0 .*not this objective's 5.0"):
        other.fit(X, y)
    # another sharpness with exact inner solves, or an inner rule on accuracy, is coherent
    GradientSearchCV(cv=2, max_fun=2, sharpness=5.0).fit(X, y)
    accuracy = EarlyStopping(patience=2, tol=0.0, interval=5)
    GradientSearchCV(
        cv=2, max_fun=2, inner="early_stopped", inner_early_stopping=accuracy, sharpness=5.0
    ).fit(X, y)


# every binary-only estimator, fitted cheaply
BINARY = {
    "PegasosClassifier": lambda: PegasosClassifier(n_steps=20),
    "SVMEnsembleClassifier": lambda: SVMEnsembleClassifier(
        n_subensembles=1, train_proportion=0.5, C_grid=[1.0], gamma_grid=[1.0]
    ),
    "MDLSearch": lambda: MDLSearch(param_grid={"C": [1.0]}),
    "GradientSearchCV": lambda: GradientSearchCV(cv=2, max_fun=1),
    "NSVM1Classifier": lambda: _nsvm(),
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_labels_are_checked_alike_by_every_binary_estimator(name):
    X, _ = _problem(60)
    three = np.arange(60) % 3
    with pytest.raises(ValueError, match=f"Only binary classification is supported: {name}"):
        BINARY[name]().fit(X, three)
    with pytest.raises(ValueError, match=r"y holds one class only \(\[1\.0\]\)"):
        BINARY[name]().fit(X, np.ones(60))
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        BINARY[name]().fit(X, np.linspace(0.0, 1.0, 60))
    labels = np.where(np.arange(60) < 30, "no", "yes")
    model = BINARY[name]().fit(X, labels)
    assert model.classes_.tolist() == ["no", "yes"]
    assert set(model.predict(X)) <= {"no", "yes"}


def test_labels_are_signs_with_the_positive_class_chosen():
    classes = np.array(["a", "b"])
    y = np.array(["b", "a", "b"])
    np.testing.assert_array_equal(encode_labels(y, classes, "y"), [1.0, -1.0, 1.0])
    # SMOClassifier's internal signs are LIBSVM's: +1 for classes_[0]
    np.testing.assert_array_equal(encode_labels(y, classes, "y", positive=0), [-1.0, 1.0, -1.0])
    with pytest.raises(ValueError, match=r"y_val holds label\(s\) \['c'\] not seen in y"):
        encode_labels(np.array(["c"]), classes, "y_val")


@pytest.mark.parametrize(
    "build",
    [
        lambda: SMOClassifier(early_stopping=True),
        lambda: PegasosClassifier(early_stopping=True, n_steps=20),
        lambda: _nsvm(early_stopping=EarlyStopping(patience=2, tol=0.0)),
    ],
    ids=["SMOClassifier", "PegasosClassifier", "NSVM1Classifier"],
)
def test_validation_data_are_checked_alike(build):
    X, y = _problem()
    with pytest.raises(ValueError, match="not seen in y"):
        build().fit(X, y, X_val=X[:4], y_val=np.full(4, 7.0))
    with pytest.raises(
        ValueError, match=r"y_val must be 1-D with one label per row of X_val \(4\)"
    ):
        build().fit(X, y, X_val=X[:4], y_val=y[:3])
    with pytest.raises(ValueError, match="X_val has 2 features"):
        build().fit(X, y, X_val=X[:4, :2], y_val=y[:4])


@pytest.mark.parametrize(
    "build",
    [
        lambda **p: SMOClassifier(early_stopping=True, **p),
        lambda **p: PegasosClassifier(early_stopping=True, n_steps=20, **p),
    ],
    ids=["SMOClassifier", "PegasosClassifier"],
)
def test_the_internal_validation_split_is_one_rule(build):
    X, y = _problem()
    X, y = X[:22], np.r_[np.zeros(2), np.ones(20)]
    # a stratified 90 % hold-out leaves 2 training rows, both of the larger class
    with pytest.raises(ValueError, match="training part left after the validation split holds a"):
        build(validation_fraction=0.9, random_state=0).fit(X, y)
    fitted = build(validation_fraction=0.5, random_state=0).fit(X, y)
    assert fitted.predict(X).shape == y.shape


def test_the_split_is_scikit_learns_stratified_split():
    X, y = DATASETS["iris"]
    signs = np.where(y > 0, 1.0, -1.0)
    est = SVMClassifierBase()
    est.validation_fraction, est.random_state = 0.25, 3
    (X_tr, y_tr, w_tr), (X_val, y_val) = est._split_validation(X, signs, np.arange(len(y)))
    expected = train_test_split(X, signs, test_size=0.25, stratify=signs, random_state=3)
    for ours, theirs in zip((X_tr, X_val, y_tr, y_val), expected, strict=True):
        np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(X[w_tr], X_tr)
