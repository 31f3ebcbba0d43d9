"""The row stores' memory kept between fits (esmo.solver.row_memory): reused, never read as values."""

from __future__ import annotations

import numpy as np
import pytest

from esmo.estimators.smo_classifier import SMOClassifier
from esmo.solver import row_memory
from esmo.solver.params import SolverParams
from esmo.solver.smo import run_smo
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


def test_a_second_path_takes_every_buffer_from_the_first(problem):
    """The shared matrix and a gather per fold run at once (two on two threads): all kept."""
    X, y = problem
    take, taken = row_memory.take, []

    def recorded(*args):
        taken.append(take(*args))
        return taken[-1]

    for n_jobs in (1, 2):
        row_memory.release()
        fit_path(X, y, [0.5, 2.0], 0.5, n_jobs=n_jobs)
        kept = list(row_memory._IDLE)
        taken.clear()
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(row_memory, "take", recorded)
            fit_path(X, y, [0.5, 2.0], 0.5, n_jobs=n_jobs)
        assert len(kept) == 3 and len(taken) == 1 + 2 * 5  # the matrix; a template, a gather a fold
        assert all(any(np.shares_memory(a, buffer) for buffer in kept) for a in taken)


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
