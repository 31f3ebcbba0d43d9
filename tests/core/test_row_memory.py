"""The row stores' memory kept between fits (esmo.solver.row_memory): reused, never read as values."""

from __future__ import annotations

import numpy as np
import pytest

from esmo.estimators.smo_classifier import SMOClassifier
from esmo.solver import row_memory
from esmo.solver.params import SolverParams
from esmo.solver.smo import run_smo


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
    assert not np.shares_memory(larger, first) and row_memory.idle_bytes() == 0


def test_only_the_largest_buffer_is_kept_and_release_frees_it():
    small, large = row_memory.take((2, 10), np.float32), row_memory.take((4, 10), np.float32)
    row_memory.give_back(large)
    row_memory.give_back(small)
    assert row_memory.idle_bytes() == 160
    row_memory.give_back(np.empty((100, 100)))  # not one of take's buffers: ignored
    assert row_memory.idle_bytes() == 160
    row_memory.release()
    assert row_memory.idle_bytes() == 0


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
