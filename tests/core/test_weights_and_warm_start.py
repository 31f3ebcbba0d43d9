"""Per-point bounds, the linear term and warm starts, against SVC, closed forms and exact reruns."""

from __future__ import annotations

import dataclasses
import pickle
import warnings

import numpy as np
import pytest
from conftest import DATASETS
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from esmo import EarlyStopping, SMOClassifier
from esmo.early_stopping import EarlyStoppingSet
from esmo.solver.kernels import kernel_matrix
from esmo.solver.params import SolverParams
from esmo.solver.smo import run_smo, warm_state

RNG_WEIGHTS = np.random.default_rng(7)
WEIGHTS = {name: RNG_WEIGHTS.uniform(0.2, 3.0, len(y)) for name, (X, y) in DATASETS.items()}
WEIGHTINGS = {
    "class_weight": ({"class_weight": {-1.0: 2.5, 1.0: 0.5}}, False),
    "balanced": ({"class_weight": "balanced"}, False),
    "sample_weight": ({}, True),
    "both": ({"class_weight": {1.0: 3.0}}, True),
}


@pytest.mark.parametrize("shrinking", [False, True])
@pytest.mark.parametrize("kernel", ["rbf", "linear"])
@pytest.mark.parametrize("weighting", sorted(WEIGHTINGS))
@pytest.mark.parametrize("name", sorted(DATASETS))
def test_weighted_fits_take_libsvms_iterations_and_decision_values(
    name, weighting, kernel, shrinking
):
    """C_t = C * class_weight * sample_weight: SVC's count and f(x), exactly, with and without
    shrinking (whose G_bar adds each point's own bound C_t)."""
    X, y = DATASETS[name]
    options, with_sample_weight = WEIGHTINGS[weighting]
    options = dict(options, kernel=kernel, C=2.0, gamma=0.7, shrinking=shrinking)
    fit_kw = {"sample_weight": WEIGHTS[name]} if with_sample_weight else {}
    svc = SVC(**options).fit(X, y, **fit_kw)
    ours = SMOClassifier(**options).fit(X, y, **fit_kw)
    assert ours.n_iter_ == svc.n_iter_[0]
    np.testing.assert_allclose(ours.decision_function(X), svc.decision_function(X), atol=1e-9)
    np.testing.assert_array_equal(np.sort(ours.support_), np.sort(svc.support_))


def _dual_optimum(K, y, upper, p):
    """min 0.5 a'Qa + p'a, 0 <= a <= upper, y'a = 0 by scipy's SLSQP: an independent solver."""
    Q = (y[:, None] * y[None, :]) * K
    res = minimize(
        lambda a: 0.5 * a @ Q @ a + p @ a,
        np.zeros(len(y)),
        jac=lambda a: Q @ a + p,
        bounds=[(0.0, u) for u in upper],
        constraints=[{"type": "eq", "fun": lambda a: y @ a, "jac": lambda a: y}],
        method="SLSQP",
        options={"ftol": 1e-13, "maxiter": 1000},
    )
    assert res.success
    return res.fun


def test_linear_term_and_bounds_reach_the_optimum_of_an_independent_qp_solver():
    """Per-class margins (p_t = -m_{y_t}) and per-point bounds: the objective scipy finds."""
    X, y = DATASETS["iris"]
    X, y = X[::2], y[::2]  # 50 points: small enough for SLSQP
    rng = np.random.default_rng(3)
    weight = rng.uniform(0.5, 2.0, len(y))
    p = np.where(y > 0, -1.5, -0.5)
    params = SolverParams(kernel="rbf", C=3.0, gamma=2.0, tol=1e-8, kernel_dtype=np.float64)
    result, _ = run_smo(X, y, params, sample_weight=weight, linear_term=p)
    K = kernel_matrix(X, X, "rbf", 2.0)
    expected = _dual_optimum(K, y, 3.0 * weight, p)
    assert result.objective == pytest.approx(expected, rel=1e-6)
    assert np.all(result.alpha >= 0) and np.all(result.alpha <= 3.0 * weight)
    assert abs(y @ result.alpha) < 1e-10


def test_doubling_the_linear_term_and_bounds_doubles_the_solution_exactly():
    """a(2p, 2C, 2 tol) = 2 a(p, C, tol): scaling by two is exact in floating point, and so the path."""
    X, y = DATASETS["breast_cancer"]
    base = SolverParams(kernel="rbf", C=1.5, gamma=0.5, tol=1e-3)
    double = SolverParams(kernel="rbf", C=3.0, gamma=0.5, tol=2e-3)
    one, _ = run_smo(X, y, base)
    two, _ = run_smo(X, y, double, linear_term=np.full(len(y), -2.0))
    assert two.n_iter == one.n_iter
    np.testing.assert_array_equal(two.alpha, 2.0 * one.alpha)
    assert two.rho == 2.0 * one.rho


