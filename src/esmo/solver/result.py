"""The result every SMO variant returns, so estimators and benchmarks treat them alike."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:
    from esmo.solver.state import SolverState


@dataclass(frozen=True)
class SolverResult:
    """Dual solution of ``min 0.5 a'Qa + p'a, 0 <= a_t <= C_t, y'a = 0`` (``p = -e`` by default).

    ``alpha`` holds the dual variables (non-negative, not multiplied by y), ``rho``
    is LIBSVM's bias so that ``f(x) = sum_i alpha_i y_i K(x_i, x) - rho``.
    ``n_iter`` counts pair updates; ``max_iter_reached`` tells whether the solver
    stopped on its iteration limit rather than on the KKT tolerance;
    ``stopped_early`` whether validation-based early stopping ended the run.
    ``state`` is where esmo's solver left off (:mod:`esmo.solver.state`): what
    a warm start continues from. ``max_time_reached`` and ``stopped_by_callback``
    tell whether the wall-clock budget or the per-check hook ended the run.
    ``kernel_evaluations`` counts the kernel values the run computed (rows times
    their columns, evaluation columns and fresh checks included; 0 where a
    solver does not count); ``kernel_rows`` the kernel rows it computed (cache
    misses), the cost measure that does not depend on what the rows carry.
    """

    alpha: np.ndarray
    rho: float
    n_iter: int
    max_iter_reached: bool
    stopped_early: bool = False
    objective: float = float("nan")
    state: SolverState | None = None
    max_time_reached: bool = False
    stopped_by_callback: bool = False
    kernel_evaluations: int = 0
    kernel_rows: int = 0


class CheckInfo(NamedTuple):
    """What the per-check hook receives: the iteration, the objectives, the KKT gap.

    One field per early-stopping metric (``esmo.early_stopping.METRICS``):
    accuracy, mean hinge loss, the training set's logistic description length
    in bits per point, the smoothed error and F-measure; each is NaN unless some
    configuration reads it (accuracy: without validation data). ``gap`` is
    ``m(a) - M(a)``, the maximal KKT violation the solver stops on (< tol), over
    the active points while shrinking sets some aside.
    """

    n_iter: int
    val_accuracy: float
    val_hinge: float
    dl_per_point: float
    val_smoothed_error: float
    val_f_measure: float
    gap: float


@dataclass
class Tracking:
    """Per-configuration outcome of the early-stopping state machines of one run.

    ``stop_iter`` is -1 for a configuration that never ran out of patience.
    ``best_iter`` is 0 when no check ever improved on the start value.
    Accuracies come from the incrementally updated decision values; test ones
    are NaN without test data. ``best_alpha[k]`` and ``best_rho`` hold the best
    iterate of the k-th configuration that asked for ``restore_best``.
    ``eval_sums`` holds ``sum_i a_i y_i K(x_i, x)`` for the validation then test
    points at the last iteration that tracked them (the stop, for a single
    early-stopped fit). ``final_predictions`` holds, when asked for, the returned
    model's predictions (+1 or -1) at the validation then test points: the signs
    of fresh float64 decision values (:func:`esmo.solver.predictions.final_predictions`).
    ``stop_kernel_rows`` holds the kernel rows the run had computed at each
    configuration's stop (undefined where ``stop_iter`` is -1): what a separate
    early-stopped fit computes.
    """

    stop_iter: np.ndarray
    val_accuracy: np.ndarray
    test_accuracy: np.ndarray
    best_iter: np.ndarray
    best_val_accuracy: np.ndarray
    best_test_accuracy: np.ndarray
    best_alpha: np.ndarray
    best_rho: np.ndarray
    eval_sums: np.ndarray
    stop_kernel_rows: np.ndarray
    final_predictions: np.ndarray | None = None
