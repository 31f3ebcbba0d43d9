"""Log-uniform sampling of SVM and early-stopping configurations (table 3.1)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from esmo.tuning.sampling import ES_COLUMNS, SVM_COLUMNS, sample_es_configs, sample_svm_configs

RBF = {"log2_C": [-5, 15], "log2_gamma": [-15, 3], "log2_tol": [-8, -1]}
LINEAR = {"log2_C": [-3, 5], "log2_tol": [-8, -1]}
ES = {"log10_patience": [0, 4], "log10_es_tol": [-5, 0], "log2_interval": [0, 10]}


def test_rbf_configs_are_log_uniform_within_bounds():
    table = sample_svm_configs("rbf", 4000, 1, RBF)
    assert list(table.columns) == SVM_COLUMNS
    np.testing.assert_array_equal(table["config_id"], np.arange(4000))
    for column, key in (("C", "log2_C"), ("gamma", "log2_gamma"), ("tol", "log2_tol")):
        low, high = RBF[key]
        exponent = np.log2(table[column].to_numpy())
        assert exponent.min() >= low and exponent.max() <= high
        # Oracle: Kolmogorov-Smirnov against the uniform law of the exponent.
        assert stats.kstest(exponent, stats.uniform(low, high - low).cdf).pvalue > 1e-3
        # ... and not uniform in the value itself.
        values = table[column].to_numpy()
        assert stats.kstest(values, stats.uniform(2.0**low, 2.0**high - 2.0**low).cdf).pvalue < 1e-6


def test_linear_configs_have_no_gamma():
    table = sample_svm_configs("linear", 50, 1, LINEAR)
    assert table["gamma"].isna().all()
    assert table["C"].between(2.0**-3, 2.0**5).all()


def test_same_seed_same_table_and_csv_roundtrip(tmp_path):
    a = sample_svm_configs("rbf", 20, 7, RBF)
    pd.testing.assert_frame_equal(a, sample_svm_configs("rbf", 20, 7, RBF))
    assert not a.equals(sample_svm_configs("rbf", 20, 8, RBF))
    a.to_csv(tmp_path / "c.csv", index=False)
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "c.csv"), a)


def test_es_configs_patience_rounded_and_interval_one():
    table = sample_es_configs(3000, 2, ES)
    assert list(table.columns) == ES_COLUMNS
    assert table["patience"].dtype == np.int64
    assert table["patience"].between(1, 10_000).all()
    assert (table["interval"] == 1).all()
    exponent = np.log10(table["es_tol"].to_numpy())
    assert exponent.min() >= -5 and exponent.max() <= 0
    assert stats.kstest(exponent, stats.uniform(-5, 5).cdf).pvalue > 1e-3
    # Oracle: the law of round(10^u), u ~ U(0, 4) (flooring would double the ones)
    bins = [(1, 1), (2, 2), (3, 3), (4, 5), (6, 10), (11, 100), (101, 1000), (1001, 10_000)]
    _assert_rounded_power_law(table["patience"], 10.0, (0, 4), bins)


def _assert_rounded_power_law(values, base, exponent_range, bins):
    """Chi-square of integer ``values`` against ``round(base^u)``, ``u`` uniform on the range.

    ``round(base^u)`` falls in ``[a, b]`` when ``base^u`` lies in ``[a - 1/2, b + 1/2)``,
    which has probability ``(log_base(b + 1/2) - log_base(a - 1/2)) / (high - low)``
    (clipped to the range of ``base^u``).
    """
    low, high = exponent_range

    def cdf(v):
        return (np.log(np.clip(v, base**low, base**high)) / np.log(base) - low) / (high - low)

    expected = np.array([cdf(b + 0.5) - cdf(a - 0.5) for a, b in bins])
    np.testing.assert_allclose(expected.sum(), 1.0)
    values = np.asarray(values)
    observed = np.array([np.count_nonzero((values >= a) & (values <= b)) for a, b in bins])
    assert observed.sum() == values.size, "every value in a bin, i.e. in range"
    assert stats.chisquare(observed, expected * values.size).pvalue > 1e-3, (observed, expected)


def test_es_configs_with_interval():
    table = sample_es_configs(2000, 3, ES, with_interval=True)
    assert table["interval"].between(1, 1024).all()
    assert table["interval"].nunique() > 100
    # round(2^u), u ~ U(0, 10)
    bins = [(1, 1), (2, 2), (3, 4), (5, 8), (9, 16), (17, 64), (65, 256), (257, 1024)]
    _assert_rounded_power_law(table["interval"], 2.0, (0, 10), bins)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: sample_svm_configs("poly", 5, 0, RBF), ValueError, "kernel must be one of"),
        (lambda: sample_svm_configs("rbf", 5, 0, LINEAR), KeyError, "log2_gamma"),
        (lambda: sample_svm_configs("rbf", 0, 0, RBF), ValueError, "positive number"),
        (
            lambda: sample_svm_configs("linear", 5, 0, {"log2_C": [5, -3], "log2_tol": [-8, -1]}),
            ValueError,
            "low <= high",
        ),
        (lambda: sample_es_configs(5, 0, {"log10_patience": [0, 4]}), KeyError, "log10_es_tol"),
        (
            lambda: sample_es_configs(5, 0, {**ES, "log10_es_tol": [-5]}),
            ValueError,
            r"\[low, high\] pair",
        ),
    ],
)
def test_clear_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()