@pytest.mark.parametrize("cut", [1, 37, 200])
@pytest.mark.parametrize("name", ["breast_cancer", "digits"])
def test_a_fit_cut_by_max_iter_and_continued_equals_the_uninterrupted_fit(name, cut):
    X, y = DATASETS[name]
    whole = SMOClassifier(C=8.0, gamma=0.3, class_weight="balanced").fit(X, y)
    assert whole.n_iter_ > cut
    clf = SMOClassifier(C=8.0, gamma=0.3, class_weight="balanced", max_iter=cut, warm_start=True)
    with pytest.warns(ConvergenceWarning):
        clf.fit(X, y)
    assert clf.n_iter_ == cut and clf.max_iter_reached_
    clf.set_params(max_iter=-1).fit(X, y)
    assert clf.n_iter_ == whole.n_iter_ and not clf.max_iter_reached_
    np.testing.assert_array_equal(clf.dual_coef_, whole.dual_coef_)
    np.testing.assert_array_equal(clf.support_, whole.support_)
    assert clf.intercept_[0] == whole.intercept_[0]


@pytest.mark.parametrize("cuts", [(299, 300, 301), (1, 1000, 2101, 3400)])
def test_a_shrunk_run_cut_and_continued_equals_the_uninterrupted_run(cuts):
    """The state carries LIBSVM's active set (and its order), G_bar and the shrinking
    schedule, and a run leaves the whole gradient in it: cut anywhere, even at a shrink
    (every 300 iterations here) or while points are set aside, the run goes on to the bit."""
    X, y = DATASETS["synthetic"]
    params = SolverParams(kernel="rbf", C=100.0, gamma=1.0, shrinking=True, kernel_dtype=np.float64)
    whole, _ = run_smo(X, y, params)
    assert whole.n_iter > 10 * len(y)  # many shrinks
    state, set_aside = None, 0
    for cut in cuts:
        part, _ = run_smo(X, y, dataclasses.replace(params, max_iter=cut), state=state)
        state = part.state
        set_aside += state.active_size < len(y)
        K = kernel_matrix(X, X, "rbf", 1.0)
        np.testing.assert_allclose(state.G, y * (K @ (y * state.alpha)) - 1.0, atol=1e-9)
    assert set_aside >= 1
    rest, _ = run_smo(X, y, params, state=state)
    assert rest.n_iter == whole.n_iter
    np.testing.assert_array_equal(rest.alpha, whole.alpha)
    assert rest.rho == whole.rho


def test_switching_shrinking_on_a_warm_start_seeds_a_new_run():
    """A state continues exactly only under the same shrinking: a switch seeds a new run
    from the alphas (G_bar computed afresh), which reaches the same optimum."""
    X, y = DATASETS["synthetic"]
    ref = SMOClassifier(C=100.0, gamma=1.0, tol=1e-6).fit(X, y)
    for first, second in ((False, True), (True, False)):
        clf = SMOClassifier(C=100.0, gamma=1.0, tol=1e-6, max_iter=700, warm_start=True)
        with pytest.warns(ConvergenceWarning):
            clf.set_params(shrinking=first).fit(X, y)
        clf.set_params(shrinking=second, max_iter=-1).fit(X, y)
        assert not clf.max_iter_reached_ and clf.n_iter_ < ref.n_iter_
        # float32 kernel rows, alphas up to C = 100: the two paths part by rounding
        np.testing.assert_allclose(clf.decision_function(X), ref.decision_function(X), atol=1e-3)


