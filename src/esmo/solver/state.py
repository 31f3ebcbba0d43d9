"""The iterate of an SMO run, kept whole so that a later run continues it exactly.

A run reads and leaves a :class:`SolverState`: the alphas, the gradient
``G = Qa + p`` as the solver updated it, the point statuses, the list of free
vectors (whose order fixes the last bits of rho at checks) and the iteration
count; with shrinking (:mod:`esmo.solver.shrinking`) also LIBSVM's active set
(the order in which the working-set selection visits the points, the active
ones first), ``G_bar`` and the shrinking schedule. Handing the state of a run
that stopped on ``max_iter`` to a new run on the same problem (and the same
``shrinking``) gives, bit for bit, the run that never stopped: this is what
warm starts, wall-clock budgets and the per-check hook are built on. A run
leaves the whole gradient in the state, also that of the points shrinking set
aside.

A state can also be *seeded* from alphas of another problem (another ``C``,
another kernel width): they are clipped into the new box, the equality
constraint ``y'a = 0`` is repaired, and the gradient is computed afresh.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from esmo.solver.compile import jit
from esmo.solver.rho import FREE, LOWER, UPPER

# slots of SolverState.counts (module-level ints: numba compiles counts[N_ITER] as counts[0])
#: pair updates made
N_ITER = 0
#: the length of the list of free vectors
N_FREE = 1
#: LIBSVM's ``active_size``: ``active[:ACTIVE_SIZE]`` are the points the selection visits
ACTIVE_SIZE = 2
#: LIBSVM's ``counter``: iterations (counted down) until the next ``do_shrinking``
SHRINK_COUNTER = 3
#: LIBSVM's ``unshrink``: 1 once the gap fell below ``10 tol`` and every point came back
UNSHRUNK = 4
#: 1 while ``G_bar`` holds ``sum over a_t = C_t of C_t Q_t`` (shrinking runs keep it so)
G_BAR_VALID = 5
#: the length of ``counts``
N_COUNTS = 6

#: LIBSVM shrinks every ``min(n, SHRINK_EVERY)`` iterations (``Solver::Solve``'s ``counter``).
SHRINK_EVERY = 1000


class SolverState(NamedTuple):
    """Alphas, gradient, statuses, the free-vector list and its positions, and the counts.

    ``active`` is LIBSVM's ``active_set``: a permutation of the points, the
    first ``counts[ACTIVE_SIZE]`` active; ``G_bar`` LIBSVM's gradient of the
    bounded alphas alone (valid while ``counts[G_BAR_VALID]``).
    """

    alpha: np.ndarray
    G: np.ndarray
    status: np.ndarray
    free: np.ndarray
    free_at: np.ndarray
    counts: np.ndarray
    active: np.ndarray
    G_bar: np.ndarray

    @property
    def n_iter(self) -> int:
        """Pair updates made since ``a = 0`` (a seeded state starts its own count at 0)."""
        return int(self.counts[N_ITER])

    @property
    def active_size(self) -> int:
        """Points the working-set selection visits (all but those shrinking set aside)."""
        return int(self.counts[ACTIVE_SIZE])


def cold_state(p: np.ndarray) -> SolverState:
    """``a = 0``: every point at its lower bound, ``G = p``, ``G_bar = 0``, every point active."""
    n = p.shape[0]
    counts = np.zeros(N_COUNTS, dtype=np.int64)
    counts[ACTIVE_SIZE] = n
    counts[SHRINK_COUNTER] = min(n, SHRINK_EVERY) + 1
    counts[G_BAR_VALID] = 1
    return SolverState(
        alpha=np.zeros(n),
        G=p.astype(np.float64, copy=True),
        status=np.full(n, LOWER, dtype=np.int8),
        free=np.empty(n, dtype=np.int64),
        free_at=np.empty(n, dtype=np.int64),
        counts=counts,
        active=np.arange(n, dtype=np.int64),
        G_bar=np.zeros(n),
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
    """A state at the feasible ``alpha`` whose product ``Q a`` is ``Q_times``; count 0.

    ``G_bar`` is left to the run that shrinks (``esmo.solver.smo.run_smo``
    computes it when some alpha is at its bound).
    """
    arrays = seeded_arrays(
        np.asarray(alpha, dtype=np.float64), upper, np.asarray(p, dtype=np.float64), Q_times
    )
    return SolverState(*arrays)


@jit
def scaled_alphas(alpha, G, status, ratio, C, below):
    """Alpha seeding for the box ``[0, C]``: the alphas times ``ratio`` and ``Q a`` with them.

    ``alpha``, ``G = Q a - 1`` and ``status`` are a final state's at ``C / ratio``.
    Scaling keeps ``y'a = 0``, and the bounded alphas at the bound (set to
    ``C`` exactly); ``Q (r a) = r Q a``, so no kernel value is computed. A
    free alpha stays at most ``below`` (the float below ``C``), where rounding
    would lift it to the bound.
    """
    n = alpha.shape[0]
    scaled, Q_times = np.empty(n), np.empty(n)
    for i in range(n):
        scaled[i] = C if status[i] == UPPER else min(alpha[i] * ratio, below)
        Q_times[i] = ratio * (G[i] + 1.0)
    return scaled, Q_times


@jit
def seeded_arrays(alpha, upper, p, Q_times):
    """:class:`SolverState`'s arrays at ``alpha``, in one compiled call: a C path seeds a state
    per fit, where a dozen numpy calls (26 us at n = 2,000) cost a tenth of its rounds."""
    n = alpha.shape[0]
    counts = np.zeros(N_COUNTS, dtype=np.int64)
    counts[ACTIVE_SIZE] = n
    counts[SHRINK_COUNTER] = min(n, SHRINK_EVERY) + 1
    status = np.empty(n, dtype=np.int8)
    free, free_at = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    _place(alpha, upper, status, free, free_at, counts)
    return (
        alpha.copy(), p + Q_times, status, free, free_at, counts,
        np.arange(n, dtype=np.int64), np.zeros(n),
    )  # fmt: skip


@jit
def _place(alpha, upper, status, free, free_at, counts):
    """Each point's status from its alpha, the free list in index order, and its counts."""
    n_free, at_bound = 0, False
    for i in range(alpha.shape[0]):
        if alpha[i] >= upper[i]:
            status[i] = UPPER
            at_bound = True
        elif alpha[i] <= 0.0:
            status[i] = LOWER
        else:
            status[i] = FREE
            free[n_free] = i
            free_at[i] = n_free
            n_free += 1
    counts[N_FREE] = n_free
    counts[G_BAR_VALID] = not at_bound


@jit(inline="always")
def save_counts(counts, n_iter, n_free, n_active, counter, unshrunk):
    """Write the loop's counters back into the state's ``counts`` when a run returns."""
    counts[N_ITER] = n_iter
    counts[N_FREE] = n_free
    counts[ACTIVE_SIZE] = n_active
    counts[SHRINK_COUNTER] = counter
    counts[UNSHRUNK] = unshrunk
