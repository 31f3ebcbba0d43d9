"""Kernel Pegasos's random search with early stopping on a holdout: the NSVM paper's method.

The thesis's SMO searches are esmo.tuning's estimators (RandomSearchSVM, ...);
kernel Pegasos has no search of its own in the library, so the benchmark runs
the thesis's random search (:func:`esmo.tuning.search.random_search`) over
:class:`~esmo.estimators.pegasos_classifier.PegasosClassifier` in the same
shape (``trace_``, ``cost_``, ``best_estimator_``). It draws ``n_configs``
(C, gamma) log-uniform from the box, holds out a stratified
``holdout_fraction`` of the training rows, trains every candidate on the rest
for ``epochs`` passes, each fit early-stopped on the holdout's accuracy,
picks by holdout accuracy, and refits the pick on all the rows, without
stopping (``best_estimator_``). Cost: each fit and its holdout prediction, and
the refit, in CPU seconds (``time.process_time``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.model_selection import train_test_split

from esmo.benchmark.trace import make_trace
from esmo.estimators.pegasos_classifier import PegasosClassifier
from esmo.tuning.search import random_search


class _TimedFit:
    """A Pegasos estimator whose ``fit`` and ``predict`` are timed in CPU seconds
    (``cpu_seconds``) and counted in kernel values (``kernel_evaluations``, as the SMO
    searches' ledger counts them); ``epochs`` sets its steps to that many passes over
    each fit's rows."""

    def __init__(self, estimator: Any, epochs: float) -> None:
        self.estimator = estimator
        self.epochs = epochs
        self.cpu_seconds = 0.0
        self.predicted_kernel_values = 0  # support vectors x predicted rows

    def fit(self, X: Any, y: Any, **fit_params: Any) -> _TimedFit:
        self.estimator.set_params(n_steps=max(1, round(self.epochs * len(y))))
        start = time.process_time()
        try:
            self.estimator.fit(X, y, **fit_params)
        finally:
            self.cpu_seconds += time.process_time() - start
        return self

    def predict(self, X: Any) -> np.ndarray:
        start = time.process_time()
        try:
            return self.estimator.predict(X)
        finally:
            self.cpu_seconds += time.process_time() - start
            self.predicted_kernel_values += len(self.estimator.support_) * len(X)

    @property
    def n_iter_(self) -> Any:
        return getattr(self.estimator, "n_iter_", None)

    @property
    def stopped_early_(self) -> Any:
        return getattr(self.estimator, "stopped_early_", None)

    @property
    def kernel_evaluations(self) -> float:
        """The fit's kernel values and its predictions' (the holdout's)."""
        return float(self.estimator.n_kernel_evaluations_ + self.predicted_kernel_values)


class PegasosRandomSearch(BaseEstimator):
    """Random search of kernel Pegasos's (C, gamma) on a stratified holdout, early-stopped.

    Parameters
    ----------
    n_configs : int
        Candidates drawn.
    log2_C, log2_gamma : (low, high)
        The box the candidates are drawn from, log-uniform.
    early_stopping : mapping or None
        ``patience``, ``es_tol``, ``interval``: every search fit stops early on
        the holdout's accuracy; None runs every fit its ``epochs``.
    holdout_fraction : float
    epochs : float
        Pegasos's steps per fit, in passes over its rows.
    random_state : int or None
        Seeds the candidates, the holdout and Pegasos.

    Attributes
    ----------
    best_params_, best_score_ (holdout accuracy), best_estimator_ (the refit),
    cv_results_ (one entry per fit), trace_ (:data:`esmo.benchmark.trace.TRACE_COLUMNS`),
    cost_ (``cpu_seconds``, ``n_iter``, ``kernel_evaluations``, ``n_evaluations``,
    the refit included), refit_cpu_seconds_.
    """

    def __init__(
        self,
        n_configs: int = 20,
        log2_C: tuple[float, float] = (-10.0, 10.0),
        log2_gamma: tuple[float, float] = (-10.0, 10.0),
        early_stopping: Mapping[str, Any] | None = None,
        holdout_fraction: float = 0.2,
        epochs: float = 1.0,
        random_state: int | None = None,
    ) -> None:
        self.n_configs = n_configs
        self.log2_C = log2_C
        self.log2_gamma = log2_gamma
        self.early_stopping = early_stopping
        self.holdout_fraction = holdout_fraction
        self.epochs = epochs
        self.random_state = random_state

    def _make(self, C: float, gamma: float, config_id: int, early: bool) -> _TimedFit:
        """One candidate's estimator, timed; early-stopped on the holdout when ``early``."""
        es: dict[str, Any] = {}
        if early:
            rule = self.early_stopping
            es = {
                "early_stopping": True,
                "n_iter_no_change": int(rule["patience"]),
                "es_tol": float(rule["es_tol"]),
                "validation_interval": int(rule["interval"]),
            }
        # one seed per candidate (the refit's config_id is n_configs)
        seed = int(np.random.SeedSequence([self.random_state or 0, config_id]).generate_state(1)[0])
        pegasos = PegasosClassifier(C=C, gamma=gamma, random_state=seed, **es)
        return _TimedFit(pegasos, epochs=self.epochs)

    def fit(self, X: Any, y: Any) -> PegasosRandomSearch:
        X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
        rng = np.random.default_rng(self.random_state)
        n = int(self.n_configs)
        configs = pd.DataFrame(
            {
                "config_id": np.arange(n),
                "C": 2.0 ** rng.uniform(*self.log2_C, size=n),
                "gamma": 2.0 ** rng.uniform(*self.log2_gamma, size=n),
            }
        )
        X_fit, X_val, y_fit, y_val = train_test_split(
            X, y, test_size=self.holdout_fraction, stratify=y, random_state=self.random_state
        )
        early = self.early_stopping is not None
        fits: list[_TimedFit] = []

        def make(row: pd.Series) -> _TimedFit:
            fits.append(
                self._make(float(row["C"]), float(row["gamma"]), int(row["config_id"]), early)
            )
            return fits[-1]

        kwargs: dict[str, Any] = {"fit_params": {"X_val": X_val, "y_val": y_val} if early else {}}
        result = random_search(make, configs, X_fit, y_fit, X_val, y_val, **kwargs)
        trials = result.trials.merge(configs, on="config_id", how="left", validate="many_to_one")
        if len(fits) != len(trials):
            raise RuntimeError(f"{len(fits)} estimators built for {len(trials)} fits")
        self.cv_results_ = {
            **{column: trials[column].to_numpy() for column in trials.columns},
            "cpu_seconds": np.array([f.cpu_seconds for f in fits]),
            "kernel_evaluations": np.array([f.kernel_evaluations for f in fits]),
        }
        n_iter = trials["n_iter"].astype("Float64").to_numpy(dtype=float, na_value=np.nan)
        self.trace_ = make_trace(
            self.cv_results_["cpu_seconds"], n_iter, self.cv_results_["kernel_evaluations"],
            trials["C"], trials["gamma"], trials["val_accuracy"], levels=trials["round"],
        )  # fmt: skip
        best = configs.loc[configs["config_id"] == result.config_id].iloc[0]
        self.best_params_ = {"C": float(best["C"]), "gamma": float(best["gamma"])}
        self.best_score_ = float(result.val_accuracy)
        refit = self._make(self.best_params_["C"], self.best_params_["gamma"], n, early=False)
        refit.fit(X, y)
        self.best_estimator_ = refit.estimator
        self.refit_cpu_seconds_ = refit.cpu_seconds
        last = self.trace_.iloc[-1]
        refit_iter = refit.n_iter_
        self.cost_ = {
            "cpu_seconds": float(last["cpu_seconds"]) + refit.cpu_seconds,
            "n_iter": float(last["n_iter"])
            + (np.nan if refit_iter is None else float(np.sum(refit_iter))),
            "kernel_evaluations": float(last["kernel_evaluations"]) + refit.kernel_evaluations,
            "n_evaluations": int(last["n_evaluations"]),
        }
        return self

    def predict(self, X: Any) -> np.ndarray:
        return self.best_estimator_.predict(X)
