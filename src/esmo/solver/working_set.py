"""Working-set selection: Fan, Chen and Lin's second-order rule, as LIBSVM's ``select_working_set``.

``i`` maximises ``-y_t G_t`` over ``I_up``; ``j`` minimises the second-order
objective ``-(m(a) + y_t G_t)^2 / a_it`` over ``t`` in ``I_low`` with
``-y_t G_t < m(a)``, ``a_it = K_ii + K_tt - 2 K_it`` (``TAU`` if not positive).
Ties break as in LIBSVM: the last index for ``i`` (its ``>=``), the last for
``j`` (``<=``); with shrinking, the last in LIBSVM's order of the active points
(``SolverState.active``). The solver picks the first ``i`` with :func:`select_first_i`;
every later ``i`` comes out of the gradient update of the iteration before
(:mod:`esmo.solver.update`), which makes the same choice in the same pass.

Each choice is two passes: every point's candidate value, written without a
branch on ``y_t`` or the status (a mispredicted branch per point cost more than
the whole computation), then a scan for the best one, in lanes
(:mod:`esmo.solver.scans`). NaN marks a point that is no candidate: it
compares false, so the scan skips it. With ``n_jobs`` threads and many active
points, the two passes run in as many ranges of the points at once, each
scanned alone, and the scans' results merge exactly into the same choice.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from esmo.solver.compile import jit
from esmo.solver.rho import LOWER, UPPER
from esmo.solver.scans import in_order, last_argmin, max_of, merge_parts

#: Stand-in for a non-positive curvature ``K_ii + K_jj - 2 K_ij`` (Fan et al., 2005).
TAU = 1e-12
#: Points from which the passes over many active points run in parts, one per thread of
#: the run's row store (``SolverParams.n_jobs``; read by :func:`esmo.solver.smo.drive` at
#: each run). Whole fits on random draws of a9a, 3 cells, 2 cores (2026-11-29), in parts
#: against in one: 6,000 points 1.05-1.11x the time, 10,000 0.95-0.96x, 16,000 0.86-0.91x.
PARALLEL_MIN_POINTS = 8192


@jit
def excluded_statuses(y):
    """Per point, the status that excludes it from ``I_low`` and the one that excludes it from ``I_up``."""
    low_excluded = np.where(y > 0, LOWER, UPPER).astype(np.int8)
    up_excluded = np.where(y > 0, UPPER, LOWER).astype(np.int8)
    return low_excluded, up_excluded


@jit
def select_first_i(y, G, status, active, n_active):
    """``(i, m(a))``: the argmax of ``-y_t G_t`` over ``I_up``, ties to the last visited; -1 if empty.

    Visits the points ``active[:n_active]`` in turn (all of them, in index
    order, without shrinking).
    """
    Gmax = -np.inf
    imax = -1
    for k in range(n_active):
        t = active[k]
        if y[t] > 0:
            if status[t] != UPPER and -G[t] >= Gmax:
                Gmax = -G[t]
                imax = t
        elif status[t] != LOWER and G[t] >= Gmax:
            Gmax = G[t]
            imax = t
    return imax, Gmax


@jit
def select_j(Gmax, QDi, Ki, y, G, QD, status, low_excluded, scratch, low_val):
    """``(j, max over I_low of y_t G_t)`` for the chosen ``i`` (``Gmax = m(a)``, row ``Ki``).

    The second value is ``-M(a)``: the run has converged when ``m(a) - M(a) <
    tol``. ``j`` is -1 when no point of ``I_low`` violates the KKT conditions
    with ``i``. ``y_t G_t`` is exact, ``y_t`` being +-1.
    """
    n = y.shape[0]
    for t in range(n):
        scratch[t], low_val[t] = j_candidate(
            Gmax, QDi, Ki[t], y[t], G[t], QD[t], status[t] != low_excluded[t]
        )
    return last_argmin(scratch, n)[0], max_of(low_val, n)


@jit
def select_j_active(
    Gmax, QDi, Ki, y, G, QD, status, low_excluded, scratch, low_val, active, n_active, is_active,
    parts,
):  # fmt: skip
    """:func:`select_j` over the active points, visited in their order ``active[:n_active]``.

    Few active points (:func:`visits_active_alone`) are read one by one, their
    values stored by position in that order; many in one contiguous pass over
    all points (vectorised, as :func:`select_j`'s), the others no candidate,
    in ``parts`` ranges at once when more than one (:func:`j_candidates_in_parts`).
    Either way ties break in LIBSVM's order (:mod:`esmo.solver.scans`).
    """
    if visits_active_alone(n_active, y.shape[0]):
        for k in range(n_active):
            t = np.uint64(active[k])  # unsigned: no test for a negative index
            scratch[k], low_val[k] = j_candidate(
                Gmax, QDi, Ki[t], y[t], G[t], QD[t], status[t] != low_excluded[t]
            )
        k = last_argmin(scratch, n_active)[0]
        return (active[k] if k >= 0 else -1), max_of(low_val, n_active)
    if parts > 1:
        position, ties, low_max = j_candidates_in_parts(
            Gmax, QDi, Ki, y, G, QD, status, low_excluded, scratch, low_val, is_active, parts
        )
    else:
        position, ties, low_max = j_candidates(
            Gmax, QDi, Ki, y, G, QD, status, low_excluded, scratch, low_val, is_active
        )
    return in_order(scratch, active, n_active, position, ties), low_max


@jit
def j_candidates(Gmax, QDi, Ki, y, G, QD, status, low_excluded, scratch, low_val, is_active):
    """Every point's candidate value for ``j`` (NaN: inactive or none), then the scans over them.

    ``(position, ties)`` of :func:`esmo.solver.scans.last_argmin`, and the
    largest ``y_t G_t`` over the active points of ``I_low``.
    """
    n = y.shape[0]
    for t in range(n):
        scratch[t], low_val[t] = j_candidate(
            Gmax, QDi, Ki[t], y[t], G[t], QD[t], is_active[t] & (status[t] != low_excluded[t])
        )
    position, ties = last_argmin(scratch, n)
    return position, ties, max_of(low_val, n)


@jit(parallel=True)
def j_candidates_in_parts(
    Gmax, QDi, Ki, y, G, QD, status, low_excluded, scratch, low_val, is_active, parts
):
    """:func:`j_candidates` over ``parts`` ranges of the points at once, merged exactly.

    Each range writes its own values and scans them; the merge
    (:func:`esmo.solver.scans.merge_parts`) gives the scan of them all, so the
    pair is the same for any number of parts. The ranges are handed over as
    slices: loops on the parallel region's own arrays ran about 4 times slower
    (numba 0.68 does not vectorise them).
    """
    n = y.shape[0]
    size = (n + parts - 1) // parts
    lows = np.full(parts, np.inf)
    positions = np.full(parts, -1, dtype=np.int64)
    ties = np.zeros(parts, dtype=np.int64)
    tops = np.full(parts, -np.inf)
    for part in prange(parts):
        a = part * size
        b = min(n, a + size)
        k, c, top = j_candidates(
            Gmax, QDi, Ki[a:b], y[a:b], G[a:b], QD[a:b], status[a:b], low_excluded[a:b],
            scratch[a:b], low_val[a:b], is_active[a:b],
        )  # fmt: skip
        if k >= 0:
            positions[part], lows[part], ties[part] = a + k, scratch[a + k], c
        tops[part] = top
    position, n_ties = merge_parts(lows, positions, ties)
    return position, n_ties, max_of(tops, parts)


@jit(inline="always")
def visits_active_alone(n_active, n):
    """Whether a pass reads the active points one by one (fewer than a third of the points).

    A read through the index list costs about twice a contiguous vectorised
    one (numba 0.68 here), so below a third of the points it is the cheaper.
    """
    return 3 * n_active < n


@jit(inline="always")
def j_candidate(Gmax, QDi, Kit, yt, Gt, QDt, in_low):
    """Point t's second-order value (NaN: no candidate) and ``y_t G_t`` (``-inf`` outside ``I_low``)."""
    v = yt * Gt
    grad_diff = Gmax + v
    quad = QDi + QDt - 2.0 * Kit
    quad = quad if quad > 0.0 else TAU
    obj = -(grad_diff * grad_diff) / quad
    return (obj if in_low and grad_diff > 0.0 else np.nan), (v if in_low else -np.inf)
