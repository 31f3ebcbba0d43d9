"""The SMO solver: Fan, Chen and Lin's working-set selection as LIBSVM runs it, shrinking included.

One compiled loop, :func:`smo_loop`, solves LIBSVM's general dual ``min 0.5
a'Qa + p'a, 0 <= a_t <= C_t, y'a = 0`` (``Q_ij = y_i y_j K_ij``; ``p = -e``
and one ``C`` for the plain SVM). It is a short driver over named steps, each
a screen long, as in LIBSVM's ``Solver::Solve``:

==========================  ============================================
step                        where
==========================  ============================================
select ``i`` (first only)   :func:`esmo.solver.working_set.select_first_i`
select ``j``, stop test     :func:`esmo.solver.working_set.select_j`
few active points           :mod:`esmo.solver.active_view`
kernel rows                 :func:`esmo.solver.row_cache.cached_slot`, ``fill_slot``
update the pair             :func:`esmo.solver.update.update_pair`
update ``G``, next ``i``    :func:`esmo.solver.update.update_gradient`
shrinking                   :func:`esmo.solver.shrinking.do_shrinking`, ``update_G_bar``, ``unshrink_all``
rho                         :mod:`esmo.solver.rho`
early-stopping hook         :func:`esmo.solver.tracking.check`
==========================  ============================================

The loop reads and leaves a :class:`~esmo.solver.state.SolverState`, so it can
pause and go on exactly: :func:`drive` pauses it for fresh checks, the per-check
hook and the wall-clock budget; a warm start hands it the previous fit's state.

Arithmetic follows LIBSVM step for step (tie breaking, the clipped pair update,
``tau = 1e-12`` for a non-positive curvature, the stopping rule
``m(a) - M(a) < tol``, ``calculate_rho``, shrinking with its order of the
points), with kernel values stored in float32 like LIBSVM's ``Qfloat``, so
iteration counts agree with LIBSVM's (``SVC(shrinking=...)``'s, pinned in
``tests/core/data/libsvm_iterations*.csv``).

Prediction rule, used everywhere: ``f(x) = sum_i a_i y_i K(x_i, x) - rho``
predicts +1 when ``f(x) > 0`` and -1 otherwise (LIBSVM's rule).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from threadpoolctl import ThreadpoolController

from esmo.early_stopping import METRICS, EarlyStopping, EarlyStoppingSet
from esmo.solver import active_view, row_memory, sparse, working_set
from esmo.solver.active_view import (
    gather_features,
    opens,
    refresh,
    reload_gradient,
    select_j_view,
    sync_gradient,
    update_gradient_view,
    view_for_run,
    view_row,
    view_row_computed,
)
from esmo.solver.compile import jit, numba_threads
from esmo.solver.inputs import (
    as_evaluation,
    as_linear_term,
    as_problem,
    as_sample_weight,
    check_kernel_range,
)
from esmo.solver.kernels import kernel_diagonal, kernel_matrix
from esmo.solver.params import SolverParams
from esmo.solver.predictions import final_predictions
from esmo.solver.result import CheckInfo, SolverResult, Tracking
from esmo.solver.rho import (
    LOWER,
    UPPER,
    calculate_rho,
    move_free,
    rho_from_bounds,
    rho_from_free_list,
)
from esmo.solver.row_cache import (
    ROWS_COMPUTED,
    VALUES_COMPUTED,
    KernelRows,
    build_kernel_rows,
    cached_slot,
    check_shared_rows,
    count_afresh,
    fill_slot,
    fresh_sums,
    get_row,
    store_signature,
    stored_sums,
)
from esmo.solver.shrinking import (
    do_shrinking,
    mark_active,
    reconstruct_gradient,
    rho_with_inactive,
    unshrink_all,
    update_G_bar,
)
from esmo.solver.state import (
    ACTIVE_SIZE,
    G_BAR_VALID,
    N_FREE,
    N_ITER,
    SHRINK_COUNTER,
    SHRINK_EVERY,
    UNSHRUNK,
    SolverState,
    cold_state,
    feasible_alphas,
    save_counts,
    seeded_state,
)
from esmo.solver.tracking import (
    ACCURACY,
    BEST_ITER,
    BEST_TEST_ACCURACY,
    BEST_VAL_ACCURACY,
    F_MEASURE,
    FRESH_VALUES,
    HINGE,
    INCREMENTAL,
    KERNEL_ROWS,
    MDL_LOGISTIC,
    N_ACTIVE,
    N_INCREMENTAL,
    NEXT_EVENT,
    NEXT_FRESH,
    NO_CONFIGS,
    SMOOTHED_ERROR,
    STOP_ITER,
    STOP_KERNEL_ROWS,
    TEST_ACCURACY,
    VAL_ACCURACY,
    advance,
    check,
    fresh_check,
    fresh_check_in_loop,
    fresh_evaluation,
    make_tracker,
    next_multiple,
    record_check,
    start_tracking,
)
from esmo.solver.update import (
    status_of,
    update_gradient,
    update_gradient_active,
    update_gradient_with_bounds,
    update_gradient_with_bounds_active,
    update_pair,
)
from esmo.solver.working_set import (
    excluded_statuses,
    select_first_i,
    select_j,
    select_j_active,
)

#: Why :func:`smo_loop` returned.
CONVERGED, ITERATION_LIMIT, EARLY_STOPPED, PAUSED = 0, 1, 2, 3


@jit(nogil=True)  # folds of a path run side by side on threads (esmo.tuning.path)
def smo_loop(
    y, QD, C, p, tol, max_iter, shrinking, view_from, parts, rows, tr, state, pause_at_checks
):
    """Run SMO from ``state`` until it converges or has made ``max_iter`` pair updates in all.

    Returns why it stopped (``CONVERGED``, ``ITERATION_LIMIT``, ``EARLY_STOPPED``,
    or ``PAUSED`` at a fresh check that reads a user's metric, which the caller
    evaluates, and after every check when ``pause_at_checks``; rho at the pause
    is in ``tr.rho_now``). ``C`` holds each point's upper bound, ``p`` the
    linear term. The state (:mod:`esmo.solver.state`) is updated in place, so a
    paused or limited run continues exactly when called again; the tracker
    ``tr`` (:mod:`esmo.solver.tracking`, started by ``start_tracking``) too.
    Rows carry the evaluation columns while some configuration runs. With
    ``shrinking`` the loop shrinks as LIBSVM does (:mod:`esmo.solver.shrinking`);
    a return may then leave the gradient of the points set aside stale
    (:func:`finish_shrinking` rebuilds it). From ``view_from`` points on, the
    passes over few active points read them side by side
    (:mod:`esmo.solver.active_view`). The passes over many active points run
    in ``parts`` ranges at once (threads), the same pairs for any ``parts``,
    shrinking or not.
    """
    n = y.shape[0]
    m = tr.y_eval.shape[0]
    counters = tr.counters  # read every iteration: taken out of the tracker once
    need_mdl = tr.need_mdl
    alpha, G, status, free, free_at = state.alpha, state.G, state.status, state.free, state.free_at
    counts, active, G_bar = state.counts, state.active, state.G_bar
    low_excluded, up_excluded = excluded_statuses(y)
    scratch = np.empty(n)  # per-point candidate values of one pass
    low_val = np.empty(n)
    n_iter, n_free = counts[N_ITER], counts[N_FREE]
    n_active, counter, unshrunk = counts[ACTIVE_SIZE], counts[SHRINK_COUNTER], counts[UNSHRUNK]
    # without shrinking every point is active, in index order: the passes over them all run
    # in parts through the active points' passes, which then pick select_j's pairs
    all_in_parts = not shrinking and parts > 1
    is_active = np.empty(n if shrinking or all_in_parts else 0, dtype=np.bool_)
    if all_in_parts:
        is_active[:] = True
    # the active points side by side (esmo.solver.active_view); while it is open its
    # gradient is the one the passes update, written back before G is read
    may_view = shrinking and not need_mdl and n >= view_from
    view = view_for_run(n, rows, may_view)
    # rows computed at the view's points: in runs that read no whole row (no configuration,
    # so no check)
    computing = view.XT.shape[0] > 0 and tr.patience.shape[0] == 0
    viewing = False
    if shrinking:
        mark_active(is_active, active, n_active)
        viewing = may_view and opens(n_active, n)
        if viewing:
            refresh(view, y, QD, G, status, low_excluded, up_excluded, active, n_active)
            if computing:
                gather_features(view, rows)
    i, Gmax = select_first_i(y, G, status, active, n_active)
    while True:
        if n_iter >= max_iter:
            leave(counts, n_iter, n_free, n_active, counter, unshrunk, viewing, view, G)
            return ITERATION_LIMIT
        if shrinking:
            counter -= 1
            if counter == 0:
                counter = min(n, SHRINK_EVERY)
                if viewing:
                    sync_gradient(view, G)
                n_active, unshrunk = do_shrinking(
                    rows, y, G, G_bar, p, alpha, status, active, n_active, unshrunk, tol
                )
                mark_active(is_active, active, n_active)
                viewing = may_view and opens(n_active, n)
                if viewing:
                    refresh(view, y, QD, G, status, low_excluded, up_excluded, active, n_active)
                    if computing:
                        gather_features(view, rows)
                i, Gmax = select_first_i(y, G, status, active, n_active)
        if i == -1:
            if n_active == n:
                leave(counts, n_iter, n_free, n_active, counter, unshrunk, viewing, view, G)
                return CONVERGED
            if viewing:
                sync_gradient(view, G)
                viewing = False
            n_active, i, Gmax = unshrink_all(rows, y, G, G_bar, p, alpha, status, active, n_active)
            is_active[:] = True
            counter = 2  # counted down to LIBSVM's 1 as the loop comes back to this iteration
            continue
        tracking = counters[N_INCREMENTAL] > 0
        n_cols = n + m if tracking else n
        if viewing and computing:
            Ki = Ki_view = view_row_computed(view, i, rows, -1)  # no whole row read
        else:
            s = cached_slot(rows, i)  # a row read in two steps: see cached_slot
            Ki = rows.data[s if s >= 0 else fill_slot(rows, i, n_cols)]
            Ki_view = view_row(view, i, Ki, -1) if viewing else Ki
        if viewing:
            j, Gmax2 = select_j_view(Gmax, QD[i], Ki_view, view, scratch, low_val)
        elif shrinking or all_in_parts:
            j, Gmax2 = select_j_active(
                Gmax, QD[i], Ki, y, G, QD, status, low_excluded, scratch, low_val, active,
                n_active, is_active, parts,
            )  # fmt: skip
        else:
            j, Gmax2 = select_j(Gmax, QD[i], Ki, y, G, QD, status, low_excluded, scratch, low_val)
        if Gmax + Gmax2 < tol or j == -1:
            if n_active == n:
                leave(counts, n_iter, n_free, n_active, counter, unshrunk, viewing, view, G)
                return CONVERGED
            # optimal on the active points: LIBSVM rebuilds the gradient and checks them all,
            # in this same iteration (the counter then shrinks again at the next one)
            if viewing:
                sync_gradient(view, G)
                viewing = False
            n_active, i, Gmax = unshrink_all(rows, y, G, G_bar, p, alpha, status, active, n_active)
            is_active[:] = True
            counter = 2
            continue
        n_iter += 1
        whole = not (viewing and computing)  # Ki and Kj are whole rows
        if whole:
            s = cached_slot(rows, j)
            Kj = rows.data[s if s >= 0 else fill_slot(rows, j, n_cols)]
            Kj_view = view_row(view, j, Kj, i) if viewing else Kj
        else:
            Kj = Kj_view = view_row_computed(view, j, rows, i)

        old_ai, old_aj = alpha[i], alpha[j]
        Kij = Ki[j] if whole else Ki_view[view.position[j]]
        quad = QD[i] + QD[j] - 2.0 * np.float64(Kij)
        if viewing:
            at_i, at_j = view.position[i], view.position[j]
            Gi, Gj = view.G[at_i], view.G[at_j]
        else:
            Gi, Gj = G[i], G[j]
        ai, aj = update_pair(old_ai, old_aj, y[i], y[j], Gi, Gj, quad, C[i], C[j])
        alpha[i], alpha[j] = ai, aj
        st_i, st_j = status_of(ai, C[i]), status_of(aj, C[j])
        if shrinking:
            if (status[i] == UPPER) != (st_i == UPPER):
                K_i = Ki if whole else get_row(rows, i, n_cols)
                update_G_bar(G_bar, y, K_i, y[i], C[i] if st_i == UPPER else -C[i])
            if (status[j] == UPPER) != (st_j == UPPER):
                K_j = Kj if whole else get_row(rows, j, n_cols)
                update_G_bar(G_bar, y, K_j, y[j], C[j] if st_j == UPPER else -C[j])
        n_free = move_free(free, free_at, n_free, i, status[i], st_i)
        n_free = move_free(free, free_at, n_free, j, status[j], st_j)
        status[i], status[j] = st_i, st_j
        if viewing:
            view.status[at_i], view.status[at_j] = st_i, st_j
        ci = y[i] * (ai - old_ai)
        cj = y[j] * (aj - old_aj)

        is_check = tracking and n_iter == counters[NEXT_EVENT]
        is_fresh = n_iter == counters[NEXT_FRESH]
        rho = 0.0
        if viewing and (is_check or is_fresh):
            sync_gradient(view, G)  # the checks read G: updated there, then read back
        if viewing and not (is_check or is_fresh):
            i, Gmax = update_gradient_view(view, Ki_view, Kj_view, ci, cj, scratch)
        elif (is_check or is_fresh) and n_free == 0:
            if shrinking:
                i, Gmax, lb = update_gradient_with_bounds_active(
                    G, y, Ki, Kj, ci, cj, status, active, n_active
                )
                rho = rho_with_inactive(Gmax, lb, y, G_bar, p, status, active, n_active)
            else:
                i, Gmax, lb = update_gradient_with_bounds(G, y, Ki, Kj, ci, cj, status)
                rho = rho_from_bounds(Gmax, lb)
        else:
            if shrinking or all_in_parts:
                # the description length reads every point's gradient: all of them move
                i, Gmax = update_gradient_active(
                    G, y, Ki, Kj, ci, cj, status, up_excluded, scratch, active, n_active,
                    is_active, need_mdl, parts,
                )  # fmt: skip
            else:
                i, Gmax = update_gradient(G, y, Ki, Kj, ci, cj, status, up_excluded, scratch)
            if is_check or is_fresh:
                rho = rho_from_free_list(y, G, free, n_free)
        if viewing and (is_check or is_fresh):
            reload_gradient(view, G)

        if tracking:
            # the evaluation columns as slices indexed from 0 (an index like Ki[n + v]
            # could be negative as far as numba knows; its check stops vectorisation)
            Ki_ev = Ki[n : n + m]
            Kj_ev = Kj[n : n + m]
            if not is_check:
                advance(tr.S, Ki_ev, Kj_ev, ci, cj)
            else:
                counters[KERNEL_ROWS] = rows.clock[ROWS_COMPUTED]  # the cost a stop here records
                scan, tacc = check(tr, n_iter, rho, Ki_ev, Kj_ev, ci, cj, y, G, alpha)
                # the steps that take the whole tracker are called here, not in check
                # (its docstring says why)
                if scan:
                    record_check(tr, n_iter, tr.last, tacc, rho, alpha, INCREMENTAL)
                if counters[N_ACTIVE] == 0 and tr.stop_when_all_stopped:
                    save_counts(counts, n_iter, n_free, n_active, counter, unshrunk)
                    return EARLY_STOPPED
                counters[NEXT_EVENT] = next_multiple(tr, n_iter, INCREMENTAL)
        if is_fresh and not tr.need_custom:
            if fresh_check_in_loop(tr, rows, n_iter, rho, y, G, alpha):
                save_counts(counts, n_iter, n_free, n_active, counter, unshrunk)
                return EARLY_STOPPED
        if (is_fresh and tr.need_custom) or ((is_check or is_fresh) and pause_at_checks):
            tr.rho_now[0] = rho
            save_counts(counts, n_iter, n_free, n_active, counter, unshrunk)
            return PAUSED


@jit(inline="always")
def leave(counts, n_iter, n_free, n_active, counter, unshrunk, viewing, view, G):
    """The loop returns: the view's gradient written back to ``G``, the counters into the state."""
    if viewing:
        sync_gradient(view, G)
    save_counts(counts, n_iter, n_free, n_active, counter, unshrunk)


