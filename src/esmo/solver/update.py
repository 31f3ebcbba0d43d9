"""The update of one SMO iteration: the working pair's alphas, then the gradient and the next ``i``.

:func:`update_pair` is LIBSVM's two-variable step (``Solver::Solve``): the
Newton step along the direction that keeps ``y'a`` fixed, clipped back onto
the box. The gradient ``G = Qa - e`` then moves by the two changed columns of
``Q``, and the same pass picks the next iteration's ``i`` (the argmax of
``-y_t G_t`` over ``I_up``, ties to the last index), so ``G`` is read once per
iteration: :func:`update_gradient` in two branch-free passes (candidate values,
then a scan, as :mod:`esmo.solver.working_set` does), or, at a check with no
free vector, :func:`update_gradient_with_bounds`, one branching pass that also
collects the lower KKT bound that :func:`esmo.solver.rho.rho_from_bounds` needs.
"""

from __future__ import annotations

import numpy as np

from esmo.solver.compile import jit
from esmo.solver.rho import FREE, LOWER, UPPER
from esmo.solver.working_set import TAU


@jit(inline="always")
def status_of(a, C):
    """LIBSVM's ``update_alpha_status``: at the upper bound, at the lower bound, or free."""
    if a >= C:
        return UPPER
    if a <= 0.0:
        return LOWER
    return FREE


@jit(inline="always")
def update_pair(ai, aj, yi, yj, Gi, Gj, quad, C):
    """New ``(a_i, a_j)``: the clipped two-variable step; ``quad = K_ii + K_jj - 2 K_ij``."""
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
        if diff > 0.0:  # C_i - C_j == 0
            if ai > C:
                ai = C
                aj = C - diff
        elif aj > C:
            aj = C
            ai = C + diff
    else:
        delta = (Gi - Gj) / quad
        total = ai + aj
        ai -= delta
        aj += delta
        if total > C:
            if ai > C:
                ai = C
                aj = total - C
        elif aj < 0.0:
            aj = 0.0
            ai = total
        if total > C:
            if aj > C:
                aj = C
                ai = total - C
        elif ai < 0.0:
            ai = 0.0
            aj = total
    return ai, aj


@jit
def update_gradient(G, y, Ki, Kj, ci, cj, status, up_excluded, scratch):
    """``G += y (K_i c_i + K_j c_j)``, then ``(next i, m(a))`` from the updated gradient."""
    n = y.shape[0]
    for t in range(n):
        yt = y[t]
        g = G[t] + yt * (Ki[t] * ci + Kj[t] * cj)
        G[t] = g
        scratch[t] = -yt * g if status[t] != up_excluded[t] else np.nan
    Gmax = -np.inf
    imax = -1
    for t in range(n):
        if scratch[t] >= Gmax:
            Gmax = scratch[t]
            imax = t
    return imax, Gmax


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
        st = status[t]
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
    return imax, Gmax, lb
