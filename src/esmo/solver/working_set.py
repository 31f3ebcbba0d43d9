"""Working-set selection: Fan, Chen and Lin's second-order rule, as LIBSVM's ``select_working_set``.

``i`` maximises ``-y_t G_t`` over ``I_up``; ``j`` minimises the second-order
objective ``-(m(a) + y_t G_t)^2 / a_it`` over ``t`` in ``I_low`` with
``-y_t G_t < m(a)``, ``a_it = K_ii + K_tt - 2 K_it`` (``TAU`` if not positive).
Ties break as in LIBSVM: the last index for ``i`` (its ``>=``), the last for
``j`` (``<=``). The solver picks the first ``i`` with :func:`select_first_i`;
every later ``i`` comes out of the gradient update of the iteration before
(:mod:`esmo.solver.update`), which makes the same choice in the same pass.

Each choice is two passes: every point's candidate value, written without a
branch on ``y_t`` or the status (a mispredicted branch per point cost more than
the whole computation), then a scan for the best one. NaN marks a point that
is no candidate: it compares false, so the scan skips it.
"""

from __future__ import annotations

import numpy as np

from esmo.solver.compile import jit
from esmo.solver.rho import LOWER, UPPER

#: Stand-in for a non-positive curvature ``K_ii + K_jj - 2 K_ij`` (Fan et al., 2005).
TAU = 1e-12


@jit
def excluded_statuses(y):
    """Per point, the status that excludes it from ``I_low`` and the one that excludes it from ``I_up``."""
    low_excluded = np.where(y > 0, LOWER, UPPER).astype(np.int8)
    up_excluded = np.where(y > 0, UPPER, LOWER).astype(np.int8)
    return low_excluded, up_excluded


@jit
def select_first_i(y, G, status):
    """``(i, m(a))``: the argmax of ``-y_t G_t`` over ``I_up``, ties to the last index; -1 if empty."""
    Gmax = -np.inf
    imax = -1
    for t in range(y.shape[0]):
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
        v = y[t] * G[t]
        in_low = status[t] != low_excluded[t]
        grad_diff = Gmax + v
        quad = QDi + QD[t] - 2.0 * Ki[t]
        quad = quad if quad > 0.0 else TAU
        obj = -(grad_diff * grad_diff) / quad
        scratch[t] = obj if in_low and grad_diff > 0.0 else np.nan
        low_val[t] = v if in_low else -np.inf
    Gmax2 = -np.inf
    jmin = -1
    obj_min = np.inf
    for t in range(n):
        if low_val[t] >= Gmax2:
            Gmax2 = low_val[t]
        if scratch[t] <= obj_min:
            obj_min = scratch[t]
            jmin = t
    return jmin, Gmax2
