"""The update of one SMO iteration: the working pair's alphas, then the gradient and the next ``i``.

:func:`update_pair` is LIBSVM's two-variable step (``Solver::Solve``): the
Newton step along the direction that keeps ``y'a`` fixed, clipped back onto
the box ``0 <= a_t <= C_t``. The gradient ``G = Qa + p`` then moves by the two changed columns of
``Q``, and the same pass picks the next iteration's ``i`` (the argmax of
``-y_t G_t`` over ``I_up``, ties to the last index), so ``G`` is read once per
iteration: :func:`update_gradient` in two branch-free passes (candidate values,
then a scan, as :mod:`esmo.solver.working_set` does), or, at a check with no
free vector, :func:`update_gradient_with_bounds`, one branching pass that also
collects the lower KKT bound that :func:`esmo.solver.rho.rho_from_bounds` needs.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from esmo.solver.compile import jit
from esmo.solver.rho import FREE, LOWER, UPPER
from esmo.solver.scans import in_order, last_argmin, merge_parts
from esmo.solver.working_set import TAU, visits_active_alone


@jit(inline="always")
def status_of(a, C):
    """LIBSVM's ``update_alpha_status``: at its upper bound ``C``, at the lower bound, or free."""
    if a >= C:
        return UPPER
    if a <= 0.0:
        return LOWER
    return FREE


@jit(inline="always")
def update_pair(ai, aj, yi, yj, Gi, Gj, quad, Ci, Cj):
    """New ``(a_i, a_j)``: the clipped two-variable step; ``quad = K_ii + K_jj - 2 K_ij``.

    ``Ci`` and ``Cj`` are the two points' upper bounds (``C`` times their weight).
    """
    if quad <= 0.0:
        quad = TAU
    if yi != yj:
        delta = (-Gi - Gj) / quad
        diff = ai - aj
        ai += delta
        aj += delta
        if diff > 0.0:
            if aj < 0.0:
                aj = 0.0
                ai = diff
        elif ai < 0.0:
            ai = 0.0
            aj = -diff
        if diff > Ci - Cj:
            if ai > Ci:
                ai = Ci
                aj = Ci - diff
        elif aj > Cj:
            aj = Cj
            ai = Cj + diff
    else:
        delta = (Gi - Gj) / quad
        total = ai + aj
        ai -= delta
        aj += delta
        if total > Ci:
            if ai > Ci:
                ai = Ci
                aj = total - Ci
        elif aj < 0.0:
            aj = 0.0
            ai = total
        if total > Cj:
            if aj > Cj:
                aj = Cj
                ai = total - Cj
        elif ai < 0.0:
            ai = 0.0
            aj = total
    return ai, aj


@jit
def update_gradient(G, y, Ki, Kj, ci, cj, status, up_excluded, scratch):
    """``G += y (K_i c_i + K_j c_j)``, then ``(next i, m(a))`` from the updated gradient.

    The candidates are stored negated (``y_t G_t``, exactly ``-(-y_t G_t)``),
    so the argmax ties to the last is :func:`esmo.solver.scans.last_argmin`'s.
    """
    n = y.shape[0]
    for t in range(n):
        yt = y[t]
        g = G[t] + yt * (Ki[t] * ci + Kj[t] * cj)
        G[t] = g
        scratch[t] = yt * g if status[t] != up_excluded[t] else np.nan
    return next_i(scratch, last_argmin(scratch, n)[0])


@jit
def update_gradient_active(
    G, y, Ki, Kj, ci, cj, status, up_excluded, scratch, active, n_active, is_active, move_all,
    parts,
):  # fmt: skip
    """:func:`update_gradient` on the active points, the next ``i`` in their order (shrinking).

    Few active points (:func:`esmo.solver.working_set.visits_active_alone`) are
    read one by one, their values stored by position in that order, unless
    ``move_all``; else one contiguous pass moves every point's gradient (the
    points set aside too: their gradient is read by no selection, and rebuilt
    before any is), the others no candidate for ``i``; in ``parts`` ranges at
    once when more than one (:func:`i_candidates_in_parts`).
    """
    if visits_active_alone(n_active, y.shape[0]) and not move_all:
        for k in range(n_active):
            t = np.uint64(active[k])  # unsigned: no test for a negative index
            yt = y[t]
            g = G[t] + yt * (Ki[t] * ci + Kj[t] * cj)
            G[t] = g
            scratch[k] = yt * g if status[t] != up_excluded[t] else np.nan
        k = last_argmin(scratch, n_active)[0]
        return (active[k], -scratch[k]) if k >= 0 else (-1, -np.inf)
    if parts > 1:
        position, ties = i_candidates_in_parts(
            G, y, Ki, Kj, ci, cj, status, up_excluded, scratch, is_active, parts
        )
    else:
        position, ties = i_candidates(G, y, Ki, Kj, ci, cj, status, up_excluded, scratch, is_active)
    return next_i(scratch, in_order(scratch, active, n_active, position, ties))


