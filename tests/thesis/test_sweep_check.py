"""The sweep held against separate early-stopped fits (esmo.papers.thesis.sweep_check)."""

from __future__ import annotations

import pytest
from test_training import ES, FOLD, SVM  # the training jobs' small problem

from esmo.papers.thesis.sweep_check import compare_with_sweep, separate_fits, sweep_claim
from esmo.papers.thesis.sweep_jobs import sweep_chunk

KW = dict(kernel="rbf", max_iter=100_000, cache_size_mb=100.0, shrinking=True)


@pytest.fixture(scope="module")
def tables():
    sweep = sweep_chunk(FOLD, SVM, ES, metrics=["accuracy"], dataset="syn", fold=0, **KW)
    separate = separate_fits(FOLD, SVM, ES, metric="accuracy", **KW)
    return sweep, separate


def test_the_sweep_equals_its_pairs_fitted_alone(tables):
    """Two computations: one run tracking every configuration, and one run per pair."""
    sweep, separate = tables
    table = compare_with_sweep(sweep, separate)
    assert len(table) == len(SVM) * len(ES) and table["equal"].all()
    assert table["stopped_early_separate"].any() and not table["stopped_early_separate"].all()
    claim = sweep_claim(table, "syn").iloc[0]
    assert claim["holds"] and claim["measure"].startswith(
        f"{len(table)} of {len(table)} pairs equal"
    )


def test_a_sweep_row_that_differs_is_caught(tables):
    sweep, separate = tables
    stopped = sweep.index[(sweep["es_id"] == 0) & sweep["stopped_early"]][0]
    for column, value in (("n_iter", sweep.loc[stopped, "n_iter"] + 1),
                          ("test_accuracy", sweep.loc[stopped, "test_accuracy"] + 1e-9)):  # fmt: skip
        changed = sweep.copy()
        changed.loc[stopped, column] = value
        table = compare_with_sweep(changed, separate)
        assert (~table["equal"]).sum() == 1
        assert not sweep_claim(table, "syn").iloc[0]["holds"]
    with pytest.raises(ValueError, match="lacks 3 of the pairs"):
        compare_with_sweep(sweep[sweep["config_id"] != 3], separate)
