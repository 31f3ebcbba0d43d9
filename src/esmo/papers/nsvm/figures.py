"""The NSVM paper's sec 6 diagnostics as a figure (beyond the paper, which only describes them)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from esmo.papers.common.figures import save_figure  # noqa: E402
from esmo.papers.common.tables import require_columns  # noqa: E402
from esmo.papers.nsvm.analysis import DIAGNOSTIC_COLUMNS  # noqa: E402

LABELS = {"mean_offdiag_kernel": "mean off-diagonal K", "alignment": "kernel-target alignment"}


def diagnostics_figure(table: pd.DataFrame, path: str) -> None:
    """Per dataset (rows): mean off-diagonal kernel value and alignment against the step,
    one line per algorithm and seed (colour by algorithm)."""
    require_columns(table, ["dataset", "seed", "method", *DIAGNOSTIC_COLUMNS], "diagnostics")
    datasets = list(dict.fromkeys(table["dataset"]))
    methods = sorted(table["method"].unique())
    fig, axes = plt.subplots(
        max(1, len(datasets)), 2, figsize=(9.0, 3.2 * max(1, len(datasets))), squeeze=False
    )
    for row, dataset in zip(axes, datasets, strict=False):
        part = table[table["dataset"] == dataset]
        for k, method in enumerate(methods):
            for seed, run in part[part["method"] == method].groupby("seed"):
                label = method if seed == part["seed"].min() else None
                for ax, column in zip(row, LABELS, strict=True):
                    ax.plot(run["step"], run[column], color=f"C{k}", alpha=0.8, label=label)
        for ax, column in zip(row, LABELS, strict=True):
            ax.set(title=f"{dataset}: {LABELS[column]}", xlabel="step", ylabel=LABELS[column])
            ax.set_xscale("log")
        row[0].legend(fontsize="small")
    fig.tight_layout()
    save_figure(fig, path, dpi=150)
    plt.close(fig)
