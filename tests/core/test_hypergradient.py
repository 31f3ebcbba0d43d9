"""The hypergradient against central finite differences, the solves and counts against second computations, and the tuner's contracts."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
from sklearn.metrics import f1_score
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import check_estimator

from esmo.early_stopping import EarlyStopping
from esmo.hypergradient import GradientSearchCV, best_grid_cell, fit_svm, grid_search_cv
from esmo.hypergradient.adjoint import solve_adjoint
from esmo.hypergradient.inexact import gradient_agreement
from esmo.hypergradient.objective import CrossValidationObjective, InnerSolve
from esmo.hypergradient.space import Space
from esmo.hypergradient.validation import hard_measures, smoothed_value

EXACT = InnerSolve(tol=1e-12)
START = {
    "C": 4.0,
    "gamma": 2.0,
    "C_pos": 3.0,
    "C_neg": 6.0,
    "m_pos": 1.2,
    "m_neg": 0.8,
    "theta0": 0.1,
}


def problem(n: int = 120, d: int = 4, seed: int = 0, duplicates: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, d))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n) > 0.8, 1.0, -1.0)
    if duplicates:
        X, y = np.vstack([X, X[:duplicates]]), np.concatenate([y, y[:duplicates]])
    folds = list(StratifiedKFold(3, shuffle=True, random_state=seed).split(X, y))
    return X, y, folds


def finite_difference_check(objective: CrossValidationObjective, u: np.ndarray, step: float = 1e-5):
    """Analytic and central-difference gradients, entry by entry."""
    analytic = objective.evaluate(u).gradient
    numeric = np.empty_like(u)
    for k in range(u.shape[0]):
        up, down = u.copy(), u.copy()
        up[k] += step
        down[k] -= step
        f_up = objective.evaluate(up, gradient=False).value
        f_down = objective.evaluate(down, gradient=False).value
        numeric[k] = (f_up - f_down) / (2 * step)
    return analytic, numeric


CASES = [
    # (kernel, tuned, theta0 tuned, objective[, sigmoid])
    ("rbf", ("C", "gamma"), False, "error"),
    ("rbf", ("C", "gamma"), True, "f_measure"),
    ("ard", ("C", "gamma"), True, "error"),
    ("rbf", ("C_pos", "C_neg", "gamma", "m_pos", "m_neg"), True, "weighted_error"),
    ("rbf", ("C", "gamma", "m_pos", "m_neg"), False, "f_measure"),
    ("rbf", ("C", "gamma"), False, "error", "fitted"),
    ("ard", ("C", "gamma"), False, "nll", "fitted"),
]


@pytest.mark.parametrize("case", CASES)
def test_every_partial_derivative_matches_central_differences(case):
    kernel, tune, theta0, objective, sigmoid = (*case, "scaled")[:5]
    X, y, folds = problem()
    space = Space(tune, X.shape[1], kernel=kernel, tune_theta0=theta0, start=START)
    cv = CrossValidationObjective(
        X, y, folds, space, objective=objective, sigmoid=sigmoid, negative_cost=0.3, inner=EXACT
    )
    u = space.initial()
    if kernel == "ard":
        u[space.slices["gamma"]] += np.random.default_rng(1).normal(scale=0.5, size=X.shape[1])
    analytic, numeric = finite_difference_check(cv, u)
    relative = np.abs(analytic - numeric) / np.abs(numeric)
    assert relative.max() < 1e-4, dict(
        zip([space.name_of(k) for k in range(space.size)], relative, strict=True)
    )


def test_duplicate_rows_keep_the_gradient_right():
    X, y, folds = problem(n=100, duplicates=30)
    space = Space(("C", "gamma"), X.shape[1], tune_theta0=True, start=START)
    cv = CrossValidationObjective(X, y, folds, space, inner=EXACT)
    u = space.initial()
    # copies are solved once: the distinct points' system is regular
    assert set(cv.evaluate(u).solve_methods) == {"lu"}
    analytic, numeric = finite_difference_check(cv, u)
    assert np.max(np.abs(analytic - numeric) / np.abs(numeric)) < 1e-4


def test_adjoint_solution_solves_the_unsymmetric_transposed_system():
    rng = np.random.default_rng(3)
    X_u = rng.normal(size=(8, 3))
    K_uu = np.exp(-0.5 * ((X_u[:, None, :] - X_u[None, :, :]) ** 2).sum(-1))
    y_u = np.where(rng.normal(size=8) > 0, 1.0, -1.0)
    rho = rng.normal(size=9)
    Q_uu = np.outer(y_u, y_u) * K_uu
    P = np.block([[Q_uu, -y_u[:, None]], [y_u[None, :], np.zeros((1, 1))]])
    d, method = solve_adjoint(X_u, K_uu, y_u, rho)
    assert method == "lu"
    np.testing.assert_allclose(d, np.linalg.solve(P.T, rho), rtol=1e-10)


def test_copies_of_a_point_get_the_minimum_norm_solution_of_the_singular_system():
    rng = np.random.default_rng(6)
    X_u = rng.normal(size=(7, 3))
    X_u = np.vstack([X_u, X_u[[1, 1, 4]]])  # point 1 three times, point 4 twice
    K_uu = np.exp(-0.5 * ((X_u[:, None, :] - X_u[None, :, :]) ** 2).sum(-1))
    y_u = np.where(rng.normal(size=10) > 0, 1.0, -1.0)
    y_u[[7, 8]] = y_u[1]
    Q_uu = np.outer(y_u, y_u) * K_uu
    P = np.block([[Q_uu, -y_u[:, None]], [y_u[None, :], np.zeros((1, 1))]])
    # a consistent right-hand side: copies see the same validation sums, rho_i = y_i s(x_i)
    sums = rng.normal(size=7)[[0, 1, 2, 3, 4, 5, 6, 1, 1, 4]]
    rho = np.append(y_u * sums, rng.normal())
    d, method = solve_adjoint(X_u, K_uu, y_u, rho)
    assert method == "lu"  # the distinct points' system is regular
    minimum_norm = scipy.linalg.lstsq(P.T, rho, lapack_driver="gelsd")[0]
    np.testing.assert_allclose(d, minimum_norm, atol=1e-9)


def test_output_derivatives_match_differences_and_the_value_ignores_the_outputs_scale():
    rng = np.random.default_rng(4)
    outputs = [rng.normal(size=30), rng.normal(size=25) + 0.3]
    labels = [
        np.where(rng.normal(size=30) > 0, 1.0, -1.0),
        np.where(rng.normal(size=25) > 0, 1.0, -1.0),
    ]
    for objective, sigmoid in [
        ("error", "scaled"),
        ("weighted_error", "scaled"),
        ("f_measure", "scaled"),
        ("f_measure", "fitted"),
        ("nll", "fitted"),
    ]:
        settings = {"objective": objective, "sigmoid": sigmoid, "negative_cost": 0.2}
        value = smoothed_value(outputs, labels, **settings)
        scaled = [3.0 * o for o in outputs]
        if objective != "nll":  # a fitted sigmoid is scale-free too, to its fit's precision
            rescaled = smoothed_value(scaled, labels, **settings).value
            assert rescaled == pytest.approx(value.value, rel=1e-7)
        for k in (0, 1):
            for index in (0, 7):
                up = [o.copy() for o in outputs]
                down = [o.copy() for o in outputs]
                up[k][index] += 1e-6
                down[k][index] -= 1e-6
                f_up = smoothed_value(up, labels, **settings).value
                numeric = (f_up - smoothed_value(down, labels, **settings).value) / 2e-6
                assert value.output_gradients[k][index] == pytest.approx(
                    numeric, rel=1e-5, abs=1e-9
                )


def test_hard_measures_agree_with_scikit_learn():
    rng = np.random.default_rng(5)
    o = [rng.normal(size=40), rng.normal(size=35)]
    y = [
        np.where(rng.normal(size=40) > 0.5, 1.0, -1.0),
        np.where(rng.normal(size=35) > 0.5, 1.0, -1.0),
    ]
    hard = hard_measures(o, y, theta0=0.2, negative_cost=0.1)
    predicted = np.where(np.concatenate(o) - 0.2 > 0, 1.0, -1.0)
    truth = np.concatenate(y)
    assert hard["error"] == pytest.approx(np.mean(predicted != truth))
    assert hard["f_measure"] == pytest.approx(f1_score(truth, predicted))
    fn = np.sum((truth > 0) & (predicted < 0))
    fp = np.sum((truth < 0) & (predicted > 0))
    assert hard["weighted_error"] == pytest.approx(
        (fn + 0.1 * fp) / (np.sum(truth > 0) + 0.1 * np.sum(truth < 0))
    )


def test_fit_svm_matches_svc_with_class_bounds_and_ard_widths():
    X, y, _ = problem(n=80)
    # SVC's kernel rows are float32 (LIBSVM's Qfloat), fit_svm's float64: agreement to ~1e-7
    model = fit_svm(X, y, {"C_pos": 3.0, "C_neg": 0.5, "gamma": 2.0}, tol=1e-10)
    svc = SVC(C=1.0, gamma=2.0, tol=1e-10, class_weight={1.0: 3.0, -1.0: 0.5}).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X), svc.decision_function(X), atol=1e-6)
    widths = np.array([0.5, 2.0, 4.0, 0.1])
    ard = fit_svm(X, y, {"C": 2.0, "gamma": widths}, tol=1e-10)
    svc = SVC(C=2.0, gamma=1.0, tol=1e-10).fit(X * np.sqrt(widths), y)
    np.testing.assert_allclose(
        ard.decision_function(X), svc.decision_function(X * np.sqrt(widths)), atol=1e-6
    )


def test_grid_error_is_the_pooled_error_of_svc_on_the_same_folds():
    X, y, folds = problem(n=90)
    table = grid_search_cv(X, y, folds, [0.0, 3.0], [-1.0, 1.0], tol=1e-10)
    for c, g, error in zip(table["log2_C"], table["log2_gamma"], table["cv_error"], strict=True):
        wrong = 0
        for train, val in folds:
            svc = SVC(C=2.0**c, gamma=2.0**g, tol=1e-10).fit(X[train], y[train])
            wrong += np.sum(np.where(svc.decision_function(X[val]) > 0, 1.0, -1.0) != y[val])
        assert error == pytest.approx(wrong / len(y))


def test_grid_ties_go_to_the_smaller_c_then_the_smaller_gamma():
    table = {
        "log2_C": np.array([3.0, 1.0, 1.0, 5.0]),
        "log2_gamma": np.array([0.0, 2.0, -1.0, -3.0]),
        "cv_error": np.array([0.1, 0.1, 0.1, 0.2]),
    }
    assert best_grid_cell(table) == {"log2_C": 1.0, "log2_gamma": -1.0, "cv_error": 0.1}


def test_tuner_records_every_evaluation_and_picks_the_least_objective():
    X, y, _ = problem(n=100)
    tuner = GradientSearchCV(cv=3, max_fun=8, random_state=0).fit(X, y)
    history = tuner.history_
    assert tuner.n_evaluations_ == len(history["f"]) <= 8
    assert tuner.best_score_ == history["f"].min()
    assert tuner.termination_ in (
        "converged",
        "max_fun",
        "line_search_failed",
        "zero_gradient",
        "no_decrease",
    )
    assert tuner.cost_["seconds"] == pytest.approx(history["seconds"].sum())
    assert tuner.cost_["fits"] == 3 * tuner.n_evaluations_
    # the first point is the paper's start C = gamma = 1
    assert history["log2_C"][0] == 0.0 and history["log2_gamma"][0] == 0.0
    np.testing.assert_array_equal(tuner.predict(X) == 1.0, tuner.decision_function(X) > 0)


def test_tuner_stops_by_the_paper_rule_only_when_both_changes_are_small():
    X, y, _ = problem(n=100)
    tuner = GradientSearchCV(cv=3, max_fun=40, min_iter=3, rtol=1e-2, random_state=0).fit(X, y)
    assert tuner.termination_ == "converged"
    assert tuner.n_evaluations_ < 40


def test_a_wrong_gradient_ends_in_a_recorded_line_search_failure_not_nan(monkeypatch):
    X, y, _ = problem(n=100)
    evaluate = CrossValidationObjective.evaluate

    def uphill(self, u, **kwargs):
        ev = evaluate(self, u, **kwargs)
        if ev.gradient is not None:
            ev.gradient = -ev.gradient
        return ev

    monkeypatch.setattr(CrossValidationObjective, "evaluate", uphill)
    tuner = GradientSearchCV(cv=3, max_fun=60, random_state=0).fit(X, y)
    assert tuner.termination_ == "line_search_failed"
    assert np.all(np.isfinite(tuner.history_["f"]))
    assert tuner.best_score_ == tuner.history_["f"].min()


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"start": {"C": 2.0**20}}, "outside its box"),
        ({"tune": ("C", "C_pos")}, "either the common C"),
        ({"tune": ("sigma",)}, "distinct hyperparameters"),
        ({"class_weight": {7: 1.0}}, "not classes of y"),
        ({"class_weight": {1: 0.5}, "tune": ("C_pos", "C_neg")}, "no meaning"),
    ],
)
def test_bad_settings_name_the_problem(params, message):
    X, y, _ = problem(n=60)
    with pytest.raises(ValueError, match=message):
        GradientSearchCV(cv=3, max_fun=2, **params).fit(X, y)


def test_a_validation_fold_with_one_class_is_refused_for_the_f_measure():
    X, y, _ = problem(n=60)
    order = np.argsort(y)
    folds = [(order[10:], order[:10])]
    assert len(np.unique(y[order[:10]])) == 1 and len(np.unique(y[order[10:]])) == 2
    with pytest.raises(ValueError, match="validation part holds one class"):
        GradientSearchCV(objective="f_measure", cv=folds, max_fun=2).fit(X, y)
    with pytest.raises(ValueError, match="Only binary classification"):
        GradientSearchCV(cv=3).fit(X, np.arange(60) % 3)


def test_the_tuner_passes_scikit_learns_estimator_checks():
    check_estimator(GradientSearchCV(cv=2, max_fun=3))


def test_an_inexact_solve_that_reaches_convergence_gives_the_exact_gradient():
    X, y, folds = problem(n=100)
    objective = CrossValidationObjective(X, y, folds, Space(("C", "gamma"), X.shape[1]))
    u = np.array([1.0, 0.5])
    for warm_from in (None, np.array([0.0, 0.0])):
        table = gradient_agreement(
            objective,
            u,
            iteration_budgets=[5, 10**6],
            early_stopping=[
                EarlyStopping(patience=10**6, tol=0.0, interval=7, metric="smoothed_error")
            ],
            warm_from=warm_from,
        )
        # a cap above the iterations SMO needs, and a rule that never fires, leave the iterate unchanged
        np.testing.assert_array_equal(table["iteration_share"][1:], [1.0, 1.0])
        # (the tracked run's rho comes by another summation order: equal to rounding)
        np.testing.assert_allclose(table["relative_error"][1:], [0.0, 0.0], atol=1e-12)
        assert table["iteration_share"][0] < 1.0 and table["relative_error"][0] > 0.0


def test_large_systems_go_to_minres_and_agree_with_lu(monkeypatch):
    from esmo.hypergradient import adjoint

    rng = np.random.default_rng(7)
    X_u = rng.normal(size=(40, 3))
    K_uu = np.exp(-0.5 * ((X_u[:, None, :] - X_u[None, :, :]) ** 2).sum(-1))
    y_u = np.where(rng.normal(size=40) > 0, 1.0, -1.0)
    rho = rng.normal(size=41)
    d_lu, method = adjoint.solve_adjoint(X_u, K_uu, y_u, rho)
    assert method == "lu"
    monkeypatch.setattr(adjoint, "DENSE_LIMIT", 10)
    d_minres, method = adjoint.solve_adjoint(X_u, K_uu, y_u, rho)
    assert method == "minres"
    # MINRES stops at a relative residual of 1e-10; the condition number amplifies it
    np.testing.assert_allclose(d_minres, d_lu, rtol=1e-4)


def test_appendix_as_plain_smo_walks_the_same_path_at_another_cost():
    """solver='fan_plain' solves each fold with the NumPy SMO of appendix A (nothing cached):
    the same iterations as esmo's without shrinking (WSS 2 either way), the same optimum to
    tol, so the same tuning path; only the SMO seconds differ."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 4))
    y = np.where(X[:, 0] ** 2 + X[:, 1] - 0.5 + 0.3 * rng.normal(size=120) > 0, 1, -1)
    kw = dict(cv=3, max_fun=4, shrinking=False, refit=False, random_state=0)
    ours = GradientSearchCV(**kw).fit(X, y)
    plain = GradientSearchCV(solver="fan_plain", **kw).fit(X, y)
    np.testing.assert_array_equal(plain.history_["smo_iterations"], ours.history_["smo_iterations"])
    np.testing.assert_allclose(plain.history_["f"], ours.history_["f"], rtol=1e-8)
    assert plain.n_evaluations_ == ours.n_evaluations_


@pytest.mark.parametrize(
    "kwargs",
    [{"tune": ("C", "gamma", "C_pos")}, {"class_weight": {1: 1.0, -1: 2.0}},
     {"inner": "early_stopped"}, {"warm_start": True}, {"kernel": "ard"}],
)  # fmt: skip
def test_the_plain_smo_refuses_what_it_cannot_solve(kwargs):
    X = np.random.default_rng(0).normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    with pytest.raises(ValueError, match="solver='fan_plain'.*use solver='fan'"):
        GradientSearchCV(solver="fan_plain", cv=2, **kwargs).fit(X, y)
