"""Wilcoxon and Holm against known values (thesis sec 5.3) and hand computations."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from esmo.papers.common.statistics import holm, wilcoxon_greater
from esmo.papers.thesis.significance import wilcoxon_holm


def _exact_upper_tail(differences: np.ndarray) -> float:
    """P(R+ >= observed) by enumerating all 2^n sign flips of the ranks (no ties)."""
    ranks = np.argsort(np.argsort(np.abs(differences))) + 1
    observed = ranks[differences > 0].sum()
    sums = [
        sum(r for r, s in zip(ranks, signs, strict=True) if s)
        for signs in itertools.product([0, 1], repeat=len(ranks))
    ]
    return float(np.mean(np.array(sums) >= observed))


def test_six_positive_differences_give_the_maximum_statistic_and_p_one_over_64():
    statistic, p = wilcoxon_greater([0.01, 0.02, 0.03, 0.04, 0.05, 0.06])
    assert statistic == 21.0
    assert p == pytest.approx(1 / 64)


@pytest.mark.parametrize("seed", range(5))
def test_exact_pvalue_matches_enumeration(seed):
    d = np.random.default_rng(seed).normal(0.2, 1.0, size=7)
    _, p = wilcoxon_greater(d)
    assert p == pytest.approx(_exact_upper_tail(d))


def test_zero_differences_are_split_not_dropped():
    # zsplit ranks the zero (rank 1) and gives half of it to R+; dropping it would give 15.
    statistic, p = wilcoxon_greater([0.0, 2, 3, 4, 5, 6])
    assert statistic == 20.5
    # By hand: the zero's half rank is in R+ under every sign assignment, so
    # R+ >= 20.5 only when all five non-zero differences are positive: p = 1/2^5
    # (not 1/64: a zero is no win).
    assert p == pytest.approx(1 / 32)
    # two zeros share ranks 1 and 2 (1.5 each): R+ = 1.5 + 3 + 4 + 5 + 6 = 19.5, p = 1/2^4
    assert wilcoxon_greater([0.0, 0.0, 3, 4, 5, 6]) == (19.5, pytest.approx(1 / 16))
    assert wilcoxon_greater(np.zeros(6)) == (10.5, 1.0)


def test_wilcoxon_rejects_bad_input():
    with pytest.raises(ValueError, match="non-empty"):
        wilcoxon_greater([])
    with pytest.raises(ValueError, match="NaN"):
        wilcoxon_greater([0.1, np.nan])


def test_holm_matches_hand_computation():
    p = np.array([0.01, 0.04, 0.03, 0.005])
    # sorted: 0.005*4=0.02, 0.01*3=0.03, 0.03*2=0.06, 0.04*1=0.04 -> running max 0.06
    np.testing.assert_allclose(holm(p), [0.03, 0.06, 0.06, 0.02])
    np.testing.assert_allclose(holm([0.5, 0.9]), [1.0, 1.0])
    assert holm([]).size == 0
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        holm([1.2])


def _scores(n_configs: int, n_datasets: int = 6) -> pd.DataFrame:
    """Config 0 beats the reference everywhere; the others lose or tie."""
    rng = np.random.default_rng(0)
    rows = []
    for j in range(n_configs):
        for i in range(n_datasets):
            gain = 0.01 * (i + 1) if j == 0 else (-0.01 * (i + 1) if j % 2 else 0.0)
            rows.append(
                {
                    "dataset": f"d{i}",
                    "kernel": "rbf",
                    "metric": "accuracy",
                    "es_id": j,
                    "beta": 0.995,
                    "score_ref": 0.9 + rng.uniform(-0.05, 0.05),
                }
            )
            rows[-1]["score"] = rows[-1]["score_ref"] + gain
            rows[-1]["win"] = 0.5 + 0.5 * np.sign(gain)
    return pd.DataFrame(rows)


def test_holm_over_100_configurations_blocks_significance():
    """Sec 5.3: the best possible p = 1/64 becomes min(1, 100/64) = 1 after Holm."""
    table = wilcoxon_holm(_scores(100), 0.995).set_index("es_id")
    assert len(table) == 100
    best = table.loc[0]
    assert best["wins"] == 6.0 and best["n_datasets"] == 6 and best["statistic"] == 21.0
    assert best["pvalue"] == pytest.approx(1 / 64)
    assert best["pvalue_adj"] == pytest.approx(min(1.0, 100 / 64))
    assert not table["reject"].any()
    assert table.loc[1, "wins"] == 0.0 and table.loc[2, "wins"] == 3.0


def test_few_configurations_can_reject():
    table = wilcoxon_holm(_scores(2), 0.995).set_index("es_id")
    assert table.loc[0, "pvalue_adj"] == pytest.approx(2 / 64)
    assert bool(table.loc[0, "reject"]) and not bool(table.loc[1, "reject"])
