"""``SMOClassifier``: the SMO solvers behind a scikit-learn classifier, with early stopping."""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Callable
from numbers import Real
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from esmo.early_stopping import (
    EarlyStopping,
    EarlyStoppingSet,
    reads_validation,
    validate_configurations,
)
from esmo.solver.inputs import as_sample_weight
from esmo.solver.kernels import kernel_matrix
from esmo.solver.params import SOLVER_CONSTRAINTS, SolverParams
from esmo.solver.result import CheckInfo, SolverResult
from esmo.solver.smo import run_smo, warm_state
from esmo.solver.state import SolverState
from esmo.solver.tracking import EVALUATIONS

_SOLVERS = ("fan", "keerthi", "fan_plain")
# the estimator's name of each early-stopping field
_ES_PARAMS = {
    "n_iter_no_change": "patience",
    "es_tol": "tol",
    "validation_interval": "interval",
    "es_metric": "metric",
    "restore_best": "restore_best",
}


def _binary_classes(y: np.ndarray) -> np.ndarray:
    """The two classes of ``y``, or a clear error for any other target."""
    # one type_of_target call (sklearn's check_classification_targets would make a
    # second, ~0.2 ms: about as long as SMO on successive halving's small subsamples)
    target = type_of_target(y, input_name="y", raise_unknown=True)
    if target.startswith("continuous"):
        raise ValueError(
            f"Unknown label type: {target}. y looks like a regression target; "
            "SMOClassifier needs discrete class labels."
        )
    if target != "binary":
        raise ValueError(
            "Only binary classification is supported. y holds more than two classes; "
            "wrap SMOClassifier in sklearn.multiclass.OneVsRestClassifier."
        )
    classes = np.unique(y)
    if classes.shape[0] != 2:
        raise ValueError(f"y holds one class only ({classes.tolist()}); an SVM needs two classes.")
    return classes


def _problem_key(X: np.ndarray, y: np.ndarray, weight: np.ndarray, params: SolverParams) -> tuple:
    """What a warm start must find unchanged to continue a run exactly: data, kernel, bounds."""
    digest = hashlib.sha256()
    for a in (X, y, weight):
        digest.update(np.ascontiguousarray(a).view(np.uint8))
    return digest.hexdigest(), params.kernel, params.gamma, params.C


