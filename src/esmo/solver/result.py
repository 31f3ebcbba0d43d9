"""The result every SMO variant returns, so estimators and benchmarks treat them alike."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class SolverResult:
    """Dual solution of ``min 0.5 a'Qa - e'a, 0 <= a <= C, y'a = 0``.

    ``alpha`` holds the dual variables (non-negative, not multiplied by y), ``rho``
    is LIBSVM's bias so that ``f(x) = sum_i alpha_i y_i K(x_i, x) - rho``.
    ``n_iter`` counts pair updates; ``max_iter_reached`` tells whether the solver
    stopped on its iteration limit rather than on the KKT tolerance;
    ``stopped_early`` whether validation-based early stopping ended the run.
    ``kernel_evaluations`` counts the kernel values the run computed (rows times
    their columns, evaluation columns included; 0 where a solver does not count).
    """

    alpha: np.ndarray
    rho: float
    n_iter: int
    max_iter_reached: bool
    stopped_early: bool = False
    objective: float = float("nan")
    kernel_evaluations: int = 0


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
    final_predictions: np.ndarray | None = None
