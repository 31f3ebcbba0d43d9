"""One training/validation split: its SMO fit, validation outputs and hypergradient pieces.

At an SMO solution the points split into ``I_0`` (``alpha = 0``), ``I_c``
(``alpha = C_i``) and ``I_u`` (the rest); locally the free alphas and the bias
solve the reduced KKT system ``P_r beta_u = q_r`` (note, section 2). With
``g_l = df/do_l`` from the validation function, one adjoint solve ``P_r' d =
rho`` (:mod:`esmo.hypergradient.adjoint`) gives ``df/dtheta = d'(dq_r/dtheta -
dP_r/dtheta beta_u) + sum_l g_l do_l/dtheta`` for every hyperparameter at once.

The kernel derivatives need ``sum_ij A_ij (x_it - z_jt)^2`` (``A`` a weighted
kernel block): for one common width, summed over the features, that is
``sum(A * D)`` with the squared distances ``D`` the kernel was made from; for
ARD, per feature, it is expanded as ``|x_t|^2`` and ``|z_t|^2`` sums and one
product ``A Z``, two matrix products for all features, so the gradient never
holds a per-feature distance matrix.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from esmo.early_stopping import EarlyStopping, EarlyStoppingSet
from esmo.hypergradient.adjoint import solve_adjoint
from esmo.hypergradient.space import Hyperparameters
from esmo.solver.params import SolverParams
from esmo.solver.reference import plain_fan_smo
from esmo.solver.result import SolverResult
from esmo.solver.smo import run_smo, warm_state

#: The iteration limit of every SMO fit of the gradient tuning (the protocol note's SMO
#: settings; the workflow's ``gradient.smo.max_iter``): the package's default.
INNER_MAX_ITER = 1_000_000


def kernel_view(X: np.ndarray, h: Hyperparameters) -> tuple[np.ndarray, float]:
    """The features and width the Gaussian solver runs on.

    One common width runs as itself on ``X``; per-feature widths (ARD) run as
    width 1 on ``x * sqrt(gamma)``.
    """
    if np.all(h.gamma == h.gamma[0]):
        return X, float(h.gamma[0])
    return h.scale(X), 1.0


def solver_params(
    gamma: float, tol: float, max_iter: int, kernel_dtype: type, shrinking: bool
) -> SolverParams:
    """The SMO parameters of a gradient-tuning fit: width ``gamma``, ``C = 1`` (per-point bounds)."""
    return SolverParams(
        kernel="rbf",
        C=1.0,
        gamma=gamma,
        tol=tol,
        max_iter=max_iter,
        kernel_dtype=kernel_dtype,
        shrinking=shrinking,
    )


@dataclass
class FoldFit:
    """An SMO fit on one fold's training part, and its outputs on the validation part."""

    X: np.ndarray
    y: np.ndarray
    X_val: np.ndarray
    y_val: np.ndarray
    hyperparameters: Hyperparameters
    result: SolverResult
    free: np.ndarray
    bounded: np.ndarray
    distances_vs: np.ndarray
    K_vs: np.ndarray
    outputs: np.ndarray
    smo_seconds: float
    other_seconds: float

    @property
    def support(self) -> np.ndarray:
        """``I_s = I_u`` then ``I_c``: the points with ``alpha > 0``, free ones first."""
        return np.concatenate([self.free, self.bounded])


