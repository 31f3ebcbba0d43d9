"""The active-set rounds (esmo.solver.active_set): the factor's updates, and fits that meet SMO's rule.

Oracles: numpy's Cholesky factor and solve for the factor's steps; the
maximal violating pair recomputed from ``Q a - 1`` afresh, and scikit-learn's
SVC run to a tolerance far below esmo's, for the fits.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.svm import SVC

from esmo.early_stopping import EarlyStopping
from esmo.solver import active_set
from esmo.solver.kernels import kernel_matrix
from esmo.solver.params import SolverParams
from esmo.solver.reference import dual_objective
from esmo.solver.rho import FREE, LOWER
from esmo.solver.smo import run_smo
from esmo.tuning.path import fit_path, scaled_state

GAMMA, TOL = 0.5, 1e-3
IN_PLACE = active_set.RowSource.in_place


@pytest.fixture(scope="module")
def problem():
    """Labelled points grouped by class as the solver takes them, and their float32 kernel."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(160, 4))
    y = np.where(X[:, 0] * X[:, 1] + 0.4 * rng.normal(size=160) > 0, 1.0, -1.0)
    order = np.argsort(-y, kind="stable")
    X, y = X[order], y[order]
    return X, y, kernel_matrix(X, X, "rbf", GAMMA).astype(np.float32)


def _factor_of(K, y, points):
    factor = active_set.Factor(len(y), 64)
    parts = (factor.L, factor.members, factor.position, factor.size)
    added = [active_set.append_point(*parts, K, y, k) for k in points]
    return factor, added


def _Q(K, y, points):
    return K[np.ix_(points, points)].astype(np.float64) * np.outer(y[points], y[points])


def test_appended_rows_are_numpys_cholesky_factor(problem):
    _, y, K = problem
    points = [5, 40, 77, 90, 120, 3]
    factor, added = _factor_of(K, y, points)
    assert added == [active_set.APPENDED] * len(points)
    m = factor.size[0]
    np.testing.assert_allclose(
        np.tril(factor.L[:m, :m]), np.linalg.cholesky(_Q(K, y, points)), atol=1e-12
    )


def test_a_deleted_row_leaves_the_factor_of_the_rest(problem):
    _, y, K = problem
    points = [5, 40, 77, 90, 120, 3]
    factor, _ = _factor_of(K, y, points)
    active_set.delete_point(factor.L, factor.members, factor.position, factor.size, 77)
    rest = [5, 40, 90, 120, 3]
    m = factor.size[0]
    assert m == 5 and list(factor.members[:m]) == rest and factor.position[77] == -1
    np.testing.assert_allclose(
        np.tril(factor.L[:m, :m]), np.linalg.cholesky(_Q(K, y, rest)), atol=1e-12
    )
    assert not factor.L[m, : m + 1].any()  # the freed row is clean for the next append


def test_a_duplicate_point_has_no_pivot(problem):
    X, y, K = problem
    X2, y2 = np.vstack([X, X[7]]), np.append(y, y[7])  # point 160 repeats point 7
    K2 = kernel_matrix(X2, X2, "rbf", GAMMA).astype(np.float32)
    factor, added = _factor_of(K2, y2, [7, 50, 160])
    assert added == [active_set.APPENDED, active_set.APPENDED, active_set.DEPENDENT]
    assert factor.size[0] == 2 and factor.position[160] == -1