@jit(nogil=True)
def finish_shrinking(rows, y, p, state):
    """The whole gradient in ``state`` at the end of a run: the points set aside rebuilt.

    They stay set aside, so a run continued from the state takes the path of
    one that never stopped (the loop never reads their gradient before a
    rebuild overwrites it).
    """
    n_active = state.counts[ACTIVE_SIZE]
    reconstruct_gradient(
        rows, y, state.G, state.G_bar, p, state.alpha, state.status, state.active, n_active
    )


@functools.cache
def blas_controller() -> ThreadpoolController:
    """threadpoolctl's view of the loaded BLAS libraries, made once (a look takes milliseconds)."""
    return ThreadpoolController()


#: Why :func:`drive` ended a run, beyond :func:`smo_loop`'s reasons.
TIME_LIMIT, CALLBACK_STOP = 4, 5

#: Iterations :func:`drive` first runs between two looks at the clock.
FIRST_SEGMENT = 1024


def drive(
    loop_args: tuple,
    rows: Any,
    tr: Any,
    state: SolverState,
    limit: int,
    callback: Callable[[CheckInfo], Any] | None,
    max_time: float | None,
    users_sums: Callable[[np.ndarray], tuple[np.ndarray, int]] | None,
) -> int:
    """Run :func:`smo_loop` to the end, pausing it for users' metrics, the hook and the clock.

    Fresh checks run inside the loop, except where a user's metric (Python)
    is read: there the loop pauses, ``users_sums(alpha)`` gives the decision
    values at the evaluation points from the current alphas (and the kernel
    values they took) and evaluates the users' metrics on them, and :func:`esmo.solver.tracking.fresh_check` reads
    them. With a ``callback`` the loop also pauses after every check; the
    callback gets a :class:`~esmo.solver.result.CheckInfo`, and a true return
    ends the run.
    With ``max_time`` (seconds) the loop runs in segments of iterations,
    doubled while one takes under 10 ms, and the run ends at the first pause
    past the budget: the one stopping rule that depends on the machine. Pauses
    change nothing else: the state carries the run on exactly.
    """
    y, QD, upper, p, tol, shrinking = loop_args
    # read at each run, so a test can lower them and compare a run with the view, or with
    # passes in parts, to one without
    view_from = active_view.VIEW_MIN_POINTS
    parts = rows.threads if y.shape[0] >= working_set.PARALLEL_MIN_POINTS else 1
    if callback is None and max_time is None and users_sums is None:
        return smo_loop(
            y, QD, upper, p, tol, limit, shrinking, view_from, parts, rows, tr, state, False
        )
    end = None if max_time is None else time.perf_counter() + max_time
    segment = FIRST_SEGMENT
    while True:
        stop_at = limit if end is None else min(limit, state.n_iter + segment)
        started = time.perf_counter()
        reason = smo_loop(
            y, QD, upper, p, tol, stop_at, shrinking, view_from, parts, rows, tr, state,
            callback is not None,
        )  # fmt: skip
        if reason == PAUSED and state.n_iter == tr.counters[NEXT_FRESH]:
            sums, n_values = users_sums(state.alpha)
            kernel_rows = rows.clock[ROWS_COMPUTED]
            if fresh_check(tr, state.n_iter, sums, n_values, kernel_rows, y, state.G, state.alpha):
                return EARLY_STOPPED
        if reason == PAUSED and callback is not None and callback(check_info(y, tr, state)):
            return CALLBACK_STOP
        if reason not in (PAUSED, ITERATION_LIMIT) or state.n_iter >= limit:
            return reason
        now = time.perf_counter()
        if end is not None and now >= end:
            return TIME_LIMIT
        if reason == ITERATION_LIMIT and now - started < 0.01:
            segment *= 2


