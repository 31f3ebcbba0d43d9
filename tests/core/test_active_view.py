"""The active view (esmo.solver.active_view): the passes over copies take the same path, to the bit.

The oracle is the run without the view: the loop reads ``VIEW_MIN_POINTS`` at
each run, so lowering it opens the view on a small problem, and raising it
closes it on a large one; both runs must agree in every array. The view's own
steps are checked against a gather from the kernel matrix.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.preprocessing import MinMaxScaler
from sklearn.svm import SVC

from esmo.early_stopping import EarlyStopping, EarlyStoppingSet
from esmo.estimators.smo_classifier import SMOClassifier
from esmo.solver import active_view
from esmo.solver.active_view import (
    gather_features,
    new_view,
    refresh,
    view_row,
    view_row_computed,
)
from esmo.solver.params import SolverParams
from esmo.solver.row_cache import build_kernel_rows, compute_row
from esmo.solver.smo import run_smo
from esmo.solver.working_set import excluded_statuses

X, Y = make_classification(
    n_samples=2400, n_features=8, n_informative=5, flip_y=0.0, class_sep=0.7, random_state=0
)
Y = np.where(Y == 1, 1.0, -1.0)
X_TR, Y_TR, X_VAL, Y_VAL = X[:2000], Y[:2000], X[2000:], Y[2000:]
# long enough that shrinking leaves fewer than a third of the points active for most of
# the run; a small store, so the loop's rows are evicted and computed again
PARAMS = dict(C=1e4, gamma=0.2, cache_size_mb=4.0)


def _run(monkeypatch, view_from: int, **kwargs):
    monkeypatch.setattr(active_view, "VIEW_MIN_POINTS", view_from)
    return run_smo(X_TR, Y_TR, SolverParams(**{**PARAMS, **kwargs.pop("params", {})}), **kwargs)


def _assert_same(with_view, without, same_rows=True):
    assert with_view.n_iter == without.n_iter
    np.testing.assert_array_equal(with_view.alpha, without.alpha)
    np.testing.assert_array_equal(with_view.state.G, without.state.G)
    np.testing.assert_array_equal(with_view.state.active, without.state.active)
    assert with_view.rho == without.rho and with_view.objective == without.objective
    # the rows each run computed (a paused run counts those of its last part only)
    assert with_view.kernel_rows == without.kernel_rows or not same_rows


def test_the_run_leaves_fewer_than_a_third_of_the_points_active(monkeypatch):
    """The premise of the tests below: the view opens in these runs."""
    state, least = None, len(Y_TR)
    for limit in range(1000, 10**6, 1000):
        result, _ = _run(monkeypatch, 10**9, params={"max_iter": limit}, state=state)
        state = result.state
        least = min(least, state.active_size)
        if not result.max_iter_reached:
            break
    assert 6 * least < len(Y_TR) and result.n_iter > 9000


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_a_run_with_the_view_is_the_run_without(monkeypatch, n_jobs):
    without, _ = _run(monkeypatch, 10**9, params={"n_jobs": n_jobs})
    with_view, _ = _run(monkeypatch, 0, params={"n_jobs": n_jobs})
    # a plain run computes the rows the store lacks at the view's points: other rows, shorter
    _assert_same(with_view, without, same_rows=False)
    assert with_view.kernel_evaluations < with_view.kernel_rows * len(Y_TR)


def test_a_row_computed_at_the_view_is_the_stores_row_gathered():
    """The same values to the bit, whichever columns a row is computed over."""
    rows = build_kernel_rows(X_TR, [], SolverParams(gamma=0.2), incremental=False)
    view_kernel = np.empty(rows.data.shape[1], dtype=np.float32)
    n, n_active = len(Y_TR), 500
    active = np.random.default_rng(1).permutation(n).astype(np.int64)
    low, up = excluded_statuses(Y_TR)
    values = (Y_TR, np.ones(n), np.zeros(n), np.zeros(n, np.int8), low, up)
    view = new_view(n, n_active, 4, np.float32, features=X_TR.shape[1])
    refresh(view, *values, active, n_active)
    gather_features(view, rows)
    for t in active[[0, 7, n_active + 3]]:  # two points in the view, one set aside
        computed = view_row_computed(view, t, rows, -1)[:n_active].copy()
        compute_row(rows, t, n, view_kernel)
        np.testing.assert_array_equal(computed, view_kernel[active[:n_active]])


def test_a_run_paused_and_continued_with_the_view_is_the_whole_run(monkeypatch):
    """Each pause writes the view's gradient back; the next run gathers it again."""
    whole, _ = _run(monkeypatch, 10**9)
    state = None
    for limit in range(1500, 10**6, 1500):
        result, _ = _run(monkeypatch, 0, params={"max_iter": limit}, state=state)
        state = result.state
        if not result.max_iter_reached:
            break
    _assert_same(result, whole, same_rows=False)


