"""The synthetic Gaussian blobs of experiment E2 (thesis sec 3.3, protocol §1).

The spread grows with the dimension (s = 2 sqrt(d)) so that the two classes
stay overlapping, i.e. not linearly separable, as d grows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

#: Mean of the second blob along every axis; the first blob is centred at 0.
SECOND_MEAN = 4.0


def n_samples(d: int, *, sample_factor: int = 10, min_samples: int = 0) -> int:
    """Total number of samples for dimension ``d``: max(factor * d, minimum), made even."""
    n = max(sample_factor * d, min_samples)
    return 2 * math.ceil(n / 2)


def gaussian_blobs(
    d: int, *, sample_factor: int = 10, min_samples: int = 0, seed: int | Sequence[int]
) -> tuple[np.ndarray, np.ndarray]:
    """Two equal-sized Gaussian blobs in ``d`` dimensions.

    Class -1 ~ N(0, s^2 I) and class +1 ~ N(4 * 1, s^2 I) with s = 2 sqrt(d);
    the thesis uses n = 10 d samples, here ``max(sample_factor * d,
    min_samples)`` rounded up to an even number so that both classes have the
    same size. ``seed`` is anything :func:`numpy.random.default_rng` takes
    (the workflow passes ``[seed, d]``, one stream per dimension). Returns float64 ``X`` (class -1 rows first) and int8 ``y``.
    """
    if isinstance(d, bool) or not isinstance(d, int | np.integer) or d < 1:
        raise ValueError(f"d must be a positive integer dimension, got {d!r}")
    if sample_factor < 0 or min_samples < 0:
        raise ValueError(
            f"sample_factor and min_samples must be >= 0, got {sample_factor} and {min_samples}"
        )
    n = n_samples(int(d), sample_factor=sample_factor, min_samples=min_samples)
    if n < 2:
        raise ValueError(
            f"blobs with d={d}, sample_factor={sample_factor}, min_samples={min_samples} "
            "would be empty; raise sample_factor or min_samples"
        )
    rng = np.random.default_rng(seed)
    half = n // 2
    scale = 2.0 * math.sqrt(d)
    X = np.vstack(
        [
            rng.normal(0.0, scale, size=(half, d)),
            rng.normal(SECOND_MEAN, scale, size=(half, d)),
        ]
    )
    y = np.repeat(np.array([-1, 1], dtype=np.int8), half)
    return X, y