def check_info(y: np.ndarray, tr: Any, state: SolverState) -> CheckInfo:
    """What the hook sees at a check: iteration, validation objectives, the KKT gap.

    The gap is that of the active points (all of them without shrinking): the
    one the solver's stopping test reads, without rebuilding the gradient of the
    points shrinking set aside.
    """
    active = state.active[: state.active_size]
    y, status = y[active], state.status[active]
    yG = -y * state.G[active]
    up = np.where(y > 0, status != UPPER, status != LOWER)
    low = np.where(y > 0, status != LOWER, status != UPPER)
    last = tr.last  # by metric code; users' metrics not shown
    return CheckInfo(
        state.n_iter,
        val_accuracy=float(last[ACCURACY]),
        val_hinge=float(last[HINGE]),
        dl_per_point=float(last[MDL_LOGISTIC]),
        val_smoothed_error=float(last[SMOOTHED_ERROR]),
        val_f_measure=float(last[F_MEASURE]),
        gap=float(yG[up].max() - yG[low].min()),
    )


def run_smo(
    X: Any,
    y: Any,
    params: SolverParams,
    *,
    sample_weight: Any = None,
    linear_term: Any = None,
    state: SolverState | None = None,
    configs: EarlyStoppingSet | None = None,
    X_val: Any = None,
    y_val: Any = None,
    X_test: Any = None,
    y_test: Any = None,
    stop_when_all_stopped: bool = True,
    final_predictions_at_eval: bool = False,
    callback: Callable[[CheckInfo], Any] | None = None,
    max_time: float | None = None,
    evaluation: str = "auto",
    rows: KernelRows | None = None,
    row_store: dict | None = None,
    eval_sums: np.ndarray | None = None,
) -> tuple[SolverResult, Tracking | None]:
    """Solve the dual and track the early-stopping ``configs`` on ``(X_val, y_val)``.

    The dual is LIBSVM's general form ``min 0.5 a'Qa + p'a, 0 <= a_t <= C_t,
    y'a = 0`` with ``C_t = C * sample_weight[t]`` and ``p = linear_term``
    (default ``-1``: the plain hinge loss). ``X`` may be scipy.sparse (CSR or
    CSC), kept sparse (:mod:`esmo.solver.sparse`): the same run as on
    ``X.toarray()``, to the bit; the evaluation blocks then join it as CSR.
    ``state`` continues an earlier run on the same problem (its
    ``result.state``) exactly, or starts from a seeded one (:func:`warm_state`);
    it is updated in place. ``max_iter`` counts the state's iterations too.

    With ``stop_when_all_stopped`` the run ends as soon as every configuration
    has stopped (a real early-stopped fit); otherwise it runs to convergence
    (the sweep). For a single configuration with ``restore_best`` the result is
    its best iterate when it stopped early. ``final_predictions_at_eval`` adds
    the returned model's predictions at the evaluation points, equal to the
    signs of fresh float64 decision values. ``callback`` and ``max_time``: see
    :func:`drive`. ``evaluation`` says how checks read the validation (and test)
    decision values: ``incremental`` (moved by every iteration's two changed
    alphas), ``fresh`` (computed from the alphas at each check, the thesis's own
    cost model), or ``auto``, each configuration by its interval
    (:func:`esmo.solver.tracking.fresh_evaluation`). ``rows``: a store whose rows are
    all in place (:meth:`esmo.solver.shared_kernel.SharedKernel.rows`, for
    ``X`` and the validation block in this order, incremental checks), read
    instead of one the run builds; a warm start's validation sums then come
    from it too, and ``X`` and the evaluation points are taken as its maker
    checked them (finite, in range): only their shapes are checked again.
    ``row_store``: a dict the caller keeps between runs on the same
    points and evaluation points (``SMOClassifier(warm_start=True)`` does): a store
    built for the same kernel, width and evaluation mode is read again, its rows
    kept, and this run's store is left there; kernel values are the same whichever
    store computed them, so the run is too, and only its new rows are counted.
    ``eval_sums``: a warm start's sums ``sum_k a_k y_k K(x_k, x)`` at the
    evaluation points (validation then test) when the caller has them, read
    instead of computed from ``state``'s alphas (a C path scales the last fit's
    tracked sums with its alphas: :func:`esmo.tuning.path.fit_path`).
    """
    shared = rows is not None
    # a shared store's maker checked the values (finite, in range) when it computed the rows
    X, y = as_problem(X, y, checked=shared)
    if not shared:
        check_kernel_range(X, params.kernel, params.kernel_dtype)
    n = X.shape[0]
    upper = params.C * as_sample_weight(sample_weight, n)
    p = as_linear_term(linear_term, n)
    if state is None:
        state = cold_state(p)
    elif state.alpha.shape[0] != n:
        raise ValueError(
            f"The starting state has {state.alpha.shape[0]} points but X has {n}; "
            "warm starts need the same training set (or fit from scratch)."
        )
    prepare_state(X, y, upper, params, state)
    configs = configs if configs is not None else NO_CONFIGS
    blocks, y_eval, n_val = [], np.empty(0), 0
    if len(configs) and (configs.needs_validation or X_val is not None):
        blocks, y_eval, n_val = as_evaluation(
            X_val, y_val, X_test, y_test, X.shape[1], like=X, checked=shared
        )
    if eval_sums is not None and np.shape(eval_sums) != y_eval.shape:
        raise ValueError(
            f"eval_sums holds {np.shape(eval_sums)} values; the run has {y_eval.shape[0]} "
            "evaluation points (validation, then test): pass their sums, or None."
        )
    fresh = fresh_evaluation(configs, evaluation)
    if shared:
        check_shared_rows(
            rows, n, sum(b.shape[0] for b in blocks), fresh, final_predictions_at_eval
        )
    else:
        incremental, fresh_checks = not fresh.all(), bool(fresh.any())
        signature = store_signature(params, n, blocks, incremental, fresh_checks)
        if row_store is not None and row_store.get("signature") == signature:
            rows = count_afresh(row_store["rows"])
        else:
            if row_store is not None and "rows" in row_store:  # another problem's store
                row_memory.give_back(row_store.pop("rows").data)
            rows = build_kernel_rows(X, blocks, params, incremental, fresh_checks)
            if row_store is not None:
                row_store.clear()
                row_store.update(signature=signature, rows=rows)
    tr = make_tracker(configs, y_eval, n_val, p, stop_when_all_stopped, fresh)
    if len(blocks) and state.alpha.any():  # a warm start: the sums of its alphas
        if eval_sums is not None:
            tr.S[:] = eval_sums
        elif shared:
            tr.S[:] = stored_sums(rows, state.alpha, y, n)
        else:
            tr.S[:] = evaluation_sums(X, y, state.alpha, sparse.stack(blocks), params)
        tr.best_alpha[:] = state.alpha
    limit = params.iteration_limit(n)
    if len(configs):
        start_tracking(tr, y, state.G, state.status, limit, state.n_iter)
    users_sums = None
    if tr.need_custom:

        def users_sums(alpha: np.ndarray) -> tuple[np.ndarray, int]:
            sums, n_values = fresh_sums(rows, alpha, y, n, y_eval.shape[0])
            f_val = sums[:n_val] - tr.rho_now[0]
            for code, metric in enumerate(configs.custom_metrics, start=len(METRICS)):
                tr.last[code] = float(metric.function(f_val, y_eval[:n_val]))
            return sums, n_values

    loop_args = (y, kernel_diagonal(X, params.kernel), upper, p, params.tol, params.shrinking)
    # entered for one thread too: it launches numba's threading layer, without which
    # numba 0.58 (the declared floor) crashes running cached code that holds a
    # parallel region, even one the run never enters
    with numba_threads(rows.threads):
        reason = drive(loop_args, rows, tr, state, limit, callback, max_time, users_sums)
        if state.active_size < n:
            finish_shrinking(rows, y, p, state)
    kernel_rows = int(rows.clock[ROWS_COMPUTED])
    kernel_values = int(rows.clock[VALUES_COMPUTED] + tr.counters[FRESH_VALUES])
    result = _result(y, p, state, tr, configs, reason, (kernel_values, kernel_rows))
    predictions = None
    if len(configs) and final_predictions_at_eval and blocks:
        alpha, rho = result.alpha, result.rho
        sv = np.flatnonzero(alpha > 0)
        # rows computed once no configuration was running lack evaluation columns
        rows_hold_eval = not rows.blas and (
            tr.counters[N_INCREMENTAL] > 0 or (stop_when_all_stopped and not tr.fresh.any())
        )
        predictions, _ = final_predictions(rows, sv, alpha[sv] * y[sv], n, rho, rows_hold_eval)
    if not shared and row_store is None:  # this run's own store: its memory serves the next
        row_memory.give_back(rows.data)
    return result, (_tracking(tr, configs, predictions) if len(configs) else None)


