"""The SMO solver: Fan, Chen and Lin's working-set selection, as LIBSVM runs it without shrinking.

One numba-compiled loop solves ``min 0.5 a'Qa - e'a, 0 <= a <= C, y'a = 0``
(``Q_ij = y_i y_j K_ij``) and, optionally, tracks ``K`` early-stopping state
machines (protocol section 5) at once. Early stopping never changes the SMO
path, only where it ends, so one run yields every configuration's stop exactly.

Arithmetic follows LIBSVM's ``Solver::Solve`` step for step (tie breaking, the
clipped pair update, ``tau = 1e-12`` for a non-positive curvature, the stopping
rule ``m(a) - M(a) < tol``, ``calculate_rho``), with kernel values stored in
float32 like LIBSVM's ``Qfloat``, so iteration counts agree with LIBSVM's.

Per iteration the solver makes two sweeps over the training set: the choice of
``j`` (which needs row ``i``), and the gradient update fused with the choice of
the next ``i``. Each is a branch-free pass that writes every point's candidate
value, then a scan for the best one (the gradient update of a check with no free
vector keeps one branching pass, which also collects rho's bounds). Validation
and test decision values are updated from the two changed alphas in
``O(n_val + n_test)``; they are never recomputed from scratch. A check adds
``rho`` (a mean over the list of free vectors, kept as alphas move), the
validation objective and ``O(1)`` state-machine work: the configurations are
read only when one can improve or reach its deadline. Kernel rows, validation
and test columns included, are computed only for points that enter a working
pair (:mod:`esmo.solver.kernels`).

Prediction rule, used everywhere: ``f(x) = sum_i a_i y_i K(x_i, x) - rho``
predicts +1 when ``f(x) > 0`` and -1 otherwise (LIBSVM's rule).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

from esmo.solver.kernels import (
    build_kernel_rows,
    check_kernel,
    exp_nonpositive,
    get_row,
    kernel_diagonal,
    kernel_matrix,
    rbf_exponents,
    sparse_dots,
)
from esmo.solver.result import SolverResult

DEFAULT_CACHE_SIZE_MB = 1024.0
METRICS: tuple[str, ...] = ("accuracy", "hinge")

_LOWER, _FREE, _UPPER = 0, 1, 2
_TAU = 1e-12


@dataclass
class Tracking:
    """Per-configuration outcome of the early-stopping state machines of one run.

    ``stop_iter`` is -1 for a configuration that never ran out of patience.
    ``best_iter`` is 0 when no check ever improved on the start value.
    Accuracies come from the incrementally updated decision values; test ones
    are NaN without test data. ``eval_sums`` holds ``sum_i a_i y_i K(x_i, x)`` for
    the validation then test points at the last iteration that tracked them (the
    stop, for a single early-stopped fit), from the incremental updates.
    ``final_predictions`` holds, when asked for, the returned model's predictions
    (+1 or -1) at the validation then test points: the signs of fresh float64
    decision values (see :func:`_final_predictions`).
    """

    stop_iter: np.ndarray
    val_accuracy: np.ndarray
    test_accuracy: np.ndarray
    best_iter: np.ndarray
    best_val_accuracy: np.ndarray
    best_test_accuracy: np.ndarray
    eval_sums: np.ndarray
    final_predictions: np.ndarray | None = None


@numba.njit(cache=True)
def _calculate_rho(y, G, status):
    """LIBSVM's ``calculate_rho``: mean ``y_i G_i`` over free vectors, else the KKT midpoint."""
    nr_free = 0
    sum_free = 0.0
    ub = np.inf
    lb = -np.inf
    for k in range(y.shape[0]):
        yg = y[k] * G[k]
        st = status[k]
        if st == _UPPER:
            if y[k] < 0:
                ub = min(ub, yg)
            else:
                lb = max(lb, yg)
        elif st == _LOWER:
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


@numba.njit(cache=True)
def _status(a, C):
    if a >= C:
        return _UPPER
    if a <= 0.0:
        return _LOWER
    return _FREE


