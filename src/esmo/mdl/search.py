"""``MDLSearch``: pick an SVM's hyperparameters by minimum description length, without validation data.

Singh and Arandjelović train every candidate on all the training data and keep
the one with the shortest description length
(:func:`esmo.mdl.description_length.description_length`), so no point is spent on
a validation split or on folds, and each candidate is fitted once instead of k
times. The search is used like scikit-learn's ``GridSearchCV``: a grid
(``param_grid``) or sampled configurations (``param_distributions`` and
``n_iter``, as ``RandomizedSearchCV``), then ``best_params_``,
``best_estimator_``, ``cv_results_`` (one entry per candidate; with
``record_readings`` the DL of every sigma^2 reading beside the selected one)
and ``cost_``. Ties go to the first
candidate in ``ParameterGrid`` order (C outer, gamma inner), as in
``GridSearchCV``.
"""

from __future__ import annotations

import time
import warnings
from numbers import Integral
from typing import Any

import numpy as np
from sklearn.base import MetaEstimatorMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import ParameterGrid, ParameterSampler
from sklearn.utils._param_validation import Interval, StrOptions

from esmo.estimators.base import RefittedSearchMixin, SVMClassifierBase, resolve_gamma
from esmo.estimators.smo_classifier import SMOClassifier
from esmo.mdl.description_length import (
    DEFAULT_SIGMA2,
    N_PARAMS_RULES,
    SIGMA2_READINGS,
    description_length,
    n_model_parameters,
)
from esmo.mdl.grid_fits import SEARCHABLE, iter_grid_fits
from esmo.solver import sparse
from esmo.solver.params import SolverParams, check_parameters


def candidate_list(
    param_grid: Any, param_distributions: Any, n_iter: int, random_state: Any
) -> list[dict[str, Any]]:
    """The candidates: the grid in ``ParameterGrid`` order, or ``n_iter`` sampled ones."""
    if (param_grid is None) == (param_distributions is None):
        raise ValueError("give exactly one of param_grid and param_distributions")
    if param_grid is not None:
        source, candidates = "param_grid", list(ParameterGrid(param_grid))
    else:
        source = "param_distributions"
        candidates = list(ParameterSampler(param_distributions, n_iter, random_state=random_state))
    for k, candidate in enumerate(candidates):
        # checked here, so a bad value is named as the search's, not the solver's deep inside
        solver_values = {name: v for name, v in candidate.items() if name in SEARCHABLE}
        check_parameters(solver_values, f"MDLSearch's {source} (candidate {k}: {candidate})")
    return candidates


def solver_base(estimator: SMOClassifier, X: np.ndarray) -> SolverParams:
    """The solver parameters a candidate starts from: the estimator's, gamma resolved."""
    if not isinstance(estimator, SMOClassifier):
        raise TypeError(f"estimator must be an SMOClassifier, got {type(estimator).__name__}")
    # the refit of the best candidate fits the estimator itself: its parameters are checked first
    estimator._validate_params()
    estimator._early_stopping_config()
    if estimator.early_stopping:
        raise ValueError(
            "the estimator has early_stopping=True, which needs validation data; "
            "MDL selection fits every candidate to convergence: set early_stopping=False"
        )
    if estimator.solver != "fan":
        raise ValueError(f"MDLSearch fits with solver='fan', not {estimator.solver!r}")
    return SolverParams(
        kernel=estimator.kernel,
        C=estimator.C,
        gamma=resolve_gamma(estimator.gamma, X),
        tol=estimator.tol,
        max_iter=estimator.max_iter,
        cache_size_mb=estimator.cache_size_mb,
        shrinking=estimator.shrinking,
    )


