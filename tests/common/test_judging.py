"""The one judging machinery of the five papers (esmo.papers.common.judging)."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from esmo.papers.common.judging import (
    check_rules,
    judge_claims,
    judge_numbers,
    load_rules,
    status_counts,
    summary_line,
    verdicts,
)
from esmo.papers.common.reproduction import STATUSES, load_paper_values, reproduction_table

DATA = Path(__file__).resolve().parents[2] / "workflow" / "data"
PAPERS = ("thesis", "mdl", "nsvm", "ensembles", "gradient")


def _rules(*lines: tuple[str, str, str, str]) -> list:
    return check_rules(pd.DataFrame(lines, columns=["pattern", "rule", "argument", "reason"]))


def _judge(rows: list[tuple[str, float, float, str]], rules: list) -> pd.Series:
    """Statuses of (key, paper, ours, unit) rows under ``rules``."""
    values = pd.DataFrame(
        {
            "key": [r[0] for r in rows],
            "section": "s",
            "description": "d",
            "value": [r[1] for r in rows],
            "unit": [r[3] for r in rows],
        }
    )
    ours = {r[0]: r[2] for r in rows if not math.isnan(r[2])}
    table = reproduction_table(values, ours)
    return judge_numbers(table, rules).set_index("key")["status"]


def test_each_rule_on_both_sides_of_its_edge():
    rules = _rules(
        (r"w\..*", "within", "0.5", ""),
        (r"m\..*_mean", "within_sibling", "x_std", ""),
        (r"m\..*_std", "context", "", "judged through the mean"),
        (r"f\..*", "factor", "2", ""),
        (r"b\..*", "binomial", "100", ""),
        (r"s\..*", "sign", "0", ""),
        (r"e\..*", "equal", "", ""),
        (r"set\..*", "setting", "", "the configured value"),
    )
    status = _judge(
        [
            ("w.in", 10.0, 10.5, ""),  # the edge is inside
            ("w.out", 10.0, 10.5000001, ""),
            ("m.a.x_mean", 90.0, 91.0, "%"),
            ("m.a.x_std", 1.0, 5.0, "%"),
            ("m.b.x_mean", 90.0, 88.9, "%"),
            ("m.b.x_std", 1.0, 1.0, "%"),
            ("f.in", 4.0, 2.0, ""),
            ("f.out", 4.0, 8.01, ""),
            # 2 sqrt(0.9 * 0.1 / 100) = 0.06 of a proportion: 6 points in %
            ("b.in", 90.0, 84.0, "%"),
            ("b.out", 90.0, 83.9, "%"),
            ("s.same", 0.01, 0.5, ""),
            ("s.other", 0.01, -0.001, ""),
            ("s.zero", 0.01, 0.0, ""),  # not on the paper's side: a tie is not a win
            ("e.same", 3.0, 3.0, ""),
            ("e.other", 3.0, 3.0001, ""),
            ("e.missing", 3.0, math.nan, ""),
            ("set.t", 10.0, 99.0, ""),
        ],
        rules,
    )
    assert status["w.in"] == "reproduced" and status["w.out"] == "not reproduced"
    assert status["m.a.x_mean"] == "reproduced" and status["m.b.x_mean"] == "not reproduced"
    assert status["m.a.x_std"] == "context"
    assert status["f.in"] == "reproduced" and status["f.out"] == "not reproduced"
    assert status["b.in"] == "reproduced" and status["b.out"] == "not reproduced"
    assert status["s.same"] == "reproduced" and status["s.other"] == "not reproduced"
    assert status["s.zero"] == "not reproduced"
    assert status["e.same"] == "reproduced" and status["e.other"] == "not reproduced"
    assert status["e.missing"] == "not measured"
    assert status["set.t"] == "setting"  # a configured value is never judged, whatever it is


def test_the_binomial_rule_allows_at_least_one_test_point():
    """A paper's 0 errors on 2,115 images: 2 standard errors are 0, one image is allowed."""
    rules = _rules((r".*", "binomial", "2115", ""))
    status = _judge([("a", 0.0, 1 / 2115, ""), ("b", 0.0, 2 / 2115, "")], rules)
    assert status["a"] == "reproduced" and status["b"] == "not reproduced"


