"""A paper's numbers beside ours: the paper-values file and the reproduction table.

Each paper's numbers live as data in ``workflow/data/<paper>/`` (one row per
value: ``key, section, description, value, unit``), each traced to the section,
figure or table that states it. A paper's analysis computes the same quantities
under the same keys and :func:`reproduction_table` puts them side by side.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from esmo.papers.common.tables import require_columns

#: Columns of a paper-values file.
VALUE_COLUMNS = ["key", "section", "description", "value", "unit"]

#: What a number or claim of a judged reproduction table is found to be: the first three
#: are counted; ``setting``, ``consequence`` and ``context`` rows are listed apart
#: (``esmo.papers.common.judging``).
STATUSES = (
    "reproduced",
    "explained",
    "not reproduced",
    "not measured",
    "setting",
    "consequence",
    "context",
)

#: Columns of a table of claims: a statement of the paper, what we measured, whether it holds.
CLAIM_COLUMNS = ["claim", "section", "statement", "measure", "holds", "status", "explanation"]


def claim_row(
    claim: str, section: str, statement: str, measure: str, holds: bool | None
) -> dict[str, object]:
    """One claim before judging: the first five :data:`CLAIM_COLUMNS` (None: not measured)."""
    return dict(zip(CLAIM_COLUMNS[:5], (claim, section, statement, measure, holds), strict=True))


def reproduction_columns(label: str = "paper") -> list[str]:
    """Columns of :func:`reproduction_table`; ``label`` heads the paper's values."""
    return ["key", "section", "description", "unit", label, "ours", "difference"]


def check_paper_values(values: pd.DataFrame, source: str | Path) -> pd.DataFrame:
    """Validate a paper-values table read from ``source``: columns, unique keys, a
    section and a number per row; every message names ``source``, the file to fix."""
    require_columns(values, VALUE_COLUMNS, f"paper values ({source})")
    duplicated = values["key"][values["key"].duplicated()].unique().tolist()
    if duplicated:
        raise ValueError(f"{source} repeats key(s) {duplicated}; every key must be unique")
    section = values["section"].astype("string").str.strip()
    lacking = values.loc[section.isna() | (section == ""), "key"].tolist()
    if lacking:
        raise ValueError(
            f"{source}: value(s) {lacking} have no section; name where the paper states them"
        )
    numbers = pd.to_numeric(values["value"], errors="coerce")
    if numbers.isna().any():
        bad = values.loc[numbers.isna(), "key"].tolist()
        raise ValueError(f"{source}: value(s) {bad} are not numbers")
    return values.assign(value=numbers.astype(float))


def load_paper_values(path: str | Path) -> pd.DataFrame:
    """Read and validate a paper-values file (sections such as ``4.3`` stay text)."""
    table = pd.read_csv(path, dtype={"key": str, "section": str, "description": str})
    return check_paper_values(table, path)


def reproduction_table(
    values: pd.DataFrame,
    ours: Mapping[str, float],
    *,
    label: str = "paper",
    source: str | Path = "the paper-values file",
) -> pd.DataFrame:
    """Join the paper's values with ours by key; ``difference = ours - paper``.

    Every paper row is kept, in file order (``ours`` is NaN where not
    measured). A key of ``ours`` unknown to the paper's table is an error: it is
    almost always a misspelt key, which would otherwise vanish silently.
    ``source`` names the paper-values file in the messages; ``label`` heads
    the paper's column (``thesis`` for the thesis).
    """
    values = check_paper_values(values, source)
    unknown = sorted(set(ours) - set(values["key"]))
    if unknown:
        raise ValueError(
            f"ours has key(s) {unknown} that the paper's table lacks; fix the key or add the "
            f"paper's value to {source}"
        )
    out = values.rename(columns={"value": label})
    out["ours"] = out["key"].map({k: float(v) for k, v in ours.items()}).astype(float)
    out["difference"] = out["ours"] - out[label]
    return out[reproduction_columns(label)].reset_index(drop=True)