@numba.njit(cache=True, inline="always")
def _track_free(free, free_at, n_free, k, old, new):
    """Keep the list of free vectors as vector ``k`` goes from status ``old`` to ``new``."""
    if old != _FREE and new == _FREE:
        free[n_free] = k
        free_at[k] = n_free
        return n_free + 1
    if old == _FREE and new != _FREE:
        last = free[n_free - 1]
        free[free_at[k]] = last
        free_at[last] = free_at[k]
        return n_free - 1
    return n_free


@numba.njit(cache=True)
def _eval_accuracy(S, y_eval, start, stop, rho):
    """Share of points in ``[start, stop)`` of the eval block that ``f = S - rho`` classifies right."""
    correct = 0
    for v in range(start, stop):
        if (S[v] - rho > 0.0) == (y_eval[v] > 0.0):
            correct += 1
    return correct / (stop - start) if stop > start else np.nan


@numba.njit(cache=True)
def _fresh_decisions(X_rows, sq_rows, XT, sq_cols, start, stop, kernel_code, gamma, sv, coef, rho):
    """Float64 ``f(x) = sum_s coef_s K(x_s, x) - rho`` at the columns ``[start, stop)`` of ``XT``.

    Computed afresh like a prediction, not from the float32 kernel rows, but
    over the nonzero features of each support vector only (as kernel rows are):
    on sparse data a small share of a dense BLAS product's work. Each column's
    value depends on that column alone, so any subset of columns gives the same.
    """
    m = stop - start
    f = np.zeros(m)
    for s in range(sv.shape[0]):
        i = sv[s]
        k = sparse_dots(X_rows[i], XT, start, stop)
        if kernel_code == 1:
            rbf_exponents(k, sq_rows[i], sq_cols, start, gamma)
            exp_nonpositive(k, k)
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


