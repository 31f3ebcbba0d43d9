"""Early stopping inside SMO (protocol section 5): one configuration, and exact sweeps of many.

Early stopping never changes the SMO path, only where it ends. So
:func:`sweep_early_stopping` runs the solver once to convergence while it
tracks every configuration's state machine, and returns for each exactly what
a separate early-stopped fit would have produced.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from esmo.solver.smo import DEFAULT_CACHE_SIZE_MB, METRICS, run_smo


@dataclass(frozen=True)
class EarlyStopping:
    """One early-stopping configuration.

    Every ``interval`` (r) iterations the bias is recomputed and ``metric`` is
    evaluated on the validation data: validation accuracy (improvement when
    ``O - O_best > tol``) or mean hinge loss (improvement when
    ``O_best - O > tol``). An improvement resets the remaining patience to
    ``patience`` and records the best iterate; otherwise patience drops by one,
    and the run stops when it falls below zero. The model returned is the iterate
    at the stop, or with ``restore_best`` the best iterate. If the solver
    converges (or hits ``max_iter``) first, the converged model is returned.
    """

    patience: int
    tol: float
    interval: int = 1
    metric: str = "accuracy"
    restore_best: bool = False

    def __post_init__(self) -> None:
        if (
            not isinstance(self.patience, numbers.Integral)
            or isinstance(self.patience, bool)
            or self.patience < 0
        ):
            raise ValueError(f"patience must be a non-negative integer, got {self.patience!r}.")
        if (
            not isinstance(self.interval, numbers.Integral)
            or isinstance(self.interval, bool)
            or self.interval < 1
        ):
            raise ValueError(
                f"interval (the check interval r) must be a positive integer, got {self.interval!r}."
            )
        if not isinstance(self.tol, numbers.Real) or not np.isfinite(self.tol) or self.tol < 0:
            raise ValueError(
                f"tol (es_tol) must be a non-negative finite number, got {self.tol!r}."
            )
        if self.metric not in METRICS:
            raise ValueError(f"metric must be one of {METRICS}, got {self.metric!r}.")
        # normalise numpy scalars so configurations compare and hash alike
        object.__setattr__(self, "patience", int(self.patience))
        object.__setattr__(self, "interval", int(self.interval))
        object.__setattr__(self, "tol", float(self.tol))


@dataclass(frozen=True)
class EarlyStoppingSet:
    """K early-stopping configurations as validated parallel arrays.

    ``metric`` holds 0 (accuracy) or 1 (hinge). Build it once per search with
    :meth:`of` and pass it to every :func:`sweep_early_stopping` of that search:
    validating a table of 100 configurations takes about 0.13 ms, a fifth to a
    half of a whole fit on the smallest LIBSVM datasets.
    """

    patience: np.ndarray
    tol: np.ndarray
    interval: np.ndarray
    metric: np.ndarray

    def __post_init__(self) -> None:
        # writable contiguous copies of the solver's dtypes (numba compiles, and
        # caches, a second solver for read-only or other-typed arrays)
        arrays = {
            "patience": np.array(self.patience, dtype=np.int64),
            "tol": np.array(self.tol, dtype=np.float64),
            "interval": np.array(self.interval, dtype=np.int64),
            "metric": np.array(self.metric, dtype=np.int64),
        }
        if len({a.shape for a in arrays.values()}) != 1 or arrays["patience"].ndim != 1:
            raise ValueError(
                "patience, tol, interval and metric must be 1-D arrays of one length, got "
                f"shapes {[a.shape for a in arrays.values()]}."
            )
        checks = {
            "patience": (arrays["patience"] >= 0, "non-negative integers"),
            "tol": (
                np.isfinite(arrays["tol"]) & (arrays["tol"] >= 0),
                "non-negative finite numbers",
            ),
            "interval": (arrays["interval"] >= 1, "positive integers"),
            "metric": (
                (arrays["metric"] == 0) | (arrays["metric"] == 1),
                "0 (accuracy) or 1 (hinge)",
            ),
        }
        for name, (ok, what) in checks.items():
            if not ok.all():
                raise ValueError(f"{name} must hold {what}, got {arrays[name][~ok][0]!r}.")
        for name, a in arrays.items():
            object.__setattr__(self, name, a)

    def __len__(self) -> int:
        return self.patience.shape[0]

    @classmethod
    def of(
        cls, configs: EarlyStoppingSet | Sequence[EarlyStopping] | pd.DataFrame
    ) -> EarlyStoppingSet:
        """Validate ``configs``: :class:`EarlyStopping` objects or a table.

        A table needs columns ``patience`` and ``es_tol`` and may have ``interval``
        (default 1) and ``metric`` (default accuracy). It is validated column-wise,
        with :class:`EarlyStopping`'s rules and messages, rather than through one
        object per row.
        """
        if isinstance(configs, EarlyStoppingSet):
            return configs
        if isinstance(configs, pd.DataFrame):
            return cls(*_table_arrays(configs))
        out = list(configs)
        for c in out:
            if not isinstance(c, EarlyStopping):
                raise TypeError(
                    f"configs must hold EarlyStopping objects or be a DataFrame, got an element of type {type(c).__name__}."
                )
        return cls(
            np.array([c.patience for c in out], dtype=np.int64),
            np.array([c.tol for c in out], dtype=np.float64),
            np.array([c.interval for c in out], dtype=np.int64),
            np.array([METRICS.index(c.metric) for c in out], dtype=np.int64),
        )


@dataclass(frozen=True)
class SweepResult:
    """Outcome of :func:`sweep_early_stopping`, one array entry per configuration in input order.

    ``stop_iter, stopped_early, val_accuracy, test_accuracy`` describe the model
    at its stop, ``best_iter, best_val_accuracy, best_test_accuracy`` the one
    ``restore_best`` would return. ``reference`` describes the run to convergence
    (``n_iter``, ``max_iter_reached``, ``val_accuracy``, ``test_accuracy``, from
    fresh float64 predictions). ``table`` puts the arrays in a DataFrame.
    """

    reference: dict
    stop_iter: np.ndarray
    stopped_early: np.ndarray
    val_accuracy: np.ndarray
    test_accuracy: np.ndarray
    best_iter: np.ndarray
    best_val_accuracy: np.ndarray
    best_test_accuracy: np.ndarray

    @property
    def table(self) -> pd.DataFrame:
        """The per-configuration arrays as columns, one row per configuration."""
        return pd.DataFrame({name: getattr(self, name) for name in _OUTCOMES})


_OUTCOMES = (
    "stop_iter",
    "stopped_early",
    "val_accuracy",
    "test_accuracy",
    "best_iter",
    "best_val_accuracy",
    "best_test_accuracy",
)


def _integers(values: Any, name: str, low: int, what: str) -> np.ndarray:
    """Whole numbers ``>= low`` from a table column (fractions truncate, as ``int()`` does)."""
    try:
        v = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must hold numbers, got {values!r}.") from None
    if not np.isfinite(v).all() or (v < low).any():
        raise ValueError(f"{name} must hold {what}, got {v[~(np.isfinite(v) & (v >= low))][0]!r}.")
    return v.astype(np.int64)


def _table_arrays(
    configs: pd.DataFrame,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(patience, es_tol, interval, metric code)`` of a configuration table, validated."""
    missing = {"patience", "es_tol"} - set(configs.columns)
    if missing:
        raise ValueError(
            f"The configuration table lacks column(s) {sorted(missing)}; it needs "
            "patience and es_tol (interval and metric are optional)."
        )
    n = len(configs)
    patience = _integers(configs["patience"], "patience", 0, "non-negative integers")
    interval = (
        _integers(configs["interval"], "interval (the check interval r)", 1, "positive integers")
        if "interval" in configs
        else np.ones(n, dtype=np.int64)
    )
    # a writable copy: pandas may hand out a read-only view, and numba would
    # compile (and cache) a second solver for read-only arrays
    es_tol = np.array(configs["es_tol"], dtype=np.float64)
    if not (np.isfinite(es_tol) & (es_tol >= 0)).all():
        raise ValueError(
            f"tol (es_tol) must be a non-negative finite number, got {es_tol[~(np.isfinite(es_tol) & (es_tol >= 0))][0]!r}."
        )
    metric = np.zeros(n, dtype=np.int64)
    if "metric" in configs:
        names = configs["metric"].astype(str).to_numpy()
        unknown = ~np.isin(names, METRICS)
        if unknown.any():
            raise ValueError(f"metric must be one of {METRICS}, got {names[unknown][0]!r}.")
        metric = (names == METRICS[1]).astype(np.int64)
    return patience, es_tol, interval, metric


