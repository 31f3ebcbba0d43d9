"""Breiman's synthetic benchmark problems (Breiman 1996, "Bias, variance and arcing classifiers").

Ringnorm: class 1 is N(0, 4 I) and class 2 is N(a 1, I) in ``d`` dimensions,
with ``a = 2 / sqrt(d)`` (Breiman's definition; Delve's and KEEL's 7,400 x 20
files use it). Bayes accuracy about 98.8 % at d = 20.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def ringnorm(
    n: int, d: int = 20, random_state: Any = None, *, a: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``n`` Ringnorm points (``n // 2`` per class; class 1 gets the odd one), labels ``-1``/``+1``.

    Class 1 (label ``-1``) ~ N(0, 4 I); class 2 (label ``+1``) ~ N(a 1, I) with
    ``a = 2 / sqrt(d)`` unless given. ``random_state`` is anything
    :func:`numpy.random.default_rng` takes. Rows come in random order.
    """
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 2:
        raise ValueError(f"n must be an integer >= 2 (one point per class at least), got {n!r}.")
    if isinstance(d, bool) or not isinstance(d, int | np.integer) or d < 1:
        raise ValueError(f"d must be a positive integer dimension, got {d!r}.")
    shift = 2.0 / math.sqrt(d) if a is None else float(a)
    rng = np.random.default_rng(random_state)
    n2 = n // 2
    n1 = n - n2
    X = np.vstack([rng.normal(0.0, 2.0, size=(n1, d)), rng.normal(shift, 1.0, size=(n2, d))])
    y = np.concatenate([-np.ones(n1), np.ones(n2)])
    order = rng.permutation(n)
    return X[order], y[order]
