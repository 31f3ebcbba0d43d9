"""``PegasosClassifier``: kernel Pegasos behind a scikit-learn classifier, with early stopping."""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from esmo.early_stopping import EarlyStopping, EarlyStoppingSet
from esmo.estimators import base
from esmo.estimators.base import SVMClassifierBase, check_kernel_finite
from esmo.solver.kernels import kernel_matrix
from esmo.solver.params import KERNELS, SolverParams
from esmo.solver.pegasos import LAM, run_pegasos
from esmo.solver.tracking import BEST_ITER


class PegasosClassifier(SVMClassifierBase):
    """Binary kernel SVM without bias, trained by kernel Pegasos, optionally stopped early.

    Minimises ``(lam/2) ||f||^2 + (1/m) sum_i max(0, 1 - y_i f(x_i))`` by ``n_steps``
    stochastic sub-gradient steps (esmo.solver.pegasos). Give ``lam`` or ``C``
    (then ``lam = 1/(C m)``, the C-SVM without bias), not both; neither means
    ``lam = 1e-4`` (:data:`esmo.solver.pegasos.LAM`, the NSVM paper's value).

    Parameters
    ----------
    lam, C : float or None
        Regularisation weight (> 0), or the box constraint it corresponds to.
    kernel : {'rbf', 'linear'}
    gamma : 'scale', 'auto' or float
        RBF width: ``K(a, b) = exp(-gamma ||a - b||^2)``; 'scale' and 'auto' are SVC's.
    n_steps : int
        T, the number of steps (samples drawn), >= 1.
    early_stopping, n_iter_no_change, es_tol, validation_interval, es_metric, restore_best, es_rule, validation_fraction :
        As in :class:`~esmo.estimators.smo_classifier.SMOClassifier`, counted in
        steps: every ``validation_interval`` steps the validation objective of
        ``f_t`` is read.
    random_state : int, RandomState or None
        Seeds the drawn samples and the internal validation split.

    Attributes
    ----------
    classes_, support_, support_vectors_
    alpha_
        Violation counts, one per training row.
    dual_coef_
        ``alpha_j y_j / (lam T)``, positive for ``classes_[1]``.
    lam_, gamma_
    n_steps_
        T of the returned model.
    n_violations_, stopped_early_, n_features_in_
    n_kernel_evaluations_
        Kernel values the fit computed: a row over the training points per
        violation, and over the validation points too with early stopping.
    """

    _es_params = base.ES_PARAMS

    _parameter_constraints: dict = {
        "lam": [Interval(Real, 0, None, closed="neither"), None],
        "C": [Interval(Real, 0, None, closed="neither"), None],
        "kernel": [StrOptions(set(KERNELS))],
        "gamma": base.GAMMA_CONSTRAINT,
        "n_steps": [Interval(Integral, 1, None, closed="left")],
        "early_stopping": ["boolean"],
        **dict.fromkeys(base.ES_PARAMS, "no_validation"),
        "validation_fraction": base.VALIDATION_FRACTION_CONSTRAINT,
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        lam: float | None = None,
        C: float | None = None,
        kernel: str = SolverParams.kernel,
        gamma: str | float = 1.0,
        n_steps: int = 10_000,
        early_stopping: bool = False,
        n_iter_no_change: int = base.N_ITER_NO_CHANGE,
        es_tol: float = base.ES_TOL,
        validation_interval: int = 100,
        es_metric: str = EarlyStopping.metric,
        restore_best: bool = EarlyStopping.restore_best,
        es_rule: str = EarlyStopping.rule,
        validation_fraction: float = base.VALIDATION_FRACTION,
        random_state: Any = None,
    ) -> None:
        self.lam = lam
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.n_steps = n_steps
        self.early_stopping = early_stopping
        self.n_iter_no_change = n_iter_no_change
        self.es_tol = es_tol
        self.validation_interval = validation_interval
        self.es_metric = es_metric
        self.restore_best = restore_best
        self.es_rule = es_rule
        self.validation_fraction = validation_fraction
        self.random_state = random_state

    def fit(self, X: Any, y: Any, X_val: Any = None, y_val: Any = None) -> PegasosClassifier:
        """Train on ``(X, y)``; early stopping reads ``(X_val, y_val)`` or an internal split."""
        self._validate_params()
        if self.lam is not None and self.C is not None:
            raise ValueError(
                f"Give lam or C, not both (got lam={self.lam}, C={self.C}); C means lam = 1/(C m)."
            )
        es = self._early_stopping_config()
        X, y = validate_data(self, X, y, dtype=np.float64, order="C")
        self._set_classes(y)
        self._check_validation_pair(X_val, y_val)
        ys = self._signs(y, "y")
        validation: dict[str, Any] = {}
        if self.early_stopping:
            if X_val is None:
                (X, ys), (X_v, y_v) = self._split_validation(X, ys)
            else:
                X_v, y_val = self._check_validation_data(X_val, y_val)
                y_v = self._signs(y_val, "y_val")
            validation = {"configs": EarlyStoppingSet.of([es]), "X_val": X_v, "y_val": y_v}
        m = X.shape[0]
        self.lam_ = float(
            self.lam if self.lam is not None else LAM if self.C is None else 1.0 / (self.C * m)
        )
        self.gamma_ = self._resolve_gamma(X)
        check_kernel_finite(X, self.kernel, self.gamma_)
        result, tr = run_pegasos(
            X,
            ys,
            lam=self.lam_,
            n_steps=self.n_steps,
            gamma=self.gamma_,
            kernel=self.kernel,
            random_state=self.random_state,
            **validation,
        )
        alpha, n_steps = result.alpha, result.n_steps
        if result.stopped_early and self.restore_best and tr.out_iter[0, BEST_ITER] > 0:
            alpha, n_steps = tr.best_alpha[0].copy(), int(tr.out_iter[0, BEST_ITER])
        self.alpha_ = alpha
        self.n_steps_ = n_steps
        self.n_violations_ = result.n_violations
        self.n_kernel_evaluations_ = result.kernel_evaluations
        self.stopped_early_ = result.stopped_early
        self.support_ = np.flatnonzero(alpha > 0).astype(np.int32)
        self.support_vectors_ = X[self.support_]
        self.dual_coef_ = (alpha[self.support_] * ys[self.support_] / (self.lam_ * n_steps))[
            None, :
        ]
        self._check_finite_model(X)
        return self

    def _check_finite_model(self, X: np.ndarray) -> None:
        """Refuse a model whose decision values can overflow on the training rows.

        ``|f(x)| <= sum_j |c_j| max K``, with ``max K`` 1 for the RBF kernel and the
        largest ``<x, x>`` for the linear one: a bound of a few operations that is
        finite whenever the decision values are (up to cancellations of ~1e308).
        """
        with np.errstate(over="ignore", invalid="ignore"):
            k_max = 1.0 if self.kernel == "rbf" else float(np.einsum("ij,ij->i", X, X).max())
            bound = float(np.abs(self.dual_coef_).sum()) * k_max
        if not np.isfinite(bound):
            raise ValueError(
                f"the model's decision values can overflow float64 (sum |c| max K = {bound}; "
                f"largest |X| = {np.abs(X).max():.3g}, lam = {self.lam_:g}): scale the "
                "features (e.g. MinMaxScaler) or raise lam."
            )

    def decision_function(self, X: Any) -> np.ndarray:
        """``f(x) = sum_j alpha_j y_j K(x_j, x) / (lam T)``; >= 0 means ``classes_[1]``."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, order="C", reset=False)
        K = kernel_matrix(X, self.support_vectors_, self.kernel, self.gamma_)
        with np.errstate(over="ignore", invalid="ignore"):
            decision = K @ self.dual_coef_[0]
        if not np.isfinite(decision).all():
            raise ValueError(
                f"the decision values of {int(np.sum(~np.isfinite(decision)))} row(s) overflow "
                f"float64 (largest |X| = {np.abs(X).max():.3g}); scale them as the training "
                "rows were."
            )
        return decision

    def predict(self, X: Any) -> np.ndarray:
        """``classes_[1]`` where the decision value is >= 0 (the paper's rule), else ``classes_[0]``."""
        positive = self.decision_function(X) >= 0
        return self.classes_[positive.astype(np.intp)]