def sweep_early_stopping(
    X_train: Any,
    y_train: Any,
    X_val: Any,
    y_val: Any,
    configs: EarlyStoppingSet | Sequence[EarlyStopping] | pd.DataFrame,
    *,
    kernel: str = "rbf",
    C: float = 1.0,
    gamma: float = 1.0,
    tol: float = 1e-3,
    max_iter: int = 10_000_000,
    X_test: Any = None,
    y_test: Any = None,
    cache_size_mb: float = DEFAULT_CACHE_SIZE_MB,
    kernel_dtype: type = np.float32,
) -> SweepResult:
    """Outcome of ``K`` early-stopped fits from one SMO run to convergence (labels in {-1, +1}).

    Equal, configuration by configuration, to separate fits with
    ``solve_smo(..., early_stopping=config)``: same stop iteration and the same
    validation and test accuracies at the stop and at the best iterate. A
    configuration that never runs out of patience ends where the solver
    converges, with the reference run's values. Validation and test decision
    values are tracked only while some configuration is still running.
    ``configs`` is anything :meth:`EarlyStoppingSet.of` takes; a search that
    sweeps the same configurations many times validates them once with it.
    """
    configs = EarlyStoppingSet.of(configs)
    if len(configs) == 0:
        raise ValueError("configs is empty; pass at least one early-stopping configuration.")
    has_test = X_test is not None
    if has_test and y_test is None:
        raise ValueError("X_test was given without y_test; pass both or neither.")
    result, track = run_smo(
        X_train,
        y_train,
        kernel=kernel,
        C=C,
        gamma=gamma,
        tol=tol,
        max_iter=max_iter,
        cache_size_mb=cache_size_mb,
        kernel_dtype=kernel_dtype,
        X_val=X_val,
        y_val=y_val,
        X_test=X_test,
        y_test=y_test,
        patience=configs.patience,
        es_tol=configs.tol,
        interval=configs.interval,
        metric=configs.metric,
        stop_when_all_stopped=False,
        final_predictions=True,
    )
    assert track is not None and track.final_predictions is not None
    n_val = len(y_val)
    pred = track.final_predictions
    ref_val = float(np.mean(pred[:n_val] == np.asarray(y_val)))
    ref_test = float(np.mean(pred[n_val:] == np.asarray(y_test))) if has_test else float("nan")
    reference = {
        "n_iter": result.n_iter,
        "max_iter_reached": result.max_iter_reached,
        "val_accuracy": ref_val,
        "test_accuracy": ref_test,
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
    )
