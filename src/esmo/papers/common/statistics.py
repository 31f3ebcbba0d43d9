"""The statistics several papers use: Wilcoxon signed-rank tests and Holm's correction.

The one-sided test and Holm's step-down method serve the thesis's E1
(:mod:`esmo.papers.thesis.significance`); the two-sided paired test the MDL
paper's many-split comparison.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.stats import wilcoxon
from statsmodels.stats.multitest import multipletests


def wilcoxon_greater(differences: Sequence[float] | np.ndarray) -> tuple[float, float]:
    """One-sided Wilcoxon signed-rank test that the differences are positive.

    ``differences`` are ``S_j - S_ref`` over datasets. Zero differences are
    ranked and their ranks split evenly between the positive and negative
    sums (``zero_method="zsplit"``), the treatment Demšar (2006) recommends and
    the analogue of splitting ties in the sign test (sec 5.3); dropping them
    instead would let a configuration that ties on most datasets look
    significant. The p-value is exact for small samples without tied
    magnitudes (scipy's ``method="auto"``), so six positive differences of
    distinct size give ``R+ = 21`` and ``p = 1/64``.

    Returns ``(statistic, pvalue)`` with the statistic the positive rank sum
    ``R+``. All-zero differences carry no evidence of a gain: ``p = 1``.
    """
    d = np.asarray(differences, dtype=float)
    if d.ndim != 1 or d.size == 0:
        raise ValueError(f"differences must be a non-empty 1-D array, got shape {d.shape}")
    if not np.isfinite(d).all():
        raise ValueError("differences contain NaN or infinity; check the score table")
    if not d.any():
        # scipy's behaviour here varies between versions (error, NaN or 1).
        return float(d.size * (d.size + 1) / 4), 1.0
    result = wilcoxon(d, zero_method="zsplit", alternative="greater", method="auto")
    return float(result.statistic), float(result.pvalue)


def holm(pvalues: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error control), capped at 1."""
    p = np.asarray(pvalues, dtype=float)
    if p.ndim != 1:
        raise ValueError(f"pvalues must be 1-D, got shape {p.shape}")
    if p.size == 0:
        return p.copy()
    if np.isnan(p).any() or (p < 0).any() or (p > 1).any():
        raise ValueError("p-values must lie in [0, 1] without NaN")
    return multipletests(p, method="holm")[1]


def wilcoxon_paired(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> dict:
    """Two-sided Wilcoxon signed-rank test of paired samples ``a`` against ``b`` (e.g. MDL vs CV).

    Zero differences are split between the rank sums (``zsplit``), as in
    :func:`wilcoxon_greater`: ties are common when both methods score the same
    split alike. Returns the number of pairs, the mean difference ``a - b``, how
    often ``a`` and ``b`` win, the statistic (scipy's, the smaller rank sum) and
    the p-value (1 when every difference is zero).
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1 or a.size == 0:
        raise ValueError(f"a and b must be 1-D of one length, got shapes {a.shape} and {b.shape}")
    d = a - b
    if not np.isfinite(d).all():
        raise ValueError("the paired values contain NaN or infinity")
    out = {
        "n": int(d.size),
        "mean_difference": float(d.mean()),
        "a_wins": int(np.sum(d > 0)),
        "b_wins": int(np.sum(d < 0)),
    }
    if not d.any():
        return out | {"statistic": float(d.size * (d.size + 1) / 4), "pvalue": 1.0}
    result = wilcoxon(d, zero_method="zsplit", alternative="two-sided", method="auto")
    return out | {"statistic": float(result.statistic), "pvalue": float(result.pvalue)}
