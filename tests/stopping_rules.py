"""The two early-stopping rules written out plainly, as the oracle the tracker is held to.

``published`` follows the thesis author's ``SMO_ES.fit`` (GitHub idekker1/SMO_ES)
line by line: a check after the updates 1, r + 1, 2r + 1, ...; ``obj_max``
starts at -inf (+inf for a metric that improves downwards); a patience counter
starts at p, drops at each check without improvement and stops the fit when it
reaches 0. ``text`` follows the thesis's algorithm 1 as docs/thesis-protocol.md section
5 reads it: checks at r, 2r, ...; the best starts at 0 (+inf); ``q < 0`` stops.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def replay_stop(
    value_at: Callable[[int], float],
    *,
    patience: int,
    tol: float,
    interval: int,
    higher: bool,
    rule: str,
    last: int,
) -> int | None:
    """The iteration at which ``rule`` stops, given the objective after each iteration.

    ``value_at(k)`` is the objective of the iterate after ``k`` updates; ``last``
    is the last iteration the run reaches (convergence). None: no stop before it.
    """

    def improved(obj: float, best: float) -> bool:
        return obj - best > tol if higher else best - obj > tol

    if rule == "published":
        best = -np.inf if higher else np.inf
        count = patience
        for k in range(1, last + 1, interval):
            obj = value_at(k)
            if improved(obj, best):
                count, best = patience, obj
            else:
                count -= 1
                if count == 0:
                    return k
        return None
    assert rule == "text", rule
    best = 0.0 if higher else np.inf
    q = patience
    for k in range(interval, last + 1, interval):
        obj = value_at(k)
        if improved(obj, best):
            q, best = patience, obj
        else:
            q -= 1
            if q < 0:
                return k
    return None
