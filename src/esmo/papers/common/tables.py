"""Checks of the tables that flow between a paper's jobs: a missing column is named at once."""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd


def require_columns(table: pd.DataFrame, columns: Iterable[str], what: str) -> None:
    """Raise a ValueError naming ``what``, the missing columns and the ones it has.

    Every analysis step reads the table an earlier step wrote; a missing column
    means a file from another step (or an older run) was passed, and a bare
    ``KeyError`` would not say which.
    """
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ValueError(
            f"{what} lacks column(s) {missing}; it has {list(table.columns)}. "
            "Pass the table the step before this one writes."
        )