@jit
def i_candidates(G, y, Ki, Kj, ci, cj, status, up_excluded, scratch, is_active):
    """Every point's gradient moved and its negated candidate value for ``i`` (NaN: inactive
    or none), then :func:`esmo.solver.scans.last_argmin`'s ``(position, ties)`` over them."""
    n = y.shape[0]
    for t in range(n):
        yt = y[t]
        g = G[t] + yt * (Ki[t] * ci + Kj[t] * cj)
        G[t] = g
        scratch[t] = yt * g if is_active[t] & (status[t] != up_excluded[t]) else np.nan
    return last_argmin(scratch, n)


@jit(parallel=True)
def i_candidates_in_parts(G, y, Ki, Kj, ci, cj, status, up_excluded, scratch, is_active, parts):
    """:func:`i_candidates` over ``parts`` ranges of the points at once, merged exactly
    (as :func:`esmo.solver.working_set.j_candidates_in_parts`, which says why by slices)."""
    n = y.shape[0]
    size = (n + parts - 1) // parts
    lows = np.full(parts, np.inf)
    positions = np.full(parts, -1, dtype=np.int64)
    ties = np.zeros(parts, dtype=np.int64)
    for part in prange(parts):
        a = part * size
        b = min(n, a + size)
        k, c = i_candidates(
            G[a:b], y[a:b], Ki[a:b], Kj[a:b], ci, cj, status[a:b], up_excluded[a:b],
            scratch[a:b], is_active[a:b],
        )  # fmt: skip
        if k >= 0:
            positions[part], lows[part], ties[part] = a + k, scratch[a + k], c
    return merge_parts(lows, positions, ties)


@jit(inline="always")
def next_i(scratch, i):
    """``(i, m(a))`` from the negated candidates: ``(-1, -inf)`` when there is none."""
    return (i, -scratch[i]) if i >= 0 else (-1, -np.inf)


@jit
def update_gradient_with_bounds(G, y, Ki, Kj, ci, cj, status):
    """As :func:`update_gradient`, and also the largest ``y_t G_t`` over ``I_low``: ``(i, m(a), lb)``."""
    Gmax = -np.inf
    imax = -1
    lb = -np.inf
    for t in range(y.shape[0]):
        yt = y[t]
        g = G[t] + yt * (Ki[t] * ci + Kj[t] * cj)
        G[t] = g
        Gmax, imax, lb = bounds_step(t, g, yt, status[t], Gmax, imax, lb)
    return imax, Gmax, lb


@jit
def update_gradient_with_bounds_active(G, y, Ki, Kj, ci, cj, status, active, n_active):
    """:func:`update_gradient_with_bounds` on the active points, in their order (shrinking).

    Every point's gradient moves (the points set aside too, as in
    :func:`update_gradient_active`): a check with no free vector is rare.
    """
    for t in range(y.shape[0]):
        G[t] += y[t] * (Ki[t] * ci + Kj[t] * cj)
    Gmax = -np.inf
    imax = -1
    lb = -np.inf
    for k in range(n_active):
        t = active[k]
        Gmax, imax, lb = bounds_step(t, G[t], y[t], status[t], Gmax, imax, lb)
    return imax, Gmax, lb


@jit(inline="always")
def bounds_step(t, g, yt, st, Gmax, imax, lb):
    """Point ``t`` (gradient ``g``) into ``m(a)``, its argmax (ties to the last) and ``lb``."""
    if yt > 0:
        if st != UPPER and -g >= Gmax:
            Gmax = -g
            imax = t
        if st != LOWER and g > lb:
            lb = g
    else:
        if st != LOWER and g >= Gmax:
            Gmax = g
            imax = t
        if st != UPPER and -g > lb:
            lb = -g
    return Gmax, imax, lb
