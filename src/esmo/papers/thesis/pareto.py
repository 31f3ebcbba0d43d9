"""Pareto fronts of cost against accuracy, and the score's iso-line (figs 4.1, 4.2).

A search is better when it costs less and is more accurate; the figures draw
the non-dominated searches and the line of equal score with the reference,
right of which a search beats it.
"""

from __future__ import annotations

import numpy as np


def pareto_mask(cost: np.ndarray, accuracy: np.ndarray) -> np.ndarray:
    """Which points are non-dominated (low cost and high accuracy are both better).

    Point i is dominated when another point has ``cost <= cost[i]`` and
    ``accuracy >= accuracy[i]`` with at least one strict; duplicates therefore
    do not dominate each other and are all kept. Runs in O(n log n): a point
    survives when it is the most accurate of its cost and strictly more
    accurate than every cheaper point.
    """
    cost = np.asarray(cost, dtype=float)
    accuracy = np.asarray(accuracy, dtype=float)
    if cost.shape != accuracy.shape or cost.ndim != 1:
        raise ValueError(
            f"cost and accuracy must be 1-D arrays of one length, got {cost.shape} and "
            f"{accuracy.shape}"
        )
    if np.isnan(cost).any() or np.isnan(accuracy).any():
        raise ValueError("cost and accuracy must not contain NaN")
    if cost.size == 0:
        return np.zeros(0, dtype=bool)
    unique_cost, group = np.unique(cost, return_inverse=True)
    best_at_cost = np.full(unique_cost.size, -np.inf)
    np.maximum.at(best_at_cost, group, accuracy)
    # best accuracy among strictly cheaper points
    best_cheaper = np.concatenate([[-np.inf], np.maximum.accumulate(best_at_cost)[:-1]])
    return (accuracy == best_at_cost[group]) & (accuracy > best_cheaper[group])


def score_threshold(
    acc_ref: float, cost_ref: float, beta: float, acc_grid: np.ndarray
) -> np.ndarray:
    """Cost at which a search with accuracy ``acc_grid`` scores exactly ``S_ref``.

    Solving eq. 3.3 for the cost gives
    ``cost_ref * (1 - beta * (acc_ref - acc) / (1 - beta))``; searches cheaper
    than this line beat the reference. Costs may come out non-positive for
    accuracies far below the reference (no cost is cheap enough); log axes
    simply do not draw them. At ``beta = 1`` the score ignores cost and the
    line becomes vertical at ``acc_ref``: the limit is returned, ``+inf`` right
    of it, ``-inf`` left of it and ``cost_ref`` on it.
    """
    if not 0.0 <= beta <= 1.0:
        raise ValueError(f"beta must lie in [0, 1], got {beta}")
    if not cost_ref > 0:
        raise ValueError(f"cost_ref must be positive, got {cost_ref}")
    acc = np.asarray(acc_grid, dtype=float)
    gap = acc_ref - acc
    if beta == 1.0:
        return np.where(gap < 0, np.inf, np.where(gap > 0, -np.inf, float(cost_ref)))
    return cost_ref * (1.0 - beta * gap / (1.0 - beta))