def evaluation_sums(
    X: np.ndarray, y: np.ndarray, alpha: np.ndarray, X_eval: np.ndarray, params: SolverParams
) -> np.ndarray:
    """``sum_i a_i y_i K(x_i, x)`` at the evaluation points, from scratch (float64, BLAS).

    On one BLAS thread: the same sums on any machine (a sweep and a separate
    fit must agree to the bit), and no thread start-up on small products.
    """
    sv = np.flatnonzero(alpha)
    if not sv.size:
        return np.zeros(X_eval.shape[0])
    with blas_controller().limit(limits=1, user_api="blas"):
        K = kernel_matrix(X_eval, X[sv], params.kernel, params.gamma)
        return K @ (alpha[sv] * y[sv])


def prepare_state(
    X: np.ndarray, y: np.ndarray, upper: np.ndarray, params: SolverParams, state: SolverState
) -> None:
    """Ready ``state`` for a run with or without shrinking.

    With shrinking, ``G_bar`` is computed (float64, BLAS) when the state does not
    hold it: a seeded state with alphas at their bound, or one a run without
    shrinking left. Without, every point is active, in index order.
    """
    counts = state.counts
    if not params.shrinking:
        state.active[:] = np.arange(y.shape[0])
        counts[ACTIVE_SIZE] = y.shape[0]
        counts[G_BAR_VALID] = 0
    elif not counts[G_BAR_VALID]:
        at_bound = np.where(state.status == UPPER, upper, 0.0)
        state.G_bar[:] = y * evaluation_sums(X, y, at_bound, X, params)
        counts[G_BAR_VALID] = 1