@numba.njit(cache=True)
def _final_predictions(
    X_rows, XT, sq_all, kernel_code, gamma, sv, coef, n, rho, data, slot_of, rows_hold_eval
):
    """Predictions (+1 or -1) at the evaluation columns, as signs of :func:`_fresh_decisions`.

    When every support vector's row is in the store with its evaluation columns
    (``rows_hold_eval``), the decision values are first summed from those float32
    kernel values, a pass with no dot products and no exp. Where that sum is
    farther from 0 than its proven distance to the fresh value, its sign is the
    fresh one; only the points within that distance (few, near the boundary) are
    computed afresh. Returns the predictions and how many were computed afresh.
    """
    m = XT.shape[1] - n
    n_sv = sv.shape[0]
    certified = rows_hold_eval
    for s in range(n_sv):
        if slot_of[sv[s]] < 0:
            certified = False
    if not certified:
        f = _fresh_decisions(
            X_rows, sq_all, XT, sq_all, n, n + m, kernel_code, gamma, sv, coef, rho
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
        XT_u = np.ascontiguousarray(XT[:, cols])
        f = _fresh_decisions(
            X_rows, sq_all, XT_u, sq_all[cols], 0, n_uncertain, kernel_code, gamma, sv, coef, rho
        )
        for u in range(n_uncertain):
            pred[uncertain[u]] = 1.0 if f[u] > 0.0 else -1.0
    return pred, n_uncertain


@numba.njit(cache=True, inline="always")
def _deadline(start, patience, interval, limit):
    """``start + (patience + 1) interval``, or ``limit`` (never reached) when that is beyond it."""
    if patience >= (limit - start) // interval:
        return limit
    return start + (patience + 1) * interval


@numba.njit(cache=True)
def _check_bounds(active, cfg_metric, cfg_tol, best_obj, deadline, max_iter):
    """Bounds that tell a check whether any running configuration can change state.

    An accuracy configuration improves only if ``acc - best > tol``, so only if
    ``acc`` exceeds ``best + tol`` less rounding (1e-9 covers it: for tol >= 1 no
    accuracy can improve); a hinge one only if ``hinge < best``. Without either,
    only a configuration at its deadline changes: it stops.
    """
    acc_bar = np.inf
    hinge_bar = -np.inf
    next_deadline = max_iter + 1
    for c in range(active.shape[0]):
        if not active[c]:
            continue
        if cfg_metric[c] == 0:
            acc_bar = min(acc_bar, best_obj[c] + cfg_tol[c] - 1e-9)
        else:
            hinge_bar = max(hinge_bar, best_obj[c])
        next_deadline = min(next_deadline, deadline[c])
    return acc_bar, hinge_bar, next_deadline


@numba.njit(cache=True)
def _smo_loop(
    y,
    QD,
    C,
    tol,
    max_iter,
    X_all,
    XT,
    sq_all,
    kernel_code,
    gamma,
    blas,
    data,
    slot_of,
    owner,
    stamp,
    y_eval,
    n_val,
    cfg_patience,
    cfg_tol,
    cfg_interval,
    cfg_metric,
    stop_when_all_stopped,
    keep_best,
    alpha,
    G,
    status,
    best_alpha,
    out_iter,
    out_acc,
):
    """Run SMO; returns ``(n_iter, max_iter_reached, best_rho, S, n_active)``.

    ``alpha``, ``G`` and ``status`` are filled in place. ``out_iter[k] = (stop_iter,
    best_iter)`` and ``out_acc[k] = (val, test, best_val, best_test)`` per config.
    """
    n = y.shape[0]
    m = y_eval.shape[0]
    n_test = m - n_val
    n_cfg = cfg_patience.shape[0]
    clock = np.zeros(2, dtype=np.int64)

    for k in range(n):
        alpha[k] = 0.0
        G[k] = -1.0
        status[k] = _LOWER

    # t is in I_low unless its status is low_excluded[t], in I_up unless up_excluded[t]
    low_excluded = np.where(y > 0, _LOWER, _UPPER).astype(np.int8)
    up_excluded = np.where(y > 0, _UPPER, _LOWER).astype(np.int8)
    scratch = np.empty(n)  # per-point candidate values of one pass
    low_val = np.empty(n)

    # the free vectors (0 < a < C) in the order they became free, and their places
    free = np.empty(n, dtype=np.int64)
    free_at = np.empty(n, dtype=np.int64)
    n_free = 0

    # early-stopping state
    S = np.zeros(m)
    positive = y_eval > 0.0
    need_hinge = n_cfg > 0 and cfg_metric.max() == 1
    active = np.ones(n_cfg, dtype=np.bool_)
    n_active = n_cfg
    best_obj = np.empty(n_cfg)
    # a configuration checks at the multiples of its interval r and, without an
    # improvement, stops at its (p + 1)-th check after the last one: its deadline
    deadline = np.empty(n_cfg, dtype=np.int64)
    # the distinct intervals still in use decide which iterations are checks
    intervals = np.unique(cfg_interval)
    n_using = np.zeros(intervals.shape[0], dtype=np.int64)
    best_rho = 0.0
    if n_active > 0:
        rho0 = _calculate_rho(y, G, status)
        best_rho = rho0
        acc0 = _eval_accuracy(S, y_eval, 0, n_val, rho0)
        tacc0 = _eval_accuracy(S, y_eval, n_val, m, rho0)
        for c in range(n_cfg):
            deadline[c] = _deadline(0, cfg_patience[c], cfg_interval[c], max_iter + 1)
            n_using[np.searchsorted(intervals, cfg_interval[c])] += 1
            best_obj[c] = 0.0 if cfg_metric[c] == 0 else np.inf
            out_iter[c, 0] = -1
            out_iter[c, 1] = 0
            out_acc[c, 0] = np.nan
            out_acc[c, 1] = np.nan
            out_acc[c, 2] = acc0
            out_acc[c, 3] = tacc0
    next_event = intervals[0] if n_cfg > 0 else 0
    # a check reads the configurations only when one may improve or reach its
    # deadline; these bounds say when (see _check_bounds)
    acc_bar, hinge_bar, next_deadline = _check_bounds(
        active, cfg_metric, cfg_tol, best_obj, deadline, max_iter
    )
    if keep_best:
        best_alpha[:] = 0.0

    # first i: argmax of -y_t G_t over I_up, ties to the last index (LIBSVM's >=)
    Gmax = -np.inf
    imax = -1
    for t in range(n):
        if y[t] > 0:
            if status[t] != _UPPER and -G[t] >= Gmax:
                Gmax = -G[t]
                imax = t
        elif status[t] != _LOWER and G[t] >= Gmax:
            Gmax = G[t]
            imax = t

    n_iter = 0
    hit_max = False
    while True:
        if n_iter >= max_iter:
            hit_max = True
            break
        if imax == -1:
            break
        i = imax
        tracking = n_active > 0
        n_cols = n + m if tracking else n
        Ki = get_row(
            i,
            n_cols,
            X_all,
            XT,
            sq_all,
            kernel_code,
            gamma,
            blas,
            data,
            slot_of,
            owner,
            stamp,
            clock,
        )

        # j: second-order choice among I_low with -y_j G_j < m(a) (select_working_set),
        # in two passes: every candidate's objective (NaN when t is not one), with
        # no branch on y_t or the status (a mispredicted branch per point cost more
        # than the whole computation), then a scan whose <= gives LIBSVM's tie
        # breaking (NaN compares false). y_t G_t is exact, y_t being +-1.
        QDi = QD[i]
        for t in range(n):
            v = y[t] * G[t]
            in_low = status[t] != low_excluded[t]
            grad_diff = Gmax + v
            quad = QDi + QD[t] - 2.0 * Ki[t]
            quad = quad if quad > 0.0 else _TAU
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
        if Gmax + Gmax2 < tol or jmin == -1:
            break
        j = jmin
        n_iter += 1
        Kj = get_row(
            j,
            n_cols,
            X_all,
            XT,
            sq_all,
            kernel_code,
            gamma,
            blas,
            data,
            slot_of,
            owner,
            stamp,
            clock,
        )

        # pair update with clipping to the box, as in Solver::Solve
        old_ai = alpha[i]
        old_aj = alpha[j]
        ai = old_ai
        aj = old_aj
        kij = np.float64(Ki[j])
        if y[i] != y[j]:
            quad = QD[i] + QD[j] - 2.0 * kij
            if quad <= 0.0:
                quad = _TAU
            delta = (-G[i] - G[j]) / quad
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
            quad = QD[i] + QD[j] - 2.0 * kij
            if quad <= 0.0:
                quad = _TAU
            delta = (G[i] - G[j]) / quad
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
        alpha[i] = ai
        alpha[j] = aj
        st_i = _status(ai, C)
        st_j = _status(aj, C)
        n_free = _track_free(free, free_at, n_free, i, status[i], st_i)
        n_free = _track_free(free, free_at, n_free, j, status[j], st_j)
        status[i] = st_i
        status[j] = st_j
        ci = y[i] * (ai - old_ai)
        cj = y[j] * (aj - old_aj)

        check = tracking and n_iter == next_event
        # gradient update fused with the next i (and rho on check iterations)
        Gmax = -np.inf
        imax = -1
        rho = 0.0
        if check and n_free == 0:
            # no free vector: rho is the midpoint of calculate_rho's KKT bounds, here
            # -m(a) (the next i's Gmax) and the largest y_t G_t over I_low
            lb = -np.inf
            for t in range(n):
                yt = y[t]
                g = G[t] + yt * (Ki[t] * ci + Kj[t] * cj)
                G[t] = g
                st = status[t]
                if yt > 0:
                    if st != _UPPER and -g >= Gmax:
                        Gmax = -g
                        imax = t
                    if st != _LOWER and g > lb:
                        lb = g
                else:
                    if st != _LOWER and g >= Gmax:
                        Gmax = g
                        imax = t
                    if st != _UPPER and -g > lb:
                        lb = -g
            rho = (lb - Gmax) / 2.0
        else:
            # the same two-pass form as the choice of j: -y_t G_t over I_up, then
            # the argmax with ties to the last index
            for t in range(n):
                yt = y[t]
                g = G[t] + yt * (Ki[t] * ci + Kj[t] * cj)
                G[t] = g
                scratch[t] = -yt * g if status[t] != up_excluded[t] else np.nan
            for t in range(n):
                if scratch[t] >= Gmax:
                    Gmax = scratch[t]
                    imax = t
            if check:
                # rho: the mean of y_t G_t over the free vectors, read from their list
                # (a pass over all n, branching on the status, costs more)
                sum_free = 0.0
                for h in range(n_free):
                    sum_free += y[free[h]] * G[free[h]]
                rho = sum_free / n_free

        if not tracking:
            continue
        # validation/test decision values from the two changed alphas; every loop
        # below indexes from 0 (an index like Ki[n + v] could be negative as far as
        # numba knows, and its wraparound check would stop vectorisation)
        Ki_ev = Ki[n : n + m]
        Kj_ev = Kj[n : n + m]
        if not check:
            for v in range(m):
                S[v] += Ki_ev[v] * ci + Kj_ev[v] * cj
            continue
        # branch-free passes (adding max(h, 0) equals adding only positive h), and
        # the hinge loss only when some configuration reads it
        val_correct = 0
        hinge = np.nan
        if need_hinge:
            hinge_sum = 0.0
            for v in range(n_val):
                s = S[v] + Ki_ev[v] * ci + Kj_ev[v] * cj
                S[v] = s
                f = s - rho
                yv = y_eval[v]
                val_correct += (f > 0.0) == (yv > 0.0)
                hinge_sum += max(1.0 - yv * f, 0.0)
            hinge = hinge_sum / n_val
        else:
            for v in range(n_val):
                s = S[v] + Ki_ev[v] * ci + Kj_ev[v] * cj
                S[v] = s
                val_correct += (s - rho > 0.0) == positive[v]
        acc = val_correct / n_val
        scan = acc > acc_bar or hinge < hinge_bar or n_iter >= next_deadline
        # test points: counted only when some configuration's outcome is recorded
        test_correct = 0
        S_te = S[n_val:]
        Ki_te = Ki_ev[n_val:]
        Kj_te = Kj_ev[n_val:]
        if scan:
            positive_te = positive[n_val:]
            for v in range(n_test):
                s = S_te[v] + Ki_te[v] * ci + Kj_te[v] * cj
                S_te[v] = s
                test_correct += (s - rho > 0.0) == positive_te[v]
        else:
            for v in range(n_test):
                S_te[v] += Ki_te[v] * ci + Kj_te[v] * cj
        tacc = test_correct / n_test if n_test > 0 else np.nan

        if scan:
            for c in range(n_cfg):
                if not active[c] or n_iter % cfg_interval[c] != 0:
                    continue
                if cfg_metric[c] == 0:
                    obj = acc
                    improved = obj - best_obj[c] > cfg_tol[c]
                else:
                    obj = hinge
                    improved = best_obj[c] - obj > cfg_tol[c]
                if improved:
                    best_obj[c] = obj
                    deadline[c] = _deadline(n_iter, cfg_patience[c], cfg_interval[c], max_iter + 1)
                    out_iter[c, 1] = n_iter
                    out_acc[c, 2] = acc
                    out_acc[c, 3] = tacc
                    if keep_best and c == 0:
                        best_alpha[:] = alpha
                        best_rho = rho
                elif deadline[c] == n_iter:
                    active[c] = False
                    n_active -= 1
                    n_using[np.searchsorted(intervals, cfg_interval[c])] -= 1
                    out_iter[c, 0] = n_iter
                    out_acc[c, 0] = acc
                    out_acc[c, 1] = tacc
            acc_bar, hinge_bar, next_deadline = _check_bounds(
                active, cfg_metric, cfg_tol, best_obj, deadline, max_iter
            )
        if n_active == 0 and stop_when_all_stopped:
            break
        next_event = max_iter + 1
        for u in range(intervals.shape[0]):
            if n_using[u] > 0:
                upcoming = (n_iter // intervals[u] + 1) * intervals[u]
                if upcoming < next_event:
                    next_event = upcoming
    return n_iter, hit_max, best_rho, S, n_active


def _as_labels(y: Any, n: int, name: str) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n:
        raise ValueError(
            f"{name} must be a 1-D array with one label per row of the matching X ({n}), got shape {y.shape}."
        )
    if not np.all((y == 1) | (y == -1)):
        raise ValueError(
            f"{name} must hold labels in {{-1, +1}}; map your two classes to -1/+1 first "
            "(esmo.SMOClassifier does this for any two labels)."
        )
    return y.astype(np.float64)


def _as_features(X: Any, name: str, n_features: int | None = None) -> np.ndarray:
    X = np.ascontiguousarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array (n_samples, n_features), got shape {X.shape}."
        )
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(
            f"{name} has {X.shape[1]} features but the training data has {n_features}; "
            "pass arrays with the same columns."
        )
    if not np.isfinite(X).all():
        raise ValueError(f"{name} contains NaN or infinity; impute or drop those values first.")
    return X


def check_solver_params(C: float, tol: float, max_iter: int) -> None:
    """Raise a clear error for a non-positive ``C``/``tol`` or a negative ``max_iter``."""
    if not (np.isfinite(C) and C > 0):
        raise ValueError(f"C must be a positive finite number, got {C!r}.")
    if not (np.isfinite(tol) and tol > 0):
        raise ValueError(f"tol must be a positive finite number, got {tol!r}.")
    if int(max_iter) != max_iter or max_iter < 0:
        raise ValueError(f"max_iter must be a non-negative integer, got {max_iter!r}.")


def run_smo(
    X: Any,
    y: Any,
    *,
    kernel: str = "rbf",
    C: float = 1.0,
    gamma: float = 1.0,
    tol: float = 1e-3,
    max_iter: int = 10_000_000,
    cache_size_mb: float = DEFAULT_CACHE_SIZE_MB,
    kernel_dtype: type = np.float32,
    X_val: Any = None,
    y_val: Any = None,
    X_test: Any = None,
    y_test: Any = None,
    patience: np.ndarray | None = None,
    es_tol: np.ndarray | None = None,
    interval: np.ndarray | None = None,
    metric: np.ndarray | None = None,
    stop_when_all_stopped: bool = True,
    restore_best: bool = False,
    final_predictions: bool = False,
) -> tuple[SolverResult, Tracking | None]:
    """Solve the dual and track early-stopping configurations given as parallel arrays.

    ``metric`` holds 0 (accuracy) or 1 (hinge). With ``stop_when_all_stopped``
    the run ends as soon as every configuration has stopped (a real early-stopped
    fit); otherwise it runs to convergence (the sweep). ``restore_best`` returns
    the best iterate of configuration 0 when it stopped early. ``final_predictions``
    adds the returned model's predictions at the evaluation points, equal to the
    signs of fresh float64 decision values.
    """
    code = check_kernel(kernel, gamma)
    check_solver_params(C, tol, max_iter)
    X = _as_features(X, "X")
    y = _as_labels(y, X.shape[0], "y")
    if np.all(y == y[0]):
        raise ValueError("y holds a single class; SMO needs both -1 and +1 labels.")
    n_cfg = 0 if patience is None else len(patience)
    eval_parts = []
    y_eval = np.empty(0)
    n_val = 0
    if n_cfg > 0:
        if X_val is None or y_val is None:
            raise ValueError("Early stopping needs validation data: pass X_val and y_val.")
        X_val = _as_features(X_val, "X_val", X.shape[1])
        y_val_f = _as_labels(y_val, X_val.shape[0], "y_val")
        if X_val.shape[0] == 0:
            raise ValueError("X_val is empty; early stopping needs at least one validation point.")
        eval_parts.append(X_val)
        y_evals = [y_val_f]
        n_val = X_val.shape[0]
        if X_test is not None:
            X_test = _as_features(X_test, "X_test", X.shape[1])
            eval_parts.append(X_test)
            y_evals.append(_as_labels(y_test, X_test.shape[0], "y_test"))
        y_eval = np.concatenate(y_evals)
    rows = build_kernel_rows(X, eval_parts, kernel, gamma, cache_size_mb, kernel_dtype)
    n = X.shape[0]
    alpha = np.empty(n)
    G = np.empty(n)
    status = np.empty(n, dtype=np.int8)
    best_alpha = np.empty(n if restore_best else 0)
    out_iter = np.empty((n_cfg, 2), dtype=np.int64)
    out_acc = np.empty((n_cfg, 4))
    empty_i = np.empty(0, dtype=np.int64)
    n_iter, hit_max, best_rho, eval_sums, n_active = _smo_loop(
        y,
        kernel_diagonal(X, kernel),
        float(C),
        float(tol),
        int(max_iter),
        rows.X_all,
        rows.XT,
        rows.sq_all,
        code,
        float(gamma),
        rows.blas,
        rows.data,
        rows.slot_of,
        rows.owner,
        rows.stamp,
        y_eval,
        n_val,
        empty_i if patience is None else np.asarray(patience, dtype=np.int64),
        np.empty(0) if es_tol is None else np.asarray(es_tol, dtype=np.float64),
        empty_i if interval is None else np.asarray(interval, dtype=np.int64),
        empty_i if metric is None else np.asarray(metric, dtype=np.int64),
        bool(stop_when_all_stopped),
        bool(restore_best),
        alpha,
        G,
        status,
        best_alpha,
        out_iter,
        out_acc,
    )
    rho = float(_calculate_rho(y, G, status))
    objective = float(np.dot(alpha, G - 1.0) / 2.0)
    stopped_early = n_cfg > 0 and bool(np.all(out_iter[:, 0] >= 0))
    if restore_best and stopped_early:
        alpha, rho, objective = best_alpha, float(best_rho), float("nan")
    result = SolverResult(
        alpha=alpha,
        rho=rho,
        n_iter=int(n_iter),
        max_iter_reached=bool(hit_max),
        stopped_early=stopped_early,
        objective=objective,
    )
    if n_cfg == 0:
        return result, None
    predictions = None
    if final_predictions:
        sv = np.flatnonzero(alpha > 0)
        # rows computed once no configuration was running lack evaluation columns
        rows_hold_eval = not rows.blas and (n_active > 0 or stop_when_all_stopped)
        predictions, _ = _final_predictions(
            rows.X_all,
            rows.XT,
            rows.sq_all,
            code,
            float(gamma),
            sv,
            alpha[sv] * y[sv],
            n,
            rho,
            rows.data,
            rows.slot_of,
            rows_hold_eval,
        )
    tracking = Tracking(
        stop_iter=out_iter[:, 0].copy(),
        val_accuracy=out_acc[:, 0].copy(),
        test_accuracy=out_acc[:, 1].copy(),
        best_iter=out_iter[:, 1].copy(),
        best_val_accuracy=out_acc[:, 2].copy(),
        best_test_accuracy=out_acc[:, 3].copy(),
        eval_sums=eval_sums,
        final_predictions=predictions,
    )
    return result, tracking


def solve_smo(
    X: Any,
    y: Any,
    *,
    kernel: str = "rbf",
    C: float = 1.0,
    gamma: float = 1.0,
    tol: float = 1e-3,
    max_iter: int = 10_000_000,
    cache_size_mb: float = DEFAULT_CACHE_SIZE_MB,
    kernel_dtype: type = np.float32,
    early_stopping: Any = None,
    X_val: Any = None,
    y_val: Any = None,
) -> SolverResult:
    """Train a binary SVM by SMO (labels in {-1, +1}); optionally early-stopped.

    ``early_stopping`` is an :class:`esmo.early_stopping.EarlyStopping` read on
    ``(X_val, y_val)``. ``kernel_dtype`` is the storage precision of kernel
    values (float32 like LIBSVM, or float64). Kernel rows are computed when a
    point first enters a working pair and kept while ``n x (n + n_val)`` of them
    fit ``cache_size_mb``, else cached LRU (see :mod:`esmo.solver.kernels`).
    """
    tracked: dict[str, Any] = {}
    if early_stopping is not None:
        es = early_stopping
        tracked = dict(
            X_val=X_val,
            y_val=y_val,
            patience=np.array([es.patience]),
            es_tol=np.array([es.tol]),
            interval=np.array([es.interval]),
            metric=np.array([METRICS.index(es.metric)]),
            stop_when_all_stopped=True,
            restore_best=es.restore_best,
        )
    result, _ = run_smo(
        X,
        y,
        kernel=kernel,
        C=C,
        gamma=gamma,
        tol=tol,
        max_iter=max_iter,
        cache_size_mb=cache_size_mb,
        kernel_dtype=kernel_dtype,
        **tracked,
    )
    return result


def decision_values(
    X_train: np.ndarray,
    y: np.ndarray,
    result: SolverResult,
    X: np.ndarray,
    kernel: str,
    gamma: float,
) -> np.ndarray:
    """Fresh float64 ``f(x) = sum a_i y_i K(x_i, x) - rho`` over the support vectors."""
    sv = result.alpha > 0
    coef = result.alpha[sv] * y[sv]
    if not sv.any():
        return np.full(X.shape[0], -result.rho)
    return kernel_matrix(X, X_train[sv], kernel, gamma) @ coef - result.rho
