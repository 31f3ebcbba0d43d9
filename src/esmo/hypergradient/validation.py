"""Smoothed validation functions of the confusion counts, and their derivatives in the outputs.

Keerthi, Sindhwani and Chapelle (2006), section 4 (docs/gradient-protocol.md,
section 2): each correct/incorrect count ``u_l = 1[y_l (o_l - theta_0) > 0]``
becomes the sigmoid ``s_l = 1 / (1 + exp(-theta_1 y_l (o_l - theta_0)))``, and
``tp`` (sum of ``s`` over positives) and ``fp`` (sum of ``1 - s`` over
negatives) are pooled over the folds. ``theta_1 = t / sigma`` with ``sigma`` the
population std of each fold's own outputs (the direct and hyperparameter-bias
methods), so the value does not change when a fold's outputs are rescaled. The
derivative ``g_l = df/do_l`` keeps the dependence of ``theta_1`` on the outputs:
it is what the hypergradient's one linear solve needs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

from esmo.solver.tracking import SMOOTHING_T

#: The objectives, each minimised: the error rate, the weighted error rate, minus the
#: F-measure, and (with Platt's fitted sigmoid) the mean negative log-likelihood.
OBJECTIVES: tuple[str, ...] = ("error", "weighted_error", "f_measure", "nll")


def count_value(objective: str, tp: float, fp: float, n_pos: int, n_neg: int, lam: float):
    """``(f, df/dtp, df/dfp)`` of an objective at (possibly smoothed) counts.

    ``lam`` is the weighted error's cost ratio of a negative's mistake to a positive's.
    """
    if objective == "error":
        n = n_pos + n_neg
        return (n_pos - tp + fp) / n, -1.0 / n, 1.0 / n
    if objective == "weighted_error":
        den = n_pos + lam * n_neg
        return (n_pos - tp + lam * fp) / den, -1.0 / den, lam / den
    if objective == "f_measure":
        den = n_pos + tp + fp
        if den <= 0.0:
            raise ValueError(
                "The F-measure is undefined: the validation data hold no positive example and "
                "no positive prediction. Use stratified folds with positives in every fold."
            )
        return -2.0 * tp / den, -2.0 * (n_pos + fp) / den**2, 2.0 * tp / den**2
    raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}.")


@dataclass(frozen=True)
class SmoothedValue:
    """A smoothed validation function's value and derivatives at the pooled folds' outputs.

    ``output_gradients[k]`` is ``df/do_l`` over fold ``k``'s validation points;
    ``dtheta0`` is ``df/dtheta_0``.
    """

    value: float
    output_gradients: list[np.ndarray]
    dtheta0: float


class ScaledSigmoid:
    """One fold's sigmoid of the direct and hyperparameter-bias methods.

    ``s_l = 1 / (1 + exp(-theta_1 y_l (o_l - theta_0)))`` with ``theta_1 = t /
    sigma``, ``sigma`` the population std of the fold's outputs (floored at a
    tiny value when every output is equal: the sigmoid is then the step and its
    derivatives vanish, never NaN). The chain rule keeps ``theta_1``'s
    dependence on the outputs: with ``a_l = df/ds_l s_l (1 - s_l)``, ``df/do_l =
    a_l theta_1 y_l + dtheta_1/do_l sum_m a_m y_m (o_m - theta_0)`` and
    ``dtheta_1/do_l = -t (o_l - mean o) / (n sigma^3)``.
    """

    def __init__(self, o: np.ndarray, y: np.ndarray, theta0: float, sharpness: float) -> None:
        self.o, self.y, self.theta0 = o, y, theta0
        centred = o - o.mean()
        sigma = max(float(np.sqrt(np.dot(centred, centred) / o.shape[0])), 1e-300)
        self.theta1 = sharpness / sigma
        self.dtheta1 = -sharpness * centred / (o.shape[0] * sigma**3)
        self.s = expit(self.theta1 * y * (o - theta0))

    def backward(self, df_ds: np.ndarray) -> tuple[np.ndarray, float]:
        """``(df/do, df/dtheta_0)`` from ``df/ds``."""
        a = df_ds * self.s * (1.0 - self.s)
        margin_sum = float(np.dot(a * self.y, self.o - self.theta0))
        g = a * self.theta1 * self.y + self.dtheta1 * margin_sum
        return g, -self.theta1 * float(np.dot(a, self.y))


class FittedSigmoid:
    """One fold's sigmoid of Platt's minimisation method: ``p(+1 | o) = 1 / (1 + exp(-(a o + b)))``.

    ``(a, b)`` minimise the negative log-likelihood ``N`` of the fold's labels,
    with Platt's targets ``(n_+ + 1) / (n_+ + 2)`` and ``1 / (n_- + 2)`` (which
    keep it finite on separable folds); ``s_l`` is the probability of the true
    label. Their dependence on the outputs enters the chain rule by the implicit
    function theorem, ``d(a, b)/do_l = -H^-1 d2N/d(a, b)do_l``.
    """

    def __init__(self, o: np.ndarray, y: np.ndarray) -> None:
        positive = y > 0
        n_pos, n_neg = int(positive.sum()), int((~positive).sum())
        self.o, self.y = o, y
        self.t = np.where(positive, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
        start = np.array([0.0, np.log((n_pos + 1.0) / (n_neg + 1.0))])
        fit = minimize(
            self._nll,
            start,
            jac=True,
            hess=self._hessian,
            method="trust-exact",
            options={"gtol": 1e-12},
        )
        self.a, self.b = (float(v) for v in fit.x)
        self.p = expit(self.a * o + self.b)
        self.s = np.where(positive, self.p, 1.0 - self.p)

    def _nll(self, ab: np.ndarray) -> tuple[float, np.ndarray]:
        z = ab[0] * self.o + ab[1]
        # -t log p - (1 - t) log(1 - p) = log(1 + e^z) - t z, stably
        value = float(np.sum(np.logaddexp(0.0, z) - self.t * z))
        residual = expit(z) - self.t
        return value, np.array([np.dot(residual, self.o), residual.sum()])

    def _hessian(self, ab: np.ndarray) -> np.ndarray:
        p = expit(ab[0] * self.o + ab[1])
        w = p * (1.0 - p)
        return np.array([[np.dot(w, self.o**2), np.dot(w, self.o)], [np.dot(w, self.o), w.sum()]])

    def nll(self) -> tuple[float, np.ndarray]:
        """``N`` at the fitted ``(a, b)`` and ``dN/do`` (``(a, b)`` optimal: the envelope theorem)."""
        return self._nll(np.array([self.a, self.b]))[0], self.a * (self.p - self.t)

    def backward(self, df_ds: np.ndarray) -> tuple[np.ndarray, float]:
        """``(df/do, 0)`` from ``df/ds``: the direct part and the part through ``(a, b)``."""
        w = self.p * (1.0 - self.p)
        df_dz = df_ds * self.y * w  # s = p for positives, 1 - p for negatives
        mixed = np.vstack([w * self.o * self.a + (self.p - self.t), w * self.a])
        dab_do = -np.linalg.solve(self._hessian(np.array([self.a, self.b])), mixed)
        df_dab = np.array([np.dot(df_dz, self.o), df_dz.sum()])
        return self.a * df_dz + df_dab @ dab_do, 0.0


def smoothed_value(
    outputs: list[np.ndarray],
    labels: list[np.ndarray],
    *,
    objective: str = "error",
    sigmoid: str = "scaled",
    theta0: float = 0.0,
    sharpness: float = SMOOTHING_T,
    negative_cost: float = 1.0,
) -> SmoothedValue:
    """The smoothed objective over the folds (``outputs[k]``, ``labels[k]`` in {-1, +1}).

    ``sigmoid`` is ``scaled`` (:class:`ScaledSigmoid`: the direct method, or the
    hyperparameter-bias method with a tuned ``theta0``) or ``fitted``
    (:class:`FittedSigmoid`, Platt's minimisation method, under which the
    error is the paper's probabilistic error rate ``per``). Counts are pooled
    over the folds. ``objective="nll"`` (fitted sigmoid only) is the mean
    negative log-likelihood ``N_nll`` itself.
    """
    if sigmoid == "scaled":
        folds = [
            ScaledSigmoid(o, y, theta0, sharpness) for o, y in zip(outputs, labels, strict=True)
        ]
    elif sigmoid == "fitted":
        folds = [FittedSigmoid(o, y) for o, y in zip(outputs, labels, strict=True)]
    else:
        raise ValueError(f"sigmoid must be 'scaled' or 'fitted', got {sigmoid!r}.")
    if objective == "nll":
        if sigmoid != "fitted":
            raise ValueError(
                "objective 'nll' needs the fitted sigmoid (Platt's minimisation method)."
            )
        n = sum(o.shape[0] for o in outputs)
        parts = [fold.nll() for fold in folds]
        return SmoothedValue(sum(v for v, _ in parts) / n, [d / n for _, d in parts], 0.0)
    tp = fp = 0.0
    n_pos = n_neg = 0
    for fold, y in zip(folds, labels, strict=True):
        positive = y > 0
        tp += float(fold.s[positive].sum())
        fp += float((1.0 - fold.s[~positive]).sum())
        n_pos += int(positive.sum())
        n_neg += int((~positive).sum())
    value, d_tp, d_fp = count_value(objective, tp, fp, n_pos, n_neg, negative_cost)
    gradients, dtheta0 = [], 0.0
    for fold, y in zip(folds, labels, strict=True):
        g, d0 = fold.backward(np.where(y > 0, d_tp, -d_fp))
        gradients.append(g)
        dtheta0 += d0
    return SmoothedValue(float(value), gradients, dtheta0)


def hard_measures(
    outputs: list[np.ndarray],
    labels: list[np.ndarray],
    *,
    theta0: float = 0.0,
    negative_cost: float = 1.0,
) -> dict[str, float]:
    """The unsmoothed error, weighted error and F-measure of counts pooled over the folds.

    A point is predicted positive when ``o - theta_0 > 0``. The F-measure is NaN
    when there is neither a positive example nor a positive prediction.
    """
    o = np.concatenate(outputs) - theta0
    y = np.concatenate(labels)
    positive = y > 0
    tp = float(np.count_nonzero(positive & (o > 0)))
    fp = float(np.count_nonzero(~positive & (o > 0)))
    n_pos, n_neg = int(positive.sum()), int((~positive).sum())
    f_den = n_pos + tp + fp
    return {
        "error": (n_pos - tp + fp) / (n_pos + n_neg),
        "weighted_error": (n_pos - tp + negative_cost * fp) / (n_pos + negative_cost * n_neg),
        "f_measure": 2.0 * tp / f_den if f_den > 0 else float("nan"),
    }
