"""Compare every CSV two workflow runs wrote: proof that a change left the tables as they were.

Usage::

    python benchmarks/compare_results.py RUN_A/results RUN_B/results

Each CSV under the first folder is read beside the file of the same path under
the second. Identical files pass. Otherwise the columns that differ are listed;
a file passes when they are all wall-clock columns (names matching
``--timing``, by default anything with ``seconds``, or a score, win or speed-up
derived from them), which no two runs share. Exits 1 when any file is missing or differs elsewhere.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import pandas as pd

TIMING = r"seconds|^score|^win|speedup|time"


def differing_columns(a: pd.DataFrame, b: pd.DataFrame) -> list[str]:
    """Columns whose values differ (or that only one table has); NaN equals NaN."""
    cols = sorted(set(a.columns) ^ set(b.columns))
    if a.shape[0] != b.shape[0]:
        return ["<row count>", *cols]
    for col in a.columns.intersection(b.columns):
        x, y = a[col], b[col]
        same = (x == y) | (x.isna() & y.isna())
        if not same.all():
            cols.append(col)
    return cols


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--timing", default=TIMING, help="regex of wall-clock column names")
    args = parser.parse_args(argv)
    timing = re.compile(args.timing)
    files = sorted(p.relative_to(args.a) for p in args.a.rglob("*.csv"))
    failures = identical = timing_only = 0
    for rel in files:
        other = args.b / rel
        if not other.is_file():
            print(f"missing in {args.b}: {rel}")
            failures += 1
            continue
        if (args.a / rel).read_bytes() == other.read_bytes():
            identical += 1
            continue
        a, b = pd.read_csv(args.a / rel), pd.read_csv(other)
        cols = differing_columns(a, b)
        rest = [c for c in cols if not timing.search(c)]
        if rest:
            print(f"differs: {rel}: {rest}")
            failures += 1
        else:
            timing_only += 1
            print(f"timing columns only: {rel}: {cols}")
    extra = sorted(
        p.relative_to(args.b)
        for p in args.b.rglob("*.csv")
        if not (args.a / p.relative_to(args.b)).exists()
    )
    for rel in extra:
        print(f"only in {args.b}: {rel}")
    print(
        f"{len(files)} CSVs: {identical} identical, {timing_only} differ in timing columns only, "
        f"{failures} differ elsewhere or are missing; {len(extra)} new"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
