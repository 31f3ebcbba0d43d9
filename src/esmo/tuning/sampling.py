"""Log-uniform sampling of SVM and early-stopping configurations (table 3.1, protocol §3).

Every hyperparameter is uniform in its exponent over a [low, high] interval.
One seed fixes each table, so the same configurations are shared by every
dataset and fold (and, for early stopping, by both kernels), which is what lets
the Wilcoxon test pair them across datasets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

#: Exponent ranges each kernel needs, in the order they are drawn.
SVM_SPACE_KEYS: dict[str, tuple[str, ...]] = {
    "linear": ("log2_C", "log2_tol"),
    "rbf": ("log2_C", "log2_gamma", "log2_tol"),
}

SVM_COLUMNS = ["config_id", "C", "gamma", "tol"]
ES_COLUMNS = ["es_id", "patience", "es_tol", "interval"]


def _bounds(space: Mapping[str, Sequence[float]], key: str, where: str) -> tuple[float, float]:
    if key not in space:
        raise KeyError(f"{where} search space has no {key!r} range; give it as [low, high]")
    pair = space[key]
    if len(pair) != 2:
        raise ValueError(f"{where}.{key} must be a [low, high] pair, got {pair!r}")
    low, high = float(pair[0]), float(pair[1])
    if not (np.isfinite(low) and np.isfinite(high) and low <= high):
        raise ValueError(f"{where}.{key} must hold finite bounds with low <= high, got {pair!r}")
    return low, high


def _check_n(n: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise ValueError(f"n must be a positive number of configurations, got {n!r}")


def sample_svm_configs(
    kernel: str, n: int, seed: int, space: Mapping[str, Sequence[float]]
) -> pd.DataFrame:
    """``n`` SVM configurations ``config_id, C, gamma, tol`` for ``kernel``.

    ``space`` maps ``log2_C``, ``log2_tol`` (and ``log2_gamma`` for RBF) to
    exponent ranges; ``gamma`` is NaN for the linear kernel.
    """
    if kernel not in SVM_SPACE_KEYS:
        raise ValueError(f"kernel must be one of {sorted(SVM_SPACE_KEYS)}, got {kernel!r}")
    _check_n(n)
    rng = np.random.default_rng(seed)
    values = {
        key: 2.0 ** rng.uniform(*_bounds(space, key, kernel), size=n)
        for key in SVM_SPACE_KEYS[kernel]
    }
    return pd.DataFrame(
        {
            "config_id": np.arange(n, dtype=np.int64),
            "C": values["log2_C"],
            "gamma": values.get("log2_gamma", np.full(n, np.nan)),
            "tol": values["log2_tol"],
        },
        columns=SVM_COLUMNS,
    )


def sample_es_configs(
    n: int, seed: int, space: Mapping[str, Sequence[float]], with_interval: bool = False
) -> pd.DataFrame:
    """``n`` early-stopping configurations ``es_id, patience, es_tol, interval``.

    Patience is the integer ``max(1, round(10^u))`` with ``u`` uniform over
    ``log10_patience``; ``es_tol`` is ``10^u`` over ``log10_es_tol``. The check
    interval is ``max(1, round(2^u))`` over ``log2_interval`` when
    ``with_interval`` (E4), else 1 (every iteration).
    """
    _check_n(n)
    rng = np.random.default_rng(seed)
    patience = np.maximum(
        1, np.rint(10.0 ** rng.uniform(*_bounds(space, "log10_patience", "early_stopping"), size=n))
    )
    es_tol = 10.0 ** rng.uniform(*_bounds(space, "log10_es_tol", "early_stopping"), size=n)
    if with_interval:
        exponent = rng.uniform(*_bounds(space, "log2_interval", "early_stopping"), size=n)
        interval = np.maximum(1, np.rint(2.0**exponent))
    else:
        interval = np.ones(n)
    return pd.DataFrame(
        {
            "es_id": np.arange(n, dtype=np.int64),
            "patience": patience.astype(np.int64),
            "es_tol": es_tol,
            "interval": interval.astype(np.int64),
        },
        columns=ES_COLUMNS,
    )
