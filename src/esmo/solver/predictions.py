"""Predictions of the returned model at the evaluation points, certified equal to fresh float64 ones.

A sweep's reference accuracies (the run to convergence) must equal what a
fresh float64 prediction gives. Summing the decision values from the float32
kernel rows already in the store is far cheaper, and :func:`final_predictions`
keeps such a sign only where a proven rounding bound says it is the fresh one.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.extending import overload

from esmo.solver import sparse
from esmo.solver.compile import jit
from esmo.solver.kernels import point_dots, rbf_values


@jit
def fresh_decisions(
    X_rows, sq_rows, XT, sq_cols, start, stop, kernel_code, gamma, table, sv, coef, rho
):
    """Float64 ``f(x) = sum_s coef_s K(x_s, x) - rho`` at the columns ``[start, stop)`` of ``XT``.

    Computed afresh like a prediction, not from the float32 kernel rows, but
    over the nonzero features of each support vector only (as kernel rows are):
    on sparse data a small share of a dense BLAS product's work. Each column's
    value depends on that column alone, so any subset of columns gives the same.
    ``X_rows`` and ``XT`` are dense or sparse (:func:`~esmo.solver.kernels.point_dots`);
    ``table`` is the store's exp table (:func:`~esmo.solver.kernels.rbf_values`).
    """
    m = stop - start
    f = np.zeros(m)
    for s in range(sv.shape[0]):
        i = sv[s]
        k = point_dots(X_rows, XT, i, start, stop)
        if kernel_code == 1:
            rbf_values(k, sq_rows[i], sq_cols, start, gamma, table, k)
        w = coef[s]
        for c in range(m):
            f[c] += w * k[c]
    for c in range(m):
        f[c] -= rho
    return f


# Summed from float32-rounded kernel values q instead of the float64 values k they
# round, a decision value moves by at most (2^-24 + 2^-47) sum|coef q| (rounding
# of k, relative) plus 2^-150 sum|coef| (rounding of subnormals), and each float64
# sum of n terms adds at most gamma_n = n u / (1 - n u) times its sum of |terms|
# (u = 2^-53); the bound used is _SLACK times the total
_SLACK = 4.0
_U = 2.0**-53


@jit
def final_predictions(rows, sv, coef, n, rho, rows_hold_eval):
    """Predictions (+1 or -1) at the evaluation columns of the store ``rows``, as fresh signs.

    ``sv`` are the support vectors, ``coef`` their ``a_s y_s``, ``n`` the number
    of training columns. The signs are those of :func:`fresh_decisions`.

    When every support vector's row is in the store with its evaluation columns
    (``rows_hold_eval``), the decision values are first summed from those float32
    kernel values, a pass with no dot products and no exp. Where that sum is
    farther from 0 than its proven distance to the fresh value, its sign is the
    fresh one; only the points within that distance (few, near the boundary) are
    computed afresh. Returns the predictions and how many were computed afresh.
    """
    X_rows, XT, sq_all, data, slot_of = rows.X_all, rows.XT, rows.sq_all, rows.data, rows.slot_of
    kernel_code, gamma, table = rows.kernel_code, rows.gamma, rows.exp_table
    m = sq_all.shape[0] - n
    n_sv = sv.shape[0]
    certified = rows_hold_eval
    for s in range(n_sv):
        if slot_of[sv[s]] < 0:
            certified = False
    if not certified:
        f = fresh_decisions(
            X_rows, sq_all, XT, sq_all, n, n + m, kernel_code, gamma, table, sv, coef, rho
        )
        return np.where(f > 0.0, 1.0, -1.0), m
    f32 = np.zeros(m)
    bound = np.zeros(m)
    coef_sum = 0.0
    for s in range(n_sv):
        w = coef[s]
        aw = abs(w)
        coef_sum += aw
        row = data[slot_of[sv[s]], n : n + m]  # indexed from 0, so the loop vectorises
        for c in range(m):
            k = np.float64(row[c])
            f32[c] += w * k
            bound[c] += aw * abs(k)
    terms = (n_sv + 1) * _U
    rel = _SLACK * (2.0**-24 + 2.0**-47 + 2.0 * terms / (1.0 - terms))
    absolute = _SLACK * 2.0**-150 * coef_sum
    pred = np.empty(m)
    uncertain = np.empty(m, dtype=np.int64)
    n_uncertain = 0
    for c in range(m):
        margin = f32[c] - rho
        if abs(margin) > rel * bound[c] + absolute:
            pred[c] = 1.0 if margin > 0.0 else -1.0
        else:
            uncertain[n_uncertain] = c
            n_uncertain += 1
    if n_uncertain > 0:
        cols = uncertain[:n_uncertain] + n
        XT_u = _columns(XT, cols, n + m)
        f = fresh_decisions(
            X_rows, sq_all, XT_u, sq_all[cols], 0, n_uncertain, kernel_code, gamma, table, sv,
            coef, rho,
        )  # fmt: skip
        for u in range(n_uncertain):
            pred[uncertain[u]] = 1.0 if f[u] > 0.0 else -1.0
    return pred, n_uncertain


def _columns(XT, cols, n_cols):
    """The column points ``cols`` (ascending) of ``XT``, dense or sparse: compiled code only."""
    raise NotImplementedError("_columns runs in compiled code only")


@overload(_columns)
def _columns_impl(XT, cols, n_cols):
    if isinstance(XT, types.Array):
        return lambda XT, cols, n_cols: np.ascontiguousarray(XT[:, cols])
    return lambda XT, cols, n_cols: sparse.column_subset(XT, cols, n_cols)


@jit(nogil=True)
def decisions_from_rows(rows, coef, rho):
    """``f_c = sum_s coef_s rows[s, c] + rho`` over the nonzero ``coef``, added in their order.

    ``rows`` holds a kernel row per training point over the evaluation
    columns (a fold's held-out points, say): each support vector's row is
    read in place, where a product with BLAS would first copy the rows out.
    """
    f = np.zeros(rows.shape[1])
    for s in range(coef.shape[0]):
        c = coef[s]
        if c != 0.0:
            for k in range(f.shape[0]):
                f[k] += c * rows[s, k]
    return f + rho