def test_budgeted_continuation_in_steps_equals_one_run():
    """Successive halving's use: raise max_iter step by step on one estimator."""
    X, y = DATASETS["synthetic"]
    whole = SMOClassifier(C=4.0, gamma=0.5).fit(X, y)
    clf = SMOClassifier(C=4.0, gamma=0.5, warm_start=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for budget in (10, 20, 40, 80, 160, 320, 640):
            clf.set_params(max_iter=budget).fit(X, y)
            assert clf.n_iter_ == min(budget, whole.n_iter_)
    np.testing.assert_array_equal(clf.dual_coef_, whole.dual_coef_)


@pytest.mark.parametrize("new_C", [0.25, 32.0])
def test_a_warm_start_from_another_C_converges_to_the_cold_solution(new_C):
    """Seeded from clipped, repaired alphas: the same optimum within the KKT tolerance."""
    X, y = DATASETS["breast_cancer"]
    clf = SMOClassifier(C=2.0, gamma=0.5, tol=1e-6, warm_start=True).fit(X, y)
    clf.set_params(C=new_C).fit(X, y)
    cold = SMOClassifier(C=new_C, gamma=0.5, tol=1e-6).fit(X, y)
    np.testing.assert_allclose(clf.decision_function(X), cold.decision_function(X), atol=1e-4)


def test_seeded_state_is_feasible_and_its_gradient_is_exact():
    X, y = DATASETS["iris"]
    params = SolverParams(kernel="rbf", C=0.5, gamma=1.0)
    alpha = np.random.default_rng(0).uniform(0.0, 2.0, len(y))  # outside the box, y'a != 0
    state = warm_state(X, y, alpha, params)
    assert np.all((state.alpha >= 0) & (state.alpha <= 0.5))
    assert abs(y @ state.alpha) < 1e-12
    Q = (y[:, None] * y[None, :]) * kernel_matrix(X, X, "rbf", 1.0)
    np.testing.assert_allclose(state.G, Q @ state.alpha - 1.0, atol=1e-12)


@pytest.mark.parametrize(("rule", "stop"), [("published", 61), ("text", 70)])
def test_early_stopping_after_a_warm_start_keeps_the_rules_check_schedule(rule, stop):
    X, y = DATASETS["digits"]
    X_tr, y_tr, X_val, y_val = X[:160], y[:160], X[160:], y[160:]
    params = SolverParams(kernel="rbf", C=16.0, gamma=0.05, max_iter=33)
    first, _ = run_smo(X_tr, y_tr, params)
    configs = EarlyStoppingSet.of([EarlyStopping(patience=2, tol=0.5, interval=10, rule=rule)])
    cont, _ = run_smo(
        X_tr,
        y_tr,
        SolverParams(kernel="rbf", C=16.0, gamma=0.05),
        state=first.state,
        configs=configs,
        X_val=X_val,
        y_val=y_val,
    )
    # published: checks at 41, 51, ... (1 mod r, not 43, 53); the first sets the baseline,
    # none after it improves by es_tol 0.5, and the second without improvement stops.
    # text: checks at 40, 50, ...; the first improves on the start value 0 by more than
    # 0.5, and the third check without improvement stops the fit
    assert cont.stopped_early and cont.n_iter == stop


def test_bad_weights_and_warm_starts_are_refused_with_the_fix():
    X, y = DATASETS["iris"]
    w = np.ones(len(y))
    w[3] = np.nan  # a zero weight drops the point, as in SVC (test_estimator.py)
    with pytest.raises(ValueError, match="sample_weight must be positive and finite"):
        SMOClassifier().fit(X, y, sample_weight=w)
    with pytest.raises(ValueError, match="sample_weight must be 1-D with one weight"):
        SMOClassifier().fit(X, y, sample_weight=w[:-1])
    with pytest.raises(ValueError, match=r"class_weight names class\(es\) \[7\]"):
        SMOClassifier(class_weight={7: 2.0}).fit(X, y)
    with pytest.raises(ValueError, match="class_weight must be positive"):
        SMOClassifier(class_weight={1.0: -1.0}).fit(X, y)
    with pytest.raises(ValueError, match="need solver='fan'"):
        SMOClassifier(solver="keerthi", class_weight={1.0: 2.0}).fit(X, y)
    with pytest.raises(ValueError, match="warm_start is only supported by solver='fan'"):
        SMOClassifier(solver="keerthi", warm_start=True).fit(X, y)
    clf = SMOClassifier(warm_start=True).fit(X, y)
    with pytest.raises(ValueError, match="same training set as the previous fit"):
        clf.fit(X[:-2], y[:-2])
    with pytest.raises(ValueError, match="linear_term must be 1-D"):
        run_smo(X, y, SolverParams(), linear_term=np.ones(3))


@pytest.mark.parametrize("cache_size_mb", [40.0, 0.05], ids=["resident", "lru"])
def test_warm_starts_keep_the_kernel_rows_and_change_nothing_else(cache_size_mb):
    """Along a path of C, a kept store serves later fits: the same fits, fewer rows computed."""
    X, y = DATASETS["breast_cancer"]
    kept = SMOClassifier(gamma=0.05, warm_start=True, cache_size_mb=cache_size_mb)
    dropped = SMOClassifier(gamma=0.05, warm_start=True, cache_size_mb=cache_size_mb)
    new_rows = []
    for C in (0.5, 2.0, 8.0):
        kept.set_params(C=C).fit(X, y)
        dropped.set_params(C=C).fit(X, y)
        del dropped._rows  # as a fit that builds its store afresh
        np.testing.assert_array_equal(kept.dual_coef_, dropped.dual_coef_)
        assert kept.intercept_[0] == dropped.intercept_[0] and kept.n_iter_ == dropped.n_iter_
        new_rows.append((kept.n_kernel_evaluations_, dropped.n_kernel_evaluations_))
    assert new_rows[0][0] == new_rows[0][1]  # the first fit builds the store either way
    assert all(k <= d for k, d in new_rows[1:])  # an LRU store of 23 rows may keep none of use
    if cache_size_mb == 40.0:  # all 569 rows fit: each computed once at most, over all fits
        assert all(k < d for k, d in new_rows[1:])
        assert sum(k for k, _ in new_rows) <= len(y) ** 2


def test_new_points_drop_the_kept_rows_and_pickles_leave_them_out():
    X, y = DATASETS["breast_cancer"]
    clf = SMOClassifier(gamma=0.05, warm_start=True).fit(X, y)
    first = clf._rows[0]
    X2 = X.copy()
    X2[0, 0] += 1.0
    clf.fit(X2, y)
    assert clf._rows[0] != first
    again = pickle.loads(pickle.dumps(clf))
    assert not hasattr(again, "_rows")
    np.testing.assert_array_equal(again.decision_function(X), clf.decision_function(X))
