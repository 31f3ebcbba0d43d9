"""The iterate of an SMO run, kept whole so that a later run continues it exactly.

A run reads and leaves a :class:`SolverState`: the alphas, the gradient
``G = Qa + p`` as the solver updated it, the point statuses, the list of free
vectors (whose order fixes the last bits of rho at checks) and the iteration
count. Handing the state of a run that stopped on ``max_iter`` to a new run on
the same problem gives, bit for bit, the run that never stopped: this is what
warm starts, wall-clock budgets and the per-check hook are built on.

A state can also be *seeded* from alphas of another problem (another ``C``,
another kernel width): they are clipped into the new box, the equality
constraint ``y'a = 0`` is repaired, and the gradient is computed afresh.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from esmo.solver.compile import jit
from esmo.solver.rho import FREE, LOWER, UPPER

# indices of SolverState.counts
N_ITER, N_FREE = 0, 1


class SolverState(NamedTuple):
    """Alphas, gradient, statuses, the free-vector list and its positions, and the counts."""

    alpha: np.ndarray
    G: np.ndarray
    status: np.ndarray
    free: np.ndarray
    free_at: np.ndarray
    counts: np.ndarray

    @property
    def n_iter(self) -> int:
        """Pair updates made since ``a = 0`` (a seeded state starts its own count at 0)."""
        return int(self.counts[N_ITER])


def cold_state(p: np.ndarray) -> SolverState:
    """``a = 0``: every point at its lower bound, ``G = p``."""
    n = p.shape[0]
    return SolverState(
        alpha=np.zeros(n),
        G=p.astype(np.float64, copy=True),
        status=np.full(n, LOWER, dtype=np.int8),
        free=np.empty(n, dtype=np.int64),
        free_at=np.empty(n, dtype=np.int64),
        counts=np.zeros(2, dtype=np.int64),
    )


def feasible_alphas(alpha: np.ndarray, y: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """``alpha`` clipped into ``[0, upper]``, then ``y'a = 0`` repaired.

    Clipping can leave one class with more weight than the other; that class's
    alphas are scaled down by one factor so that both sums agree. Scaling down
    keeps every alpha in its box, so the result is feasible.
    """
    a = np.clip(np.asarray(alpha, dtype=np.float64), 0.0, upper)
    pos, neg = a[y > 0].sum(), a[y < 0].sum()
    if pos > neg:
        a[y > 0] *= neg / pos
    elif neg > pos:
        a[y < 0] *= pos / neg
    return a


def seeded_state(
    alpha: np.ndarray, y: np.ndarray, upper: np.ndarray, p: np.ndarray, Q_times: np.ndarray
) -> SolverState:
    """A state at the feasible ``alpha`` whose product ``Q a`` is ``Q_times``; count 0."""
    state = cold_state(p)
    state.alpha[:] = alpha
    state.G[:] = p + Q_times
    status = np.where(alpha >= upper, UPPER, np.where(alpha <= 0.0, LOWER, FREE))
    state.status[:] = status
    free = np.flatnonzero(status == FREE)
    state.free[: free.size] = free
    state.free_at[free] = np.arange(free.size)
    state.counts[N_FREE] = free.size
    return state


@jit(inline="always")
def save_counts(state, n_iter, n_free):
    """Write the loop's counters back into the state when a run returns."""
    state.counts[N_ITER] = n_iter
    state.counts[N_FREE] = n_free
