"""Early-stopping tracking: the hook the SMO loop calls once per iteration while configurations run.

K configurations (protocol section 5) are tracked at once, each a state
machine: every ``interval`` (r) iterations it reads its objective (validation
accuracy, or mean hinge loss) at the current iterate; an improvement by more
than its ``tol`` resets its patience, and it stops at its ``patience``-th
check without one (its ``patience + 1``-th under the ``text`` rule; the two
rules, :data:`esmo.early_stopping.RULES`, also differ in where checks fall and
in the baseline). Early stopping never changes the SMO path, only where it
ends, so one run yields every configuration's stop exactly.

Per iteration the validation and test decision values ``S`` (without ``rho``)
move by the two changed alphas, in ``O(n_val + n_test)`` (:func:`advance`),
while some configuration is tracked incrementally; a configuration evaluated
afresh reads sums computed from the alphas at its checks instead
(:func:`fresh_check_in_loop`). A check (:func:`check`) adds ``rho``,
the validation objective and ``O(1)`` state-machine work: the configurations
are read only when one can improve or reach its deadline (:func:`check_bounds`).

The state is a :class:`Tracker` of arrays, so the compiled loop passes it as one
argument; its scalars live in ``counters`` and each configuration's outcome in
``out_iter`` and ``out_acc``, at the slots named below, and its per-metric values
(``bars``, ``last``) at the metric codes.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from esmo.early_stopping import METRIC_CODES, METRICS, RULES, EarlyStoppingSet
from esmo.solver.compile import jit
from esmo.solver.rho import calculate_rho
from esmo.solver.row_cache import ROWS_COMPUTED, fresh_sums

# slots of Tracker.counters, the tracker's scalars (module-level ints: numba compiles
# counters[LIMIT] as counters[3])
#: configurations still running
N_ACTIVE = 0
#: the iteration of the next incremental check
NEXT_EVENT = 1
#: the earliest deadline of a running incremental configuration (:func:`check_bounds`)
NEXT_DEADLINE = 2
#: ``max_iter + 1``, an iteration no run reaches: the deadline of none
LIMIT = 3
#: running configurations tracked incrementally
N_INCREMENTAL = 4
#: the iteration of the next fresh check (-1: none)
NEXT_FRESH = 5
#: the kernel rows the run had computed when the current check began (set by the loop
#: before each check; a stop records it as its cost)
KERNEL_ROWS = 6
#: the kernel values fresh checks have computed (:func:`fresh_check_in_loop`)
FRESH_VALUES = 7
#: the length of ``counters``
N_COUNTERS = 8

# columns of Tracker.out_iter, per configuration
#: the iteration it stopped at (-1: it has not stopped)
STOP_ITER = 0
#: the iteration of its best check (its start when no check improved)
BEST_ITER = 1
#: the kernel rows the run had computed by its stop
STOP_KERNEL_ROWS = 2
#: the length of an ``out_iter`` row
N_OUT_ITER = 3

# columns of Tracker.out_acc, per configuration (the fields of Tracking they fill)
#: the validation accuracy at its stop (NaN: it has not stopped)
VAL_ACCURACY = 0
#: the test accuracy at its stop (NaN: it has not stopped)
TEST_ACCURACY = 1
#: the validation accuracy at its best check (at its start when no check improved)
BEST_VAL_ACCURACY = 2
#: the test accuracy at its best check (at its start when no check improved)
BEST_TEST_ACCURACY = 3
#: the length of an ``out_acc`` row
N_OUT_ACC = 4

# columns of Tracker.schedules (:func:`_layout` writes each row as (interval, phase))
#: a check schedule's interval r
SCHEDULE_INTERVAL = 0
#: its phase: its checks fall on the iterations n = phase (mod r)
SCHEDULE_PHASE = 1
#: How a configuration's checks read the decision values (Tracker.n_using's columns).
INCREMENTAL, FRESH = 0, 1
# the built-in metric codes, from the table esmo.early_stopping.BUILT_IN_METRICS (module-level
# ints: numba compiles last[HINGE] with the code as a constant); users' Metric objects come
# after them (EarlyStoppingSet.custom_metrics), read at fresh checks only
ACCURACY = METRIC_CODES["accuracy"]
HINGE = METRIC_CODES["hinge"]
MDL_LOGISTIC = METRIC_CODES["mdl_logistic"]
SMOOTHED_ERROR = METRIC_CODES["smoothed_error"]
F_MEASURE = METRIC_CODES["f_measure"]
N_BUILT_IN = len(METRICS)
# the default rule's code (an index into esmo.early_stopping.RULES); the other is "text"
PUBLISHED = RULES.index("published")

#: The sigmoid's sharpness of the smoothed error and F-measure, t in theta_1 = t / sigma
#: (the gradient-tuning paper's direct method; docs/gradient-protocol.md section 2).
SMOOTHING_T = 10.0


class Tracker(NamedTuple):
    """Configurations, evaluation data and state of the tracked early-stopping state machines.

    ``out_iter[c]`` holds configuration ``c``'s iterations (:data:`STOP_ITER`,
    :data:`BEST_ITER`, :data:`STOP_KERNEL_ROWS`), ``out_acc[c]`` its accuracies
    (:data:`VAL_ACCURACY` to :data:`BEST_TEST_ACCURACY`); ``last[code]`` holds the
    last check's value of each metric (NaN where no configuration reads it), for
    the per-check hook. ``linear_term`` is the dual's ``p``,
    which the description length needs to read ``f`` off the gradient. ``best_alpha[keep_row[c]]`` and ``best_rho[c]`` hold the best
    iterate of every configuration with ``keep_row[c] >= 0`` (``restore_best``).
    Configuration ``c`` checks at the iterations ``n`` with ``n % interval[c] ==
    phase[c]`` (phase 1 % r under the published rule: after iterations 1, r + 1,
    ...); ``schedules`` holds each distinct ``(interval, phase)`` once,
    ``schedule[c]`` is the row of ``c``'s, and ``n_using`` counts per row and
    kind the running configurations that check on it.
    """

    y_eval: np.ndarray
    positive: np.ndarray
    n_val: int
    patience: np.ndarray
    tol: np.ndarray
    interval: np.ndarray
    metric: np.ndarray
    published: np.ndarray
    phase: np.ndarray
    keep_row: np.ndarray
    S: np.ndarray
    best_obj: np.ndarray
    deadline: np.ndarray
    active: np.ndarray
    fresh: np.ndarray
    schedules: np.ndarray
    schedule: np.ndarray
    n_using: np.ndarray
    out_iter: np.ndarray
    out_acc: np.ndarray
    best_alpha: np.ndarray
    best_rho: np.ndarray
    counters: np.ndarray
    bars: np.ndarray
    last: np.ndarray
    rho_now: np.ndarray
    linear_term: np.ndarray
    need_hinge: bool
    need_mdl: bool
    need_smoothed: bool
    need_custom: bool
    higher: np.ndarray
    stop_when_all_stopped: bool


def make_tracker(
    configs: EarlyStoppingSet,
    y_eval: np.ndarray,
    n_val: int,
    linear_term: np.ndarray,
    stop_when_all_stopped: bool,
    fresh: np.ndarray | None = None,
) -> Tracker:
    """A tracker of ``configs`` on the evaluation labels (validation then test), before the run.

    ``fresh[c]`` makes configuration ``c`` read decision values computed afresh
    at its checks (:func:`fresh_check`) instead of the incremental ones.
    """
    if len(configs) == 0:
        return NO_TRACKING
    fresh = np.zeros(len(configs), dtype=np.bool_) if fresh is None else fresh
    return _new_tracker(configs, y_eval, n_val, linear_term, stop_when_all_stopped, fresh)


def _new_tracker(
    configs: EarlyStoppingSet,
    y_eval: np.ndarray,
    n_val: int,
    linear_term: np.ndarray,
    stop_when_all_stopped: bool,
    fresh: np.ndarray,
) -> Tracker:
    k = len(configs)
    n = linear_term.shape[0]
    layout = _layout(configs)
    schedules, higher = layout["schedules"], layout["higher"]
    counters = np.zeros(N_COUNTERS, dtype=np.int64)
    counters[N_ACTIVE] = k
    counters[NEXT_FRESH] = -1
    return Tracker(
        y_eval=y_eval,
        positive=y_eval > 0.0,
        n_val=n_val,
        patience=configs.patience,
        tol=configs.tol,
        interval=configs.interval,
        metric=configs.metric,
        published=layout["published"],
        phase=layout["phase"],
        keep_row=layout["keep_row"],
        S=np.zeros(y_eval.shape[0]),
        best_obj=np.empty(k),
        deadline=np.empty(k, dtype=np.int64),
        active=np.ones(k, dtype=np.bool_),
        fresh=np.asarray(fresh, dtype=np.bool_),
        schedules=schedules,
        schedule=layout["schedule"],
        n_using=np.zeros((schedules.shape[0], 2), dtype=np.int64),
        out_iter=np.empty((k, N_OUT_ITER), dtype=np.int64),
        out_acc=np.empty((k, N_OUT_ACC)),
        best_alpha=np.zeros((layout["n_restore"], n)),
        best_rho=np.zeros(k),
        counters=counters,
        bars=np.empty(len(higher)),
        last=np.full(len(higher), np.nan),
        rho_now=np.zeros(1),
        linear_term=linear_term,
        need_hinge=layout["need_hinge"],
        need_mdl=layout["need_mdl"],
        need_smoothed=layout["need_smoothed"],
        need_custom=layout["need_custom"],
        higher=higher,
        stop_when_all_stopped=bool(stop_when_all_stopped),
    )


def _layout(configs: EarlyStoppingSet) -> dict:
    """What a tracker derives from its configurations alone, computed once per set.

    A search passes one set to many fits, and equal single configurations share
    one set (:meth:`EarlyStoppingSet.of`); the arrays are read-only to the
    compiled steps, so trackers share them.
    """
    cached = configs.__dict__.get("_tracker_layout")
    if cached is not None:
        return cached
    published = configs.rule == PUBLISHED
    if len(configs) == 1:  # a single early-stopped fit: its scalars, without array passes
        interval, restore = int(configs.interval[0]), bool(configs.restore_best[0])
        phase = np.array([1 % interval if published[0] else 0])
        keep_row = np.array([0 if restore else -1])
        schedules, schedule = np.array([[interval, phase[0]]]), np.zeros(1, np.int64)
        metrics = {int(configs.metric[0])}
    else:
        phase = np.where(published, 1 % configs.interval, 0).astype(np.int64)
        keep_row = np.where(configs.restore_best, np.cumsum(configs.restore_best) - 1, -1)
        # the distinct (interval, phase) pairs in lexicographic order: the phase is 0 or 1,
        # so 2 * interval + phase orders them alike (a 1-D unique, a tenth of a 2-D one's cost)
        keys, schedule = np.unique(2 * configs.interval + phase, return_inverse=True)
        schedules = np.stack([keys // 2, keys % 2], axis=1) if len(keys) else np.ones((1, 2))
        metrics = set(np.unique(configs.metric).tolist())
    layout = {
        "published": published,
        "phase": phase.astype(np.int64),
        "keep_row": keep_row.astype(np.int64),
        "n_restore": int(np.count_nonzero(configs.restore_best)),
        "schedules": np.ascontiguousarray(schedules, dtype=np.int64),
        "schedule": np.ascontiguousarray(schedule.ravel(), dtype=np.int64),
        "higher": configs.higher_is_better,
        "need_hinge": HINGE in metrics,
        "need_mdl": MDL_LOGISTIC in metrics,
        "need_smoothed": bool(metrics & {SMOOTHED_ERROR, F_MEASURE}),
        "need_custom": any(code >= N_BUILT_IN for code in metrics),
    }
    object.__setattr__(configs, "_tracker_layout", layout)  # the set is frozen, its layout too
    return layout


#: No configuration, and the tracker of a run without early stopping: no step writes
#: to it, so runs share it.
NO_CONFIGS = EarlyStoppingSet.of([])
NO_TRACKING = _new_tracker(NO_CONFIGS, np.empty(0), 0, np.empty(0), True, np.empty(0, bool))


@jit(inline="always")
def deadline_after(start, patience, interval, limit, published):
    """The check at which a configuration stops if none after ``start`` improves.

    ``start + patience * interval`` under the published rule (``patience = 0``:
    never), ``start + (patience + 1) * interval`` under the text rule; ``limit``
    (never reached) when that is beyond it.
    """
    room = (limit - start) // interval  # checks before the limit; no "patience + 1" overflow
    if published:
        if patience == 0 or patience > room:
            return limit
        return start + patience * interval
    if patience >= room:
        return limit
    return start + (patience + 1) * interval


@jit
def check_bounds(tr):
    """Bounds that tell a check whether any running configuration can change state.

    ``bars[m]`` is that bound for metric ``m``. A configuration whose metric
    improves upwards (accuracy, F-measure) improves only if ``obj - best >
    tol``, so only if ``obj`` exceeds ``best + tol`` less rounding (1e-9 covers
    it: for tol = 0 no slack is needed, ``obj - best > 0`` being ``obj >
    best``, so a value equal to the best reads no configuration); one whose
    metric improves downwards (hinge, description length, smoothed error) only
    if ``obj`` is below its best. Without any of these, only a configuration at
    its deadline changes: it stops. Only incremental configurations count: a
    fresh check (:func:`fresh_check`) always reads its configurations.
    """
    bars, higher = tr.bars, tr.higher
    for m in range(bars.shape[0]):
        bars[m] = np.inf if higher[m] else -np.inf
    next_deadline = tr.counters[LIMIT]
    for c in range(tr.active.shape[0]):
        if not tr.active[c] or tr.fresh[c]:
            continue
        m = tr.metric[c]
        if higher[m]:
            slack = 1e-9 if tr.tol[c] > 0.0 else 0.0
            bars[m] = min(bars[m], tr.best_obj[c] + tr.tol[c] - slack)
        else:
            bars[m] = max(bars[m], tr.best_obj[c])
        next_deadline = min(next_deadline, tr.deadline[c])
    tr.counters[NEXT_DEADLINE] = next_deadline


@jit
def any_can_improve(objectives, bars, higher):
    """Whether some metric's value passes its bar (:func:`check_bounds`); NaN passes none."""
    for m in range(bars.shape[0]):
        if higher[m]:
            if objectives[m] > bars[m]:
                return True
        elif objectives[m] < bars[m]:
            return True
    return False


