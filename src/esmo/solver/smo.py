"""The SMO solver: Fan, Chen and Lin's working-set selection, as LIBSVM runs it without shrinking.

One compiled loop, :func:`smo_loop`, solves ``min 0.5 a'Qa - e'a, 0 <= a <= C,
y'a = 0`` (``Q_ij = y_i y_j K_ij``). It is a short driver over named steps,
each a screen long, as in LIBSVM's ``Solver::Solve``:

==========================  ============================================
step                        where
==========================  ============================================
select ``i`` (first only)   :func:`esmo.solver.working_set.select_first_i`
select ``j``, stop test     :func:`esmo.solver.working_set.select_j`
kernel rows                 :func:`esmo.solver.row_cache.get_row`
update the pair             :func:`esmo.solver.update.update_pair`
update ``G``, next ``i``    :func:`esmo.solver.update.update_gradient`
rho                         :mod:`esmo.solver.rho`
early-stopping hook         :func:`esmo.solver.tracking.check`
==========================  ============================================

Arithmetic follows LIBSVM step for step (tie breaking, the clipped pair update,
``tau = 1e-12`` for a non-positive curvature, the stopping rule
``m(a) - M(a) < tol``, ``calculate_rho``), with kernel values stored in float32
like LIBSVM's ``Qfloat``, so iteration counts agree with LIBSVM's.

Prediction rule, used everywhere: ``f(x) = sum_i a_i y_i K(x_i, x) - rho``
predicts +1 when ``f(x) > 0`` and -1 otherwise (LIBSVM's rule).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from esmo.early_stopping import EarlyStopping, EarlyStoppingSet
from esmo.solver.compile import jit
from esmo.solver.inputs import as_evaluation, as_problem
from esmo.solver.kernels import kernel_diagonal, kernel_matrix
from esmo.solver.params import SolverParams
from esmo.solver.predictions import final_predictions
from esmo.solver.result import SolverResult, Tracking
from esmo.solver.rho import LOWER, calculate_rho, move_free, rho_from_bounds, rho_from_free_list
from esmo.solver.row_cache import build_kernel_rows, get_row
from esmo.solver.tracking import (
    N_ACTIVE,
    NEXT_EVENT,
    NO_CONFIGS,
    advance,
    check,
    make_tracker,
    start_tracking,
)
from esmo.solver.update import status_of, update_gradient, update_gradient_with_bounds, update_pair
from esmo.solver.working_set import excluded_statuses, select_first_i, select_j


@jit
def smo_loop(y, QD, C, tol, max_iter, rows, tr, alpha, G, status):
    """Run SMO from ``a = 0``; returns ``(n_iter, max_iter_reached)``.

    ``alpha``, ``G`` and ``status`` are filled in place, the tracker ``tr``
    (:mod:`esmo.solver.tracking`) too. Rows carry the evaluation columns while
    some configuration runs.
    """
    n = y.shape[0]
    m = tr.y_eval.shape[0]
    counters = tr.counters  # read every iteration: taken out of the tracker once
    alpha[:] = 0.0
    G[:] = -1.0
    status[:] = LOWER
    low_excluded, up_excluded = excluded_statuses(y)
    scratch = np.empty(n)  # per-point candidate values of one pass
    low_val = np.empty(n)
    free = np.empty(n, dtype=np.int64)  # the free vectors, for rho at checks
    free_at = np.empty(n, dtype=np.int64)
    n_free = 0
    start_tracking(tr, y, G, status, max_iter)
    i, Gmax = select_first_i(y, G, status)
    n_iter = 0
    while True:
        if n_iter >= max_iter:
            return n_iter, True
        if i == -1:
            return n_iter, False
        tracking = counters[N_ACTIVE] > 0
        n_cols = n + m if tracking else n
        Ki = get_row(rows, i, n_cols)
        j, Gmax2 = select_j(Gmax, QD[i], Ki, y, G, QD, status, low_excluded, scratch, low_val)
        if Gmax + Gmax2 < tol or j == -1:
            return n_iter, False
        n_iter += 1
        Kj = get_row(rows, j, n_cols)

        old_ai, old_aj = alpha[i], alpha[j]
        quad = QD[i] + QD[j] - 2.0 * np.float64(Ki[j])
        ai, aj = update_pair(old_ai, old_aj, y[i], y[j], G[i], G[j], quad, C)
        alpha[i], alpha[j] = ai, aj
        st_i, st_j = status_of(ai, C), status_of(aj, C)
        n_free = move_free(free, free_at, n_free, i, status[i], st_i)
        n_free = move_free(free, free_at, n_free, j, status[j], st_j)
        status[i], status[j] = st_i, st_j
        ci = y[i] * (ai - old_ai)
        cj = y[j] * (aj - old_aj)

        is_check = tracking and n_iter == counters[NEXT_EVENT]
        rho = 0.0
        if is_check and n_free == 0:
            i, Gmax, lb = update_gradient_with_bounds(G, y, Ki, Kj, ci, cj, status)
            rho = rho_from_bounds(Gmax, lb)
        else:
            i, Gmax = update_gradient(G, y, Ki, Kj, ci, cj, status, up_excluded, scratch)
            if is_check:
                rho = rho_from_free_list(y, G, free, n_free)

        if not tracking:
            continue
        # the evaluation columns as slices indexed from 0 (an index like Ki[n + v]
        # could be negative as far as numba knows; its check stops vectorisation)
        Ki_ev = Ki[n : n + m]
        Kj_ev = Kj[n : n + m]
        if not is_check:
            advance(tr, Ki_ev, Kj_ev, ci, cj)
        elif check(tr, n_iter, rho, Ki_ev, Kj_ev, ci, cj, alpha):
            return n_iter, False


def run_smo(
    X: Any,
    y: Any,
    params: SolverParams,
    *,
    configs: EarlyStoppingSet | None = None,
    X_val: Any = None,
    y_val: Any = None,
    X_test: Any = None,
    y_test: Any = None,
    stop_when_all_stopped: bool = True,
    final_predictions_at_eval: bool = False,
) -> tuple[SolverResult, Tracking | None]:
    """Solve the dual and track the early-stopping ``configs`` on ``(X_val, y_val)``.

    With ``stop_when_all_stopped`` the run ends as soon as every configuration
    has stopped (a real early-stopped fit); otherwise it runs to convergence
    (the sweep). For a single configuration with ``restore_best`` the result is
    its best iterate when it stopped early. ``final_predictions_at_eval`` adds
    the returned model's predictions at the evaluation points, equal to the
    signs of fresh float64 decision values.
    """
    X, y = as_problem(X, y)
    n = X.shape[0]
    configs = configs if configs is not None else NO_CONFIGS
    blocks, y_eval, n_val = [], np.empty(0), 0
    if len(configs):
        blocks, y_eval, n_val = as_evaluation(X_val, y_val, X_test, y_test, X.shape[1])
    rows = build_kernel_rows(X, blocks, params)
    tr = make_tracker(configs, y_eval, n_val, n, stop_when_all_stopped)
    alpha, G = np.empty(n), np.empty(n)
    status = np.empty(n, dtype=np.int8)
    n_iter, hit_max = smo_loop(
        y,
        kernel_diagonal(X, params.kernel),
        params.C,
        params.tol,
        params.iteration_limit(n),
        rows,
        tr,
        alpha,
        G,
        status,
    )
    rho = float(calculate_rho(y, G, status))
    objective = float(np.dot(alpha, G - 1.0) / 2.0)
    stopped = tr.out_iter[:, 0] >= 0
    stopped_early = len(configs) > 0 and bool(np.all(stopped))
    if len(configs) == 1 and configs.restore_best[0] and stopped_early:
        alpha, rho, objective = tr.best_alpha[0], float(tr.best_rho[0]), float("nan")
    kernel_evaluations = int(rows.clock[2]) * rows.XT.shape[1]
    result = SolverResult(
        alpha, rho, int(n_iter), bool(hit_max), stopped_early, objective, kernel_evaluations
    )
    if not len(configs):
        return result, None
    predictions = None
    if final_predictions_at_eval:
        sv = np.flatnonzero(alpha > 0)
        # rows computed once no configuration was running lack evaluation columns
        rows_hold_eval = not rows.blas and (tr.counters[N_ACTIVE] > 0 or stop_when_all_stopped)
        predictions, _ = final_predictions(rows, sv, alpha[sv] * y[sv], n, rho, rows_hold_eval)
    tracking = Tracking(
        stop_iter=tr.out_iter[:, 0].copy(),
        val_accuracy=tr.out_acc[:, 0].copy(),
        test_accuracy=tr.out_acc[:, 1].copy(),
        best_iter=tr.out_iter[:, 1].copy(),
        best_val_accuracy=tr.out_acc[:, 2].copy(),
        best_test_accuracy=tr.out_acc[:, 3].copy(),
        best_alpha=tr.best_alpha,
        best_rho=tr.best_rho[configs.restore_best].copy(),
        eval_sums=tr.S,
        final_predictions=predictions,
    )
    return result, tracking


def solve_smo(
    X: Any,
    y: Any,
    *,
    early_stopping: EarlyStopping | None = None,
    X_val: Any = None,
    y_val: Any = None,
    **solver_params: Any,
) -> SolverResult:
    """Train a binary SVM by SMO (labels in {-1, +1}); optionally early-stopped.

    ``solver_params`` are the fields of :class:`~esmo.solver.params.SolverParams`
    (``kernel, C, gamma, tol, max_iter, cache_size_mb, kernel_dtype``), with its
    defaults. ``early_stopping`` is read on ``(X_val, y_val)``. Kernel rows are
    computed when a point first enters a working pair and kept while
    ``n x (n + n_val)`` of them fit ``cache_size_mb``, else cached LRU
    (:mod:`esmo.solver.row_cache`).
    """
    params = SolverParams(**solver_params)
    if early_stopping is None:
        return run_smo(X, y, params)[0]
    configs = EarlyStoppingSet.of([early_stopping])
    return run_smo(X, y, params, configs=configs, X_val=X_val, y_val=y_val)[0]


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
