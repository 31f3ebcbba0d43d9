"""The gradient of the points shrinking set aside, rebuilt from either side's kernel rows.

LIBSVM rebuilds it from the rows of the free vectors or, when that is cheaper,
from the rows of the points set aside; both add the same terms in the same
order, so they must agree to the bit. A float64 sum from scikit-learn's kernel
is the independent oracle of the value.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.metrics.pairwise import rbf_kernel

from esmo.solver.params import SolverParams
from esmo.solver.rho import FREE
from esmo.solver.row_cache import ROWS_COMPUTED, build_kernel_rows
from esmo.solver.shrinking import (
    rebuild_from_free_rows,
    rebuild_from_own_rows,
    reconstruct_gradient,
)
from esmo.solver.smo import run_smo

X, Y = make_classification(
    n_samples=1200, n_features=6, n_informative=4, flip_y=0.05, class_sep=0.8, random_state=1
)
Y = np.where(Y == 1, 1.0, -1.0)
# (C, gamma): 252 free vectors and 870 points set aside after 3,000 iterations; 1,103
# free and 96 set aside after 2,000 (each side's rows the cheaper once)
PAUSES = {"fewer_free": (50.0, 0.3, 3000), "fewer_aside": (100.0, 5.0, 2000)}


@pytest.fixture(scope="module", params=list(PAUSES))
def paused(request):
    """A run stopped while shrinking has set points aside, with free vectors among the rest."""
    C, gamma, max_iter = PAUSES[request.param]
    result, _ = run_smo(X, Y, SolverParams(C=C, gamma=gamma, max_iter=max_iter))
    state = result.state
    n_active = state.active_size
    free = [t for t in state.active[:n_active] if state.status[t] == FREE]
    assert n_active < len(Y) and len(free) > 10  # the premise: something to rebuild
    return state, np.array(free), state.active[n_active:].copy(), gamma


def _store(gamma, kernel_dtype=np.float32, cache_size_mb=1024.0):
    params = SolverParams(gamma=gamma, kernel_dtype=kernel_dtype, cache_size_mb=cache_size_mb)
    return build_kernel_rows(X, [], params, incremental=False)


def _start(state, aside):
    G = state.G.copy()
    G[aside] = state.G_bar[aside] - 1.0  # p = -1
    return G


def test_both_sides_rows_give_the_same_gradient_to_the_bit(paused):
    state, free, aside, gamma = paused
    by_free, by_own = _start(state, aside), _start(state, aside)
    rebuild_from_free_rows(_store(gamma), Y, by_free, state.alpha, free, aside)
    rebuild_from_own_rows(_store(gamma), Y, by_own, state.alpha, free, aside)
    np.testing.assert_array_equal(by_own, by_free)
    # the value, from float64 kernel values: within float32 rounding of the terms
    K = rbf_kernel(X[aside], X[free], gamma=gamma)
    coef = state.alpha[free] * Y[free]
    expected = state.G_bar[aside] - 1.0 + Y[aside] * (K @ coef)
    assert np.abs(by_own[aside] - expected).max() <= 1e-6 * np.abs(coef).sum()
    assert not np.array_equal(by_own[aside], _start(state, aside)[aside])  # it moved


def test_the_rebuild_computes_the_fewer_rows(paused):
    """No row stored: the rebuild computes one row per point set aside or per free vector."""
    state, free, aside, gamma = paused
    for stored, rows_needed in ((np.float32, min(len(free), len(aside))), (np.float64, len(free))):
        rows = _store(gamma, stored, cache_size_mb=0.1)  # rows computed, none stored yet
        if stored == np.float64:
            assert rows.blas  # BLAS rows are not symmetric to the bit: the free vectors' own
        G = state.G.copy()
        reconstruct_gradient(rows, Y, G, state.G_bar, -np.ones(len(Y)), state.alpha,
                             state.status, state.active, state.active_size)  # fmt: skip
        assert rows.clock[ROWS_COMPUTED] == rows_needed
        expected = _start(state, aside)
        rebuild_from_free_rows(_store(gamma, stored, 0.1), Y, expected, state.alpha, free, aside)
        np.testing.assert_array_equal(G, expected)
