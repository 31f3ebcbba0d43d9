"""Kernel Pegasos (Shalev-Shwartz et al. 2011; Simon and Radons 2023, Algorithm 1), with exact early stopping.

Pegasos is stochastic sub-gradient descent on the primal of the SVM without
bias, ``(lam/2) ||f||^2 + (1/m) sum_i max(0, 1 - y_i f(x_i))`` (C-SVM without
bias at ``C = 1/(lam m)``). Step ``t`` draws ``i_t`` uniformly with replacement
and adds 1 to ``alpha_i`` when ``y_i / (lam (t-1)) sum_j alpha_j y_j K(x_j, x_i)
< 1``; the model after ``t`` steps is ``f_t = S / (lam t)`` with ``S(x) =
sum_j alpha_j y_j K(x_j, x)``. Here the unscaled sums ``S`` of every training
point are kept and moved by one kernel row per violation, so a step without a
violation costs O(1); the test ``y_i S_i < lam (t-1)`` is the paper's, multiplied
through by ``lam (t-1) > 0``.

Early stopping reads ``S`` of the validation (and test) points, moved by the
same rows, every ``interval`` steps, and steps the state machines of
:mod:`esmo.solver.tracking` (the same rule as SMO's). The indices ``i_t`` are
drawn before the run, so stopping never changes the path: one run to ``T``
yields every configuration's stop exactly (:func:`sweep_pegasos`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.utils import check_random_state

from esmo.early_stopping import METRICS, EarlyStopping, EarlyStoppingSet
from esmo.solver.compile import jit
from esmo.solver.params import KERNELS
from esmo.solver.sweep import SweepResult
from esmo.solver.tracking import (
    ACCURACY,
    BEST_ITER,
    BEST_TEST_ACCURACY,
    BEST_VAL_ACCURACY,
    HINGE,
    INCREMENTAL,
    KERNEL_ROWS,
    LIMIT,
    N_ACTIVE,
    NEXT_EVENT,
    NO_CONFIGS,
    STOP_ITER,
    STOP_KERNEL_ROWS,
    TEST_ACCURACY,
    VAL_ACCURACY,
    Tracker,
    check_bounds,
    make_tracker,
    next_multiple,
    record_check,
    start_configuration,
)

#: the early-stopping metrics Pegasos reads (validation accuracy, mean hinge loss)
PEGASOS_METRICS = (ACCURACY, HINGE)

#: The regularisation weight lam of the NSVM paper (Simon and Radons 2023): the
#: default of ``PegasosClassifier`` (given neither lam nor C) and of the NSVM classifiers.
LAM = 1e-4


@dataclass(frozen=True)
class PegasosResult:
    """One Pegasos run: ``alpha`` (violation counts, float64), the steps taken and why it ended.

    The model is ``f(x) = sum_j alpha_j y_j K(x_j, x) / (lam n_steps)``.
    ``n_violations`` counts the steps that added to ``alpha`` (the first step included);
    each computed one kernel row over the training points, and with early stopping
    over the evaluation points too: ``kernel_evaluations`` counts those values, as
    SMO's count does.
    """

    alpha: np.ndarray
    n_steps: int
    stopped_early: bool
    n_violations: int
    lam: float
    kernel_evaluations: int


def draw_indices(m: int, n_steps: int, random_state: Any) -> np.ndarray:
    """The ``n_steps`` sample indices ``i_1..i_T``, uniform on ``0..m-1`` with replacement."""
    return check_random_state(random_state).randint(0, m, size=n_steps).astype(np.int64)


def check_pegasos_parameters(lam: float, n_steps: int, gamma: float, kernel: str) -> None:
    """Reject values the algorithm cannot run with, naming the fix."""
    if not (isinstance(lam, int | float | np.floating) and 0 < lam < math.inf):
        raise ValueError(
            f"lam must be a positive finite number (the regularisation weight), got {lam!r}; "
            f"pass e.g. lam={LAM!r}, or C > 0 to use lam = 1/(C m)."
        )
    if isinstance(n_steps, bool) or not isinstance(n_steps, int | np.integer) or n_steps < 1:
        raise ValueError(f"n_steps (T) must be an integer >= 1, got {n_steps!r}.")
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS}, got {kernel!r}.")
    if not (isinstance(gamma, int | float | np.floating) and 0 < gamma < math.inf):
        raise ValueError(f"gamma must be a positive finite number, got {gamma!r}.")


@jit
def kernel_row(X, i, E, gamma, kernel, out):
    """``out[v] = K(X[i], E[v])``: ``x.z`` (kernel 0) or ``exp(-gamma ||x - z||^2)`` (kernel 1)."""
    d = X.shape[1]
    for v in range(E.shape[0]):
        s = 0.0
        if kernel == 1:
            for k in range(d):
                diff = X[i, k] - E[v, k]
                s += diff * diff
            out[v] = math.exp(-gamma * s)
        else:
            for k in range(d):
                s += X[i, k] * E[v, k]
            out[v] = s


@jit
def start_pegasos_tracking(tr, n_steps):
    """Every configuration at step 0 (``S = 0``, every point predicted +1): deadlines, bounds."""
    n_cfg = tr.patience.shape[0]
    if n_cfg == 0:
        return
    tr.counters[LIMIT] = n_steps + 1
    n_val = tr.n_val
    m = tr.y_eval.shape[0]
    acc0 = np.mean(tr.positive[:n_val]) if n_val > 0 else np.nan
    tacc0 = np.mean(tr.positive[n_val:]) if m > n_val else np.nan
    for c in range(n_cfg):
        start_configuration(tr, c, 0, INCREMENTAL, acc0, tacc0)
    tr.counters[NEXT_EVENT] = next_multiple(tr, 0, INCREMENTAL)
    check_bounds(tr)


@jit
def pegasos_check(tr, t, lam, alpha):
    """A check after step ``t``: validation accuracy and hinge of ``f_t = S / (lam t)``, the state machines.

    ``f = 0`` predicts +1 (the paper's rule). Returns True when the run should end.
    """
    S, y_eval, n_val = tr.S, tr.y_eval, tr.n_val
    scale = 1.0 / (lam * t)
    correct = 0
    hinge_sum = 0.0
    for v in range(n_val):
        correct += (S[v] >= 0.0) == (y_eval[v] > 0.0)
        hinge_sum += max(1.0 - y_eval[v] * S[v] * scale, 0.0)
    objectives = np.full(tr.bars.shape[0], np.nan)
    objectives[ACCURACY] = correct / n_val
    objectives[HINGE] = hinge_sum / n_val
    n_test = S.shape[0] - n_val
    correct = 0
    for v in range(n_val, S.shape[0]):
        correct += (S[v] >= 0.0) == (y_eval[v] > 0.0)
    tacc = correct / n_test if n_test > 0 else np.nan
    return record_objectives(tr, t, objectives, tacc, alpha)


@jit
def record_objectives(tr, t, objectives, tacc, alpha):
    """Step the state machines on one check's ``objectives`` (by metric code) and schedule the
    next check. Returns True when the run should end (every configuration stopped).

    Pegasos's checks compute accuracy and hinge first; a caller with an objective of
    its own (NSVM-4's Part I: the validation alignment, a user :class:`Metric`'s code)
    passes it here directly.
    """
    counters = tr.counters
    record_check(tr, t, objectives, tacc, 0.0, alpha, INCREMENTAL)
    if counters[N_ACTIVE] == 0 and tr.stop_when_all_stopped:
        return True
    counters[NEXT_EVENT] = next_multiple(tr, t, INCREMENTAL)
    return False


def check_pegasos_configs(configs: EarlyStoppingSet) -> None:
    """Pegasos's checks read validation accuracy and hinge loss only; others are rejected."""
    other = sorted({int(m) for m in configs.metric} - set(PEGASOS_METRICS))
    if other:
        names = [METRICS[m] if m < len(METRICS) else f"custom metric {m}" for m in other]
        raise ValueError(
            f"Pegasos's early stopping reads metric 'accuracy' or 'hinge', not {names}; "
            "give those configurations metric='accuracy' or 'hinge'."
        )


@jit
def pegasos_loop(X, y, E, idx, lam, gamma, kernel, alpha, G, tr):
    """Algorithm 1 for ``idx.shape[0]`` steps; returns (steps taken, stopped early, violations).

    ``G[j]`` is the unscaled sum ``S(x_j)`` of training point ``j``; ``E`` holds the
    evaluation points (validation, then test) whose sums ``tr.S`` move alongside.
    """
    n_steps = idx.shape[0]
    track = tr.patience.shape[0] > 0
    row = np.empty(X.shape[0])
    row_eval = np.empty(E.shape[0])
    violations = 0
    for t in range(1, n_steps + 1):
        i = idx[t - 1]
        yi = y[i]
        # the paper's yi G_i / (lam (t-1)) < 1; step 1 always adds (alpha^(2) = e_{i_1})
        if t == 1 or yi * G[i] < lam * (t - 1):
            alpha[i] += 1.0
            violations += 1
            kernel_row(X, i, X, gamma, kernel, row)
            for j in range(G.shape[0]):
                G[j] += yi * row[j]
            if track:
                kernel_row(X, i, E, gamma, kernel, row_eval)
                S = tr.S
                for v in range(S.shape[0]):
                    S[v] += yi * row_eval[v]
        if track and t == tr.counters[NEXT_EVENT]:
            tr.counters[KERNEL_ROWS] = violations  # one row per violation so far
            if pegasos_check(tr, t, lam, alpha):
                return t, True, violations
    return n_steps, False, violations


def _signs(y: Any, name: str) -> np.ndarray:
    y = np.asarray(y, dtype=np.float64)
    if y.ndim != 1 or not np.all(np.abs(y) == 1.0):
        raise ValueError(f"{name} must be a 1-D array of labels in {{-1, +1}}.")
    return y


def run_pegasos(
    X: Any,
    y: Any,
    *,
    lam: float,
    n_steps: int,
    gamma: float = 1.0,
    kernel: str = "rbf",
    random_state: Any = None,
    indices: np.ndarray | None = None,
    configs: EarlyStoppingSet = NO_CONFIGS,
    X_val: Any = None,
    y_val: Any = None,
    X_test: Any = None,
    y_test: Any = None,
    stop_when_all_stopped: bool = True,
) -> tuple[PegasosResult, Tracker]:
    """Kernel Pegasos on ``(X, y)`` (labels in {-1, +1}), tracking ``configs`` on the validation data.

    ``indices`` (the ``i_t``) default to :func:`draw_indices` with ``random_state``.
    With configurations, the run ends when all have stopped (if
    ``stop_when_all_stopped``) or after ``n_steps``; the tracker holds their outcomes.
    """
    check_pegasos_parameters(lam, n_steps, gamma, kernel)
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = _signs(y, "y")
    if X.ndim != 2 or X.shape[0] != y.shape[0]:
        raise ValueError(f"X must be 2-D with one row per label, got {X.shape} and {y.shape}.")
    if indices is None:
        indices = draw_indices(X.shape[0], int(n_steps), random_state)
    indices = np.ascontiguousarray(indices, dtype=np.int64)
    if len(configs) and X_val is None:
        raise ValueError("Early stopping needs X_val and y_val.")
    parts_X = [p for p in (X_val, X_test) if p is not None]
    parts_y = [p for p in (y_val, y_test) if p is not None]
    E = (
        np.ascontiguousarray(np.vstack(parts_X), dtype=np.float64)
        if parts_X
        else np.empty((0, X.shape[1]))
    )
    y_eval = _signs(np.concatenate(parts_y), "y_val/y_test") if parts_y else np.empty(0)
    n_val = 0 if X_val is None else len(y_val)
    check_pegasos_configs(configs)
    tr = make_tracker(configs, y_eval, n_val, np.zeros(X.shape[0]), stop_when_all_stopped)
    if len(configs):
        start_pegasos_tracking(tr, len(indices))
    alpha = np.zeros(X.shape[0])
    G = np.zeros(X.shape[0])
    taken, stopped, violations = pegasos_loop(
        X, y, E, indices, float(lam), float(gamma), KERNELS.index(kernel), alpha, G, tr
    )
    row_length = X.shape[0] + (E.shape[0] if len(configs) else 0)  # pegasos_loop's rows
    result = PegasosResult(
        alpha, int(taken), bool(stopped), int(violations), float(lam), violations * row_length
    )
    return result, tr


def pegasos_decision(
    X_train: np.ndarray,
    y: np.ndarray,
    alpha: np.ndarray,
    lam: float,
    n_steps: int,
    X: np.ndarray,
    gamma: float,
    kernel: str,
) -> np.ndarray:
    """``f(x) = sum_j alpha_j y_j K(x_j, x) / (lam T)`` for the rows of ``X``."""
    from esmo.solver.kernels import kernel_matrix

    sv = np.flatnonzero(alpha > 0)
    K = kernel_matrix(np.asarray(X, np.float64), X_train[sv], kernel, gamma)
    return K @ (alpha[sv] * y[sv]) / (lam * n_steps)


def sweep_pegasos(
    X_train: Any,
    y_train: Any,
    X_val: Any,
    y_val: Any,
    configs: EarlyStoppingSet | Sequence[EarlyStopping] | Any,
    *,
    X_test: Any = None,
    y_test: Any = None,
    lam: float,
    n_steps: int,
    gamma: float = 1.0,
    kernel: str = "rbf",
    random_state: Any = None,
) -> SweepResult:
    """Every configuration's early-stopped outcome from one Pegasos run to ``n_steps``.

    Equal, configuration by configuration, to separate runs of :func:`run_pegasos`
    with that one configuration and the same ``random_state``: stopping never
    changes the drawn indices or ``alpha`` before the stop. A configuration that
    never runs out of patience ends at ``n_steps`` with the reference run's values.
    """
    configs = EarlyStoppingSet.of(configs)
    if len(configs) == 0:
        raise ValueError("configs is empty; pass at least one early-stopping configuration.")
    result, tr = run_pegasos(
        X_train,
        y_train,
        lam=lam,
        n_steps=n_steps,
        gamma=gamma,
        kernel=kernel,
        random_state=random_state,
        configs=configs,
        X_val=X_val,
        y_val=y_val,
        X_test=X_test,
        y_test=y_test,
        stop_when_all_stopped=False,
    )
    n_val = len(y_val)
    pred = tr.S >= 0.0
    positive = tr.y_eval > 0
    ref_val = float(np.mean(pred[:n_val] == positive[:n_val]))
    ref_test = float(np.mean(pred[n_val:] == positive[n_val:])) if X_test is not None else np.nan
    return tracked_outcomes(tr, result.n_steps, ref_val, ref_test, result.n_violations)


def tracked_outcomes(
    tr: Tracker, n_steps: int, ref_val: float, ref_test: float, kernel_rows: int
) -> SweepResult:
    """A tracker's outcomes after a run to ``n_steps`` whose final model scored ``ref_val, ref_test``.

    A configuration that never stopped ends at ``n_steps`` with the final model's values.
    ``kernel_rows`` is the run's kernel rows by the end (Pegasos: one per violation; 0 for
    the NSVMs, whose kernel moves with the network).
    """
    stopped = tr.out_iter[:, STOP_ITER] >= 0
    return SweepResult(
        reference={
            "n_iter": n_steps,
            "max_iter_reached": False,
            "val_accuracy": ref_val,
            "test_accuracy": ref_test,
            "kernel_rows": kernel_rows,
        },
        stop_iter=np.where(stopped, tr.out_iter[:, STOP_ITER], n_steps),
        stopped_early=stopped,
        val_accuracy=np.where(stopped, tr.out_acc[:, VAL_ACCURACY], ref_val),
        test_accuracy=np.where(stopped, tr.out_acc[:, TEST_ACCURACY], ref_test),
        best_iter=np.where(stopped, tr.out_iter[:, BEST_ITER], n_steps),
        best_val_accuracy=np.where(stopped, tr.out_acc[:, BEST_VAL_ACCURACY], ref_val),
        best_test_accuracy=np.where(stopped, tr.out_acc[:, BEST_TEST_ACCURACY], ref_test),
        best_alpha=tr.best_alpha,
        best_rho=np.zeros(tr.patience.shape[0]),
        stop_kernel_rows=np.where(stopped, tr.out_iter[:, STOP_KERNEL_ROWS], kernel_rows),
    )