def _result(
    y: np.ndarray,
    p: np.ndarray,
    state: SolverState,
    tr: Any,
    configs: EarlyStoppingSet,
    reason: int,
    kernel_cost: tuple[int, int],
) -> SolverResult:
    """The model a run returns: where it ended, or a restore_best fit's best iterate.

    ``kernel_cost`` is what the run computed: (kernel values, kernel rows).
    """
    alpha, G, status = state.alpha.copy(), state.G, state.status
    order = state.active  # LIBSVM's order of the points: its sum over the free vectors, to the bit
    rho = float(calculate_rho(y[order], G[order], status[order]))
    objective = float(np.dot(alpha, G + p) / 2.0)
    stopped_early = len(configs) > 0 and bool((tr.out_iter[:, STOP_ITER] >= 0).all())
    if len(configs) == 1 and configs.restore_best[0] and stopped_early:
        alpha, rho, objective = tr.best_alpha[0], float(tr.best_rho[0]), float("nan")
    return SolverResult(
        alpha,
        rho,
        state.n_iter,
        reason == ITERATION_LIMIT,
        stopped_early,
        objective,
        state,
        max_time_reached=reason == TIME_LIMIT,
        stopped_by_callback=reason == CALLBACK_STOP,
        kernel_evaluations=kernel_cost[0],
        kernel_rows=kernel_cost[1],
    )