class MDLSearch(RefittedSearchMixin, MetaEstimatorMixin, SVMClassifierBase):
    """Minimum-description-length search over SMOClassifier hyperparameters (C, gamma, tol).

    Parameters
    ----------
    estimator : SMOClassifier or None
        Gives the kernel, tol, max_iter, cache and shrinking of every fit (``SMOClassifier()``
        if None).
    param_grid : dict or list of dicts
        Candidate values of ``C``, ``gamma`` and ``tol``, as in ``GridSearchCV``.
    param_distributions : dict
        Lists or scipy distributions to sample ``n_iter`` candidates from, as in
        ``RandomizedSearchCV`` (give this or ``param_grid``).
    n_iter : int
        Candidates sampled from ``param_distributions``.
    sigma2 : str
        The reading of sigma^2 that selects (:data:`esmo.mdl.description_length.SIGMA2_READINGS`);
        every reading is recorded in ``cv_results_`` as ``dl_<reading>``.
    n_params : {'all_sv', 'free_sv', 'all_sv_plus_bias'}
        How ``N_M`` counts the model's parameters.
    record_readings : bool
        Also record every other reading's DL (``dl_<reading>``) from the same
        fits; their time is reported as ``cost_["ablation_seconds"]``, outside
        ``cost_["seconds"]``.
    refit : bool
        Refit the best candidate as ``best_estimator_`` (needed by predict).
    random_state : int, RandomState or None
        Seeds the sampling of candidates.

    Attributes
    ----------
    best_params_, best_index_, best_description_length_
    best_score_
        ``-DL`` in bits, so that higher is better as in scikit-learn.
    best_estimator_
    cv_results_
        Dict of arrays.
    cost_
        Fits, SMO iterations, seconds.
    refit_time_, classes_, n_features_in_
    """

    _accept_sparse = sparse.SPARSE_FORMATS

    _parameter_constraints: dict = {
        "estimator": [SMOClassifier, None],
        "param_grid": [dict, list, None],
        "param_distributions": [dict, None],
        "n_iter": [Interval(Integral, 1, None, closed="left")],
        "sigma2": [StrOptions(set(SIGMA2_READINGS))],
        "n_params": [StrOptions(set(N_PARAMS_RULES))],
        "record_readings": ["boolean"],
        "refit": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        estimator: SMOClassifier | None = None,
        param_grid: Any = None,
        *,
        param_distributions: Any = None,
        n_iter: int = 10,
        sigma2: str = DEFAULT_SIGMA2,
        n_params: str = "all_sv",
        record_readings: bool = False,
        refit: bool = True,
        random_state: Any = None,
    ) -> None:
        self.estimator = estimator
        self.param_grid = param_grid
        self.param_distributions = param_distributions
        self.n_iter = n_iter
        self.sigma2 = sigma2
        self.n_params = n_params
        self.record_readings = record_readings
        self.refit = refit
        self.random_state = random_state

    def fit(self, X: Any, y: Any) -> MDLSearch:
        """Fit every candidate on ``(X, y)`` and keep the one of smallest description length."""
        self._validate_params()
        start = time.perf_counter()
        X, y = self._validate_X(X, y)
        self._set_classes(y)
        estimator = SMOClassifier() if self.estimator is None else self.estimator
        base = solver_base(estimator, X)
        candidates = candidate_list(
            self.param_grid, self.param_distributions, self.n_iter, self.random_state
        )
        y_pm = self._signs(y, "y")
        self.cv_results_, ablation_seconds = self._score_candidates(X, y_pm, candidates, base)
        dl = self.cv_results_["description_length"]
        if not np.isfinite(dl).any():
            raise ValueError(
                f"every candidate has an infinite description length under sigma2={self.sigma2!r} "
                "(constant decision values, sigma^2 = 0); widen the grid or choose another "
                "sigma2 reading"
            )
        hits = int(self.cv_results_["max_iter_reached"].sum())
        if hits:
            warnings.warn(
                f"{hits} of {len(candidates)} fits stopped at max_iter; they are scored as they "
                "are and flagged in cv_results_['max_iter_reached']. Raise the estimator's "
                "max_iter to let them converge.",
                ConvergenceWarning,
                stacklevel=2,
            )
        self.best_index_ = int(np.argmin(dl))  # the first of equal minima
        self.best_params_ = candidates[self.best_index_]
        self.best_description_length_ = float(dl[self.best_index_])
        self.best_score_ = -self.best_description_length_
        res = self.cv_results_
        self.cost_ = {
            "n_fits": len(candidates),
            "n_iter": int(res["n_iter"].sum()),
            "fit_seconds": float(res["mean_fit_time"].sum()),
            "kernel_seconds": float(res["kernel_time"].sum()),
            # the selection's own time: the other readings are ablations, not its cost
            "seconds": time.perf_counter() - start - ablation_seconds,
            "ablation_seconds": ablation_seconds,
        }
        if self.refit:
            t = time.perf_counter()
            self.best_estimator_ = clone(estimator).set_params(**self.best_params_).fit(X, y)
            self.refit_time_ = time.perf_counter() - t
        return self

    def _score_candidates(
        self, X: np.ndarray, y_pm: np.ndarray, candidates: list[dict], base: SolverParams
    ) -> tuple[dict[str, Any], float]:
        """``cv_results_`` and the seconds spent on readings other than the selecting one."""
        n_cand = len(candidates)
        res: dict[str, Any] = {"params": candidates}
        for key in SEARCHABLE:
            if any(key in c for c in candidates):
                column = np.ma.masked_all(n_cand, dtype=object)
                for k, c in enumerate(candidates):
                    if key in c:
                        column[k] = c[key]
                res[f"param_{key}"] = column
        recorded = list(SIGMA2_READINGS) if self.record_readings else [self.sigma2]
        readings = {r: np.empty(n_cand) for r in recorded}
        ablation_seconds = 0.0
        extra = {
            "n_support": np.empty(n_cand, dtype=np.int64),
            "n_params": np.empty(n_cand, dtype=np.int64),
            "sigma2": np.empty(n_cand),
            "train_accuracy": np.empty(n_cand),
            "n_iter": np.empty(n_cand, dtype=np.int64),
            "max_iter_reached": np.empty(n_cand, dtype=bool),
            "mean_fit_time": np.empty(n_cand),
            "kernel_time": np.empty(n_cand),
        }
        for fit in iter_grid_fits(X, y_pm, candidates, base):
            k, f = fit.index, fit.decision_train
            n_par = n_model_parameters(fit.alpha, fit.params["C"], self.n_params)
            for reading in recorded:
                start = time.perf_counter()
                readings[reading][k] = description_length(
                    f, n_par, y=y_pm, sigma2=reading,
                    feature_space_variance=fit.feature_space_variance,
                )  # fmt: skip
                if reading != self.sigma2:
                    ablation_seconds += time.perf_counter() - start
            extra["n_support"][k] = fit.n_support
            extra["n_params"][k] = n_par
            extra["sigma2"][k] = float(np.var(f))
            extra["train_accuracy"][k] = float(np.mean(np.where(f > 0, 1.0, -1.0) == y_pm))
            extra["n_iter"][k] = fit.n_iter
            extra["max_iter_reached"][k] = fit.max_iter_reached
            extra["mean_fit_time"][k] = fit.fit_seconds
            extra["kernel_time"][k] = fit.kernel_seconds
        dl = readings[self.sigma2]
        res["description_length"] = dl
        # rank 1 is the shortest; equal lengths share the lowest rank (GridSearchCV's "min")
        res["rank_description_length"] = np.searchsorted(np.sort(dl), dl, side="left") + 1
        res |= {f"dl_{reading}": values for reading, values in readings.items()}
        res |= extra
        return res, ablation_seconds
