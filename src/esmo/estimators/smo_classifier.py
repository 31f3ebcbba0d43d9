"""``SMOClassifier``: the SMO solvers behind a scikit-learn classifier, with early stopping."""

from __future__ import annotations

import warnings
from numbers import Real
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from esmo.early_stopping import (
    EarlyStopping,
    EarlyStoppingSet,
    validate_configurations,
)
from esmo.solver.kernels import kernel_matrix
from esmo.solver.params import SOLVER_CONSTRAINTS, SolverParams
from esmo.solver.result import SolverResult
from esmo.solver.smo import run_smo

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
    es_metric : {'accuracy', 'hinge'}
    restore_best : bool
        Return the best checked iterate instead of the one at the stop.
    validation_fraction : float
        Share of the training data held out (stratified) for early stopping
        when ``fit`` gets no ``X_val``.
    solver : {'fan', 'keerthi', 'fan_plain'}
        The numba solver, or appendix A's reference solvers (no early stopping).
    cache_size_mb : float
        Memory budget of the kernel rows (computed on demand; LRU if not all fit).
    random_state : int, RandomState or None
        Seeds the internal validation split.

    Attributes
    ----------
    classes_, support_, support_vectors_, dual_coef_, intercept_, n_iter_,
    stopped_early_, max_iter_reached_, rho_, gamma_, n_features_in_,
    n_kernel_evaluations_ (kernel values the fit computed; 0 for the reference solvers).
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
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "solver": [StrOptions(set(_SOLVERS))],
        "random_state": ["random_state"],
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
        validation_fraction: float = 0.2,
        solver: str = "fan",
        cache_size_mb: float = SolverParams.cache_size_mb,
        random_state: Any = None,
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
        self.validation_fraction = validation_fraction
        self.solver = solver
        self.cache_size_mb = cache_size_mb
        self.random_state = random_state

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

    def fit(self, X: Any, y: Any, X_val: Any = None, y_val: Any = None) -> SMOClassifier:
        """Train on ``(X, y)``; early stopping reads ``(X_val, y_val)`` or an internal split."""
        self._validate_params()
        es = self._early_stopping_config()
        X, y = validate_data(self, X, y, dtype=np.float64, order="C")
        self.classes_ = _binary_classes(y)
        if self.solver != "fan" and self.early_stopping:
            raise ValueError(
                f"early_stopping is only supported by solver='fan', not {self.solver!r}; "
                "set early_stopping=False or solver='fan'."
            )
        if (X_val is None) != (y_val is None):
            raise ValueError("Pass both X_val and y_val, or neither.")
        if X_val is not None and not self.early_stopping:
            warnings.warn(
                "X_val and y_val are ignored because early_stopping=False; set "
                "early_stopping=True to stop on them, or stop passing them.",
                UserWarning,
                stacklevel=2,
            )
        y_int = self._encode(y, "y")
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
        if self.early_stopping:
            X, y_int, validation = self._validation_data(X, y_int, X_val, y_val)
        # LIBSVM groups samples by class (classes_[0] first, order kept within a class)
        order = np.argsort(-y_int, kind="stable")
        result = self._solve(X[order], y_int[order], params, es if validation else None, validation)
        alpha = np.empty_like(result.alpha)
        alpha[order] = result.alpha
        self._set_model(X, y_int, alpha, result)
        return self

    def _resolve_gamma(self, X: np.ndarray) -> float:
        """The RBF width: SVC's 'scale' (``1 / (d var(X))``) and 'auto' (``1 / d``), or the number."""
        if self.gamma == "scale":
            var = X.var()
            return 1.0 / (X.shape[1] * var) if var > 0 else 1.0
        if self.gamma == "auto":
            return 1.0 / X.shape[1]
        return float(self.gamma)

    def _validation_data(
        self, X: np.ndarray, y_int: np.ndarray, X_val: Any, y_val: Any
    ) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
        """The training part and ``(X_val, y_val)`` in internal signs: given, or split off."""
        if X_val is None:
            X, X_val, y_int, y_val_int = train_test_split(
                X,
                y_int,
                test_size=self.validation_fraction,
                stratify=y_int,
                random_state=self.random_state,
            )
            if np.all(y_int == y_int[0]):
                raise ValueError(
                    "The training part left after the validation split holds a single class; "
                    "lower validation_fraction or pass X_val and y_val."
                )
            return X, y_int, (X_val, y_val_int)
        X_val = validate_data(self, X_val, dtype=np.float64, order="C", reset=False)
        y_val = np.asarray(y_val)
        if y_val.ndim != 1 or y_val.shape[0] != X_val.shape[0]:
            raise ValueError(
                f"y_val must be 1-D with one label per row of X_val ({X_val.shape[0]}), "
                f"got shape {y_val.shape}."
            )
        return X, y_int, (X_val, self._encode(y_val, "y_val"))

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
    ) -> SolverResult:
        """The chosen solver's result on samples grouped by class, as LIBSVM orders them."""
        if self.solver != "fan":
            from esmo.solver import reference

            solve = reference.keerthi_smo if self.solver == "keerthi" else reference.plain_fan_smo
            names = ("kernel", "C", "gamma", "tol", "max_iter")
            return solve(X, y, **{name: getattr(params, name) for name in names})
        if es is None or validation is None:
            return run_smo(X, y, params)[0]
        configs = EarlyStoppingSet.of([es])
        return run_smo(X, y, params, configs=configs, X_val=validation[0], y_val=validation[1])[0]

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
        self.n_kernel_evaluations_ = result.kernel_evaluations
        self.stopped_early_ = result.stopped_early
        self.max_iter_reached_ = result.max_iter_reached
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
