"""Exact sweeps: the outcome of many early-stopped fits from one SMO run to convergence.

Early stopping never changes the SMO path, only where it ends. So
:func:`sweep_early_stopping` runs the solver once while it tracks every
configuration's state machine, and returns for each exactly what a separate
early-stopped fit would have produced.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from esmo.early_stopping import EarlyStopping, EarlyStoppingSet
from esmo.solver.params import SolverParams
from esmo.solver.smo import run_smo

_OUTCOMES = (
    "stop_iter",
    "stopped_early",
    "val_accuracy",
    "test_accuracy",
    "best_iter",
    "best_val_accuracy",
    "best_test_accuracy",
)


@dataclass(frozen=True)
class SweepResult:
    """Outcome of :func:`sweep_early_stopping`, one array entry per configuration in input order.

    ``stop_iter, stopped_early, val_accuracy, test_accuracy`` describe the model
    at its stop, ``best_iter, best_val_accuracy, best_test_accuracy`` the one
    ``restore_best`` would return. ``reference`` describes the run to convergence
    (``n_iter``, ``max_iter_reached``, ``val_accuracy``, ``test_accuracy``, from
    fresh float64 predictions). ``best_alpha`` and ``best_rho`` hold the best
    checked iterate of each configuration that asked for ``restore_best``, in
    order: the model its separate fit returns when it stopped early (one that
    never stopped returns the converged model instead).
    ``stop_kernel_rows`` counts the kernel rows computed by each stop (the
    reference's ``kernel_rows`` by the end): the kernel cost of the separate fit,
    whose rows carry the validation and test columns while it tracks (0 where a
    solver does not count rows; with shrinking and a cache too small for every
    row, the separate fit adds the evicted rows of the free vectors its last
    gradient rebuild reads).
    ``table`` puts the per-configuration arrays in a DataFrame.
    """

    reference: dict
    stop_iter: np.ndarray
    stopped_early: np.ndarray
    val_accuracy: np.ndarray
    test_accuracy: np.ndarray
    best_iter: np.ndarray
    best_val_accuracy: np.ndarray
    best_test_accuracy: np.ndarray
    best_alpha: np.ndarray
    best_rho: np.ndarray
    stop_kernel_rows: np.ndarray

    @property
    def table(self) -> Any:
        """The per-configuration arrays as columns of a pandas DataFrame, one row per configuration."""
        import pandas as pd  # the core needs no pandas; a table does

        return pd.DataFrame({name: getattr(self, name) for name in _OUTCOMES})


def sweep_early_stopping(
    X_train: Any,
    y_train: Any,
    X_val: Any | None,
    y_val: Any | None,
    configs: EarlyStoppingSet | Sequence[EarlyStopping] | Any,
    *,
    X_test: Any = None,
    y_test: Any = None,
    evaluation: str = "auto",
    **solver_params: Any,
) -> SweepResult:
    """Outcome of ``K`` early-stopped fits from one SMO run to convergence (labels in {-1, +1}).

    Equal, configuration by configuration, to separate fits with
    ``solve_smo(..., early_stopping=config)``: same stop iteration and the same
    validation and test accuracies at the stop and at the best iterate. A
    configuration that never runs out of patience ends where the solver
    converges, with the reference run's values. Validation and test decision
    values are tracked only while some configuration is still running.
    Configurations that read the description length alone (``mdl_logistic``)
    need no validation data: ``X_val`` and ``y_val`` may then be None, and the
    accuracies are NaN.
    ``configs`` is anything :meth:`EarlyStoppingSet.of` takes; a search that
    sweeps the same configurations many times validates them once with it.
    ``evaluation`` says how checks read the decision values (``run_smo``'s);
    every choice keeps the sweep equal to separate fits with the same one.
    ``solver_params`` are the fields of :class:`~esmo.solver.params.SolverParams`.
    """
    configs = EarlyStoppingSet.of(configs)
    if len(configs) == 0:
        raise ValueError("configs is empty; pass at least one early-stopping configuration.")
    has_test = X_test is not None
    result, track = run_smo(
        X_train,
        y_train,
        SolverParams(**solver_params),
        configs=configs,
        X_val=X_val,
        y_val=y_val,
        X_test=X_test,
        y_test=y_test,
        stop_when_all_stopped=False,
        final_predictions_at_eval=True,
        evaluation=evaluation,
    )
    assert track is not None
    ref_val = ref_test = float("nan")  # without evaluation data (description length only)
    pred = track.final_predictions
    if pred is not None:
        n_val = len(y_val)
        ref_val = float(np.mean(pred[:n_val] == np.asarray(y_val)))
        if has_test:
            ref_test = float(np.mean(pred[n_val:] == np.asarray(y_test)))
    reference = {
        "n_iter": result.n_iter,
        "max_iter_reached": result.max_iter_reached,
        "val_accuracy": ref_val,
        "test_accuracy": ref_test,
        "kernel_rows": result.kernel_rows,
    }
    stopped = track.stop_iter >= 0
    return SweepResult(
        reference=reference,
        stop_iter=np.where(stopped, track.stop_iter, result.n_iter),
        stopped_early=stopped,
        val_accuracy=np.where(stopped, track.val_accuracy, ref_val),
        test_accuracy=np.where(stopped, track.test_accuracy, ref_test),
        best_iter=np.where(stopped, track.best_iter, result.n_iter),
        best_val_accuracy=np.where(stopped, track.best_val_accuracy, ref_val),
        best_test_accuracy=np.where(stopped, track.best_test_accuracy, ref_test),
        best_alpha=track.best_alpha,
        best_rho=track.best_rho,
        stop_kernel_rows=np.where(stopped, track.stop_kernel_rows, result.kernel_rows),
    )
