"""The description length of a fitted SVM (Singh and Arandjelović, eq 12), in bits.

``DL = 1/2 · N_M · log2 N + L(D|M)``: the first part encodes the model's
``N_M`` parameters (its support vectors) at ``1/2 log2 N`` bits each, the
second the ``N`` training points given the model. The paper writes the data
part as a Gaussian code, ``1/2 · N · log2(2 pi e sigma^2)``, without saying
what ``sigma^2`` is; docs/mdl-protocol.md decides it is the population variance of the training decision values
(:data:`DEFAULT_SIGMA2`, reading (a)) and keeps the other readings as
ablations. Every reading is a function of the decision values ``f(x_i)`` on
the training points, the labels and ``N_M`` only (reading (c) of one number
of the kernel), so a solver that holds ``f`` (SMO does: ``f_i = y_i (G_i + 1)
- rho``) computes any of them in ``O(N)`` without kernel evaluations.

Degenerate cases are scored, never NaN: a Gaussian reading whose variance is
zero (constant decision values, e.g. no support vector) has DL ``+inf`` (the
model cannot be selected; ``log2 0`` would otherwise make it the best). A model
where every point is a support vector is an ordinary finite score.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln

#: The sigma^2 readings of docs/mdl-protocol.md (section 2): name -> what it is.
SIGMA2_READINGS: dict[str, str] = {
    "decision_var": "(a) population variance of the training decision values f_i",
    "within_class_var": "(b) pooled within-class variance of f_i",
    "feature_space_var": "(c) total feature-space variance, mean K_ii - mean K_ij",
    "residual_var": "(e) variance of y_i - f_i",
    "clipped_residual_var": "(f) variance of y_i - clip(f_i, -1, 1)",
    "error_code": "(g) two-part code of the training errors: log2 C(N, k) + log2(N + 1)",
    "logistic_code": "(h) logistic label code: sum_i log2(1 + exp(-y_i f_i))",
}

#: The protocol's decision: reading (a).
DEFAULT_SIGMA2 = "decision_var"

#: How the model's parameter count N_M is read from the dual solution.
N_PARAMS_RULES: tuple[str, ...] = ("all_sv", "free_sv", "all_sv_plus_bias")

_TWO_PI_E = 2.0 * math.pi * math.e


def n_model_parameters(alpha: np.ndarray, C: float, rule: str = "all_sv") -> int:
    """``N_M`` from the dual variables: all support vectors (``alpha > 0``), the free ones, or +1 for the bias."""
    alpha = np.asarray(alpha, dtype=np.float64)
    if rule == "all_sv":
        return int(np.count_nonzero(alpha > 0))
    if rule == "free_sv":
        return int(np.count_nonzero((alpha > 0) & (alpha < C)))
    if rule == "all_sv_plus_bias":
        return int(np.count_nonzero(alpha > 0)) + 1
    raise ValueError(f"n_params must be one of {N_PARAMS_RULES}, got {rule!r}")


def _gaussian_bits(n: int, variance: float, scale: float) -> float:
    """``1/2 N log2(2 pi e sigma^2)``, or ``+inf`` for a variance that is zero up to rounding.

    ``scale`` is the size of the values the variance was taken of: a variance
    below ``(64 eps scale)^2`` is rounding noise of constant values.
    """
    if not variance > (64.0 * np.finfo(float).eps * max(scale, 1.0)) ** 2:
        return math.inf
    return 0.5 * n * math.log2(_TWO_PI_E * variance)


def _signed_labels(y: np.ndarray | None, n: int, reading: str) -> np.ndarray:
    if y is None:
        raise ValueError(f"sigma2={reading!r} needs the labels y (in {{-1, +1}})")
    y = np.asarray(y, dtype=np.float64)
    if y.shape != (n,):
        raise ValueError(f"y has shape {y.shape}, but there are {n} decision values")
    if not np.isin(y, (-1.0, 1.0)).all():
        raise ValueError("y must hold labels in {-1, +1} (+1 the positive class)")
    return y


def data_bits(
    decision_values: np.ndarray,
    *,
    y: np.ndarray | None = None,
    sigma2: str = DEFAULT_SIGMA2,
    feature_space_variance: float | None = None,
) -> float:
    """``L(D|M)`` in bits under one reading of the protocol (see :data:`SIGMA2_READINGS`)."""
    f = np.asarray(decision_values, dtype=np.float64)
    if f.ndim != 1 or f.size < 2:
        raise ValueError(f"decision_values must be 1-D with at least 2 points, got shape {f.shape}")
    if not np.isfinite(f).all():
        raise ValueError("decision_values contain NaN or infinity; the fit diverged")
    n = f.size
    if sigma2 not in SIGMA2_READINGS:
        raise ValueError(f"sigma2 must be one of {sorted(SIGMA2_READINGS)}, got {sigma2!r}")
    if sigma2 == "feature_space_var":
        if feature_space_variance is None:
            raise ValueError(
                "sigma2='feature_space_var' needs feature_space_variance "
                "(mean K_ii - mean K_ij over the training points)"
            )
        return _gaussian_bits(n, float(feature_space_variance), 1.0)
    if sigma2 == "decision_var":
        return _gaussian_bits(n, float(np.var(f)), float(np.abs(f).max()))
    y = _signed_labels(y, n, sigma2)
    if sigma2 == "within_class_var":
        squares = sum(float(np.sum((f[y == c] - f[y == c].mean()) ** 2)) for c in np.unique(y))
        return _gaussian_bits(n, squares / n, float(np.abs(f).max()))
    if sigma2 in ("residual_var", "clipped_residual_var"):
        r = y - (f if sigma2 == "residual_var" else np.clip(f, -1.0, 1.0))
        return _gaussian_bits(n, float(np.var(r)), float(np.abs(r).max()))
    if sigma2 == "error_code":
        k = int(np.count_nonzero(np.where(f > 0, 1.0, -1.0) != y))
        log_binom = gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)
        return float(log_binom / math.log(2.0) + math.log2(n + 1))
    # logistic_code
    return float(np.sum(np.logaddexp(0.0, -y * f)) / math.log(2.0))


def description_length(
    decision_values: np.ndarray,
    n_params: int,
    *,
    y: np.ndarray | None = None,
    sigma2: str = DEFAULT_SIGMA2,
    feature_space_variance: float | None = None,
) -> float:
    """``DL = 1/2 · n_params · log2 N + L(D|M)`` in bits, ``N = len(decision_values)``.

    ``decision_values`` are ``f(x_i)`` on the N training points, ``n_params``
    is ``N_M`` (:func:`n_model_parameters`). The default reading needs nothing
    else; readings of the labels need ``y`` in {-1, +1}, reading (c)
    ``feature_space_variance``. ``+inf`` when the Gaussian variance is zero.
    """
    n = np.asarray(decision_values).shape[0] if np.ndim(decision_values) == 1 else -1
    if isinstance(n_params, bool) or not isinstance(n_params, (int, np.integer)) or n_params < 0:
        raise ValueError(f"n_params must be a non-negative integer, got {n_params!r}")
    bits = data_bits(
        decision_values, y=y, sigma2=sigma2, feature_space_variance=feature_space_variance
    )
    return 0.5 * int(n_params) * math.log2(n) + bits


def all_description_lengths(
    decision_values: np.ndarray,
    n_params: int,
    y: np.ndarray,
    feature_space_variance: float,
) -> dict[str, float]:
    """Every reading's DL of one fitted model (one fit serves every ablation)."""
    return {
        reading: description_length(
            decision_values,
            n_params,
            y=y,
            sigma2=reading,
            feature_space_variance=feature_space_variance,
        )
        for reading in SIGMA2_READINGS
    }
