"""The reproduction table: the thesis's headline numbers beside ours.

The thesis's numbers live as data in ``workflow/data/thesis/thesis_values.csv`` (one
row per value: ``key, section, description, value, unit``), each traced to the
section, figure or table that states it. The workflow computes the same
quantities under the same keys (see :func:`hpo_values`, :func:`solver_values`,
:func:`es_configuration_values`) and :func:`reproduction_table` puts them side
by side; :func:`to_report_html` renders the result for the Snakemake report.

Accuracies are in percent, as the thesis prints them.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from esmo.analysis.scoring import require_columns

#: Columns of the thesis-values table.
THESIS_COLUMNS = ["key", "section", "description", "value", "unit"]

#: Columns of :func:`reproduction_table`.
REPRODUCTION_COLUMNS = ["key", "section", "description", "unit", "thesis", "ours", "difference"]


def check_thesis_values(thesis: pd.DataFrame) -> pd.DataFrame:
    """Validate a thesis-values table: the columns, unique keys, a section and a number per row."""
    require_columns(thesis, THESIS_COLUMNS, "thesis values")
    duplicated = thesis["key"][thesis["key"].duplicated()].unique().tolist()
    if duplicated:
        raise ValueError(f"thesis values repeat key(s) {duplicated}; every key must be unique")
    section = thesis["section"].astype("string").str.strip()
    if (section.isna() | (section == "")).any():
        lacking = thesis.loc[section.isna() | (section == ""), "key"].tolist()
        raise ValueError(
            f"thesis value(s) {lacking} have no section; name where the thesis states them"
        )
    values = pd.to_numeric(thesis["value"], errors="coerce")
    if values.isna().any():
        bad = thesis.loc[values.isna(), "key"].tolist()
        raise ValueError(f"thesis value(s) {bad} are not numbers")
    return thesis.assign(value=values.astype(float))


def load_thesis_values(path: str | Path) -> pd.DataFrame:
    """Read and validate ``thesis_values.csv`` (sections such as ``4.3`` stay text)."""
    table = pd.read_csv(path, dtype={"key": str, "section": str, "description": str})
    return check_thesis_values(table)


def reproduction_table(thesis: pd.DataFrame, ours: Mapping[str, float]) -> pd.DataFrame:
    """Join the thesis's values with ours by key; ``difference = ours - thesis``.

    Every thesis row is kept, in file order (``ours`` is NaN where not
    measured). A key of ``ours`` unknown to the thesis table is an error: it is
    almost always a misspelt key, which would otherwise vanish silently.
    """
    thesis = check_thesis_values(thesis)
    unknown = sorted(set(ours) - set(thesis["key"]))
    if unknown:
        raise ValueError(
            f"ours has key(s) {unknown} that the thesis table lacks; fix the key or add the "
            "thesis's value to workflow/data/thesis/thesis_values.csv"
        )
    out = thesis.rename(columns={"value": "thesis"})
    out["ours"] = out["key"].map({k: float(v) for k, v in ours.items()}).astype(float)
    out["difference"] = out["ours"] - out["thesis"]
    return out[REPRODUCTION_COLUMNS].reset_index(drop=True)


def _number(value: float, digits: int) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:.{digits}g}"


def to_report_html(table: pd.DataFrame, *, digits: int = 6) -> str:
    """An HTML table of :func:`reproduction_table`'s output, for the Snakemake report.

    Numbers keep ``digits`` significant digits; missing values show as a dash.
    All text is escaped.
    """
    require_columns(table, REPRODUCTION_COLUMNS, "table")
    header = "".join(f"<th>{html.escape(c)}</th>" for c in REPRODUCTION_COLUMNS)
    rows = []
    for record in table[REPRODUCTION_COLUMNS].itertuples(index=False):
        cells = [html.escape(str(v)) for v in record[:4]]
        cells += [_number(v, digits) for v in record[4:]]
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return (
        '<table class="reproduction">\n<thead><tr>'
        + header
        + "</tr></thead>\n<tbody>\n"
        + "\n".join(rows)
        + "\n</tbody>\n</table>\n"
    )


def hpo_values(scores: pd.DataFrame, experiment: str) -> dict[str, float]:
    """Our E3/E4 accuracies under the thesis's keys, from ``esmo.experiments.e3_scores``.

    ``experiment`` is ``'e3'`` or ``'e4'``; keys read
    ``{experiment}.{dataset}.{method}.test_accuracy_mean`` (and ``_std``), in %.
    """
    if experiment not in ("e3", "e4"):
        raise ValueError(f"experiment must be 'e3' or 'e4', got {experiment!r}")
    require_columns(
        scores, ["dataset", "method", "test_accuracy_mean", "test_accuracy_std"], "scores"
    )
    values = {}
    for row in scores.itertuples(index=False):
        for stat in ("mean", "std"):
            key = f"{experiment}.{row.dataset}.{row.method}.test_accuracy_{stat}"
            values[key] = 100.0 * float(getattr(row, f"test_accuracy_{stat}"))
    return values


def solver_values(runs: pd.DataFrame) -> dict[str, float]:
    """Appendix A's accuracies (mean and std over runs, ``ddof=0``, in %) per solver.

    ``runs`` stacks ``esmo.experiments.compare_solvers``'s tables. With a
    ``dataset`` column, only the thesis's appendix A dataset (w1a) counts: the
    thesis's values are that dataset's.
    """
    require_columns(runs, ["solver", "test_accuracy"], "runs")
    if "dataset" in runs.columns:
        runs = runs[runs["dataset"] == "w1a"]
    values = {}
    for solver, accuracy in runs.groupby("solver", sort=True)["test_accuracy"]:
        values[f"appendix_a.{solver}.test_accuracy_mean"] = 100.0 * float(np.mean(accuracy))
        values[f"appendix_a.{solver}.test_accuracy_std"] = 100.0 * float(np.std(accuracy))
    return values


def es_configuration_values(
    name: str, *, patience: int, es_tol: float, interval: int | None = None
) -> dict[str, float]:
    """A selected ES configuration (``j_low``, ``j_high``, ``j_avg``, ``j_r``) under the thesis's keys."""
    values = {f"{name}.patience": float(patience), f"{name}.es_tol": float(es_tol)}
    if interval is not None:
        values[f"{name}.interval"] = float(interval)
    return values
