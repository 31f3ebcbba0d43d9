"""What every esmo estimator shares, written once: gamma, early-stopping parameters, labels, the split.

:class:`SVMClassifierBase` is scikit-learn's ``ClassifierMixin`` and
``BaseEstimator`` with the steps each estimator (``SMOClassifier``,
``PegasosClassifier``, ``SVMEnsembleClassifier``, ``MDLSearch``,
``GradientSearchCV``, the NSVM classifiers) used to write for itself:

- the classes of ``y`` (two, or two or more for ``SMOClassifier``'s
  one-vs-one) and labels as signs in {-1, +1} (:func:`check_classes`,
  :func:`encode_labels`);
- the RBF width: SVC's ``'scale'`` and ``'auto'`` or a number, refused when it
  or the variance it is computed from is not a finite number
  (:func:`resolve_gamma`);
- the early-stopping parameters, named the estimator's way (``n_iter_no_change``
  ...), as one :class:`~esmo.early_stopping.EarlyStopping` checked by
  :func:`esmo.early_stopping.validate_configurations` under those names
  (:func:`early_stopping_of`);
- the validation data: given ``(X_val, y_val)`` checked like ``X`` and ``y``,
  or a stratified share of the training data held out.

The functions serve callers that are not estimators; the class binds them to
the estimator's parameters and fitted ``classes_``. :class:`RefittedSearchMixin`
gives a search that hands back one refitted model (``MDLSearch``, the
searches of :mod:`esmo.tuning`) its predictions through that model.
"""

from __future__ import annotations

import re
from numbers import Real
from typing import Any

import joblib
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import train_test_split
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from esmo.early_stopping import EarlyStopping, validate_configurations
from esmo.solver import sparse
from esmo.solver.params import SOLVER_CONSTRAINTS

#: The constraint of a ``gamma`` resolved at fit: SVC's 'scale' and 'auto', or a positive number.
GAMMA_CONSTRAINT: list = [StrOptions({"scale", "auto"}), *SOLVER_CONSTRAINTS["gamma"]]

#: The early-stopping parameters of ``SMOClassifier`` and ``PegasosClassifier``: each
#: parameter's name and the :class:`~esmo.early_stopping.EarlyStopping` field it sets.
ES_PARAMS: dict[str, str] = {
    "n_iter_no_change": "patience",
    "es_tol": "tol",
    "validation_interval": "interval",
    "es_metric": "metric",
    "restore_best": "restore_best",
    "es_rule": "rule",
}

#: The estimators' default patience (``n_iter_no_change``, as scikit-learn's MLP and
#: gradient boosting) and minimum improvement.
N_ITER_NO_CHANGE = 10
ES_TOL = 0.0
#: The share of the training data held out for early stopping when ``fit`` gets no ``X_val``.
VALIDATION_FRACTION = 0.2
VALIDATION_FRACTION_CONSTRAINT: list = [Interval(Real, 0, 1, closed="neither")]


def resolve_n_jobs(n_jobs: int | None) -> int:
    """scikit-learn's ``n_jobs`` as a thread count: None is 1, -1 every core, -2 all but one."""
    if n_jobs is None:
        return 1
    if n_jobs == 0:
        raise ValueError("n_jobs=0 names no thread; use None or 1 for one, -1 for every core")
    return joblib.effective_n_jobs(n_jobs)


def resolve_gamma(gamma: str | float, X: Any, dtype: Any = np.float64) -> float:
    """The RBF width: SVC's 'scale' (``1 / (d var(X))``, 1 for constant X), 'auto' (``1 / d``), or the number.

    Refused with the fix: a variance of ``X`` that overflows float64, and a width
    that is not finite in ``dtype`` (a tiny variance gives ``1 / (d var(X)) = inf``;
    a number too large for float32 is inf there). For sparse ``X`` (canonical
    CSR) the variance is that of the dense array, to the bit
    (:func:`esmo.solver.sparse.dense_variance`), so both give one width.
    """
    if gamma == "scale":
        with np.errstate(over="ignore"):
            var = sparse.dense_variance(X) if sparse.is_sparse(X) else X.var()
        if not np.isfinite(var):
            raise ValueError(
                "gamma='scale' needs the variance of X, which overflows float64 (largest "
                f"|X| = {sparse.largest_abs(X):.3g}); scale the features (e.g. MinMaxScaler) or "
                "pass a number as gamma."
            )
        with np.errstate(over="ignore", divide="ignore"):
            value = 1.0 / (X.shape[1] * var) if var > 0 else 1.0
        if not value <= np.finfo(dtype).max:
            raise ValueError(
                f"gamma='scale' is 1 / (n_features var(X)), which overflows {np.dtype(dtype)} "
                f"(var(X) = {var:.3g}); scale the features (e.g. MinMaxScaler) or pass a "
                "number as gamma."
            )
        return float(value)
    if gamma == "auto":
        return 1.0 / X.shape[1]
    value = float(gamma)
    if not value <= float(np.finfo(dtype).max):
        wider = " or set dtype='float64'" if np.dtype(dtype) != np.float64 else ""
        raise ValueError(
            f"gamma={value:g} overflows {np.dtype(dtype)} (largest {np.finfo(dtype).max:.3g}); "
            f"lower gamma{wider}."
        )
    return value


