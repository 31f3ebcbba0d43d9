"""Shrinking, as LIBSVM's ``Solver`` does it: bounded points set aside, their gradient rebuilt.

Every ``min(n, 1000)`` iterations :func:`do_shrinking` sets aside the bounded
points that cannot enter the next working pair (LIBSVM's ``be_shrunk``: a point
at its bound whose ``y_t G_t`` lies beyond the maximal violations ``m(a)`` and
``M(a)``); the working-set selection and the gradient update then visit the
active points only. A point set aside keeps its alpha, and its gradient is not
updated: it is rebuilt (:func:`reconstruct_gradient`) from ``G_bar``, the
gradient the bounded alphas alone give, ``sum over a_t = C_t of C_t Q_t``,
which :func:`update_G_bar` keeps as alphas reach or leave their upper bound,
and the free alphas' kernel rows. The loop rebuilds it as LIBSVM does: once,
with every point brought back, when the gap first falls below ``10 tol``
(:func:`do_shrinking`); and when the active points satisfy the stopping rule,
before it checks all of them (:func:`unshrink_all`). A run also leaves the
whole gradient in its state (``esmo.solver.smo.finish_shrinking``).

Where the whole gradient is read during a run, it is had without a rebuild:
rho at a check with no free vector reads the points set aside from ``G_bar + p``
(:func:`rho_with_inactive`); while a configuration reads the description length
(``mdl_logistic``), every point's gradient moves at every iteration (the
selection never reads the points set aside, and a rebuild overwrites them, so
the path stays LIBSVM's). A rebuild at each such check would cost ``O(free x
set aside)`` kernel products: 10 to 100 times a whole fit at ``r = 1``.

LIBSVM keeps the active points first by swapping points (``swap_index``), which
changes the order in which later passes visit them, and so how ties break.
``SolverState.active`` is that order (LIBSVM's ``active_set``): the same swaps
are made in it, and every pass over the active points visits
``active[:n_active]`` in turn, so the iterations are LIBSVM's.
"""

from __future__ import annotations

import numpy as np

from esmo.solver.compile import jit
from esmo.solver.rho import FREE, LOWER, UPPER
from esmo.solver.row_cache import peek_row
from esmo.solver.working_set import select_first_i

#: LIBSVM brings every shrunk point back once the gap falls below this many ``tol``.
UNSHRINK_FACTOR = 10.0


@jit
def violation_bounds(y, G, status, active, n_active):
    """``(m(a), -M(a))`` over the active points: LIBSVM's ``Gmax1`` and ``Gmax2`` in ``do_shrinking``."""
    Gmax1 = -np.inf  # max of -y_t G_t over I_up
    Gmax2 = -np.inf  # max of y_t G_t over I_low
    for k in range(n_active):
        t = active[k]
        v = y[t] * G[t]
        st = status[t]
        if y[t] > 0:
            if st != UPPER and -v >= Gmax1:
                Gmax1 = -v
            if st != LOWER and v >= Gmax2:
                Gmax2 = v
        else:
            if st != UPPER and v >= Gmax2:
                Gmax2 = v
            if st != LOWER and -v >= Gmax1:
                Gmax1 = -v
    return Gmax1, Gmax2


@jit(inline="always")
def be_shrunk(t, y, G, status, Gmax1, Gmax2):
    """LIBSVM's ``be_shrunk``: point ``t`` is bounded and cannot join a violating pair."""
    st = status[t]
    if st == UPPER:
        return -G[t] > (Gmax1 if y[t] > 0 else Gmax2)
    if st == LOWER:
        return G[t] > (Gmax2 if y[t] > 0 else Gmax1)
    return False


@jit
def shrink(y, G, status, active, n_active, Gmax1, Gmax2):
    """Move the points to shrink behind the active ones, swapping as LIBSVM does; the new count."""
    k = 0
    while k < n_active:
        if be_shrunk(active[k], y, G, status, Gmax1, Gmax2):
            n_active -= 1
            while n_active > k:
                if not be_shrunk(active[n_active], y, G, status, Gmax1, Gmax2):
                    active[k], active[n_active] = active[n_active], active[k]
                    break
                n_active -= 1
        k += 1
    return n_active


@jit
def do_shrinking(rows, y, G, G_bar, p, alpha, status, active, n_active, unshrunk, tol):
    """LIBSVM's ``do_shrinking``: ``(n_active, unshrunk)`` after it.

    The first time the gap ``m(a) - M(a)`` is at most ``10 tol``, every point
    comes back (its gradient rebuilt) before the points are shrunk again against
    the same bounds.
    """
    Gmax1, Gmax2 = violation_bounds(y, G, status, active, n_active)
    n = y.shape[0]
    if not unshrunk and Gmax1 + Gmax2 <= UNSHRINK_FACTOR * tol:
        unshrunk = 1
        reconstruct_gradient(rows, y, G, G_bar, p, alpha, status, active, n_active)
        n_active = n
    return shrink(y, G, status, active, n_active, Gmax1, Gmax2), unshrunk