def test_checks_read_the_gradient_the_view_updated(monkeypatch):
    """Tracked checks (incremental and fresh, with rho from the gradient) agree with the view."""
    configs = EarlyStoppingSet.of(
        [EarlyStopping(10**6, 0.0, interval=7), EarlyStopping(10**6, 0.0, interval=500)]
    )
    kw = dict(configs=configs, X_val=X_VAL, y_val=Y_VAL, stop_when_all_stopped=False)
    without, track_without = _run(monkeypatch, 10**9, **kw)
    with_view, track_with = _run(monkeypatch, 0, **kw)
    _assert_same(with_view, without)
    np.testing.assert_array_equal(track_with.val_accuracy, track_without.val_accuracy)
    np.testing.assert_array_equal(track_with.eval_sums, track_without.eval_sums)


def _kernel_and_view(seed, n, n_active, slots, shuffled=False):
    """A random kernel matrix, an order of the points, and a view of the first ``n_active``."""
    rng = np.random.default_rng(seed)
    K = rng.normal(size=(n, n)).astype(np.float32)
    active = (rng.permutation(n) if shuffled else np.arange(n)).astype(np.int64)
    y = rng.choice([-1.0, 1.0], n)
    low, up = excluded_statuses(y)
    QD, G, status = np.ones(n), rng.normal(size=n), rng.integers(0, 3, n).astype(np.int8)
    values = (y, QD, G, status, low, up)
    view = new_view(n, n_active, slots, np.float32)
    refresh(view, *values, active, n_active)
    return K, active, view, values


def test_stored_rows_follow_the_points_shrinking_moves():
    """After moves like shrinking's, every stored row equals a fresh gather from K."""
    K, active, view, values = _kernel_and_view(0, 300, 120, slots=40, shuffled=True)
    assert view.owner.shape[0] == 40
    fetched = active[:30].copy()
    for t in fetched:
        view_row(view, t, K[t], -1)
    # shrinking's swaps: a point set aside changes places with one from the tail
    for k, last in [(3, 119), (10, 118), (25, 117), (50, 116)]:
        active[k], active[last] = active[last], active[k]
    n_active = 116
    refresh(view, *values, active, n_active)
    assert (view.slot_of[fetched] >= 0).all()  # the moves kept every row
    still_active = [t for t in fetched if t in active[:n_active]]
    assert len(still_active) == 27  # three of them were set aside
    for t in still_active:
        np.testing.assert_array_equal(
            view.data[view.slot_of[t], :n_active], K[t][active[:n_active]]
        )
    y, QD, G, status, low, up = values
    np.testing.assert_array_equal(view.G[:n_active], G[active[:n_active]])
    np.testing.assert_array_equal(view.y[:n_active], y[active[:n_active]])


def test_a_point_new_to_the_view_drops_the_rows():
    """A point that was not in the view has no stored column: the rows are gathered again."""
    K, active, view, values = _kernel_and_view(2, 200, 60, slots=20)
    view_row(view, 5, K[5], -1)
    active[7], active[150] = active[150], active[7]
    refresh(view, *values, active, 60)
    assert view.slot_of[5] == -1 and (view.owner == -1).all()
    row = view_row(view, 5, K[5], -1)
    np.testing.assert_array_equal(row[:60], K[5][active[:60]])


def test_the_pairs_other_row_is_never_overwritten():
    """Slots are reused in turn, but not the one holding the other point of the pair."""
    K, _, view, _ = _kernel_and_view(3, 50, 10, slots=2)
    assert view.owner.shape[0] == 2
    view_row(view, 1, K[1], -1)  # slot 0
    view_row(view, 2, K[2], -1)  # slot 1; slot 0 is next
    row_1 = view_row(view, 1, K[1], -1)  # stored: no slot taken
    view_row(view, 3, K[3], 1)  # must not take slot 0, which holds point 1's row
    np.testing.assert_array_equal(row_1[:10], K[1][:10])
    assert view.slot_of[1] >= 0 and view.slot_of[3] >= 0 and view.slot_of[2] == -1


def test_a_long_fit_through_the_view_is_libsvms(uci_mirror):
    """LIBSVM's own oracle where the view is open most of the run: SVC's iterations, to the one.

    9,000 MAGIC rows (above ``VIEW_MIN_POINTS``), C = 100, gamma = 1: a path of
    about 55,000 iterations on which shrinking leaves a few hundred points active.
    """
    raw = np.loadtxt(uci_mirror / "magic04.data", delimiter=",", dtype=str)
    rows = np.random.default_rng(0).permutation(len(raw))[:9000]
    X = MinMaxScaler().fit_transform(raw[rows, :10].astype(float))
    y = np.where(raw[rows, 10] == "g", 1, -1)
    assert len(y) >= active_view.VIEW_MIN_POINTS
    state, least = None, len(y)
    for limit in range(5000, 10**6, 5000):  # the premise: the view opens
        params = SolverParams(C=100.0, gamma=1.0, max_iter=limit)
        result, _ = run_smo(X, np.where(y > 0, 1.0, -1.0), params, state=state)
        state, least = result.state, min(least, result.state.active_size)
        if not result.max_iter_reached:
            break
    assert 3 * least < len(y)
    svc = SVC(C=100.0, gamma=1.0).fit(X, y)
    model = SMOClassifier(C=100.0, gamma=1.0).fit(X, y)
    assert model.n_iter_ == svc.n_iter_[0]
    np.testing.assert_allclose(model.decision_function(X), svc.decision_function(X), atol=1e-8)