def early_stopping_of(estimator: Any, params: dict[str, str] = ES_PARAMS) -> EarlyStopping:
    """The estimator's early-stopping parameters as one configuration, checked under their names.

    ``params`` maps the estimator's parameter names to the
    :class:`~esmo.early_stopping.EarlyStopping` fields they set; a field it does
    not name takes EarlyStopping's default (accuracy, no ``restore_best``, the
    published rule). A bad value is refused by
    :func:`~esmo.early_stopping.validate_configurations`, naming the parameter.
    """
    given = {
        "metric": [EarlyStopping.metric],
        "restore_best": [EarlyStopping.restore_best],
        "rule": [EarlyStopping.rule],
    }
    given |= {field: [getattr(estimator, name)] for name, field in params.items()}
    labels = {field: name for name, field in params.items()}
    return EarlyStopping._checked(validate_configurations(given, labels=labels))


def check_classes(y: np.ndarray, estimator: str, *, binary: bool = True) -> np.ndarray:
    """The classes of ``y``: two (``binary``) or two or more, or a clear error for any other target."""
    # one type_of_target call (sklearn's check_classification_targets would make a
    # second, ~0.2 ms: about as long as SMO on successive halving's small subsamples)
    target = type_of_target(y, input_name="y", raise_unknown=True)
    if target.startswith("continuous"):
        raise ValueError(
            f"Unknown label type: {target}. y looks like a regression target; "
            f"{estimator} needs discrete class labels."
        )
    if target not in ("binary", "multiclass"):
        raise ValueError(
            f"Unknown label type: {target}. {estimator} needs one label per sample "
            "(a 1-D y of class labels), not a multilabel or multioutput target."
        )
    classes = np.unique(y)
    if classes.shape[0] < 2:
        raise ValueError(f"y holds one class only ({classes.tolist()}); an SVM needs two classes.")
    if binary and classes.shape[0] != 2:
        raise ValueError(
            f"Only binary classification is supported: {estimator} trains binary SVMs, and y "
            f"holds {classes.shape[0]} classes ({classes.tolist()[:5]}); wrap the estimator "
            "in sklearn.multiclass.OneVsRestClassifier."
        )
    return classes


def encode_labels(y: np.ndarray, classes: np.ndarray, name: str, positive: int = 1) -> np.ndarray:
    """Labels as signs: +1 for ``classes[positive]``, -1 for the other class; unseen labels refused."""
    unknown = ~np.isin(y, classes)
    if unknown.any():
        raise ValueError(
            f"{name} holds label(s) {np.unique(y[unknown])[:5].tolist()} not seen in y "
            f"(classes {classes.tolist()})."
        )
    return np.where(y == classes[positive], 1.0, -1.0)


def check_kernel_finite(X: Any, kernel: str, gamma: float) -> None:
    """Refuse data whose kernel values overflow float64: the solver would return NaNs."""
    if kernel != "linear":
        return  # exp(-gamma ||x - z||^2) stays in [0, 1] for any finite X
    with np.errstate(over="ignore", invalid="ignore"):
        squares = sparse.squared_norms(X) if sparse.is_sparse(X) else np.einsum("ij,ij->i", X, X)
    if not np.isfinite(squares).all():
        raise ValueError(
            "the linear kernel <x, x> overflows float64 for "
            f"{np.count_nonzero(~np.isfinite(squares))} row(s) of X (largest |X| = "
            f"{sparse.largest_abs(X):.3g}); scale the features (e.g. MinMaxScaler)."
        )


