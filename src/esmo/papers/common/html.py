"""The one HTML table writer of the report: every paper's tables look and read alike."""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from esmo.papers.common.reproduction import CLAIM_COLUMNS
from esmo.papers.common.tables import require_columns

#: How a missing number shows.
MISSING = "–"


def _number(value: object, digits: int) -> str:
    if value is None or (isinstance(value, float | np.floating) and math.isnan(value)):
        return MISSING
    return f"{value:.{digits}g}"


def html_table(
    frame: pd.DataFrame,
    columns: Sequence[str] | None = None,
    *,
    numeric: Iterable[str] | None = None,
    digits: int = 4,
    css: str | None = None,
) -> str:
    """``frame``'s ``columns`` (default: all) as an HTML table, every text escaped.

    Numbers of the ``numeric`` columns (default: the float columns) keep
    ``digits`` significant digits and a missing one shows as a dash; every
    other cell is its text.
    """
    columns = list(frame.columns if columns is None else columns)
    require_columns(frame, columns, "the table")
    if numeric is None:
        numeric = [c for c in columns if pd.api.types.is_float_dtype(frame[c])]
    numeric = set(numeric)
    header = "".join(f"<th>{html.escape(str(c))}</th>" for c in columns)
    rows = []
    for record in frame[columns].itertuples(index=False):
        cells = [
            _number(v, digits) if c in numeric else html.escape(str(v))
            for c, v in zip(columns, record, strict=True)
        ]
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    opening = f'<table class="{html.escape(css)}">' if css else "<table>"
    return (
        f"{opening}\n<thead><tr>{header}</tr></thead>\n<tbody>\n"
        + "\n".join(rows)
        + "\n</tbody>\n</table>\n"
    )


def reproduction_html(
    numbers: pd.DataFrame,
    claims: pd.DataFrame | None = None,
    summary: str | None = None,
    *,
    digits: int = 6,
) -> str:
    """A paper's reproduction for the report: the summary line, the numbers, the claims.

    ``numbers`` is a reproduction table (judged or not); ``claims`` a table of
    :data:`CLAIM_COLUMNS`.
    """
    parts = []
    if summary:
        parts.append(f'<p class="summary">{html.escape(summary)}</p>\n')
    parts.append(html_table(numbers, digits=digits, css="reproduction"))
    if claims is not None:
        require_columns(claims, CLAIM_COLUMNS, "claims")
        parts.append(html_table(claims, CLAIM_COLUMNS, numeric=(), digits=digits, css="claims"))
    return "".join(parts)