@jit
def start_tracking(tr, y, G, status, max_iter, n_iter):
    """Set every configuration at iteration ``n_iter``: deadlines, the start values, bounds.

    A run from ``a = 0`` starts at 0 with ``S = 0``; a warm-started one at its
    state's count, with ``S`` computed for its alphas. Checks keep their
    schedule (:class:`Tracker`) across a warm start.

    Without configurations nothing is written: the run shares :data:`NO_TRACKING`.
    """
    n_cfg = tr.patience.shape[0]
    if n_cfg == 0:
        return
    tr.counters[LIMIT] = max_iter + 1
    rho0 = calculate_rho(y, G, status)
    m = tr.y_eval.shape[0]
    acc0 = eval_accuracy(tr.S, tr.y_eval, 0, tr.n_val, rho0)  # NaN without validation data
    tacc0 = eval_accuracy(tr.S, tr.y_eval, tr.n_val, m, rho0)
    for c in range(n_cfg):
        start_configuration(tr, c, n_iter, FRESH if tr.fresh[c] else INCREMENTAL, acc0, tacc0)
        tr.best_rho[c] = rho0
    tr.counters[NEXT_EVENT] = next_multiple(tr, n_iter, INCREMENTAL)
    tr.counters[NEXT_FRESH] = next_multiple(tr, n_iter, FRESH)
    check_bounds(tr)