class SMOClassifier(ClassifierMixin, BaseEstimator):
    """Binary SVM trained by SMO, optionally stopped early on validation data.

    With ``solver='fan'`` this is LIBSVM's algorithm without shrinking (same
    iterations as ``SVC(shrinking=False)``), plus early stopping inside the loop.
    Samples are grouped by class as LIBSVM does, so ties break alike.

    Parameters
    ----------
    kernel : {'rbf', 'linear'}
    C : float
        Box constraint, > 0.
    gamma : 'scale', 'auto' or float
        RBF width; 'scale' is ``1 / (n_features * X.var())`` as in SVC.
    tol : float
        SMO stopping tolerance on the maximal KKT violation ``m(a) - M(a)``.
    max_iter : int
        Iteration limit (pair updates) for every solver; -1 (SVC's default) leaves
        LIBSVM's own limit, ``max(10^7, 100 n)``. Hitting it warns and sets
        ``max_iter_reached_``.
    early_stopping : bool
        Stop on the validation objective (protocol section 5).
    n_iter_no_change : int
        Patience p, counted in checks.
    es_tol : float
        Minimum improvement of the objective that resets the patience.
    validation_interval : int
        Check interval r: the objective is evaluated every r iterations.
    es_metric : {'accuracy', 'hinge', 'mdl_logistic', 'smoothed_error', 'f_measure'} or Metric
        The objective early stopping reads: validation accuracy, hinge loss,
        sigmoid-smoothed error or F-measure (the gradient-tuning paper's),
        or the training set's logistic description length (the MDL paper's
        code, from the solver's gradient): no validation split, no tracking cost;
        or a :class:`esmo.early_stopping.Metric` of the user's.
    restore_best : bool
        Return the best checked iterate instead of the one at the stop.
    es_evaluation : {'auto', 'incremental', 'fresh'}
        How checks read the validation decision values: moved by each
        iteration's two changed alphas, computed afresh from the alphas at each
        check (the thesis's own cost model; no tracking cost between checks),
        or 'auto': afresh for large intervals. Outcomes agree up to the last
        bits of the decision values.
    validation_fraction : float
        Share of the training data held out (stratified) for early stopping
        when ``fit`` gets no ``X_val``.
    solver : {'fan', 'keerthi', 'fan_plain'}
        The numba solver, or appendix A's reference solvers (no early stopping).
    cache_size_mb : float
        Memory budget of the kernel rows (computed on demand; LRU if not all fit).
    random_state : int, RandomState or None
        Seeds the internal validation split.
    class_weight : dict, 'balanced' or None
        Multiplies ``C`` per class, as in SVC: point ``t`` gets the upper bound
        ``C * class_weight[y_t] * sample_weight[t]``; 'balanced' weighs each
        class by ``n_samples / (2 * its count)``.
    warm_start : bool
        Start from the previous fit's solution. When only ``max_iter`` or the
        early-stopping settings changed (same data, kernel, ``C`` and weights),
        the solver continues exactly where it stopped: a fit cut by
        ``max_iter=k`` and then continued equals the uninterrupted fit, and
        ``n_iter_`` and ``max_iter`` count from the cold start. Otherwise (new
        ``C``, ``gamma``, weights or data of the same size) it starts from the
        previous alphas clipped into the new box, ``y'a = 0`` repaired, and
        counts its iterations from 0. Only ``solver='fan'``.
    max_time : float or None
        Wall-clock budget of one fit in seconds (the thesis code's ``time_lim``):
        the fit ends at the first look at the clock past it and sets
        ``max_time_reached_``. The one stopping rule that depends on the machine,
        so results under it are not reproducible. Only ``solver='fan'``.

    Attributes
    ----------
    classes_, support_, support_vectors_, dual_coef_, intercept_, n_iter_,
    stopped_early_, max_iter_reached_, max_time_reached_, stopped_by_callback_, rho_,
    gamma_, class_weight_, n_features_in_.
    ``decision_function(x) = dual_coef_ @ K(support_vectors_, x) + intercept_``;
    a value >= 0 predicts ``classes_[1]`` (LIBSVM's rule).
    """

    _parameter_constraints: dict = {
        **{
            name: SOLVER_CONSTRAINTS[name]
            for name in ("kernel", "C", "tol", "max_iter", "cache_size_mb")
        },
        "gamma": [StrOptions({"scale", "auto"}), *SOLVER_CONSTRAINTS["gamma"]],
        "early_stopping": ["boolean"],
        # checked in fit by the early-stopping rules (esmo.early_stopping), under these names
        **dict.fromkeys(_ES_PARAMS, "no_validation"),
        "es_evaluation": [StrOptions(set(EVALUATIONS))],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "solver": [StrOptions(set(_SOLVERS))],
        "random_state": ["random_state"],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "warm_start": ["boolean"],
        "max_time": [Interval(Real, 0, None, closed="neither"), None],
    }

    def __init__(
        self,
        kernel: str = SolverParams.kernel,
        C: float = SolverParams.C,
        gamma: str | float = "scale",
        tol: float = SolverParams.tol,
        max_iter: int = SolverParams.max_iter,
        early_stopping: bool = False,
        n_iter_no_change: int = 10,
        es_tol: float = 0.0,
        validation_interval: int = 1,
        es_metric: str = "accuracy",
        restore_best: bool = False,
        es_evaluation: str = "auto",
        validation_fraction: float = 0.2,
        solver: str = "fan",
        cache_size_mb: float = SolverParams.cache_size_mb,
        random_state: Any = None,
        class_weight: dict | str | None = None,
        warm_start: bool = False,
        max_time: float | None = None,
    ) -> None:
        self.kernel = kernel
        self.C = C
        self.gamma = gamma
        self.tol = tol
        self.max_iter = max_iter
        self.early_stopping = early_stopping
        self.n_iter_no_change = n_iter_no_change
        self.es_tol = es_tol
        self.validation_interval = validation_interval
        self.es_metric = es_metric
        self.restore_best = restore_best
        self.es_evaluation = es_evaluation
        self.validation_fraction = validation_fraction
        self.solver = solver
        self.cache_size_mb = cache_size_mb
        self.random_state = random_state
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.max_time = max_time

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _encode(self, y: np.ndarray, name: str) -> np.ndarray:
        """Labels to LIBSVM's internal signs: +1 for ``classes_[0]``, -1 for ``classes_[1]``."""
        unknown = ~np.isin(y, self.classes_)
        if unknown.any():
            raise ValueError(
                f"{name} holds label(s) {np.unique(y[unknown])[:5].tolist()} not seen in y "
                f"(classes {self.classes_.tolist()})."
            )
        return np.where(y == self.classes_[0], 1.0, -1.0)

    def fit(
        self,
        X: Any,
        y: Any,
        sample_weight: Any = None,
        X_val: Any = None,
        y_val: Any = None,
        callback: Callable[[CheckInfo], Any] | None = None,
    ) -> SMOClassifier:
        """Train on ``(X, y)``; early stopping reads ``(X_val, y_val)`` or an internal split.

        ``sample_weight`` multiplies ``C`` per training point, as in SVC.
        ``callback`` is called at every early-stopping check with a
        :class:`~esmo.solver.result.CheckInfo` (iteration, validation accuracy
        and hinge loss, KKT gap); a true return ends the fit (an HPO pruner's
        hook: docs/optuna.md). It needs ``early_stopping=True``; a large
        ``n_iter_no_change`` leaves the stopping to the callback alone.
        """
        self._validate_params()
        es = self._early_stopping_config()
        X, y = validate_data(self, X, y, dtype=np.float64, order="C")
        self.classes_ = _binary_classes(y)
        self._check_solver_options(callback)
        if (X_val is None) != (y_val is None):
            raise ValueError("Pass both X_val and y_val, or neither.")
        if X_val is not None and not (self.early_stopping and reads_validation(self.es_metric)):
            warnings.warn(
                "X_val and y_val are ignored: no validation objective is read (early_stopping "
                f"={self.early_stopping}, es_metric={self.es_metric!r}); set early_stopping=True "
                "with es_metric 'accuracy' or 'hinge' to stop on them, or stop passing them.",
                UserWarning,
                stacklevel=2,
            )
        y_int = self._encode(y, "y")
        weight = self._point_weights(y, sample_weight)
        self.gamma_ = self._resolve_gamma(X)
        params = SolverParams(
            kernel=self.kernel,
            C=self.C,
            gamma=self.gamma_,
            tol=self.tol,
            max_iter=self.max_iter,
            cache_size_mb=self.cache_size_mb,
        )
        validation = None
        if self.early_stopping and reads_validation(es.metric):
            X, y_int, weight, validation = self._validation_data(X, y_int, weight, X_val, y_val)
        # LIBSVM groups samples by class (classes_[0] first, order kept within a class)
        order = np.argsort(-y_int, kind="stable")
        X_s, y_s, w_s = X[order], y_int[order], weight[order]
        state = self._starting_state(X_s, y_s, w_s, params)
        run = {
            "sample_weight": w_s,
            "state": state,
            "callback": callback,
            "max_time": self.max_time,
        }
        result = self._solve(X_s, y_s, params, es if self.early_stopping else None, validation, run)
        alpha = np.empty_like(result.alpha)
        alpha[order] = result.alpha
        self._set_model(X, y_int, alpha, result)
        self._warm = (_problem_key(X_s, y_s, w_s, params), result.state)
        return self

    def _check_solver_options(self, callback: Any) -> None:
        """The options only the numba solver has, and the callback's need for checks."""
        if self.solver != "fan":
            for option in ("early_stopping", "warm_start", "max_time"):
                if getattr(self, option) not in (False, None):
                    raise ValueError(
                        f"{option} is only supported by solver='fan', not {self.solver!r}; "
                        f"unset {option} or use solver='fan'."
                    )
        if callback is not None and not self.early_stopping:
            raise ValueError(
                "callback is called at early-stopping checks, and early_stopping=False makes "
                "none; set early_stopping=True (a large n_iter_no_change leaves the stopping "
                "to the callback)."
            )
        if callback is not None and not callable(callback):
            raise TypeError(f"callback must be callable, got {type(callback).__name__}.")

    def _point_weights(self, y: np.ndarray, sample_weight: Any) -> np.ndarray:
        """Each point's multiplier of ``C``: its class weight times its sample weight."""
        weight = as_sample_weight(sample_weight, y.shape[0])
        if self.class_weight is None:
            self.class_weight_ = np.ones(2)
            return weight
        if isinstance(self.class_weight, dict):
            absent = set(self.class_weight) - set(self.classes_.tolist())
            if absent:
                raise ValueError(
                    f"class_weight names class(es) {sorted(absent, key=str)} that are not in y "
                    f"(classes {self.classes_.tolist()}); use the labels of y as keys."
                )
        self.class_weight_ = compute_class_weight(self.class_weight, classes=self.classes_, y=y)
        if not np.all(np.isfinite(self.class_weight_) & (self.class_weight_ > 0)):
            raise ValueError(
                f"class_weight must be positive and finite, got {self.class_weight!r}; "
                "an SVM cannot ignore a whole class."
            )
        return weight * self.class_weight_[np.searchsorted(self.classes_, y)]

    def _starting_state(
        self, X: np.ndarray, y: np.ndarray, weight: np.ndarray, params: SolverParams
    ) -> SolverState | None:
        """None (a cold start), the previous fit's state to continue, or a state seeded from it."""
        previous = getattr(self, "_warm", None)
        if not self.warm_start or previous is None or previous[1] is None:
            return None
        key, state = previous
        if state.alpha.shape[0] != y.shape[0]:
            raise ValueError(
                f"warm_start=True needs the same training set as the previous fit "
                f"({state.alpha.shape[0]} points), got {y.shape[0]}; set warm_start=False "
                "to fit from scratch."
            )
        if _problem_key(X, y, weight, params) == key:
            return SolverState(*(a.copy() for a in state))
        return warm_state(X, y, state.alpha, params, sample_weight=weight)

    def _resolve_gamma(self, X: np.ndarray) -> float:
        """The RBF width: SVC's 'scale' (``1 / (d var(X))``) and 'auto' (``1 / d``), or the number."""
        if self.gamma == "scale":
            var = X.var()
            return 1.0 / (X.shape[1] * var) if var > 0 else 1.0
        if self.gamma == "auto":
            return 1.0 / X.shape[1]
        return float(self.gamma)

    def _validation_data(
        self, X: np.ndarray, y_int: np.ndarray, weight: np.ndarray, X_val: Any, y_val: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
        """The training part (points, signs, weights) and ``(X_val, y_val)``: given, or split off."""
        if X_val is None:
            X, X_val, y_int, y_val_int, weight, _ = train_test_split(
                X,
                y_int,
                weight,
                test_size=self.validation_fraction,
                stratify=y_int,
                random_state=self.random_state,
            )
            if np.all(y_int == y_int[0]):
                raise ValueError(
                    "The training part left after the validation split holds a single class; "
                    "lower validation_fraction or pass X_val and y_val."
                )
            return X, y_int, weight, (X_val, y_val_int)
        X_val = validate_data(self, X_val, dtype=np.float64, order="C", reset=False)
        y_val = np.asarray(y_val)
        if y_val.ndim != 1 or y_val.shape[0] != X_val.shape[0]:
            raise ValueError(
                f"y_val must be 1-D with one label per row of X_val ({X_val.shape[0]}), "
                f"got shape {y_val.shape}."
            )
        return X, y_int, weight, (X_val, self._encode(y_val, "y_val"))

    def _early_stopping_config(self) -> EarlyStopping:
        """The early-stopping parameters as a configuration, checked by its rules under our names."""
        fields = {field: [getattr(self, name)] for name, field in _ES_PARAMS.items()}
        valid = validate_configurations(fields, labels={f: n for n, f in _ES_PARAMS.items()})
        return EarlyStopping._checked(valid)

    def _solve(
        self,
        X: np.ndarray,
        y: np.ndarray,
        params: SolverParams,
        es: EarlyStopping | None,
        validation: tuple[np.ndarray, np.ndarray] | None,
        run: dict[str, Any],
    ) -> SolverResult:
        """The chosen solver's result on samples grouped by class, as LIBSVM orders them.

        ``run`` holds :func:`run_smo`'s weights, starting state, callback and time budget.
        """
        if self.solver != "fan":
            if np.any(run["sample_weight"] != 1.0):
                raise ValueError(
                    f"class_weight and sample_weight need solver='fan'; solver={self.solver!r} "
                    "solves the unweighted problem only."
                )
            from esmo.solver import reference

            solve = reference.keerthi_smo if self.solver == "keerthi" else reference.plain_fan_smo
            names = ("kernel", "C", "gamma", "tol", "max_iter")
            return solve(X, y, **{name: getattr(params, name) for name in names})
        if es is None:
            return run_smo(X, y, params, **run)[0]
        X_val, y_val = validation if validation is not None else (None, None)
        configs = EarlyStoppingSet.of([es])
        return run_smo(
            X,
            y,
            params,
            **run,
            configs=configs,
            X_val=X_val,
            y_val=y_val,
            evaluation=self.es_evaluation,
        )[0]

    def _set_model(
        self, X: np.ndarray, y_int: np.ndarray, alpha: np.ndarray, result: SolverResult
    ) -> None:
        """The fitted attributes, in SVC's orientation: positive values mean ``classes_[1]``."""
        self.support_ = np.flatnonzero(alpha > 0).astype(np.int32)
        self.support_vectors_ = X[self.support_]
        self.dual_coef_ = (-alpha[self.support_] * y_int[self.support_])[None, :]
        self.intercept_ = np.array([result.rho])
        self.rho_ = result.rho
        self.n_iter_ = result.n_iter
        self.stopped_early_ = result.stopped_early
        self.max_iter_reached_ = result.max_iter_reached
        self.max_time_reached_ = result.max_time_reached
        self.stopped_by_callback_ = result.stopped_by_callback
        if result.max_iter_reached:
            warnings.warn(
                f"SMO stopped at max_iter={self.max_iter} before reaching tol={self.tol}; "
                "raise max_iter or tol.",
                ConvergenceWarning,
                stacklevel=3,
            )

    def decision_function(self, X: Any) -> np.ndarray:
        """Signed distance-like score; >= 0 means ``classes_[1]``."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, order="C", reset=False)
        if self.support_.shape[0] == 0:
            return np.full(X.shape[0], self.intercept_[0])
        K = kernel_matrix(X, self.support_vectors_, self.kernel, self.gamma_)
        return K @ self.dual_coef_[0] + self.intercept_[0]

    def predict(self, X: Any) -> np.ndarray:
        """``classes_[1]`` where the decision value is >= 0, else ``classes_[0]``."""
        check_is_fitted(self)
        return self.classes_[(self.decision_function(X) >= 0).astype(np.intp)]
