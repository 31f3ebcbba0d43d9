"""Breiman's synthetic problems Twonorm, Threenorm and Ringnorm (TR 460, 1996).

Each draw has exactly ``n // 2`` rows of class -1 and the rest of class +1
("class 1" of the paper is +1), in random order, with d = 20 features by
default and ``a = 2 / sqrt(20)`` (protocol sec 3):

- Twonorm: +1 ~ N(a 1, I), -1 ~ N(-a 1, I); Bayes accuracy Phi(a sqrt(d)) = 97.7 %.
- Threenorm: +1 is the equal mixture of N(a 1, I) and N(-a 1, I), -1 ~
  N(a (1, -1, 1, -1, ...), I); Bayes accuracy about 89.5 %.
- Ringnorm: +1 ~ N(0, 4 I), -1 ~ N(a 1, I) with ``a = 1 / sqrt(20)`` (Breiman's
  text); Bayes accuracy about 98.5 %.

Every repetition draws fresh training and test sets from its own generator.

The NSVM paper's Ringnorm is the other one in use, Delve's and KEEL's 7,400 x 20
files (:func:`ringnorm_delve`): the shift is ``a = 2 / sqrt(d)`` and N(0, 4 I)
is labelled -1 (docs/nsvm-protocol.md); Bayes accuracy about 98.8 % at d = 20.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

#: Default dimension and shift of all three problems.
DIMENSION = 20
SHIFT = 2.0 / np.sqrt(DIMENSION)
RINGNORM_SHIFT = 1.0 / np.sqrt(DIMENSION)


def _labels(n: int, rng: np.random.Generator) -> np.ndarray:
    """``n // 2`` labels -1 and ``n - n // 2`` labels +1 in random order."""
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 2:
        raise ValueError(f"n must be an integer >= 2 (one row of each class), got {n!r}")
    return rng.permutation(np.r_[-np.ones(n // 2), np.ones(n - n // 2)]).astype(np.int8)


def twonorm(
    n: int, rng: np.random.Generator, *, d: int = DIMENSION, a: float = SHIFT
) -> tuple[np.ndarray, np.ndarray]:
    """``n`` Twonorm rows: N(+-a 1, I) by class."""
    y = _labels(n, rng)
    return rng.standard_normal((n, d)) + a * y[:, None], y


def threenorm(
    n: int, rng: np.random.Generator, *, d: int = DIMENSION, a: float = SHIFT
) -> tuple[np.ndarray, np.ndarray]:
    """``n`` Threenorm rows: +1 from N(a 1, I) or N(-a 1, I) (a fair coin), -1 from N(a alt, I)."""
    y = _labels(n, rng)
    alternating = np.where(np.arange(d) % 2 == 0, 1.0, -1.0)
    coin = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    mean = np.where(y[:, None] > 0, coin[:, None] * np.ones(d), alternating)
    return rng.standard_normal((n, d)) + a * mean, y


def ringnorm(
    n: int, rng: np.random.Generator, *, d: int = DIMENSION, a: float = RINGNORM_SHIFT
) -> tuple[np.ndarray, np.ndarray]:
    """``n`` Ringnorm rows: +1 from N(0, 4 I), -1 from N(a 1, I)."""
    y = _labels(n, rng)
    Z = rng.standard_normal((n, d))
    return np.where(y[:, None] > 0, 2.0 * Z, Z + a), y


def ringnorm_delve(
    n: int, d: int = DIMENSION, random_state: Any = None, *, a: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``n`` rows of Delve's Ringnorm (``n // 2`` per class; -1 gets the odd one), labels -1/+1.

    -1 ~ N(0, 4 I); +1 ~ N(a 1, I) with ``a = 2 / sqrt(d)`` unless given.
    ``random_state`` is anything :func:`numpy.random.default_rng` takes. Rows
    come in random order.
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


#: The generators by dataset name.
GENERATORS: dict[str, Callable[..., tuple[np.ndarray, np.ndarray]]] = {
    "twonorm": twonorm,
    "threenorm": threenorm,
    "ringnorm": ringnorm,
}


def bayes_decision(name: str, X: np.ndarray, *, a: float | None = None) -> np.ndarray:
    """The Bayes classifier's log-density ratio ``log p(x|+1) - log p(x|-1)`` (equal priors)."""
    X = np.asarray(X, dtype=np.float64)
    d = X.shape[1]
    a = (RINGNORM_SHIFT if name == "ringnorm" else SHIFT) if a is None else a

    def log_normal(mean: np.ndarray | float, var: float) -> np.ndarray:
        return -0.5 * np.sum((X - mean) ** 2, axis=1) / var - 0.5 * d * np.log(var)

    ones = np.ones(d)
    if name == "twonorm":
        return log_normal(a * ones, 1.0) - log_normal(-a * ones, 1.0)
    if name == "threenorm":
        alternating = np.where(np.arange(d) % 2 == 0, 1.0, -1.0)
        mixture = np.logaddexp(log_normal(a * ones, 1.0), log_normal(-a * ones, 1.0)) - np.log(2)
        return mixture - log_normal(a * alternating, 1.0)
    if name == "ringnorm":
        return log_normal(0.0, 4.0) - log_normal(a * ones, 1.0)
    raise KeyError(f"unknown Breiman problem {name!r}; known: {', '.join(GENERATORS)}")
