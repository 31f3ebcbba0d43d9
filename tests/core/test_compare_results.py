"""benchmarks/compare_results.py: timing-derived cells by declaration, everything else exact.

Its name pattern (``seconds|^score|^win|speedup|time``) took E1's iteration-based score for
timing and missed time-derived columns named otherwise (slopes, ratios, a claim's measure),
so an interrupted-and-resumed run was reported as 18 real differences (issue 35, item 9).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location(
    "compare_results", REPO / "benchmarks" / "compare_results.py"
)
compare_results = importlib.util.module_from_spec(_spec)
sys.modules["compare_results"] = compare_results
_spec.loader.exec_module(compare_results)

DECLARATION = [
    compare_results.Timing("e3/scores.csv", ("seconds", "score")),
    compare_results.Timing(
        "*/reproduction.csv",
        ("ours",),
        "key",
        __import__("re").compile(r".*\.time_s"),
    ),
]


def _runs(tmp_path: Path, rel: str, a: pd.DataFrame, b: pd.DataFrame) -> tuple[Path, Path]:
    for name, table in (("a", a), ("b", b)):
        path = tmp_path / name / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(path, index=False)
    return tmp_path / "a", tmp_path / "b"


def _compare(tmp_path, rel, a, b, **kw):
    return compare_results.compare(*_runs(tmp_path, rel, a, b), DECLARATION, **kw)[0]


def test_declared_timing_columns_may_differ_and_nothing_else(tmp_path):
    a = pd.DataFrame({"method": ["RS", "SH"], "seconds": [1.0, 2.0], "score": [0.9, 0.8]})
    assert _compare(tmp_path / "1", "e3/scores.csv", a, a.assign(seconds=[1.5, 2.5])) == 0
    assert _compare(tmp_path / "2", "e3/scores.csv", a, a.assign(method=["RS", "SH+ES"])) == 1


def test_a_time_like_name_is_not_enough(tmp_path):
    """E1's score S is counted in iterations: a difference there is real, whatever its name."""
    a = pd.DataFrame({"es_id": [0, 1], "score": [0.9, 0.8], "win": [1.0, 0.0]})
    assert _compare(tmp_path, "e1/scores.csv", a, a.assign(score=[0.9, 0.7])) == 1


def test_rows_restrict_a_declaration_to_the_timing_derived_quantities(tmp_path):
    a = pd.DataFrame({"key": ["t1.acc", "t1.time_s"], "ours": [90.0, 3.0]})
    assert _compare(tmp_path / "1", "p/reproduction.csv", a, a.assign(ours=[90.0, 4.0])) == 0
    assert _compare(tmp_path / "2", "p/reproduction.csv", a, a.assign(ours=[91.0, 3.0])) == 1


def test_a_column_glob_covers_one_column_per_method_and_no_other(tmp_path):
    declaration = [compare_results.Timing("benchmark/friedman.csv", ("p_*",))]
    a = pd.DataFrame({"method": ["rs", "sh"], "p_rs": [1.0, 0.2], "p_sh": [0.2, 1.0]})

    def compare(sub, b):
        return compare_results.compare(*_runs(tmp_path / sub, "benchmark/friedman.csv", a, b),
                                       declaration)[0]  # fmt: skip

    assert compare("1", a.assign(p_rs=[1.0, 0.3], p_sh=[0.3, 1.0])) == 0
    assert compare("2", a.assign(method=["sh", "rs"])) == 1


def test_a_changed_shape_and_a_missing_file_fail(tmp_path):
    a = pd.DataFrame({"method": ["RS"], "seconds": [1.0], "score": [0.9]})
    assert _compare(tmp_path / "1", "e3/scores.csv", a, pd.concat([a, a])) == 1
    run_a, run_b = _runs(tmp_path / "2", "e3/scores.csv", a, a)
    (run_b / "e3" / "scores.csv").unlink()
    assert compare_results.compare(run_a, run_b, DECLARATION)[0] == 1


def test_stale_declarations_are_reported_when_asked(tmp_path):
    a = pd.DataFrame({"method": ["RS"], "seconds": [1.0], "score": [0.9]})
    failures, lines = _compare(tmp_path, "e3/scores.csv", a, a, check_declaration=True), None
    assert failures == 1  # */reproduction.csv matches no table here
    run_a, run_b = _runs(tmp_path / "2", "e3/scores.csv", a.drop(columns="score"), a)
    _, lines = compare_results.compare(run_a, run_b, DECLARATION, check_declaration=True)
    assert "stale declaration: e3/scores.csv: no matching table has column(s) ['score']" in lines


@pytest.mark.parametrize("entry", compare_results.load_declaration())
def test_the_shipped_declaration_names_tables_and_columns(entry):
    assert entry.files and entry.columns and (entry.key is None) == (entry.match is None)
