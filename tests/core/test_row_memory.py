"""The row stores' memory kept between fits (esmo.solver.row_memory): reused, never read as values."""

from __future__ import annotations

import itertools
import threading

import numpy as np
import pytest

from esmo.estimators.smo_classifier import SMOClassifier
from esmo.solver import row_memory
from esmo.solver.params import SolverParams
from esmo.solver.shared_kernel import SharedKernel
from esmo.solver.smo import run_smo
from esmo.tuning import path as path_module
from esmo.tuning.path import fit_path


@pytest.fixture(autouse=True)
def no_idle_buffer():
    row_memory.release()
    yield
    row_memory.release()


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 4))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.normal(size=300) > 0.4, 1.0, -1.0)
    return X, y


def test_a_buffer_given_back_serves_the_next_store_that_fits():
    first = row_memory.take((10, 100), np.float32)
    assert row_memory.idle_bytes() == 0
    row_memory.give_back(first)
    assert row_memory.idle_bytes() == 4000
    smaller = row_memory.take((5, 100), np.float64)  # 4,000 bytes: fits exactly
    assert np.shares_memory(smaller, first) and smaller.shape == (5, 100)
    assert row_memory.idle_bytes() == 0  # taken: no second store gets it
    row_memory.give_back(smaller)
    larger = row_memory.take((20, 100), np.float32)  # 8,000 bytes: a fresh buffer
    assert not np.shares_memory(larger, first)
    assert row_memory.idle_bytes() == 4000  # the small one kept for a store it fits


def test_the_largest_buffers_are_kept_the_smallest_that_fits_taken_and_release_frees_them():
    buffers = [row_memory.take((k, 10), np.float32) for k in (1, 2, 3, 4)]  # 40 to 160 bytes
    for buffer in buffers:
        row_memory.give_back(buffer)
    assert row_memory.KEPT_BUFFERS == 3 and row_memory.idle_bytes() == 80 + 120 + 160
    row_memory.give_back(np.empty((100, 100)))  # not one of take's buffers: ignored
    assert row_memory.idle_bytes() == 360
    taken = row_memory.take((70,), np.uint8)
    assert np.shares_memory(taken, buffers[1]) and row_memory.idle_bytes() == 280
    row_memory.release()
    assert row_memory.idle_bytes() == 0


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_a_second_path_takes_every_buffer_from_the_first(problem, n_jobs):
    """The shared matrix and a gather per fold at once (two on two threads): all kept, however
    the folds overlapped. The first path's folds run one after another, the second's side by side."""
    X, y = problem
    n_bytes = 300 * 300 * 4  # the matrix; a gather, at most every point as row and column
    fold_path, gathered, take = path_module._fold_path, SharedKernel.rows, row_memory.take
    one_at_a_time, side_by_side = threading.Lock(), threading.Barrier(n_jobs)
    first, taken = itertools.count(), []

    def serial(*args):
        with one_at_a_time:
            return fold_path(*args)

    def overlapping(*args):
        """A fold's store; the first ``n_jobs`` folds go on once all of them hold theirs."""
        store = gathered(*args)
        if next(first) < n_jobs:
            side_by_side.wait(timeout=60)
        return store

    def recorded(*args):
        taken.append(take(*args))
        return taken[-1]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(path_module, "_fold_path", serial)
        fit_path(X, y, [0.5, 2.0], 0.5, n_jobs=n_jobs)
    kept = list(row_memory._IDLE)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(row_memory, "take", recorded)
        patch.setattr(SharedKernel, "rows", overlapping)
        fit_path(X, y, [0.5, 2.0], 0.5, n_jobs=n_jobs)
    assert [buffer.nbytes for buffer in kept].count(n_bytes) == 1 + n_jobs
    templates = [a for a in taken if a.shape == (1, 1)]  # a fold's one point, never filled
    assert len(templates) == 5 and len(taken) == 1 + n_jobs + 5
    stores = [a for a in taken if a.shape != (1, 1)]
    assert all(any(np.shares_memory(a, buffer) for buffer in kept) for a in stores)


def test_a_fold_beyond_the_gathers_gets_memory_of_its_own_and_a_store_given_back_serves_the_next(
    problem,
):
    X, _ = problem
    shared = SharedKernel(X, "rbf", 0.5, gathers=1)
    params = SolverParams(kernel="rbf", gamma=0.5)
    train, held_out = np.arange(60, 300), np.arange(60)
    first = shared.rows(train, held_out, params)
    second = shared.rows(train[::-1], held_out, params)  # a second fold at once
    assert not np.shares_memory(first.data, second.data)
    shared.give_back(first)
    third = shared.rows(train[:200], held_out, params)
    assert np.shares_memory(third.data, first.data) and third.data.shape == (200, 260)
    shared.give_back(second)
    shared.give_back(third)
    shared.release()  # the matrix and both gathers' buffers, each of 300 x 300 values
    assert row_memory.idle_bytes() == 3 * 300 * 300 * 4
    with pytest.raises(ValueError, match="pass disjoint index sets"):
        shared.rows(train, train[:61], params)  # 240 + 61 points of 300


def test_a_run_gives_its_store_back_for_the_next(problem):
    X, y = problem
    params = SolverParams(C=4.0, gamma=0.5, cache_size_mb=1.0)
    run_smo(X, y, params)
    n_slots = min(300, 2**20 // (300 * 4))
    assert row_memory.idle_bytes() == n_slots * 300 * 4


def test_stale_values_in_reused_memory_change_nothing(problem):
    """The next store starts from whatever the buffer holds: NaN there must not reach the fit."""
    X, y = problem
    params = SolverParams(C=4.0, gamma=0.5, tol=1e-4)
    fresh, _ = run_smo(X, y, params)
    poisoned = row_memory.take((row_memory.idle_bytes() // 8,), np.float64)
    poisoned[:] = np.nan
    row_memory.give_back(poisoned)
    again, _ = run_smo(X, y, params)
    assert again.n_iter == fresh.n_iter and again.rho == fresh.rho
    np.testing.assert_array_equal(again.alpha, fresh.alpha)


def test_a_store_kept_for_warm_starts_is_not_given_back(problem):
    X, y = problem
    model = SMOClassifier(C=4.0, gamma=0.5, warm_start=True).fit(X, y)
    assert row_memory.idle_bytes() == 0  # the estimator still reads its store
    model.set_params(C=8.0).fit(X, y)
    assert row_memory.idle_bytes() == 0
