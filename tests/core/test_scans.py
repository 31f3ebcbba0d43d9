"""The lane scans of an SMO iteration against the one-loop scans LIBSVM writes.

Oracle: a plain loop over the values in turn with LIBSVM's comparisons (``<=``,
``>=``: ties to the last, NaN skipped), on values rich in ties, NaN, signed
zeros and infinities, at lengths on both sides of the one-loop threshold and of a
multiple of the lanes.
"""

from __future__ import annotations

import numpy as np
import pytest

from esmo.solver.scans import (
    FEWEST_FOR_LANES,
    LANES,
    in_order,
    last_argmin,
    max_of,
    merge_parts,
)


def loop_argmin(values: np.ndarray, order: np.ndarray) -> int:
    """LIBSVM's scan: the point of ``order`` visited last among those holding the minimum."""
    low, best = np.inf, -1
    for t in order:
        if values[t] <= low:
            low, best = values[t], int(t)
    return best


def loop_max(values: np.ndarray) -> float:
    """LIBSVM's scan for the largest value (``>=``)."""
    top = -np.inf
    for v in values:
        if v >= top:
            top = v
    return top


def tie_rich(rng: np.random.Generator, n: int) -> np.ndarray:
    """Few distinct values (ties everywhere), NaN, both zeros and both infinities."""
    values = rng.choice([-3.0, -2.0, -1.0, -0.0, 0.0, 1.0, np.inf, -np.inf], size=n)
    values[rng.random(n) < rng.random()] = np.nan
    return values


@pytest.mark.parametrize("seed", range(40))
def test_last_argmin_is_the_loops_choice_and_counts_its_ties(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for n in (
        0,
        1,
        LANES + 1,
        FEWEST_FOR_LANES - 1,
        FEWEST_FOR_LANES,
        FEWEST_FOR_LANES + LANES + 7,
        int(rng.integers(0, 1200)),
    ):
        values = tie_rich(rng, n)
        for count in (n, int(rng.integers(0, n + 1))):
            position, ties = last_argmin(values, count)
            assert position == loop_argmin(values, np.arange(count))
            if position >= 0:
                assert ties == np.count_nonzero(values[:count] == values[position])
            else:
                assert ties == 0


@pytest.mark.parametrize("seed", range(40))
def test_the_scan_in_order_is_the_loops_choice_in_that_order(seed: int) -> None:
    """Shrinking's case: the points visited in a permuted order, those outside it NaN."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 1200))
    values = tie_rich(rng, n)
    order = rng.permutation(n)
    count = int(rng.integers(0, n + 1))
    values[order[count:]] = np.nan
    position, ties = last_argmin(values, n)
    assert in_order(values, order, count, position, ties) == loop_argmin(values, order[:count])


@pytest.mark.parametrize("seed", range(20))
def test_max_of_is_the_loops_maximum(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for n in (0, 1, FEWEST_FOR_LANES, FEWEST_FOR_LANES + 2 * LANES + 5, int(rng.integers(0, 1200))):
        values = tie_rich(rng, n)
        for count in (n, int(rng.integers(0, n + 1))):
            assert max_of(values, count) == loop_max(values[:count])


@pytest.mark.parametrize("seed", range(40))
def test_scans_of_parts_merge_into_the_loops_choice_and_its_ties(seed: int) -> None:
    """Passes run on threads scan ranges of the values alone; merged, they are one scan."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 1200))
    values = tie_rich(rng, n)
    parts = int(rng.integers(1, 6))
    cuts = np.sort(rng.integers(0, n + 1, size=parts - 1))  # ranges may be empty
    starts, stops = np.r_[0, cuts], np.r_[cuts, n]
    lows, positions, ties = np.full(parts, np.inf), np.full(parts, -1), np.zeros(parts, np.int64)
    for p, (a, b) in enumerate(zip(starts, stops, strict=True)):
        k, c = last_argmin(values[a:b], b - a)
        if k >= 0:
            lows[p], positions[p], ties[p] = values[a + k], a + k, c
    position, n_ties = merge_parts(lows, positions, ties)
    assert position == loop_argmin(values, np.arange(n))
    expected = np.count_nonzero(values == values[position]) if position >= 0 else 0
    assert n_ties == expected