def partition(alpha: np.ndarray, upper: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``I_u`` (``0 < alpha < C_i``) and ``I_c`` (``alpha = C_i``), by exact comparison.

    SMO clips alphas to their bounds, so the comparison is exact, as LIBSVM's
    ``is_upper_bound``.
    """
    return np.flatnonzero((alpha > 0.0) & (alpha < upper)), np.flatnonzero(alpha >= upper)


def square_distances(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``||a - b||^2`` for every pair of rows, clipped at 0 against cancellation."""
    D = A @ B.T
    D *= -2.0
    D += np.einsum("ij,ij->i", A, A)[:, None] + np.einsum("ij,ij->i", B, B)[None, :]
    return np.maximum(D, 0.0, out=D)


def fit_fold(
    X: np.ndarray,
    y: np.ndarray,
    X_val: np.ndarray,
    y_val: np.ndarray,
    h: Hyperparameters,
    *,
    tol: float = SolverParams.tol,
    max_iter: int = INNER_MAX_ITER,
    warm_alpha: np.ndarray | None = None,
    early_stopping: EarlyStopping | None = None,
    kernel_dtype: type = np.float64,
    shrinking: bool = SolverParams.shrinking,
    solver: str = "fan",
) -> FoldFit:
    """Train on ``(X, y)`` at ``h`` by SMO and compute the validation outputs ``o = f(X_val)``.

    ``warm_alpha`` starts SMO from another fit's alphas (clipped into this
    box, ``y'a = 0`` repaired); ``early_stopping`` stops it on the validation
    part, and the fit is then the stopped iterate with rho at the stop. Kernel
    rows are float64 by default: the hypergradient is the derivative of the
    float64 problem, and float32 rows (LIBSVM's) make ``f`` jitter in gamma by
    about 1e-7, which line searches and finite differences see. ``solver='fan_plain'``
    solves the plain problem (one bound, unit margins) with appendix A's NumPy SMO
    (:func:`esmo.solver.reference.plain_fan_smo`) instead, from scratch.
    """
    start = time.process_time()
    Z, gamma = kernel_view(X, h)
    Z_val, _ = kernel_view(X_val, h)
    params = solver_params(gamma, tol, max_iter, kernel_dtype, shrinking)
    bounds, linear_term = h.bounds(y), -h.margins(y)
    if solver == "fan_plain":
        result = _plain_fan(Z, y, params, bounds, linear_term, warm_alpha, early_stopping)
        return _fold_fit(X, y, X_val, y_val, h, Z, Z_val, gamma, result, start)
    state = None
    if warm_alpha is not None:
        state = warm_state(Z, y, warm_alpha, params, sample_weight=bounds, linear_term=linear_term)
    configs = None if early_stopping is None else EarlyStoppingSet.of([early_stopping])
    result, _ = run_smo(
        Z,
        y,
        params,
        sample_weight=bounds,
        linear_term=linear_term,
        state=state,
        configs=configs,
        X_val=Z_val if configs is not None else None,
        y_val=y_val if configs is not None else None,
    )
    return _fold_fit(X, y, X_val, y_val, h, Z, Z_val, gamma, result, start)


def _plain_fan(
    Z: np.ndarray,
    y: np.ndarray,
    params: SolverParams,
    bounds: np.ndarray,
    linear_term: np.ndarray,
    warm_alpha: np.ndarray | None,
    early_stopping: EarlyStopping | None,
) -> SolverResult:
    """Appendix A's plain SMO on the plain problem it solves: one bound, unit margins."""
    if not (np.all(bounds == bounds[0]) and np.all(linear_term == -1.0)):
        raise ValueError(
            "solver='fan_plain' solves one C with unit margins; these hyperparameters give "
            "class bounds or margins of their own: use solver='fan'."
        )
    if warm_alpha is not None or early_stopping is not None:
        raise ValueError(
            "solver='fan_plain' starts from scratch and runs to tol: use solver='fan'."
        )
    return plain_fan_smo(Z, y, kernel=params.kernel, C=float(bounds[0]), gamma=params.gamma,
                         tol=params.tol, max_iter=params.max_iter)  # fmt: skip


def _fold_fit(
    X: np.ndarray,
    y: np.ndarray,
    X_val: np.ndarray,
    y_val: np.ndarray,
    h: Hyperparameters,
    Z: np.ndarray,
    Z_val: np.ndarray,
    gamma: float,
    result: SolverResult,
    start: float,
) -> FoldFit:
    """The fold's fit from its SMO result: its validation outputs, and both costs."""
    smo_seconds = time.process_time() - start
    start = time.process_time()
    bounds = h.bounds(y)
    free, bounded = partition(result.alpha, bounds)
    support = np.concatenate([free, bounded])
    distances_vs = square_distances(Z_val, Z[support])
    K_vs = np.exp(-gamma * distances_vs)
    outputs = K_vs @ (result.alpha[support] * y[support]) - result.rho
    return FoldFit(
        X,
        y,
        X_val,
        y_val,
        h,
        result,
        free,
        bounded,
        distances_vs,
        K_vs,
        outputs,
        smo_seconds,
        time.process_time() - start,
    )


def weighted_square_distances(A: np.ndarray, R: np.ndarray, S: np.ndarray) -> np.ndarray:
    """``sum_ij A_ij (R_it - S_jt)^2`` for every feature ``t``, by two matrix products."""
    return A.sum(axis=1) @ (R * R) + A.sum(axis=0) @ (S * S) - 2.0 * np.einsum("it,it->t", R, A @ S)


@dataclass(frozen=True)
class FoldGradient:
    """A fold's partial derivatives (before the sum over folds) and what the solve cost."""

    C_pos: float
    C_neg: float
    m_pos: float
    m_neg: float
    gamma: np.ndarray
    solve_method: str
    solve_seconds: float
    other_seconds: float


def fold_gradient(fit: FoldFit, g: np.ndarray, *, per_feature: bool) -> FoldGradient:
    """The pieces of ``df/dtheta`` from one fold, given ``g = df/do`` at its validation points.

    ``per_feature`` asks for one gamma derivative per feature (ARD); otherwise
    ``gamma`` holds their sum, the derivative in a common width.
    """
    start = time.process_time()
    h, y, alpha = fit.hyperparameters, fit.y, fit.result.alpha
    free, bounded, support = fit.free, fit.bounded, fit.support
    n_free = free.shape[0]
    Z, gamma = kernel_view(fit.X, h)
    distances_us = square_distances(Z[free], Z[support])
    K_us = np.exp(-gamma * distances_us)
    K_vs = fit.K_vs
    y_u, y_c = y[free], y[bounded]
    rhs = np.append(y_u * (K_vs[:, :n_free].T @ g), -g.sum())
    prepared = time.process_time()
    d, method = solve_adjoint(fit.X[free], K_us[:, :n_free], y_u, rhs)
    solved = time.process_time()
    d_u, d_b = d[:n_free], d[n_free]
    # bounded points: dq_r/dC_j = (-Q_uj; -y_j), and o_l moves by y_j K_lj
    h_c = y_c * (-(K_us[:, n_free:].T @ (d_u * y_u)) - d_b + K_vs[:, n_free:].T @ g)
    coef = alpha[support] * y[support]
    A = (d_u * y_u)[:, None] * K_us * coef[None, :]
    B = g[:, None] * K_vs * coef[None, :]
    if per_feature:
        X_s = fit.X[support]
        d_gamma = weighted_square_distances(A, fit.X[free], X_s) - weighted_square_distances(
            B, fit.X_val, X_s
        )
    else:  # the distances of the kernel view are gamma-free here (one common width)
        d_gamma = np.array([np.sum(A * distances_us) - np.sum(B * fit.distances_vs)])
    return FoldGradient(
        C_pos=float(h_c[y_c > 0].sum()),
        C_neg=float(h_c[y_c < 0].sum()),
        m_pos=float(d_u[y_u > 0].sum()),
        m_neg=float(d_u[y_u < 0].sum()),
        gamma=d_gamma,
        solve_method=method,
        solve_seconds=solved - prepared,
        other_seconds=(prepared - start) + (time.process_time() - solved),
    )
