"""Platt probabilities whose most probable class is always the one ``predict`` returns.

SVC fits Platt's sigmoid ``P(y = 1 | f) = 1 / (1 + exp(A f + B))`` to held-out
decision values (5-fold CV inside ``fit``). With a free intercept ``B`` the
sigmoid crosses 1/2 away from ``f = 0``, so its most probable class can differ
from ``predict``'s sign (scikit-learn #13211, #31222). Here the sigmoid passes
through the origin (``B = 0``) and its slope is kept positive, so
``P > 1/2`` exactly where ``f > 0``: the binary probabilities agree with
``predict`` by construction (an exact ``f = 0`` is resolved as ``predict``
resolves it). With more classes, each pair's probability is built the same way
and the pairs are coupled as LIBSVM couples them (Wu, Lin and Weng 2004,
method 2); coupling can still put another class ahead of the vote's winner, so
the winner and the leading class exchange their probabilities (a permutation
of the coupled values, reported by ``n_reordered``).

The price of ``B = 0`` is calibration where the classes are imbalanced around
``f = 0``; ``benchmarks``' log-loss comparison with SVC measures it.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import expit, log_expit

#: Slopes are searched in [SLOPE_MIN, SLOPE_MAX] (log-spaced): a slope at the lower end
#: means held-out decision values that say nothing of the class (probabilities ~ 1/2).
SLOPE_MIN, SLOPE_MAX = 1e-8, 1e8


def platt_slope(decision: np.ndarray, positive: np.ndarray) -> float:
    """The slope ``a > 0`` of ``P(positive | f) = expit(a f)`` fitted to held-out values.

    Platt's targets with his prior correction (``(N+ + 1) / (N+ + 2)`` for the
    positives, ``1 / (N- + 2)`` for the negatives, as LIBSVM's
    ``sigmoid_train``), and the cross-entropy minimised over ``log a``: convex
    in ``a``, so the bounded scalar search finds its minimum on the positive
    half-line (a negative optimum, decision values that point the wrong way,
    ends at ``SLOPE_MIN``).
    """
    f = np.asarray(decision, dtype=np.float64)
    pos = np.asarray(positive, dtype=bool)
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    target = np.where(pos, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))

    def loss(log_a: float) -> float:
        z = np.exp(log_a) * f
        return float(-np.sum(target * log_expit(z) + (1.0 - target) * log_expit(-z)))

    result = minimize_scalar(loss, bounds=(np.log(SLOPE_MIN), np.log(SLOPE_MAX)), method="bounded")
    return float(np.exp(result.x))


def binary_probability(decision: np.ndarray, slope: float) -> np.ndarray:
    """``P(positive | f)``; an exact ``f = 0`` (which ``predict`` calls positive) just above 1/2."""
    p = expit(slope * np.asarray(decision, dtype=np.float64))
    return np.where(decision == 0, np.nextafter(0.5, 1.0), p)


def couple(pairwise: np.ndarray, n_classes: int) -> np.ndarray:
    """Class probabilities from pairwise ones (Wu, Lin and Weng 2004, method 2; LIBSVM's
    ``multiclass_probability``). ``pairwise[:, p]`` is ``P(i | i or j)`` for the p-th pair
    ``(i, j)`` of ``itertools.combinations(range(n_classes), 2)``."""
    n = pairwise.shape[0]
    r = np.zeros((n, n_classes, n_classes))
    p = 0
    for i in range(n_classes):
        for j in range(i + 1, n_classes):
            r[:, i, j] = np.clip(pairwise[:, p], 1e-7, 1 - 1e-7)
            r[:, j, i] = 1.0 - r[:, i, j]
            p += 1
    out = np.empty((n, n_classes))
    for row in range(n):
        Q = -r[row].T * r[row]
        np.fill_diagonal(Q, [np.sum(r[row][:, t] ** 2) for t in range(n_classes)])
        # min p'Qp subject to sum p = 1: the KKT system [[Q, 1], [1', 0]]
        system = np.zeros((n_classes + 1, n_classes + 1))
        system[:n_classes, :n_classes] = Q
        system[:n_classes, n_classes] = 1.0
        system[n_classes, :n_classes] = 1.0
        rhs = np.zeros(n_classes + 1)
        rhs[n_classes] = 1.0
        solution = np.linalg.lstsq(system, rhs, rcond=None)[0][:n_classes]
        solution = np.clip(solution, 0.0, None)
        out[row] = solution / solution.sum()
    return out


def winner_first(probability: np.ndarray, winner: np.ndarray) -> tuple[np.ndarray, int]:
    """Each row with its ``winner`` column holding its largest probability (first on ties).

    Where coupling put another class ahead, the two exchange their values; the
    count of such rows is returned beside the probabilities.
    """
    out = probability.copy()
    rows = np.arange(out.shape[0])
    leader = np.argmax(out, axis=1)
    moved = leader != winner
    out[rows[moved], leader[moved]], out[rows[moved], winner[moved]] = (
        out[rows[moved], winner[moved]],
        out[rows[moved], leader[moved]],
    )
    # np.argmax takes the first of equal maxima: lift the winner over an equal one before it
    top = out[rows, winner]
    tied_before = np.array([np.any(out[r, : winner[r]] == top[r]) for r in rows], dtype=bool)
    out[rows[tied_before], winner[tied_before]] = np.nextafter(top[tied_before], 2.0)
    return out, int(moved.sum())