@jit
def unshrink_all(rows, y, G, G_bar, p, alpha, status, active, n_active):
    """The active points satisfy the stopping rule: every point back, ``(n, i, m(a))`` over them all.

    LIBSVM's ``Solve`` then selects a pair among all the points in the same
    iteration, and stops only if none violates the rule.
    """
    reconstruct_gradient(rows, y, G, G_bar, p, alpha, status, active, n_active)
    n = y.shape[0]
    i, Gmax = select_first_i(y, G, status, active, n)
    return n, i, Gmax


@jit
def reconstruct_gradient(rows, y, G, G_bar, p, alpha, status, active, n_active):
    """LIBSVM's ``reconstruct_gradient``: the gradient of the points set aside, rebuilt.

    ``G_t = G_bar_t + p_t + sum over free f of a_f Q_ft``, the free vectors
    (all active) added in their order in ``active``: LIBSVM's sums, to the bit.
    The sums read the free vectors' rows (:func:`rebuild_from_free_rows`) or,
    as LIBSVM does when that is cheaper, the rows of the points set aside
    (:func:`rebuild_from_own_rows`): whichever needs fewer rows computed. Both
    add the same terms in the same order, a kernel value being the same sum
    whichever of its two points owns the row; BLAS rows (float64 storage) are
    not symmetric to the bit, so they always take the free vectors' rows. Rows
    are read as stored, or computed without being stored
    (:func:`esmo.solver.row_cache.peek_row`). The points stay set aside.
    """
    n = y.shape[0]
    if n_active == n:
        return
    for k in range(n_active, n):
        t = active[k]
        G[t] = G_bar[t] + p[t]
    free = np.empty(n_active, dtype=np.int64)
    n_free = 0
    for h in range(n_active):
        if status[active[h]] == FREE:
            free[n_free] = active[h]
            n_free += 1
    if not rows.blas and _uncached(rows, active[n_active:]) < _uncached(rows, free[:n_free]):
        rebuild_from_own_rows(rows, y, G, alpha, free[:n_free], active[n_active:])
    else:
        rebuild_from_free_rows(rows, y, G, alpha, free[:n_free], active[n_active:])


@jit(inline="always")
def _uncached(rows, points):
    """How many of ``points`` have no row in the store."""
    missing = 0
    for t in points:
        missing += rows.slot_of[t] < 0
    return missing


@jit
def rebuild_from_free_rows(rows, y, G, alpha, free, aside):
    """``G_t += a_f Q_ft`` for each free ``f`` in turn, over the points ``aside``: one row per free vector."""
    spare = np.empty(y.shape[0], dtype=rows.data.dtype)
    for f in free:
        row = peek_row(rows, f, spare)
        c = alpha[f] * y[f]
        for t in aside:
            G[t] += y[t] * (c * row[t])


@jit
def rebuild_from_own_rows(rows, y, G, alpha, free, aside):
    """The same sums point by point: each point set aside reads its own row (LIBSVM's ``get_Q(i, active_size)``)."""
    spare = np.empty(y.shape[0], dtype=rows.data.dtype)
    coef = np.empty(free.shape[0])
    for h in range(free.shape[0]):
        coef[h] = alpha[free[h]] * y[free[h]]
    for t in aside:
        row = peek_row(rows, t, spare)
        g = G[t]
        yt = y[t]
        for h in range(free.shape[0]):
            g += yt * (coef[h] * row[free[h]])
        G[t] = g


@jit
def mark_active(is_active, active, n_active):
    """``is_active[t]``: whether point ``t`` is among ``active[:n_active]``."""
    is_active[:] = False
    for k in range(n_active):
        is_active[active[k]] = True


@jit
def update_G_bar(G_bar, y, K_t, y_t, coef):
    """Point ``t`` reached (``coef = C_t``) or left (``coef = -C_t``) its bound: ``G_bar += coef Q_t``.

    ``coef Q_tk`` is LIBSVM's ``C_t * Q_t[k]`` to the bit (only its sign differs).
    """
    for k in range(y.shape[0]):
        G_bar[k] += coef * (y_t * y[k] * K_t[k])  # LIBSVM's Q_tk, exact: the signs are +-1


@jit
def rho_with_inactive(Gmax, lb, y, G_bar, p, status, active, n_active):
    """rho at a check with no free vector: the KKT bounds of the active points and of those set aside.

    ``-Gmax`` and ``lb`` are the active points' bounds
    (:func:`esmo.solver.update.update_gradient_with_bounds`). Without free
    vectors the whole gradient of a point set aside is ``G_bar + p``, so this is
    :func:`esmo.solver.rho.calculate_rho` at this iteration, without a rebuild.
    """
    ub = -Gmax
    for k in range(n_active, y.shape[0]):
        t = active[k]
        yg = y[t] * (G_bar[t] + p[t])
        if (status[t] == UPPER) == (y[t] < 0):  # at the bound that caps rho from above
            ub = min(ub, yg)
        else:
            lb = max(lb, yg)
    return (ub + lb) / 2.0
