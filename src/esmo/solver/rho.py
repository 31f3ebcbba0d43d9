"""The bias ``rho``: one definition (LIBSVM's ``calculate_rho``) and the two shortcuts checks take.

``f(x) = sum_i a_i y_i K(x_i, x) - rho``. At the optimum ``y_t G_t = rho`` for
every free vector (``0 < a_t < C``), so rho is their mean; with none free it
lies between the KKT bounds that the bounded vectors set, and LIBSVM takes the
midpoint. :func:`calculate_rho` is that definition, a pass over all ``n``
points; the solver calls it once per run, at the end.

An early-stopping check needs rho at many iterations, so it takes the same
value by two shortcuts, each equal to :func:`calculate_rho` at that iteration:

- with free vectors, :func:`rho_from_free_list` sums ``y_t G_t`` over a list of
  them that :func:`move_free` keeps in ``O(1)`` per changed alpha (the order of
  the list differs from LIBSVM's index order, so the last bits of the mean may
  too; tracked accuracies compare decision values, never rho alone);
- with none free, :func:`rho_from_bounds` takes the midpoint of the two bounds,
  which the gradient pass of that iteration collects
  (:func:`esmo.solver.update.update_gradient_with_bounds`).
"""

from __future__ import annotations

import numpy as np

from esmo.solver.compile import jit

LOWER, FREE, UPPER = 0, 1, 2


@jit
def calculate_rho(y, G, status):
    """LIBSVM's ``calculate_rho``: mean ``y_i G_i`` over free vectors, else the KKT midpoint."""
    nr_free = 0
    sum_free = 0.0
    ub = np.inf
    lb = -np.inf
    for k in range(y.shape[0]):
        yg = y[k] * G[k]
        st = status[k]
        if st == UPPER:
            if y[k] < 0:
                ub = min(ub, yg)
            else:
                lb = max(lb, yg)
        elif st == LOWER:
            if y[k] > 0:
                ub = min(ub, yg)
            else:
                lb = max(lb, yg)
        else:
            nr_free += 1
            sum_free += yg
    if nr_free > 0:
        return sum_free / nr_free
    return (ub + lb) / 2.0


@jit(inline="always")
def move_free(free, free_at, n_free, k, old, new):
    """Keep the list of free vectors as vector ``k`` goes from status ``old`` to ``new``; new length."""
    if old != FREE and new == FREE:
        free[n_free] = k
        free_at[k] = n_free
        return n_free + 1
    if old == FREE and new != FREE:
        last = free[n_free - 1]
        free[free_at[k]] = last
        free_at[last] = free_at[k]
        return n_free - 1
    return n_free


@jit(inline="always")
def rho_from_free_list(y, G, free, n_free):
    """The mean of ``y_t G_t`` over the ``n_free`` free vectors listed in ``free``."""
    sum_free = 0.0
    for h in range(n_free):
        sum_free += y[free[h]] * G[free[h]]
    return sum_free / n_free


@jit(inline="always")
def rho_from_bounds(Gmax, lb):
    """With no free vector: the midpoint of the KKT bounds ``-Gmax = -m(a)`` and ``lb``."""
    return (lb - Gmax) / 2.0
