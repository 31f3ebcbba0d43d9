"""An SVM at given hyperparameters, trained on all the data: what a tuning run refits and scores."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from esmo.hypergradient.fold import INNER_MAX_ITER, kernel_view, solver_params
from esmo.hypergradient.space import Hyperparameters
from esmo.solver.kernels import kernel_matrix
from esmo.solver.params import SolverParams
from esmo.solver.smo import run_smo


@dataclass(frozen=True)
class KernelSVM:
    """A trained SVM of the weighted-hinge family, Gaussian or ARD kernel, with its threshold.

    ``decision_function(x) = sum_i a_i y_i k(x_i, x) - rho - theta_0``: positive
    means the positive class (the paper predicts ``sign(o - theta_0)``).
    """

    hyperparameters: Hyperparameters
    support_vectors: np.ndarray
    dual_coef: np.ndarray
    rho: float
    n_iter: int

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        h = self.hyperparameters
        Z, gamma = kernel_view(np.asarray(X, dtype=np.float64), h)
        if not self.dual_coef.size:
            return np.full(Z.shape[0], -self.rho - h.theta0)
        return (
            kernel_matrix(Z, self.support_vectors, "rbf", gamma) @ self.dual_coef
            - self.rho
            - h.theta0
        )

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Labels in {-1, +1}."""
        return np.where(self.decision_function(X) > 0.0, 1.0, -1.0)


def fit_svm(
    X: np.ndarray,
    y: np.ndarray,
    params: Hyperparameters | Mapping[str, object],
    *,
    tol: float = SolverParams.tol,
    max_iter: int = INNER_MAX_ITER,
    kernel_dtype: type = np.float64,
    shrinking: bool = SolverParams.shrinking,
) -> KernelSVM:
    """Train on all of ``(X, y)`` (labels in {-1, +1}) at ``params``.

    ``params`` is a :class:`Hyperparameters` or a mapping like a tuner's
    ``best_params_`` (``C``, ``gamma`` a float or one per feature, and
    optionally ``theta0``, ``C_pos``, ``C_neg``, ``m_pos``, ``m_neg``).
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    h = (
        params
        if isinstance(params, Hyperparameters)
        else Hyperparameters.from_dict(params, X.shape[1])
    )
    Z, gamma = kernel_view(X, h)
    solver = solver_params(gamma, tol, max_iter, kernel_dtype, shrinking)
    result, _ = run_smo(Z, y, solver, sample_weight=h.bounds(y), linear_term=-h.margins(y))
    sv = np.flatnonzero(result.alpha > 0.0)
    return KernelSVM(h, Z[sv].copy(), result.alpha[sv] * y[sv], result.rho, result.n_iter)