def test_the_two_solves_are_numpys(problem):
    _, y, K = problem
    points = list(range(0, 160, 9))
    factor, _ = _factor_of(K, y, points)
    rng = np.random.default_rng(0)
    b1, b2 = rng.normal(size=len(points)), rng.normal(size=len(points))
    x1, x2 = active_set.solve_factor(factor.L, factor.size[0], b1, b2)
    Q = _Q(K, y, points)
    np.testing.assert_allclose(x1, np.linalg.solve(Q, b1), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(x2, np.linalg.solve(Q, b2), rtol=1e-9, atol=1e-9)


def _violation(K, y, alpha, C):
    """LIBSVM's maximal violating pair, from a gradient computed afresh."""
    G = (K.astype(np.float64) * np.outer(y, y)) @ alpha - 1.0
    v = -y * G
    up = np.where(y > 0, alpha < C, alpha > 0)
    low = np.where(y > 0, alpha > 0, alpha < C)
    return v[up].max() - v[low].min()


@pytest.mark.parametrize("C_from, C", [(1.0, 1.4), (4.0, 5.5), (30.0, 45.0)])
def test_a_warm_start_converges_to_the_tight_optimum(problem, C_from, C):
    X, y, K = problem
    before, _ = run_smo(X, y, SolverParams(kernel="rbf", gamma=GAMMA, C=C_from, tol=TOL))
    factor = active_set.Factor(len(y), active_set.MAX_FREE)
    result, rounds = active_set.solve_scaled(factor, K, y, before.state, C / C_from, C, TOL)
    assert result is not None and rounds >= 1 and result.n_iter == 0
    alpha = result.alpha
    assert alpha.min() >= 0.0 and alpha.max() <= C and abs(y @ alpha) < 1e-10 * C
    assert _violation(K, y, alpha, C) < TOL
    # the free set's equations hold exactly: SVC run to 1e-10 on the same float32 kernel agrees
    tight = SVC(C=C, kernel="precomputed", tol=1e-10).fit(K.astype(np.float64), y)
    exact = np.zeros(len(y))
    exact[tight.support_] = np.abs(tight.dual_coef_[0])
    gap = dual_objective(alpha, y, K.astype(np.float64)) - dual_objective(
        exact, y, K.astype(np.float64)
    )
    assert abs(gap) <= 1e-6 * abs(dual_objective(exact, y, K.astype(np.float64)))
    assert result.rho == pytest.approx(-tight.intercept_[0], abs=1e-3)


def test_the_last_state_is_left_as_it_was(problem):
    """The caller scales it again for SMO where the rounds do not converge."""
    X, y, K = problem
    before, _ = run_smo(X, y, SolverParams(kernel="rbf", gamma=GAMMA, C=2.0, tol=TOL))
    last = before.state
    copies = [last.alpha.copy(), last.G.copy(), last.status.copy()]
    active_set.solve_scaled(active_set.Factor(len(y), 64), K, y, last, 1.5, 3.0, TOL)
    for kept, now in zip(copies, (last.alpha, last.G, last.status), strict=True):
        np.testing.assert_array_equal(now, kept)


def test_too_many_free_points_hand_the_fit_back(problem):
    X, y, K = problem
    before, _ = run_smo(X, y, SolverParams(kernel="rbf", gamma=GAMMA, C=30.0, tol=TOL))
    start = scaled_state(before.state, y, 1.5, 45.0)
    assert (start.status == 1).sum() > 3
    result, rounds = active_set.solve_scaled(
        active_set.Factor(len(y), 3), K, y, before.state, 1.5, 45.0, TOL
    )
    assert result is None and rounds == 0


def test_binary_points_with_duplicates_give_a_path_of_active_set_fits():
    """Repeated rows (binary features) have no pivot: held, they still let the rounds converge."""
    rng = np.random.default_rng(1)
    X = (rng.random((300, 12)) < 0.2).astype(float)  # sparse binary rows: dozens repeat
    y = np.where(X[:, 0] + X[:, 1] - X[:, 2] + 0.3 * rng.normal(size=300) > 0.5, 1, 0)
    assert len(np.unique(X, axis=0)) < 250
    Cs = 2.0 ** np.linspace(-2, 6, 12)
    warm = fit_path(X, y, Cs, 0.3)
    cold = fit_path(X, y, Cs, 0.3, warm_start=False)
    assert warm.by_active_set[1:].mean() > 0.8
    np.testing.assert_allclose(warm.objective, cold.objective, rtol=1e-3)
    assert np.abs(warm.mean_scores - cold.mean_scores).max() <= 0.02


def test_a_fold_whose_rounds_keep_failing_tries_them_at_powers_of_two(monkeypatch):
    """Rounds that fail everywhere are tried at C indices 1, 2, 3, 5, 9, 17 and 33 (after k
    failures in a row, 2^(k-2) - 1 values left to SMO, none after one or two), one success
    starting the count again; the path is SMO's alone, as with the rounds off."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(120, 3))
    y = X[:, 0] > 0.2
    Cs = 2.0 ** np.linspace(-4, 6, 40)
    tried, succeed_at = [], set()

    def failing(factor, K, y_fit, last, ratio, C, tol, src=None):
        tried.append(int(np.flatnonzero(Cs == C)[0]))
        return (
            (None, 30)
            if tried[-1] not in succeed_at
            else real(factor, K, y_fit, last, ratio, C, tol, src)
        )

    real = active_set.solve_scaled
    monkeypatch.setattr(active_set, "solve_scaled", failing)
    path = fit_path(X, y, Cs, 0.5, cv=2)
    assert tried == [1, 2, 3, 5, 9, 17, 33] * 2  # each fold
    off = fit_path(X, y, Cs, 0.5, cv=2, active_set=False)
    np.testing.assert_array_equal(path.n_iter, off.n_iter)
    np.testing.assert_array_equal(path.scores, off.scores)
    tried.clear()
    succeed_at.add(5)  # the rounds converge at the sixth C: the count starts again
    path = fit_path(X, y, Cs, 0.5, cv=2)
    assert path.by_active_set[5].all() and tried == [1, 2, 3, 5, 6, 7, 8, 10, 14, 22, 38] * 2


def test_active_set_off_runs_smo_everywhere():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(120, 3))
    y = X[:, 0] > 0.2
    Cs = [0.5, 1.0, 2.0]
    path = fit_path(X, y, Cs, 0.5, active_set=False)
    assert not path.by_active_set.any() and not path.rounds.any()
    assert (path.n_iter > 0).all()


@pytest.mark.parametrize(
    "kwargs", [{"warm_start": False}, {"early_stopping": EarlyStopping(3, 0.0, 5)}]
)
def test_active_set_where_it_cannot_apply_is_refused(kwargs):
    X = np.random.default_rng(0).normal(size=(40, 2))
    with pytest.raises(ValueError, match="active_set=True needs warm_start=True"):
        fit_path(X, X[:, 0] > 0, [1.0, 2.0], 0.5, active_set=True, **kwargs)


def test_the_bounded_gradient_is_the_bound_alphas_product(problem):
    """SMO's ``G_bar`` for a state the rounds leave, from the rows: numpy's product of the same values."""
    X, y, K = problem
    before, _ = run_smo(X, y, SolverParams(kernel="rbf", gamma=GAMMA, C=1.0, tol=TOL))
    alpha, C = before.alpha, 1.0
    at_C = alpha >= C
    assert at_C.sum() > 5
    expected = y * (K.astype(np.float64)[:, at_C] @ (C * y[at_C]))
    got = active_set.bounded_gradient(K, IN_PLACE(len(y)), y, alpha, C)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_a_start_too_costly_to_factor_hands_the_fit_back(problem):
    """The work limit: appending more free points than it allows leaves the fit to SMO."""
    X, y, K = problem
    before, _ = run_smo(X, y, SolverParams(kernel="rbf", gamma=GAMMA, C=30.0, tol=TOL))
    start = scaled_state(before.state, y, 1.5, 45.0)
    factor = active_set.Factor(len(y), active_set.MAX_FREE)
    parts = (factor.L, factor.members, factor.position, factor.held, factor.size)
    free = int((start.status == 1).sum())
    assert not active_set.sync_factor(
        *parts, K, IN_PLACE(len(y)), y, start.status.copy(), free**3 - 1.0
    )
    assert active_set.sync_factor(
        *parts, K, IN_PLACE(len(y)), y, start.status.copy(), float(free**3)
    )


def test_a_round_frees_the_deepest_violators_first(problem):
    """Of the bounded points that violate, a round frees ``FREED_AT_LEAST`` (an empty
    factor), the deepest by numpy's sort of the same quantity, ties to the lower index."""
    _, y, K = problem
    n, b, C = len(y), 0.1, 1.0
    rng = np.random.default_rng(4)
    G = rng.uniform(-2.0, 0.5, size=n)
    h = G + b * y  # every point at zero: its KKT quantity, negative where it violates
    last, first_left = np.argsort(h)[active_set.FREED_AT_LEAST - 1 : active_set.FREED_AT_LEAST + 1]
    G[first_left] = h[last] - b * y[first_left]  # a tie at the cut: the lower index goes free
    h = G + b * y
    order = np.lexsort((np.arange(n), h))  # by depth, then by index
    assert (h < -0.5 * TOL).sum() > 2 * active_set.FREED_AT_LEAST
    factor = active_set.Factor(n, active_set.MAX_FREE)
    parts = (factor.L, factor.members, factor.position, factor.held, factor.size)
    status = np.full(n, LOWER, dtype=np.int8)
    moved = active_set.change_statuses(
        *parts, K, IN_PLACE(n), y, np.zeros(n), G, status, C, b, TOL, 1e12
    )
    assert moved == active_set.FREED_AT_LEAST
    freed = np.flatnonzero(status == FREE)
    np.testing.assert_array_equal(freed, np.sort(order[: active_set.FREED_AT_LEAST]))
    np.testing.assert_array_equal(np.sort(factor.members[: factor.size[0]]), freed)
