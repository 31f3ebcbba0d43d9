"""The paper-values file, the reproduction table and the report's HTML writer (esmo.papers.common)."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from conftest import paper_values_by_hand

from esmo.papers.common.html import html_table, reproduction_html
from esmo.papers.common.reproduction import (
    load_paper_values,
    reproduction_columns,
    reproduction_table,
)


def test_reproduction_table_joins_by_key_and_subtracts():
    out = reproduction_table(paper_values_by_hand(), {"c.p": 100, "a.acc": 97.5})
    assert list(out.columns) == reproduction_columns("paper")
    assert out["key"].tolist() == ["a.acc", "b.iters", "c.p"]  # the paper's order
    assert out["ours"].tolist()[0] == 97.5 and out["ours"].tolist()[2] == 100.0
    assert out["difference"].iloc[0] == pytest.approx(0.23)
    assert out["difference"].iloc[2] == -9.0
    assert math.isnan(out["ours"].iloc[1]) and math.isnan(out["difference"].iloc[1])


def test_reproduction_table_rejects_unknown_keys_and_bad_tables():
    with pytest.raises(ValueError, match=r"\['a.ac'\]"):
        reproduction_table(paper_values_by_hand(), {"a.ac": 97.0})
    with pytest.raises(ValueError, match="repeats key"):
        reproduction_table(pd.concat([paper_values_by_hand(), paper_values_by_hand().iloc[:1]]), {})
    with pytest.raises(ValueError, match="no section"):
        reproduction_table(paper_values_by_hand().assign(section=["4.3", "", "5.2"]), {})


def test_report_html_escapes_text_and_formats_numbers():
    page = reproduction_html(reproduction_table(paper_values_by_hand(), {"a.acc": 97.5}))
    assert page.count("<tr>") == 4  # header and three rows
    assert "iterations &lt;raw&gt;" in page and "<raw>" not in page
    assert "<td>97.5</td>" in page and "<td>–</td>" in page


def test_the_label_heads_the_papers_column():
    out = reproduction_table(paper_values_by_hand(), {"a.acc": 97.5}, label="thesis")
    assert list(out.columns) == [
        "key",
        "section",
        "description",
        "unit",
        "thesis",
        "ours",
        "difference",
    ]
    assert out["thesis"].iloc[0] == 97.27


def test_messages_name_the_file_to_fix(tmp_path):
    path = tmp_path / "paper_values.csv"
    paper_values_by_hand().assign(value=["97.3", "many", "109"]).to_csv(path, index=False)
    with pytest.raises(
        ValueError, match=r"paper_values\.csv: value\(s\) \['b.iters'\] are not numbers"
    ):
        load_paper_values(path)
    paper_values_by_hand().to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"add the paper's value to .*paper_values\.csv"):
        reproduction_table(load_paper_values(path), {"z.zz": 1.0}, source=path)


def test_html_table_formats_float_columns_and_escapes_the_rest():
    frame = pd.DataFrame({"name": ["<a>", "b"], "n": [3, 4], "x": [0.123456789, float("nan")]})
    page = html_table(frame, digits=3)
    assert "<th>name</th><th>n</th><th>x</th>" in page
    assert "<td>&lt;a&gt;</td><td>3</td><td>0.123</td>" in page
    assert "<td>b</td><td>4</td><td>–</td>" in page
    assert page.startswith("<table>") and 'class="' not in page
    assert html_table(frame, css="claims").startswith('<table class="claims">')
