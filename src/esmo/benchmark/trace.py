"""The evaluation trace every method hands the benchmark, and the incumbent rule.

A trace has one row per evaluation in the order the method made them
(:data:`TRACE_COLUMNS`): the cost so far (cumulative CPU seconds, SMO
iterations and kernel evaluations where known, configurations evaluated) and
the incumbent after it, the configuration the method would hand back if
stopped then (its C, gamma and score by the method's own criterion, higher
is better). The scikit-learn-style searches of ``esmo.tuning`` expose the same
table as ``trace_``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

#: The columns of a trace, one row per evaluation.
TRACE_COLUMNS = [
    "order",
    "cpu_seconds",
    "n_iter",
    "kernel_evaluations",
    "n_evaluations",
    "C",
    "gamma",
    "selection_score",
]
#: What a method's final record holds besides its test accuracy: the whole cost (the final
#: refit included) and the handed-back model's hyperparameters and score.
FINAL_KEYS = TRACE_COLUMNS[1:]
#: The columns of the anytime records (protocol sec 4), one row per incumbent change and a
#: final one: the run, the step, the trace's cost and incumbent, its test accuracy, final.
RECORD_COLUMNS = ["dataset", "seed", "method", "step", *FINAL_KEYS, "test_accuracy", "final"]


def incumbents(
    scores: Sequence[float],
    levels: Sequence[float] | None = None,
    ties: Sequence[float] | None = None,
) -> np.ndarray:
    """The incumbent's position after each evaluation.

    The incumbent is the best-scored evaluation (higher is better, NaN worst)
    among those at the largest resource level reached so far: an evaluation at
    a new, larger level (a later halving round) becomes the incumbent whatever
    its score. Among equal scores the earlier evaluation stays, unless ``ties``
    gives each evaluation a key and a smaller key wins (a search that breaks
    ties by candidate order while evaluating in another order).
    """
    scores = np.where(np.isnan(np.asarray(scores, float)), -np.inf, np.asarray(scores, float))
    n = scores.size
    levels = np.zeros(n) if levels is None else np.asarray(levels, float)
    ties = np.arange(n, dtype=float) if ties is None else np.asarray(ties, float)
    out = np.empty(n, dtype=np.int64)
    best = 0
    for k in range(n):
        if levels[k] > levels[best] or (
            levels[k] == levels[best] and (scores[k], -ties[k]) > (scores[best], -ties[best])
        ):
            best = k
        out[k] = best
    return out


def make_trace(
    cpu_seconds: Sequence[float],
    n_iter: Sequence[float] | None,
    kernel_evaluations: Sequence[float] | None,
    C: Sequence[float],
    gamma: Sequence[float],
    scores: Sequence[float],
    *,
    levels: Sequence[float] | None = None,
    ties: Sequence[float] | None = None,
) -> pd.DataFrame:
    """The trace of evaluations given in order, each with its own cost, hyperparameters and score.

    Costs are per evaluation and summed here (None: unknown); the incumbent
    after each evaluation follows :func:`incumbents`.
    """
    n = len(cpu_seconds)
    unknown = np.full(n, np.nan)
    best = incumbents(scores, levels, ties)
    return pd.DataFrame(
        {
            "order": np.arange(n),
            "cpu_seconds": np.cumsum(np.asarray(cpu_seconds, float)),
            "n_iter": np.cumsum(unknown if n_iter is None else np.asarray(n_iter, float)),
            "kernel_evaluations": np.cumsum(
                unknown if kernel_evaluations is None else np.asarray(kernel_evaluations, float)
            ),
            "n_evaluations": np.arange(1, n + 1),
            "C": np.asarray(C, float)[best],
            "gamma": np.asarray(gamma, float)[best],
            "selection_score": np.asarray(scores, float)[best],
        },
        columns=TRACE_COLUMNS,
    )
