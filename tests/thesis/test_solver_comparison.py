"""Appendix A's summary and the thesis's orderings, on runs whose means are known by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from esmo.papers.common.judging import judge_claims
from esmo.papers.common.reproduction import CLAIM_COLUMNS
from esmo.papers.thesis.solver_comparison import (
    ORDERING_COLUMNS,
    READINGS,
    SAME_ACCURACY,
    SUMMARY_COLUMNS,
    THESIS_ORDERINGS,
    Ordering,
    ordering_claims,
    solver_orderings,
    solver_summary,
)

# Two runs per solver: (n_iter, seconds, test_accuracy) of run 0 and run 1. Means
# (by hand): keerthi_own_rule 1200 / 2.0 / 0.94, keerthi 1500 / 2.5 / 0.97,
# fan_plain 1000 / 3.0 / 0.97, fan 1000 / 0.5 / 0.97, libsvm_shrinking 800 / 0.1 / 0.965,
# libsvm 1000 / 0.2 / 0.97.
RUNS = {
    "keerthi_own_rule": [(1100, 1.5, 0.93), (1300, 2.5, 0.95)],
    "keerthi": [(1400, 2.0, 0.96), (1600, 3.0, 0.98)],
    "fan_plain": [(900, 2.0, 0.96), (1100, 4.0, 0.98)],
    "fan": [(900, 0.4, 0.96), (1100, 0.6, 0.98)],
    "libsvm_shrinking": [(700, 0.1, 0.96), (900, 0.1, 0.97)],
    "libsvm": [(900, 0.1, 0.96), (1100, 0.3, 0.98)],
}


def runs_table(runs: dict = RUNS) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "dataset": "w1a",
                "solver": s,
                "fold": k,
                "n_iter": n,
                "seconds": t,
                "test_accuracy": a,
            }
            for s, values in runs.items()
            for k, (n, t, a) in enumerate(values)
        ]
    )


def test_summary_means_stds_and_thesis_values():
    thesis = pd.DataFrame(
        {
            "key": ["appendix_a.fan.test_accuracy_mean", "appendix_a.fan.test_accuracy_std"],
            "value": [97.13, 0.34],
        }
    )
    table = runs_table()
    other = table.assign(dataset="fourclass", test_accuracy=table["test_accuracy"] - 0.1)
    both = solver_summary(pd.concat([table, other]), thesis)
    assert list(both.columns) == SUMMARY_COLUMNS
    assert list(both["dataset"]) == ["w1a"] * 6 + ["fourclass"] * 6
    # the thesis's values are w1a's: none beside another dataset's rows
    assert both.loc[both["dataset"] == "fourclass", "thesis_test_accuracy_mean"].isna().all()
    fourclass = both[both["dataset"] == "fourclass"].set_index("solver")
    assert fourclass.loc["fan", "test_accuracy_mean"] == pytest.approx(87.0)
    out = both[both["dataset"] == "w1a"].set_index("solver")
    assert list(out.index) == list(RUNS)  # the order of the runs
    assert out.loc["keerthi_own_rule", "n_iter_mean"] == 1200
    assert out.loc["keerthi_own_rule", "n_iter_std"] == 100  # ddof = 0 over two runs
    assert out.loc["fan", "seconds_mean"] == pytest.approx(0.5)
    assert out.loc["keerthi_own_rule", "test_accuracy_mean"] == pytest.approx(94.0)
    assert out.loc["keerthi_own_rule", "test_accuracy_std"] == pytest.approx(1.0)
    assert out.loc["fan", "thesis_test_accuracy_mean"] == 97.13
    assert np.isnan(out.loc["libsvm", "thesis_test_accuracy_mean"])
    assert (out["n_runs"] == 2).all()


def test_orderings_by_hand():
    out = solver_orderings(runs_table())
    assert list(out.columns) == ORDERING_COLUMNS
    assert len(out) == len(READINGS) * len(THESIS_ORDERINGS)
    assert (out["dataset"] == "w1a").all()
    held = out.set_index(["reading", "ordering"])["holds"]
    expected_thesis = {
        # 800 < min(1200, 1000, 1000)
        "libsvm_fewest_iterations": True,
        # 0.1 < min(2.0, 3.0, 0.5)
        "libsvm_fastest": True,
        # max(1000, 1000) < 1200
        "fan_fewer_iterations_than_keerthi": True,
        # max(3.0, 0.5) < 2.0 fails: plain Fan is slower than Keerthi
        "fan_faster_than_keerthi": False,
        # min(0.97, 0.97) > 0.94
        "fan_more_accurate_than_keerthi": True,
        # 0.97 > 0.965
        "fan_more_accurate_than_libsvm": True,
        "optimised_fan_same_iterations": True,
        "optimised_fan_as_accurate": True,
        "optimised_fan_faster": True,
    }
    expected_libsvm_rule = expected_thesis | {
        # 1000 < min(1500, 1000, 1000) fails: a tie is not fewer
        "libsvm_fewest_iterations": False,
        # 0.2 < 0.5
        "libsvm_fastest": True,
        # max(3.0, 0.5) < 2.5 fails
        "fan_faster_than_keerthi": False,
        # 0.97 > 0.97 fails
        "fan_more_accurate_than_keerthi": False,
        "fan_more_accurate_than_libsvm": False,
    }
    assert held["thesis"].to_dict() == expected_thesis
    assert held["libsvm_rule"].to_dict() == expected_libsvm_rule
    row = out.set_index(["reading", "ordering"]).loc[("thesis", "fan_faster_than_keerthi")]
    # "less" compares the largest left mean with the smallest right one
    assert (row["left"], row["left_mean"], row["right_mean"]) == ("fan_plain, fan", 3.0, 2.0)
    row = out.set_index(["reading", "ordering"]).loc[("thesis", "fan_more_accurate_than_keerthi")]
    assert row["left_mean"] == pytest.approx(97.0) and row["right_mean"] == pytest.approx(94.0)


def test_same_uses_the_printed_precision_and_one_percent_of_iterations():
    runs = {k: list(v) for k, v in RUNS.items()}
    # 1 % more iterations is still the same; accuracy off by the tolerance still the same
    runs["fan"] = [(909, 0.4, 0.96 + SAME_ACCURACY), (1111, 0.6, 0.98 + SAME_ACCURACY)]
    held = solver_orderings(runs_table(runs)).set_index(["reading", "ordering"])["holds"]
    assert held[("thesis", "optimised_fan_same_iterations")]
    assert held[("thesis", "optimised_fan_as_accurate")]
    runs["fan"] = [(915, 0.4, 0.961), (1115, 0.6, 0.981)]  # 1.5 % more, 0.1 % better
    held = solver_orderings(runs_table(runs)).set_index(["reading", "ordering"])["holds"]
    assert not held[("thesis", "optimised_fan_same_iterations")]
    assert not held[("thesis", "optimised_fan_as_accurate")]


def test_readings_whose_solvers_did_not_run_are_left_out():
    table = runs_table()
    only_thesis = table[~table["solver"].isin(["keerthi", "libsvm"])]
    assert set(solver_orderings(only_thesis)["reading"]) == {"thesis"}
    with pytest.raises(ValueError, match="no reading"):
        solver_orderings(table[table["solver"] != "fan"])


def test_bad_runs_are_refused():
    table = runs_table()
    with pytest.raises(ValueError, match="several rows"):
        solver_summary(pd.concat([table, table.iloc[:1]]))
    with pytest.raises(ValueError, match="different runs"):
        solver_orderings(table.drop(index=table.index[-1]))
    with pytest.raises(ValueError, match="lacks column"):
        solver_summary(table.drop(columns="seconds"))
    with pytest.raises(ValueError, match="no tolerance"):
        Ordering("x", "A", "x", "seconds", "same", ("fan",), ("fan_plain",))


def test_orderings_become_the_reproduction_tables_claims():
    orderings = solver_orderings(runs_table())
    claims = ordering_claims(orderings)
    assert list(claims.columns) == CLAIM_COLUMNS[:5]
    assert claims["claim"].tolist() == [f"appendix_a.{o.name}" for o in THESIS_ORDERINGS]
    thesis = orderings[orderings["reading"] == "thesis"].set_index("ordering")["holds"]
    assert claims["holds"].tolist() == [bool(thesis[o.name]) for o in THESIS_ORDERINGS]
    row = claims.set_index("claim").loc["appendix_a.fan_faster_than_keerthi"]
    assert row["measure"] == "seconds, less: fan_plain, fan 3 vs keerthi_own_rule 2"
    judged = judge_claims(claims).set_index("claim")["status"]
    assert judged["appendix_a.fan_faster_than_keerthi"] == "not reproduced"
    assert judged["appendix_a.libsvm_fastest"] == "reproduced"
    # a run without w1a (a reduced config's) measures none of them
    elsewhere = solver_orderings(runs_table().assign(dataset="fourclass"))
    assert judge_claims(ordering_claims(elsewhere))["status"].eq("not measured").all()
    with pytest.raises(ValueError, match="reading must be"):
        ordering_claims(orderings, reading="mine")
