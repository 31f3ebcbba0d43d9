"""Compare every CSV two workflow runs wrote: proof that a change left the tables as they were.

Usage::

    python benchmarks/compare_results.py RUN_A/results RUN_B/results

Each CSV under the first folder is read beside the file of the same path under
the second. Identical files pass. Otherwise every differing cell must lie in a
column that ``benchmarks/timing_columns.yaml`` declares timing-derived for that
table (and, where the declaration names rows, in such a row): values computed
from the clock, which no two runs share. A cell anywhere else is a real
difference. Exits 1 when any file is missing or differs in a declared-
deterministic cell. With ``--check-declaration`` (two whole runs), a declaration
that matches no table, or names a column no matching table has, is reported as
stale and fails too, so the declaration stays true.
"""

from __future__ import annotations

import argparse
import fnmatch
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import yaml

DECLARATION = Path(__file__).with_name("timing_columns.yaml")


@dataclass(frozen=True)
class Timing:
    """One table's timing-derived columns, in all rows or in the rows whose key matches."""

    files: str
    columns: tuple[str, ...]
    key: str | None = None
    match: re.Pattern | None = None


def load_declaration(path: Path = DECLARATION) -> list[Timing]:
    entries = []
    for entry in yaml.safe_load(path.read_text()):
        rows = entry.get("rows")
        entries.append(
            Timing(
                entry["files"],
                tuple(entry["columns"]),
                rows["column"] if rows else None,
                re.compile(rows["match"]) if rows else None,
            )
        )
    return entries


def timing_mask(rel: str, table: pd.DataFrame, declaration: list[Timing]) -> pd.DataFrame:
    """True at the cells of ``table`` (read from ``rel``) that are declared timing-derived."""
    mask = pd.DataFrame(False, index=table.index, columns=table.columns)
    for entry in declaration:
        if not fnmatch.fnmatch(rel, entry.files):
            continue
        rows = pd.Series(True, index=table.index)
        if entry.key is not None and entry.key in table.columns:
            rows = table[entry.key].astype(str).map(lambda v, m=entry.match: bool(m.fullmatch(v)))
        for column in _columns(entry, table):
            mask[column] |= rows
    return mask


def _columns(entry: Timing, table: pd.DataFrame) -> list[str]:
    """The columns of ``table`` that ``entry`` names, each name a glob (``p_*``: one per method)."""
    return [c for c in table.columns if any(fnmatch.fnmatchcase(c, g) for g in entry.columns)]


def differing_cells(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame | None:
    """True where the two tables differ (NaN equals NaN); None when their shapes or columns
    differ, which no timing can explain."""
    if a.shape != b.shape or list(a.columns) != list(b.columns):
        return None
    same = (a == b) | (a.isna() & b.isna())
    return ~same


def stale_entries(tables: dict[str, pd.DataFrame], declaration: list[Timing]) -> list[str]:
    """Declarations that match no table, or name a column none of their tables has."""
    stale = []
    for entry in declaration:
        matched = [t for rel, t in tables.items() if fnmatch.fnmatch(rel, entry.files)]
        if not matched:
            stale.append(f"{entry.files}: matches no table")
            continue
        found = {c for t in matched for c in t.columns}
        absent = [g for g in entry.columns if not any(fnmatch.fnmatchcase(c, g) for c in found)]
        if absent:
            stale.append(f"{entry.files}: no matching table has column(s) {absent}")
    return stale


def compare(
    a_dir: Path, b_dir: Path, declaration: list[Timing], *, check_declaration: bool = False
) -> tuple[int, list[str]]:
    """(failures, report lines) of the comparison of every CSV under the two folders."""
    lines, failures, identical, timing_only = [], 0, 0, 0
    tables = {}
    files = sorted(p.relative_to(a_dir) for p in a_dir.rglob("*.csv"))
    for rel in files:
        other = b_dir / rel
        if not other.is_file():
            lines.append(f"missing in {b_dir}: {rel}")
            failures += 1
            continue
        a = pd.read_csv(a_dir / rel)
        tables[rel.as_posix()] = a
        if (a_dir / rel).read_bytes() == other.read_bytes():
            identical += 1
            continue
        diff = differing_cells(a, pd.read_csv(other))
        if diff is None:
            lines.append(f"differs: {rel}: its shape or columns")
            failures += 1
            continue
        real = diff & ~timing_mask(rel.as_posix(), a, declaration)
        if real.to_numpy().any():
            columns = [c for c in real.columns if real[c].any()]
            lines.append(f"differs: {rel}: {columns} (not declared timing-derived)")
            failures += 1
        else:
            timing_only += 1
            lines.append(f"timing only: {rel}: {[c for c in diff.columns if diff[c].any()]}")
    extra = sorted(
        p.relative_to(b_dir)
        for p in b_dir.rglob("*.csv")
        if not (a_dir / p.relative_to(b_dir)).exists()
    )
    lines += [f"only in {b_dir}: {rel}" for rel in extra]
    stale = stale_entries(tables, declaration) if check_declaration else []
    lines += [f"stale declaration: {s}" for s in stale]
    lines.append(
        f"{len(files)} CSVs: {identical} identical, {timing_only} differ in declared timing "
        f"cells only, {failures} differ elsewhere or are missing; {len(extra)} new; "
        f"{len(stale)} stale declarations"
    )
    return failures + len(stale), lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--declaration", type=Path, default=DECLARATION)
    parser.add_argument(
        "--check-declaration", action="store_true", help="also fail on stale declarations"
    )
    args = parser.parse_args(argv)
    declaration = load_declaration(args.declaration)
    failures, lines = compare(args.a, args.b, declaration, check_declaration=args.check_declaration)
    print("\n".join(lines))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