def test_a_not_reproduced_number_is_explained_by_a_named_cause():
    rules = _rules((r".*", "equal", "", ""))
    values = pd.DataFrame(
        {"key": ["a.x", "b.x"], "section": "s", "description": "d", "value": 1.0, "unit": ""}
    )
    table = reproduction_table(values, {"a.x": 2.0, "b.x": 2.0})
    explanations = pd.DataFrame({"pattern": [r"a\..*"], "explanation": ["a tested cause"]})
    judged = judge_numbers(table, rules, explanations).set_index("key")
    assert judged.loc["a.x", "status"] == "explained"
    assert judged.loc["a.x", "explanation"] == "a tested cause"
    assert judged.loc["b.x", "status"] == "not reproduced"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (("a.(", "equal", "", ""), "is not a regular expression"),
        (("a", "close", "", ""), "unknown rule 'close'"),
        (("a", "within", "", ""), "'within' needs a number"),
        (("a", "factor", "0", ""), "'factor' needs a positive argument"),
        (("a", "within_sibling", "", ""), "needs the sibling's last field"),
        (("a", "setting", "", ""), "must say in 'reason' why"),
    ],
)
def test_a_bad_rules_file_is_refused_with_its_line(line, message):
    with pytest.raises(ValueError, match=rf"rules.csv, line 2: .*{message}"):
        check_rules(
            pd.DataFrame([line], columns=["pattern", "rule", "argument", "reason"]), "rules.csv"
        )


def test_a_number_without_a_rule_is_an_error_not_a_pass():
    rules = _rules((r"a\..*", "equal", "", ""))
    with pytest.raises(ValueError, match=r"no rule judges 'b.x'; add a line for it to"):
        _judge([("a.x", 1.0, 1.0, ""), ("b.x", 1.0, 1.0, "")], rules)


def test_summary_counts_the_judged_rows_and_lists_the_others_apart():
    numbers = pd.DataFrame(
        {"status": ["reproduced", "reproduced", "explained", "not reproduced", "setting",
                    "consequence", "consequence", "not measured"]}
    )  # fmt: skip
    claims = judge_claims(
        pd.DataFrame(
            {
                "claim": ["c1", "c2", "c3"],
                "section": "s",
                "statement": "t",
                "measure": "m",
                "holds": [True, False, None],
            }
        )  # fmt: skip
    )
    assert list(claims["status"]) == ["reproduced", "not reproduced", "not measured"]
    assert summary_line(numbers, claims) == (
        "4 numbers: 2 reproduced, 1 explained, 1 not (3 listed apart: 1 setting, "
        "2 consequence), 1 not measured; 2 claims: 1 reproduced, 0 explained, 1 not, "
        "1 not measured"
    )
    assert sum(status_counts(numbers).values()) == len(numbers)
    with pytest.raises(ValueError, match="unknown status"):
        status_counts(pd.DataFrame({"status": ["done"]}))


@pytest.mark.parametrize("paper", PAPERS)
def test_every_papers_rules_cover_its_values(paper):
    """Each paper's rules file judges every one of its values: no number goes unjudged."""
    folder = DATA / paper
    values = load_paper_values(next(folder.glob("*values.csv")))
    rules = load_rules(folder / "rules.csv")
    judged = judge_numbers(reproduction_table(values, {}), rules)
    assert len(judged) == len(values)
    assert set(judged["status"]) <= set(STATUSES)


def test_verdicts_count_each_paper_and_the_project():
    """Counts against value_counts of the same tables; the project row is their sum."""
    a = pd.DataFrame({"status": ["reproduced", "not reproduced", "setting", "not measured"]})
    a_claims = pd.DataFrame({"status": ["reproduced", "explained"]})
    b = pd.DataFrame({"status": ["reproduced", "reproduced", "consequence", "context"]})
    table = verdicts({"a": (a, a_claims), "b": (b, None)}).set_index("paper")
    assert list(table.index) == ["a", "b", "project"]
    assert table.loc["a", "numbers reproduced"] == 1 and table.loc["a", "numbers listed apart"] == 1
    assert table.loc["a", "numbers not measured"] == 1 and table.loc["a", "claims explained"] == 1
    assert table.loc["b", "numbers listed apart"] == 2 and table.loc["b", "claims reproduced"] == 0
    assert table.loc["project", "numbers reproduced"] == 3
    assert table.loc["project", "summary"] == (
        "4 numbers: 3 reproduced, 0 explained, 1 not; 2 claims: 1 reproduced, 1 explained, 0 not"
    )