class SVMClassifierBase(ClassifierMixin, BaseEstimator):
    """scikit-learn's classifier base with the steps esmo's estimators share (see the module).

    Class attributes a subclass sets: ``_multiclass`` (y may hold more than two
    classes; also the ``multi_class`` tag), ``_positive_class`` (the index in
    ``classes_`` of the class whose sign is +1) and ``_es_params`` (its
    early-stopping parameters, as :data:`ES_PARAMS`). The validation split reads
    the parameters ``validation_fraction`` and ``random_state``.
    """

    _multiclass: bool = False
    _positive_class: int = 1
    _es_params: dict[str, str] = {}
    #: the scipy.sparse formats ``X`` may come in (converted to CSR); () refuses sparse X
    _accept_sparse: tuple[str, ...] = ()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = self._multiclass
        tags.input_tags.sparse = bool(self._accept_sparse)
        return tags

    def _validate_X(self, X: Any, y: Any = "no_validation", reset: bool = True) -> Any:
        """``validate_data`` for ``X`` (and ``y`` when given): float64, C-ordered, or canonical CSR.

        Sparse ``X`` is taken in the formats ``_accept_sparse`` names (scikit-learn
        converts any other to CSR) and handed on as canonical CSR
        (:func:`esmo.solver.sparse.as_csr`): CSC is converted once, here.
        """
        accept = list(self._accept_sparse) or False
        out = validate_data(
            self, X, y, accept_sparse=accept, dtype=np.float64, order="C", reset=reset
        )
        only_X = isinstance(y, str) and y == "no_validation"
        X, y = (out, None) if only_X else out
        X = sparse.as_csr(X) if sparse.is_sparse(X) else X
        return X if only_X else (X, y)

    def _set_classes(self, y: np.ndarray) -> np.ndarray:
        """Set and return ``classes_`` (checked as :func:`check_classes`)."""
        self.classes_ = check_classes(y, type(self).__name__, binary=not self._multiclass)
        return self.classes_

    def _signs(self, y: Any, name: str) -> np.ndarray:
        """``y`` as signs, +1 for ``classes_[_positive_class]``; labels not in ``classes_`` refused."""
        return encode_labels(np.asarray(y), self.classes_, name, self._positive_class)

    def _resolve_gamma(self, X: np.ndarray, dtype: Any = np.float64) -> float:
        return resolve_gamma(self.gamma, X, dtype)

    def _early_stopping_config(self) -> EarlyStopping:
        """The early-stopping parameters as a configuration, checked by its rules under our names."""
        return early_stopping_of(self, self._es_params)

    @staticmethod
    def _check_validation_pair(X_val: Any, y_val: Any) -> None:
        if (X_val is None) != (y_val is None):
            raise ValueError("Pass both X_val and y_val, or neither.")

    def _check_validation_data(
        self, X_val: Any, y_val: Any, part: str = "val"
    ) -> tuple[np.ndarray, np.ndarray]:
        """``X_val`` checked as ``X`` (features and their names), ``y_val`` one label per row.

        ``part`` names the pair in the messages (``X_test``, ``y_test``: ``"test"``).
        """
        try:
            X_val = self._validate_X(X_val, reset=False)
        except ValueError as exc:  # scikit-learn's message calls every input "X"
            raise type(exc)(re.sub(r"\bX\b", f"X_{part}", str(exc))) from exc
        y_val = np.asarray(y_val)
        if y_val.ndim != 1 or y_val.shape[0] != X_val.shape[0]:
            raise ValueError(
                f"y_{part} must be 1-D with one label per row of X_{part} ({X_val.shape[0]}), "
                f"got shape {y_val.shape}."
            )
        return X_val, y_val

    def _split_validation(
        self, X: np.ndarray, y: np.ndarray, *arrays: np.ndarray
    ) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, np.ndarray]]:
        """The training part ``(X, y, *arrays)`` and ``(X_val, y_val)``: ``validation_fraction`` held out.

        The split is stratified by ``y`` and seeded by ``random_state``; a training
        part left with a single class is refused.
        """
        parts = train_test_split(
            X,
            y,
            *arrays,
            test_size=self.validation_fraction,
            stratify=y,
            random_state=self.random_state,
        )
        train, held_out = tuple(parts[0::2]), tuple(parts[1::2])
        if np.all(train[1] == train[1][0]):
            raise ValueError(
                "The training part left after the validation split holds a single class; "
                "lower validation_fraction or pass X_val and y_val."
            )
        return train, (held_out[0], held_out[1])


class RefittedSearchMixin:
    """A search's predictions, through its ``best_estimator_`` (``refit=True``), as scikit-learn's.

    For the searches that hand back one refitted SMOClassifier (``MDLSearch``,
    the budget-aware searches of :mod:`esmo.tuning`): fitted when
    ``cv_results_`` is set; with ``refit=False`` there is no model to predict with.
    """

    def _best_estimator(self) -> Any:
        check_is_fitted(self, "cv_results_")
        if not self.refit:
            raise AttributeError(
                f"this {type(self).__name__} was fitted with refit=False; set refit=True to "
                "predict with the best configuration"
            )
        return self.best_estimator_

    def decision_function(self, X: Any) -> np.ndarray:
        """The best estimator's decision function (positive for ``classes_[1]``)."""
        return self._best_estimator().decision_function(X)

    def predict(self, X: Any) -> np.ndarray:
        """The best estimator's predictions."""
        return self._best_estimator().predict(X)