@jit
def start_configuration(tr, c, n_iter, kind, acc0, tacc0):
    """Configuration ``c`` running from iteration ``n_iter`` with its baseline and deadline.

    Published rule: the baseline is -inf (+inf for a metric that improves
    downwards), so the first check always improves and sets it; no deadline
    before it. Text rule: the baseline is an accuracy of 0 (+inf) at the last
    check point at or before ``n_iter``, so patience counts from there.
    ``acc0`` and ``tacc0`` are the start iterate's accuracies: its outcome if
    no check ever improves.
    """
    limit = tr.counters[LIMIT]
    r = tr.interval[c]
    if tr.published[c]:
        tr.deadline[c] = limit
        tr.best_obj[c] = -np.inf if tr.higher[tr.metric[c]] else np.inf
    else:
        tr.deadline[c] = deadline_after(n_iter // r * r, tr.patience[c], r, limit, False)
        tr.best_obj[c] = 0.0 if tr.higher[tr.metric[c]] else np.inf
    tr.n_using[tr.schedule[c], kind] += 1
    tr.counters[N_INCREMENTAL] += kind == INCREMENTAL
    tr.out_iter[c, STOP_ITER] = -1
    tr.out_iter[c, BEST_ITER] = n_iter
    tr.out_acc[c, VAL_ACCURACY] = np.nan
    tr.out_acc[c, TEST_ACCURACY] = np.nan
    tr.out_acc[c, BEST_VAL_ACCURACY] = acc0
    tr.out_acc[c, BEST_TEST_ACCURACY] = tacc0


@jit
def next_multiple(tr, n_iter, kind):
    """The next check of ``kind`` after ``n_iter``: the next ``n = phase (mod interval)`` in use."""
    next_event = tr.counters[LIMIT]
    schedules = tr.schedules
    for u in range(schedules.shape[0]):
        if tr.n_using[u, kind] > 0:
            r, phase = schedules[u, SCHEDULE_INTERVAL], schedules[u, SCHEDULE_PHASE]
            next_event = min(next_event, ((n_iter - phase) // r + 1) * r + phase)
    return next_event


@jit
def eval_accuracy(S, y_eval, start, stop, rho):
    """Share of points in ``[start, stop)`` of the eval block that ``f = S - rho`` classifies right."""
    correct = 0
    for v in range(start, stop):
        if (S[v] - rho > 0.0) == (y_eval[v] > 0.0):
            correct += 1
    return correct / (stop - start) if stop > start else np.nan


@jit
def advance(S, Ki_ev, Kj_ev, ci, cj):
    """Between checks: the decision values ``S`` (the tracker's) move by the two changed alphas."""
    for v in range(S.shape[0]):
        S[v] += Ki_ev[v] * ci + Kj_ev[v] * cj


@jit
def record_check(tr, n_iter, objectives, tacc, rho, alpha, kind):
    """Step the state machine of every configuration of ``kind`` that checks at ``n_iter``.

    ``objectives`` holds the check's value of each metric, by its code.
    """
    limit = tr.counters[LIMIT]
    for c in range(tr.patience.shape[0]):
        if (
            not tr.active[c]
            or tr.fresh[c] != (kind == FRESH)
            or (n_iter - tr.phase[c]) % tr.interval[c] != 0
        ):
            continue
        obj = objectives[tr.metric[c]]
        if tr.higher[tr.metric[c]]:
            improved = obj - tr.best_obj[c] > tr.tol[c]
        else:
            improved = tr.best_obj[c] - obj > tr.tol[c]
        if improved:
            tr.best_obj[c] = obj
            tr.deadline[c] = deadline_after(
                n_iter, tr.patience[c], tr.interval[c], limit, tr.published[c]
            )
            tr.out_iter[c, BEST_ITER] = n_iter
            tr.out_acc[c, BEST_VAL_ACCURACY] = objectives[ACCURACY]
            tr.out_acc[c, BEST_TEST_ACCURACY] = tacc
            if tr.keep_row[c] >= 0:
                tr.best_alpha[tr.keep_row[c]] = alpha
                tr.best_rho[c] = rho
        elif tr.deadline[c] == n_iter:
            tr.active[c] = False
            tr.counters[N_ACTIVE] -= 1
            tr.counters[N_INCREMENTAL] -= kind == INCREMENTAL
            tr.n_using[tr.schedule[c], kind] -= 1
            tr.out_iter[c, STOP_ITER] = n_iter
            tr.out_iter[c, STOP_KERNEL_ROWS] = tr.counters[KERNEL_ROWS]
            tr.out_acc[c, VAL_ACCURACY] = objectives[ACCURACY]
            tr.out_acc[c, TEST_ACCURACY] = tacc
    check_bounds(tr)


@jit
def description_length(y, G, p, alpha, rho):
    """Logistic description length of the training set per point, in bits: ``DL_h / n``.

    ``DL_h = 1/2 #{a_t > 0} log2 n + sum_t log2(1 + exp(-y_t f_t))`` with the
    training decision values read off the gradient, ``f_t = y_t (G_t - p_t) -
    rho`` (``G = Qa + p``): ``O(n)``, no kernel value.
    """
    n = y.shape[0]
    n_sv = 0
    nats = 0.0
    for t in range(n):
        n_sv += alpha[t] > 0.0
        margin = G[t] - p[t] - y[t] * rho  # y_t f_t
        # log(1 + exp(-margin)), stable for either sign, one exp and one log1p
        nats += max(-margin, 0.0) + np.log1p(np.exp(-abs(margin)))
    return (0.5 * n_sv * np.log2(n) + nats / np.log(2.0)) / n


@jit
def smoothed_objectives(S, y_eval, n_val, rho, out):
    """The sigmoid-smoothed validation error and F-measure, into ``out`` by metric code.

    The gradient-tuning paper's direct method: each correct/incorrect count
    ``1[y o > 0]`` becomes ``s = 1 / (1 + exp(-theta_1 y o))`` with ``theta_1 =
    t / sigma``, sigma the population std of the validation outputs ``o = S -
    rho`` (so the value does not change when every output is rescaled).
    Error ``= mean(1 - s)``; F ``= 2 tp / (n_+ + tp + fp)`` with ``tp`` the sum
    of ``s`` over positives and ``fp`` that of ``1 - s`` over negatives. With
    every output equal (sigma = 0) the counts are the hard ones.
    """
    total = 0.0
    for v in range(n_val):
        total += S[v]
    mean = total / n_val - rho
    spread = 0.0
    for v in range(n_val):
        d = S[v] - rho - mean
        spread += d * d
    sigma = np.sqrt(spread / n_val)
    n_pos = 0
    tp = 0.0
    fp = 0.0
    for v in range(n_val):
        margin = y_eval[v] * (S[v] - rho)
        if sigma > 0.0:
            s = 1.0 / (1.0 + np.exp(-SMOOTHING_T / sigma * margin))
        else:
            s = 1.0 if margin > 0.0 else 0.0
        if y_eval[v] > 0.0:
            n_pos += 1
            tp += s
        else:
            fp += 1.0 - s
    out[SMOOTHED_ERROR] = (n_pos - tp + fp) / n_val
    out[F_MEASURE] = 2.0 * tp / (n_pos + tp + fp)


@jit(inline="always")
def check(tr, n_iter, rho, Ki_ev, Kj_ev, ci, cj, y, G, alpha):
    """A check: move the decision values, read the objectives, say whether a state may change.

    Returns ``(scan, tacc)``: whether some configuration can improve or reach
    its deadline (:func:`check_bounds`), and then the test accuracy; the loop
    then steps the state machines (:func:`record_check`) and schedules the
    next check. The validation pass is branch-free (adding ``max(h, 0)``
    equals adding only positive ``h``) and computes the hinge loss only when
    some configuration reads it; test points are counted only when ``scan``.
    The passes are written here, not called: a numba-inlined helper with a
    loop cost several times the pass itself.

    Every tracker field is read once, at the top, and the tracker is passed to
    no call: a field read inside a branch, or the tracker handed to a call,
    makes numba take a reference to each of its arrays at every check (about
    35 reference-count increments and as many decrements, 150-200 ns, which
    its pruning pass cannot remove inside the solver loop). That is why the
    loop, not this step, calls the steps that take the whole tracker.

    Every pass adds the pair's change as one sum, ``S + (Ki ci + Kj cj)``, as
    :func:`advance` does: which iterations are checks, and whether a check
    reads the test points, depends on the other configurations tracked, so any
    other association would let them move a configuration's last bits.
    """
    S, positive, n_val, bars, counters = tr.S, tr.positive, tr.n_val, tr.bars, tr.counters
    y_eval, last, higher, linear_term = tr.y_eval, tr.last, tr.higher, tr.linear_term
    need_hinge, need_mdl, need_smoothed = tr.need_hinge, tr.need_mdl, tr.need_smoothed
    correct = 0
    hinge = np.nan
    if need_hinge:
        hinge_sum = 0.0
        for v in range(n_val):
            s = S[v] + (Ki_ev[v] * ci + Kj_ev[v] * cj)
            S[v] = s
            f = s - rho
            correct += (f > 0.0) == (y_eval[v] > 0.0)
            hinge_sum += max(1.0 - y_eval[v] * f, 0.0)
        hinge = hinge_sum / n_val
    else:
        for v in range(n_val):
            s = S[v] + (Ki_ev[v] * ci + Kj_ev[v] * cj)
            S[v] = s
            correct += (s - rho > 0.0) == positive[v]
    acc = correct / n_val if n_val > 0 else np.nan
    dl = description_length(y, G, linear_term, alpha, rho) if need_mdl else np.nan
    last[ACCURACY] = acc
    last[HINGE] = hinge
    last[MDL_LOGISTIC] = dl
    if need_smoothed:
        smoothed_objectives(S, y_eval, n_val, rho, last)
    scan = n_iter >= counters[NEXT_DEADLINE] or any_can_improve(last, bars, higher)
    S_te, Ki_te, Kj_te = S[n_val:], Ki_ev[n_val:], Kj_ev[n_val:]
    n_test = S_te.shape[0]
    tacc = np.nan
    if scan:
        positive_te = positive[n_val:]
        correct = 0
        for v in range(n_test):
            s = S_te[v] + (Ki_te[v] * ci + Kj_te[v] * cj)
            S_te[v] = s
            correct += (s - rho > 0.0) == positive_te[v]
        tacc = correct / n_test if n_test > 0 else np.nan
    else:
        for v in range(n_test):
            S_te[v] += Ki_te[v] * ci + Kj_te[v] * cj
    return scan, tacc


@jit
def fresh_check(tr, n_iter, sums, n_values, kernel_rows, y, G, alpha):
    """A check of the fresh configurations on ``sums = sum_i a_i y_i K(x_i, x)`` computed afresh.

    At ``n_iter`` with its rho in ``tr.rho_now``, the caller computed ``sums``
    at the evaluation points from the current alphas alone
    (:func:`esmo.solver.row_cache.fresh_sums`, ``n_values`` kernel values),
    so the values, and the stop, are the same in any run that reaches these
    alphas, whatever else it tracks; ``kernel_rows`` is the run's row count
    then, the cost a stop here records. Objectives as in :func:`check`.
    Returns True when the run should end: every configuration has stopped and
    the run is a real early-stopped fit (not a sweep run to convergence).
    """
    counters = tr.counters
    counters[KERNEL_ROWS] = kernel_rows
    counters[FRESH_VALUES] += n_values
    rho = tr.rho_now[0]
    y_eval, n_val, last = tr.y_eval, tr.n_val, tr.last
    correct = 0
    hinge_sum = 0.0
    for v in range(n_val):
        f = sums[v] - rho
        correct += (f > 0.0) == (y_eval[v] > 0.0)
        hinge_sum += max(1.0 - y_eval[v] * f, 0.0)
    last[ACCURACY] = correct / n_val if n_val > 0 else np.nan
    last[HINGE] = hinge_sum / n_val if tr.need_hinge else np.nan
    last[MDL_LOGISTIC] = (
        description_length(y, G, tr.linear_term, alpha, rho) if tr.need_mdl else np.nan
    )
    if tr.need_smoothed:
        smoothed_objectives(sums, y_eval, n_val, rho, last)
    tacc = eval_accuracy(sums, y_eval, n_val, y_eval.shape[0], rho)
    record_check(tr, n_iter, last, tacc, rho, alpha, FRESH)
    counters[NEXT_FRESH] = next_multiple(tr, n_iter, FRESH)
    return counters[N_ACTIVE] == 0 and tr.stop_when_all_stopped


@jit
def fresh_check_in_loop(tr, rows, n_iter, rho, y, G, alpha):
    """A fresh check inside the compiled loop: the sums from the kernel rows' store, then :func:`fresh_check`.

    Used when every fresh configuration reads a built-in metric (a user's
    :class:`~esmo.early_stopping.Metric` is Python: the loop pauses for it).
    """
    tr.rho_now[0] = rho
    sums, n_values = fresh_sums(rows, alpha, y, y.shape[0], tr.y_eval.shape[0])
    return fresh_check(tr, n_iter, sums, n_values, rows.clock[ROWS_COMPUTED], y, G, alpha)


#: How checks may read the decision values (``run_smo``'s ``evaluation``).
EVALUATIONS: tuple[str, ...] = ("auto", "incremental", "fresh")

#: ``auto`` evaluates afresh the configurations whose interval is at least this. A fresh
#: check computes a support vector's kernel values at the evaluation points the first time
#: a check needs them and keeps them (:func:`esmo.solver.row_cache.fresh_sums`), so a run
#: computes about the least any exact check can (benchmarks/bench_solver.py's table 2b),
#: then adds ``n_sv * m`` products per check; incremental tracking costs the evaluation
#: columns of every new kernel row and O(m) per iteration. Mean extra time per iteration
#: over the eight datasets (table 2's 20 configurations, idle machine), fresh against
#: incremental: r = 256 +16 / +15 %, 512 +12 / +15 % (fresh cheaper on 6 datasets),
#: 768 +10 / +14 % (on all 8).
FRESH_FROM_INTERVAL = 512


def fresh_evaluation(configs: EarlyStoppingSet, evaluation: str) -> np.ndarray:
    """Which configurations read decision values computed afresh at their checks.

    ``incremental``: none but users' metrics; ``fresh``: all (the thesis's cost model: predictions
    recomputed at every check); ``auto``: those whose interval is at least
    :data:`FRESH_FROM_INTERVAL`, where a fresh check becomes the cheaper. The
    choice is the configuration's own (from its interval), never the run's, so
    a sweep and a separate fit read the same values and stop alike.
    ``mdl_logistic`` reads no decision value: it is tracked incrementally
    (it costs nothing between checks). A user's :class:`~esmo.early_stopping.Metric`
    is evaluated in Python, always at fresh checks.
    """
    if evaluation not in EVALUATIONS:
        raise ValueError(f"evaluation must be one of {EVALUATIONS}, got {evaluation!r}.")
    reads_values = configs.metric != MDL_LOGISTIC
    custom = configs.metric >= N_BUILT_IN
    if evaluation == "incremental":
        return custom
    if evaluation == "fresh":
        return reads_values.copy()
    return custom | (reads_values & (configs.interval >= FRESH_FROM_INTERVAL))