def _tracking(tr: Any, configs: EarlyStoppingSet, predictions: np.ndarray | None) -> Tracking:
    """Every configuration's outcome, copied out of the tracker."""
    return Tracking(
        stop_iter=tr.out_iter[:, STOP_ITER].copy(),
        val_accuracy=tr.out_acc[:, VAL_ACCURACY].copy(),
        test_accuracy=tr.out_acc[:, TEST_ACCURACY].copy(),
        best_iter=tr.out_iter[:, BEST_ITER].copy(),
        best_val_accuracy=tr.out_acc[:, BEST_VAL_ACCURACY].copy(),
        best_test_accuracy=tr.out_acc[:, BEST_TEST_ACCURACY].copy(),
        best_alpha=tr.best_alpha,
        best_rho=tr.best_rho[configs.restore_best].copy(),
        eval_sums=tr.S,
        stop_kernel_rows=tr.out_iter[:, STOP_KERNEL_ROWS].copy(),
        final_predictions=predictions,
    )


def warm_state(
    X: Any,
    y: Any,
    alpha: Any,
    params: SolverParams,
    *,
    sample_weight: Any = None,
    linear_term: Any = None,
) -> SolverState:
    """A starting state at ``alpha`` (from another ``C``, kernel or weights), made feasible.

    The alphas are clipped into this problem's box and ``y'a = 0`` repaired
    (:func:`esmo.solver.state.feasible_alphas`); the gradient is computed afresh
    in float64 from the support vectors' kernel columns. The state's count
    starts at 0.
    """
    X, y = as_problem(X, y)
    n = X.shape[0]
    alpha = np.asarray(alpha, dtype=np.float64)
    if alpha.shape != (n,):
        raise ValueError(
            f"alpha must hold one value per training point ({n}), got shape {alpha.shape}; "
            "warm starts need the same training set."
        )
    upper = params.C * as_sample_weight(sample_weight, n)
    alpha = feasible_alphas(alpha, y, upper)
    Qa = y * evaluation_sums(X, y, alpha, X, params)
    return seeded_state(alpha, y, upper, as_linear_term(linear_term, n), Qa)


def solve_smo(
    X: Any,
    y: Any,
    *,
    early_stopping: EarlyStopping | None = None,
    X_val: Any = None,
    y_val: Any = None,
    evaluation: str = "auto",
    **solver_params: Any,
) -> SolverResult:
    """Train a binary SVM by SMO (labels in {-1, +1}); optionally early-stopped.

    ``solver_params`` are the fields of :class:`~esmo.solver.params.SolverParams`
    (``kernel, C, gamma, tol, max_iter, cache_size_mb, kernel_dtype``), with its
    defaults. ``early_stopping`` is read on ``(X_val, y_val)``, its decision
    values as ``evaluation`` says (see :func:`run_smo`). Kernel rows are
    computed when a point first enters a working pair and kept while
    ``n x (n + n_val)`` of them fit ``cache_size_mb``, else cached LRU
    (:mod:`esmo.solver.row_cache`).
    """
    params = SolverParams(**solver_params)
    if early_stopping is None:
        return run_smo(X, y, params)[0]
    configs = EarlyStoppingSet.of([early_stopping])
    return run_smo(X, y, params, configs=configs, X_val=X_val, y_val=y_val, evaluation=evaluation)[
        0
    ]


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
