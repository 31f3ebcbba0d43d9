"""The budget benchmark's figures (docs/benchmark-protocol.md sec 6), drawn from the analysis tables.

- :func:`plot_anytime`: the anytime curves, one panel per dataset, log cost axis;
- :func:`plot_cd_diagram`: the critical-difference diagram (scikit-posthocs) of
  the Friedman ranks, methods joined where Nemenyi's test cannot tell them apart;
- :func:`plot_budget_ranks`: the budget-rank table as a heatmap.

Each returns a matplotlib figure for :func:`esmo.papers.common.figures.save_figure`;
a table without rows gives a figure that says so. A method keeps its colour in
every figure (:func:`method_colours`); esmo's methods are drawn solid, the
users' tools dashed.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import scikit_posthocs
import seaborn as sns
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter

from esmo.benchmark.analysis import (
    ESMO_PREFIX,
    REFERENCE,
    WITHIN,
    nemenyi_matrix,
)
from esmo.papers.common.tables import require_columns


def method_colours(methods: list[str]) -> dict[str, tuple]:
    """One colour per method, by its place in the sorted list: tab20's ten dark colours,
    then its ten light ones (readable as text), then husl's beyond twenty."""
    names = sorted(set(methods))
    tab20 = sns.color_palette("tab20", 20)
    palette = tab20[::2] + tab20[1::2]
    if len(names) > len(palette):
        palette = sns.color_palette("husl", len(names))
    return dict(zip(names, palette[: len(names)], strict=True))


def _empty(message: str) -> Figure:
    fig, ax = plt.subplots(figsize=(6, 2))
    ax.axis("off")
    ax.text(0.5, 0.5, message, ha="center", va="center")
    return fig


def plot_anytime(curves: pd.DataFrame, *, columns: int = 4) -> Figure:
    """The anytime curves: per dataset, each method's mean incumbent test accuracy against CPU seconds.

    ``curves`` is :func:`esmo.benchmark.analysis.anytime_curves`' table; a curve
    is drawn where every seed of the method has an incumbent (so the mean is
    over all of them), as a step function on a log axis. The dashed grey line is
    ``grid_svc``'s mean final accuracy minus 0.5 points.
    """
    require_columns(
        curves, ["dataset", "method", "cpu_seconds", "test_accuracy", "n_seeds", "n_runs"], "curves"
    )
    if curves.empty:
        return _empty("no anytime records")
    datasets = sorted(curves["dataset"].unique())
    colours = method_colours(curves["method"].tolist())
    columns = min(columns, len(datasets))
    rows = math.ceil(len(datasets) / columns)
    fig, axes = plt.subplots(
        rows, columns, figsize=(3.6 * columns, 2.9 * rows), squeeze=False, sharey=False
    )
    for ax, dataset in zip(axes.flat, datasets, strict=False):
        part = curves[curves["dataset"] == dataset]
        for method, curve in part.groupby("method", sort=True):
            whole = curve[curve["n_seeds"] == curve["n_runs"]]
            if whole.empty:
                continue
            ax.plot(
                whole["cpu_seconds"],
                whole["test_accuracy"],
                drawstyle="steps-post",
                color=colours[method],
                lw=1.3,
                ls="-" if method.startswith(ESMO_PREFIX) else "--",
                label=method,
            )
        reference = part[part["method"] == REFERENCE]
        if len(reference) and reference["n_seeds"].iloc[-1] == reference["n_runs"].iloc[-1]:
            ax.axhline(reference["test_accuracy"].iloc[-1] - WITHIN, color="0.5", ls=":", lw=1)
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_title(dataset, fontsize=10)
        ax.set_xlabel("CPU seconds")
        ax.set_ylabel("test accuracy")
    for ax in axes.flat[len(datasets) :]:
        ax.axis("off")
    handles = {}
    for ax in axes.flat:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, handle)
    fig.legend(
        handles.values(),
        handles.keys(),
        loc="center left",
        bbox_to_anchor=(1.0, 0.5),
        fontsize=8,
        frameon=False,
    )
    fig.suptitle(
        "Incumbent test accuracy against CPU seconds (mean over seeds; dotted: "
        f"{REFERENCE} - 0.5 points)"
    )
    fig.tight_layout()
    return fig


def plot_cd_diagram(table: pd.DataFrame) -> Figure:
    """The critical-difference diagram of a :func:`esmo.benchmark.analysis.friedman_table`.

    Methods sit at their Friedman mean rank (1 = best, left); a bar joins the
    methods Nemenyi's test cannot tell apart at the table's alpha, and all of
    them when Friedman's test itself does not reject (no post-hoc test then,
    Demšar 2006); the segment above the axis is the critical difference.
    """
    require_columns(
        table,
        ["method", "friedman_rank", "pvalue", "alpha", "critical_difference"],
        "the Friedman table",
    )
    ranked = table.dropna(subset=["friedman_rank"])
    if len(ranked) < 2:
        return _empty("too few blocks or methods for Friedman's test")
    first = ranked.iloc[0]
    alpha, rejected = float(first["alpha"]), bool(first["pvalue"] < first["alpha"])
    p = nemenyi_matrix(ranked)
    if not rejected:
        p = pd.DataFrame(1.0, index=p.index, columns=p.columns)
    ranks = ranked.set_index("method")["friedman_rank"]
    fig, ax = plt.subplots(figsize=(8, 1.0 + 0.32 * len(ranked)))
    scikit_posthocs.critical_difference_diagram(
        ranks,
        p,
        alpha=alpha,
        ax=ax,
        cd=float(first["critical_difference"]),
        color_palette=method_colours(ranks.index.tolist()),
        label_props={"fontsize": 9},
    )
    cd = float(first["critical_difference"])
    ax.set_xlim(0.9, max(len(ranked), float(ranks.min()) + cd) + 0.1)  # the whole rank scale
    verdict = "rejects" if rejected else "does not reject: all methods joined"
    ax.set_title(
        f"Friedman mean ranks over {int(first['n_blocks'])} blocks; Friedman p = "
        f"{first['pvalue']:.3g} ({verdict}); Nemenyi, alpha = {alpha:g}",
        fontsize=9,
        pad=28,
    )
    return fig


def plot_budget_ranks(table: pd.DataFrame) -> Figure:
    """The budget-rank table as a heatmap: methods (best overall at the top) x budgets and overall."""
    columns = [c for c in table.columns if c.endswith("%")] + ["overall"]
    require_columns(table, ["method", *columns], "the budget-rank table")
    if table.empty:
        return _empty("no block has a grid_svc record: no budgets")
    values = table.set_index("method")[columns].astype(float)
    fig, ax = plt.subplots(figsize=(1.1 * len(columns) + 2.5, 0.38 * len(values) + 1.4))
    sns.heatmap(
        values,
        annot=True,
        fmt=".2f",
        cmap="viridis_r",
        cbar_kws={"label": "mean rank"},
        linewidths=0.5,
        ax=ax,
        vmin=1,
        vmax=max(float(np.nanmax(values.to_numpy())), 1.0),
    )
    ax.set_xlabel(f"budget (share of {REFERENCE}'s CPU seconds on the block)")
    ax.set_ylabel("")
    ax.set_title("Mean rank per budget (1 = best)")
    return fig
