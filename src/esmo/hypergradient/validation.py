"""Smoothed validation functions of the confusion counts, and their derivatives in the outputs.

Keerthi, Sindhwani and Chapelle (2006), section 4 (../shared/notes/gradient-hpo-protocol.md,
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
from scipy.special import expit

#: The objectives, each minimised: the error rate, the weighted error rate, minus the F-measure.
OBJECTIVES: tuple[str, ...] = ("error", "weighted_error", "f_measure")


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


def fold_sharpness(outputs: np.ndarray, sharpness: float) -> tuple[float, np.ndarray]:
    """``theta_1 = t / sigma`` of one fold and ``dtheta_1/do_l``.

    ``sigma`` is the population std of the fold's outputs. When every output is
    equal (no spread: a degenerate model) ``sigma`` is floored at a tiny positive
    value: the sigmoid becomes the step, its derivatives vanish, and the value is
    the hard one, never NaN.
    """
    n = outputs.shape[0]
    centred = outputs - outputs.mean()
    sigma = float(np.sqrt(np.dot(centred, centred) / n))
    sigma = max(sigma, 1e-300)
    theta1 = sharpness / sigma
    dtheta1 = -sharpness * centred / (n * sigma**3)
    return theta1, dtheta1


def smoothed_value(
    outputs: list[np.ndarray],
    labels: list[np.ndarray],
    *,
    objective: str = "error",
    theta0: float = 0.0,
    sharpness: float = 10.0,
    negative_cost: float = 1.0,
) -> SmoothedValue:
    """The smoothed objective over the folds (``outputs[k]``, ``labels[k]`` in {-1, +1}).

    Counts are pooled over the folds; each fold's sigmoid has its own
    ``theta_1``. The chain rule through ``theta_1``: with ``a_l = df/ds_l
    s_l (1 - s_l)``, ``df/do_l = a_l theta_1 y_l + dtheta_1/do_l sum_m a_m y_m
    (o_m - theta_0)`` within the fold.
    """
    sigmoids = []
    tp = fp = 0.0
    n_pos = n_neg = 0
    for o, y in zip(outputs, labels, strict=True):
        theta1, dtheta1 = fold_sharpness(o, sharpness)
        s = expit(theta1 * y * (o - theta0))
        positive = y > 0
        tp += float(s[positive].sum())
        fp += float((1.0 - s[~positive]).sum())
        n_pos += int(positive.sum())
        n_neg += int((~positive).sum())
        sigmoids.append((s, positive, theta1, dtheta1))
    value, d_tp, d_fp = count_value(objective, tp, fp, n_pos, n_neg, negative_cost)
    gradients, dtheta0 = [], 0.0
    for (s, positive, theta1, dtheta1), o, y in zip(sigmoids, outputs, labels, strict=True):
        df_ds = np.where(positive, d_tp, -d_fp)
        a = df_ds * s * (1.0 - s)
        margin_sum = float(np.dot(a * y, o - theta0))
        gradients.append(a * theta1 * y + dtheta1 * margin_sum)
        dtheta0 -= theta1 * float(np.dot(a, y))
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
