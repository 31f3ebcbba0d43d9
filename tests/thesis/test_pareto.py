"""Pareto mask against a brute-force second computation; the score's iso-line."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from esmo.papers.thesis.pareto import pareto_mask, score_threshold
from esmo.papers.thesis.scoring import score


def _brute_force(cost, acc):
    n = len(cost)
    keep = np.ones(n, dtype=bool)
    for i in range(n):
        for j in range(n):
            if cost[j] <= cost[i] and acc[j] >= acc[i] and (cost[j] < cost[i] or acc[j] > acc[i]):
                keep[i] = False
    return keep


# few distinct values so that ties in cost and accuracy are frequent
_points = st.lists(st.tuples(st.integers(0, 8), st.integers(0, 8)), min_size=0, max_size=40)


@settings(max_examples=200, deadline=None)
@given(_points)
def test_pareto_mask_matches_brute_force(points):
    cost = np.array([p[0] for p in points], dtype=float)
    acc = np.array([p[1] for p in points], dtype=float) / 8
    np.testing.assert_array_equal(pareto_mask(cost, acc), _brute_force(cost, acc))


def test_pareto_mask_random_continuous_points():
    rng = np.random.default_rng(1)
    cost, acc = rng.lognormal(size=300), rng.uniform(size=300)
    np.testing.assert_array_equal(pareto_mask(cost, acc), _brute_force(cost, acc))


def test_pareto_mask_small_example_and_errors():
    cost = np.array([1, 2, 2, 3, 1])
    acc = np.array([0.5, 0.7, 0.6, 0.7, 0.5])
    assert pareto_mask(cost, acc).tolist() == [True, True, False, False, True]
    with pytest.raises(ValueError, match="one length"):
        pareto_mask([1, 2], [0.5])
    with pytest.raises(ValueError, match="NaN"):
        pareto_mask([1, np.nan], [0.5, 0.6])


@pytest.mark.parametrize("beta", [0.0, 0.5, 0.8, 0.995])
def test_threshold_is_the_iso_score_line(beta):
    acc_ref, cost_ref = 0.83, 5e5
    grid = np.linspace(0.8, 0.9, 11)
    cost = score_threshold(acc_ref, cost_ref, beta, grid)
    np.testing.assert_allclose(
        score(grid, cost, cost_ref, beta), score(acc_ref, cost_ref, cost_ref, beta), rtol=1e-12
    )
    if beta > 0:
        # a point cheaper than the line scores higher than the reference
        assert score(
            0.85, 0.99 * score_threshold(acc_ref, cost_ref, beta, 0.85), cost_ref, beta
        ) > score(acc_ref, cost_ref, cost_ref, beta)


def test_threshold_at_beta_one_is_vertical():
    cost = score_threshold(0.8, 100.0, 1.0, np.array([0.7, 0.8, 0.9]))
    assert cost.tolist() == [-np.inf, 100.0, np.inf]
    with pytest.raises(ValueError, match="beta"):
        score_threshold(0.8, 100.0, 1.2, np.array([0.8]))
