"""Figures 1-4 of the ensembles paper, from the tables of :mod:`esmo.papers.ensembles.analysis`."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from esmo.papers.common.figures import save_figure  # noqa: E402
from esmo.papers.ensembles.analysis import DATASET_LABELS, loglog_slope  # noqa: E402


def _axes(n: int, ncols: int = 2, size: tuple[float, float] = (4.2, 3.2)):
    nrows = max(1, n)
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(size[0] * ncols, size[1] * nrows), squeeze=False
    )
    return fig, axes


def fig1(table: pd.DataFrame, path: str) -> None:
    """Accuracy (mean +- std, left) and its std (right) against tp, structured vs subbagging."""
    datasets = list(dict.fromkeys(table["dataset"]))
    fig, axes = _axes(len(datasets))
    for row, dataset in zip(axes, datasets, strict=True):
        part = table[table["dataset"] == dataset].sort_values("train_proportion")
        for arm, colour in (("structured", "C0"), ("subbagging", "C1")):
            mean, std = part[f"{arm}_accuracy_mean"], part[f"{arm}_accuracy_std"].fillna(0)
            row[0].plot(part["train_proportion"], mean, "o-", color=colour, label=arm)
            row[0].fill_between(
                part["train_proportion"], mean - std, mean + std, color=colour, alpha=0.2
            )
            row[1].plot(
                part["train_proportion"], part[f"{arm}_accuracy_std"], "o-", color=colour, label=arm
            )
        row[0].set(
            title=f"{DATASET_LABELS.get(dataset, dataset)}: accuracy",
            xlabel="tp",
            ylabel="accuracy (%)",
        )
        row[1].set(title="std over repetitions", xlabel="tp", ylabel="std (%)")
        row[0].legend()
    fig.tight_layout()
    save_figure(fig, path, dpi=100)
    plt.close(fig)


def fig_time(curves: pd.DataFrame, x: str, path: str, *, last: int, xlabel: str) -> None:
    """Time against ``x`` on log-log axes per dataset, with the fitted line over the last points."""
    datasets = list(dict.fromkeys(curves["dataset"]))
    fig, axes = plt.subplots(1, len(datasets), figsize=(4.5 * len(datasets), 3.5), squeeze=False)
    for ax, dataset in zip(axes[0], datasets, strict=True):
        part = curves[curves["dataset"] == dataset]
        for i, (method, line) in enumerate(part.groupby("method", sort=True)):
            line = line.sort_values(x)
            ax.loglog(line[x], line["time_s"], "o-", color=f"C{i}", label=method)
            slope = loglog_slope(line[x], line["time_s"], last=last)
            tail = line.tail(last)
            if len(tail) >= 2:
                coef = np.polyfit(np.log(tail[x]), np.log(tail["time_s"]), 1)
                ax.loglog(tail[x], np.exp(np.polyval(coef, np.log(tail[x]))), "r--",
                          label=f"{method} slope {slope:.2f}")  # fmt: skip
        ax.set(
            title=DATASET_LABELS.get(dataset, dataset),
            xlabel=xlabel,
            ylabel="training time (CPU s)",
        )
        ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path, dpi=100)
    plt.close(fig)


def fig4(summary: pd.DataFrame, path: str) -> None:
    """Accuracy (mean +- std) against training time (log), ensemble variants and single SVMs."""
    datasets = list(dict.fromkeys(summary["dataset"]))
    ncols = 3
    nrows = int(np.ceil(len(datasets) / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.5 * ncols, 3.5 * nrows), squeeze=False)
    for ax, dataset in zip(axes.ravel(), datasets, strict=False):
        part = summary[summary["dataset"] == dataset]
        for i, ((method, search), line) in enumerate(part.groupby(["method", "search"], sort=True)):
            line = line.sort_values("time_s")
            std = line["accuracy_std"].fillna(0)
            ax.plot(
                line["time_s"],
                line["accuracy_mean"],
                "o-",
                color=f"C{i}",
                label=f"{method} {search}",
            )
            ax.fill_between(line["time_s"], line["accuracy_mean"] - std, line["accuracy_mean"] + std,
                            color=f"C{i}", alpha=0.15)  # fmt: skip
        ax.set_xscale("log")
        ax.set(
            title=DATASET_LABELS.get(dataset, dataset),
            xlabel="training time (CPU s)",
            ylabel="accuracy (%)",
        )
        ax.legend(fontsize=7)
    for ax in axes.ravel()[len(datasets) :]:
        ax.set_visible(False)
    fig.tight_layout()
    save_figure(fig, path, dpi=100)
    plt.close(fig)
