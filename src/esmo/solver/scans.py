"""The scans of an SMO iteration: the last extreme of a pass's candidate values, in lanes.

A pass of SMO ends in a scan for the best candidate, ties to the last
(LIBSVM's ``<=`` and ``>=``). Written as one loop, each comparison waits for
the one before (the running best is a chain through every point): about 1 ns
a point, two thirds of an iteration at n = 19,020. :func:`last_argmin` keeps
``LANES`` running bests side by side, point ``k`` in lane ``k % LANES``, and
merges them at the end: the same position, three to four times faster.

The merge is exact. The minimum does not depend on the order of the
comparisons; the last position that holds it is the largest of the lanes'
last positions that hold it; NaN (no candidate) compares false, in every lane
as in one loop. Values that compare equal (``-0.0`` and ``0.0`` too) count as
ties: a caller that visits the points in another order than their positions
(LIBSVM's order of the active points under shrinking) looks again in that
order when there are several (:func:`in_order`). Scans of ranges
run on threads merge the same way (:func:`merge_parts`).
"""

from __future__ import annotations

import numpy as np

from esmo.solver.compile import jit

#: Running bests kept side by side (32 was the fastest of 8, 16 and 32 at n = 19,020).
LANES = 32
#: Below this many values one loop is the faster: the lanes' set-up and merge cost about
#: as much as 150 comparisons.
FEWEST_FOR_LANES = 8 * LANES


@jit
def last_argmin(values, count):
    """``(position, ties)``: the last of ``values[:count]`` that holds their minimum; ``(-1, 0)`` if all are NaN.

    ``ties`` is how many of them hold it.
    """
    if count < FEWEST_FOR_LANES:
        return argmin_on(values, 0, count, np.inf, -1, 0)
    best = np.full(LANES, np.inf)
    where = np.full(LANES, -1)
    ties = np.zeros(LANES, dtype=np.int64)
    k = 0
    while k + LANES <= count:
        for lane in range(LANES):
            v = values[k + lane]
            b = best[lane]
            if v <= b:
                where[lane] = k + lane
                ties[lane] = 1 if v < b else ties[lane] + 1
                best[lane] = v
        k += LANES
    low = np.inf
    for lane in range(LANES):
        low = min(low, best[lane])
    position, n_ties = -1, 0
    for lane in range(LANES):
        if best[lane] == low:
            position = max(position, where[lane])
            n_ties += ties[lane]
    return argmin_on(values, k, count, low, position, n_ties)


@jit(inline="always")
def argmin_on(values, start, count, low, position, n_ties):
    """The one-loop scan of ``values[start:count]``, continuing from ``(low, position, n_ties)``."""
    for k in range(start, count):
        v = values[k]
        if v <= low:
            n_ties = 1 if v < low else n_ties + 1
            low, position = v, k
    return position, n_ties


@jit
def in_order(values, order, count, position, ties):
    """The point of ``order[:count]`` that a scan visiting them in turn keeps: the last minimum; -1 if none.

    ``values`` is indexed by the point (the points outside ``order[:count]``
    NaN); ``(position, ties)`` is :func:`last_argmin`'s over all of them (or
    :func:`merge_parts`'). A single minimum is that position; ties are
    resolved by the scan in ``order``.
    """
    if ties <= 1:
        return position
    low, best = np.inf, -1
    for k in range(count):
        t = order[k]
        if values[t] <= low:
            low = values[t]
            best = t
    return best


@jit
def merge_parts(lows, positions, ties):
    """:func:`last_argmin`'s ``(position, ties)`` over values scanned in parts, from the parts' own.

    Part ``p`` holds its last minimum ``lows[p]`` at ``positions[p]`` (-1: no
    candidate) ``ties[p]`` times. Exact, as the merge of the lanes: the
    minimum is the least of the parts', its last position the largest of
    theirs that hold it, its ties their sum.
    """
    low = np.inf
    for p in range(positions.shape[0]):
        if positions[p] >= 0:
            low = min(low, lows[p])
    position, n_ties = -1, 0
    for p in range(positions.shape[0]):
        if positions[p] >= 0 and lows[p] == low:
            position = max(position, positions[p])
            n_ties += ties[p]
    return position, n_ties


@jit
def max_of(values, count):
    """The largest of ``values[:count]`` (``-inf`` if none), in lanes."""
    top = -np.inf
    start = 0
    if count >= FEWEST_FOR_LANES:
        high = np.full(LANES, -np.inf)
        while start + LANES <= count:
            for lane in range(LANES):
                v = values[start + lane]
                if v >= high[lane]:
                    high[lane] = v
            start += LANES
        for lane in range(LANES):
            top = max(top, high[lane])
    for k in range(start, count):
        if values[k] >= top:
            top = values[k]
    return top
