"""Every figure of the reproduction (thesis ch. 1, 2, 4, 5 and appendices A, B).

Each function takes tidy tables from ``esmo.papers.thesis.scoring`` and returns a matplotlib
``Figure`` (written by :func:`esmo.papers.common.figures.save_figure`). Costs
are drawn on log axes (they span orders of magnitude across ES
configurations) and accuracies in percent.

Figure families:

- ``plot_pareto_fronts``: figs 4.1, 4.2, B.1, B.2 (every ES configuration).
- ``plot_selected_configurations``: figs 4.3, 4.4, B.3, B.4 (top five),
  4.5 (j_low, j_high, j_avg) and 4.7 (the same on the blob datasets).
- ``plot_score_by_dimension``: fig 4.6.
- ``plot_best_per_beta``: figs 5.1, 5.2.
- ``plot_win_histogram``: fig 5.3.
- ``plot_hpo_methods``: figs 4.8, 4.9 (E3) and 5.4, 5.5 (E4).
- ``plot_solver_comparison``: fig A.1.
- ``plot_validation_curves``, ``plot_decision_boundaries``,
  ``plot_successive_halving``: the illustrations, figs 1.1, 2.3 and 2.4.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from esmo.papers.common.tables import require_columns
from esmo.papers.thesis.pareto import pareto_mask, score_threshold
from esmo.papers.thesis.scoring import REFERENCE_ES_ID, THESIS_BETA

_COST_LABELS = {"n_iter": "total SMO iterations", "seconds": "total wall-clock time (s)"}
_REFERENCE_STYLE = {"marker": "*", "s": 220, "color": "black", "zorder": 5, "label": "reference"}
_THRESHOLD_COLOUR = "tab:blue"


def configuration_labels(
    es_table: pd.DataFrame, es_ids: Sequence[int], *, prefix: Sequence[str] | None = None
) -> dict[str, int]:
    """Legend labels ``"p=1356, tol=0.65"`` (plus ``r`` when not 1) for ``es_ids``, in order.

    ``prefix`` adds a name per configuration, e.g. ``["j_low", "j_high"]``.
    """
    require_columns(es_table, ["es_id", "patience", "es_tol"], "es_table")
    indexed = es_table.set_index("es_id")
    labels: dict[str, int] = {}
    for k, es_id in enumerate(es_ids):
        if es_id not in indexed.index:
            raise ValueError(f"es_id {es_id} is not in the ES table")
        row = indexed.loc[es_id]
        text = f"p={int(row['patience'])}, tol={row['es_tol']:.3g}"
        if "interval" in indexed.columns and int(row["interval"]) != 1:
            text += f", r={int(row['interval'])}"
        if prefix is not None:
            text = f"{prefix[k]}: {text}"
        labels[text] = int(es_id)
    return labels


def _merge_same_configuration(selected: Mapping[str, int]) -> dict[str, int]:
    """Join the labels of one ``es_id`` (j_low and j_avg coincide in the thesis) into one entry."""
    names: dict[int, list[str]] = {}
    for label, es_id in selected.items():
        names.setdefault(int(es_id), []).append(label)
    return {" = ".join(labels): es_id for es_id, labels in names.items()}


def _panels(n: int, ncols: int, title: str | None) -> tuple[Figure, list[Axes]]:
    """A grid of ``n`` panels; unused grid cells are removed so ``fig.axes`` has ``n``."""
    if n < 1:
        raise ValueError("nothing to plot: pass at least one dataset")
    ncols = min(ncols, n)
    nrows = math.ceil(n / ncols)
    with sns.axes_style("whitegrid"):
        fig, grid = plt.subplots(
            nrows, ncols, figsize=(4.2 * ncols, 3.5 * nrows), layout="constrained", squeeze=False
        )
    axes = list(grid.ravel())
    for ax in axes[n:]:
        ax.remove()
    if title:
        fig.suptitle(title)
    return fig, axes[:n]


def _search_rows(
    outcome: pd.DataFrame, dataset: str, kernel: str, metric: str, columns: Sequence[str]
) -> pd.DataFrame:
    rows = outcome[
        (outcome["dataset"] == dataset)
        & (outcome["kernel"] == kernel)
        & (outcome["metric"] == metric)
    ]
    if rows.empty:
        raise ValueError(
            f"no searches for dataset={dataset!r}, kernel={kernel!r}, metric={metric!r} in the "
            "outcome table"
        )
    require_columns(rows, ["es_id", *columns], "outcome")
    if (rows["es_id"] == REFERENCE_ES_ID).sum() != 1:
        raise ValueError(f"dataset {dataset!r} needs exactly one reference search (es_id = -1)")
    return rows


def _limits(ax: Axes, acc: np.ndarray, cost: np.ndarray) -> None:
    """Frame the data (accuracy in %, cost on a log axis) so threshold lines do not rescale it."""
    lo, hi = float(np.min(acc)) * 100, float(np.max(acc)) * 100
    pad = max(0.5, 0.08 * (hi - lo))
    ax.set_xlim(lo - pad, hi + pad)
    ax.set_yscale("log")
    positive = cost[cost > 0]
    if positive.size:
        ax.set_ylim(positive.min() / 1.6, positive.max() * 1.6)


def _threshold(
    ax: Axes, acc_ref: float, cost_ref: float, beta: float, colour: str, label: str
) -> None:
    """The line S = S_ref; vertical at beta = 1, where cost no longer counts."""
    style = {"color": colour, "linestyle": "--", "linewidth": 1.3, "label": label}
    if beta == 1.0:
        ax.axvline(acc_ref * 100, **style)
        return
    lo, hi = ax.get_xlim()
    grid = np.linspace(lo, hi, 200) / 100
    cost = score_threshold(acc_ref, cost_ref, beta, grid)
    ax.plot(grid * 100, np.where(cost > 0, cost, np.nan), **style)


def _decorate(ax: Axes, dataset: str, cost: str, first_in_row: bool) -> None:
    ax.set_title(dataset)
    ax.set_xlabel("mean test accuracy (%)")
    ax.set_ylabel(_COST_LABELS.get(cost, cost) if first_in_row else "")


def _figure_legend(fig: Figure, axes: Sequence[Axes]) -> None:
    """One legend below the panels, merging the panels' entries."""
    entries: dict[str, object] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            entries.setdefault(label, handle)
    fig.legend(
        list(entries.values()),
        list(entries),
        loc="outside lower center",
        ncol=min(len(entries), 3),
        frameon=False,
    )


def plot_pareto_fronts(
    outcome: pd.DataFrame,
    *,
    kernel: str,
    metric: str,
    datasets: Sequence[str],
    beta: float = THESIS_BETA,
    cost: str = "n_iter",
    accuracy: str = "test_accuracy_mean",
    ncols: int = 3,
    title: str | None = None,
) -> Figure:
    """Figs 4.1, 4.2, B.1, B.2: every ES configuration's cost against accuracy, per dataset.

    Each panel shows the searches under all ES configurations, their Pareto
    front, the reference search and the dashed line of equal score with it at
    ``beta`` (searches right of / below it beat the reference).
    """
    fig, axes = _panels(len(datasets), ncols, title)
    for k, (ax, dataset) in enumerate(zip(axes, datasets, strict=True)):
        rows = _search_rows(outcome, dataset, kernel, metric, [cost, accuracy])
        ref = rows[rows["es_id"] == REFERENCE_ES_ID].iloc[0]
        es = rows[rows["es_id"] != REFERENCE_ES_ID]
        acc, c = es[accuracy].to_numpy(float), es[cost].to_numpy(float)
        front = pareto_mask(c, acc)
        order = np.argsort(c[front], kind="stable")
        ax.scatter(acc * 100, c, s=14, color="0.6", alpha=0.7, label="ES configuration")
        ax.plot(
            acc[front][order] * 100,
            c[front][order],
            "o-",
            color="tab:orange",
            ms=4,
            lw=1.2,
            label="Pareto front",
        )
        ax.scatter(ref[accuracy] * 100, ref[cost], **_REFERENCE_STYLE)
        _limits(ax, np.append(acc, ref[accuracy]), np.append(c, ref[cost]))
        _threshold(
            ax, ref[accuracy], ref[cost], beta, _THRESHOLD_COLOUR, f"score threshold (β = {beta:g})"
        )
        _decorate(ax, dataset, cost, k % min(ncols, len(datasets)) == 0)
    _figure_legend(fig, axes)
    return fig


def plot_selected_configurations(
    outcome: pd.DataFrame,
    selected: Mapping[str, int],
    *,
    kernel: str,
    metric: str,
    datasets: Sequence[str],
    beta: float = THESIS_BETA,
    cost: str = "n_iter",
    accuracy: str = "test_accuracy_mean",
    ncols: int = 3,
    title: str | None = None,
) -> Figure:
    """Figs 4.3-4.5, 4.7, B.3, B.4: the reference against a few named ES configurations.

    ``selected`` maps a legend label to an ``es_id`` (see ``configuration_labels``;
    the top five of ``esmo.papers.thesis.scoring.top_configurations`` or j_low/j_high/j_avg
    of ``select_configurations``); labels of one ``es_id`` are merged
    ("j_low = j_avg"). Horizontal bars show the accuracy's std
    over folds when the outcome has ``test_accuracy_std``.
    """
    if not selected:
        raise ValueError("selected is empty: name at least one ES configuration to compare")
    selected = _merge_same_configuration(selected)
    palette = sns.color_palette("colorblind", len(selected))
    markers = ["o", "s", "D", "^", "v", "P", "X", "<", ">"]
    fig, axes = _panels(len(datasets), ncols, title)
    std = f"{accuracy.removesuffix('_mean')}_std"
    for k, (ax, dataset) in enumerate(zip(axes, datasets, strict=True)):
        rows = _search_rows(outcome, dataset, kernel, metric, [cost, accuracy]).set_index("es_id")
        missing = [e for e in selected.values() if e not in rows.index]
        if missing:
            raise ValueError(f"es_id(s) {missing} have no search on dataset {dataset!r}")
        ref = rows.loc[REFERENCE_ES_ID]
        for n, (label, es_id) in enumerate(selected.items()):
            row = rows.loc[es_id]
            xerr = row[std] * 100 if std in rows.columns else None
            ax.errorbar(
                row[accuracy] * 100,
                row[cost],
                xerr=xerr,
                fmt=markers[n % len(markers)],
                color=palette[n],
                ms=7,
                capsize=3,
                label=label,
                zorder=4,
            )
        ax.scatter(ref[accuracy] * 100, ref[cost], **_REFERENCE_STYLE)
        shown = rows.loc[[REFERENCE_ES_ID, *selected.values()]]
        acc = shown[accuracy].to_numpy(float)
        spread = shown[std].to_numpy(float) if std in rows.columns else np.zeros_like(acc)
        _limits(ax, np.concatenate([acc - spread, acc + spread]), shown[cost].to_numpy(float))
        _threshold(
            ax, ref[accuracy], ref[cost], beta, _THRESHOLD_COLOUR, f"score threshold (β = {beta:g})"
        )
        _decorate(ax, dataset, cost, k % min(ncols, len(datasets)) == 0)
    _figure_legend(fig, axes)
    return fig


def plot_score_by_dimension(
    scores: pd.DataFrame,
    selected: Mapping[str, int],
    dimensions: Mapping[str, int],
    *,
    kernel: str = "rbf",
    metric: str = "accuracy",
    beta: float = THESIS_BETA,
    title: str | None = None,
) -> Figure:
    """Fig 4.6: score of the reference and of each selected configuration against dimension.

    ``dimensions`` maps each blob dataset's name to its dimension d; ``scores``
    is ``esmo.papers.thesis.scoring.scores_against_reference``'s table.
    """
    require_columns(scores, ["dataset", "kernel", "metric", "es_id", "beta", "score"], "scores")
    part = scores[
        (scores["kernel"] == kernel)
        & (scores["metric"] == metric)
        & np.isclose(scores["beta"], beta, rtol=0.0, atol=1e-12)
        & scores["dataset"].isin(list(dimensions))
    ].assign(d=lambda t: t["dataset"].map(dimensions))
    selected = _merge_same_configuration(selected)
    curves = {"reference": REFERENCE_ES_ID, **selected}
    palette = ["black", *sns.color_palette("colorblind", len(selected))]
    with sns.axes_style("whitegrid"):
        fig, ax = plt.subplots(figsize=(6.0, 4.0), layout="constrained")
    for n, (label, es_id) in enumerate(curves.items()):
        curve = part[part["es_id"] == es_id].sort_values("d")
        if len(curve) != len(dimensions):
            raise ValueError(
                f"{label} (es_id {es_id}) has scores on {len(curve)} of the "
                f"{len(dimensions)} datasets at beta={beta}"
            )
        ax.plot(
            curve["d"],
            curve["score"],
            marker="o",
            color=palette[n],
            label=label,
            linestyle="--" if es_id == REFERENCE_ES_ID else "-",
        )
    ax.set_xscale("log", base=2)
    ax.set_xticks(sorted(dimensions.values()), [str(d) for d in sorted(dimensions.values())])
    ax.set_xlabel("dimension d")
    ax.set_ylabel(f"score S (β = {beta:g})")
    ax.legend(loc="best", frameon=True)
    if title:
        ax.set_title(title)
    return fig


def plot_best_per_beta(
    outcome: pd.DataFrame,
    best: pd.DataFrame,
    *,
    kernel: str,
    metric: str,
    datasets: Sequence[str],
    cost: str = "n_iter",
    accuracy: str = "test_accuracy_mean",
    ncols: int = 3,
    title: str | None = None,
) -> Figure:
    """Figs 5.1, 5.2: the reference against the best configuration of each beta.

    ``best`` is ``esmo.papers.thesis.scoring.best_per_beta``'s table (rows of ``kernel`` are
    used). Each beta's configuration and its threshold line share a colour.
    """
    require_columns(best, ["kernel", "beta", "es_id"], "best")
    best = best[best["kernel"] == kernel].sort_values("beta")
    if best.empty:
        raise ValueError(f"best has no rows for kernel {kernel!r}")
    # tab10's blue, orange, green, red, purple: the thesis' colours (sec 5.2 names them)
    palette = sns.color_palette("tab10", len(best))
    fig, axes = _panels(len(datasets), ncols, title)
    for k, (ax, dataset) in enumerate(zip(axes, datasets, strict=True)):
        rows = _search_rows(outcome, dataset, kernel, metric, [cost, accuracy]).set_index("es_id")
        ref = rows.loc[REFERENCE_ES_ID]
        shown = rows.loc[[REFERENCE_ES_ID, *best["es_id"]]]
        _limits(ax, shown[accuracy].to_numpy(float), shown[cost].to_numpy(float))
        for n, choice in enumerate(best.itertuples(index=False)):
            row = rows.loc[choice.es_id]
            # shrinking markers keep betas that chose the same configuration visible as rings
            size = (6 + 4 * (len(best) - 1 - n)) ** 2  # diameters 4 pt apart
            ax.scatter(
                row[accuracy] * 100,
                row[cost],
                color=palette[n],
                s=size,
                zorder=4 + n,
                edgecolor="white",
                linewidth=0.6,
                label=f"β = {choice.beta:g}",
            )
            _threshold(
                ax, ref[accuracy], ref[cost], choice.beta, palette[n], f"β = {choice.beta:g}"
            )
        ax.scatter(ref[accuracy] * 100, ref[cost], **_REFERENCE_STYLE)
        _decorate(ax, dataset, cost, k % min(ncols, len(datasets)) == 0)
    _figure_legend(fig, axes)
    return fig


def plot_win_histogram(
    wins: pd.DataFrame, *, title: str | None = None, n_datasets: int | None = None
) -> Figure:
    """Fig 5.3: how many ES configurations win on how many datasets (ties count half).

    ``wins`` has one row per ES configuration with ``wins`` (from
    ``esmo.papers.thesis.scoring.count_wins`` or ``esmo.papers.common.statistics.wilcoxon_holm``).
    """
    require_columns(wins, ["wins"], "wins")
    if n_datasets is None:
        n_datasets = (
            int(wins["n_datasets"].max())
            if "n_datasets" in wins
            else int(np.ceil(wins["wins"].max()))
        )
    levels = np.arange(0, 2 * n_datasets + 1) / 2
    counts = wins["wins"].value_counts().reindex(levels, fill_value=0)
    with sns.axes_style("whitegrid"):
        fig, ax = plt.subplots(figsize=(6.0, 3.8), layout="constrained")
    ax.bar(levels, counts.to_numpy(), width=0.4, color=sns.color_palette("colorblind")[0])
    ax.set_xticks(np.arange(n_datasets + 1))
    ax.set_xlabel(f"wins over the reference on {n_datasets} datasets (ties count half)")
    ax.set_ylabel("number of ES configurations")
    if title:
        ax.set_title(title)
    return fig


# --- E3, E4, appendix A and the illustrations (figs 1.1, 2.3, 2.4, 4.8, 4.9, 5.4, 5.5, A.1) ---

#: Methods of E3/E4 in the thesis's order, then under the thesis's cost model, and their
#: colours: one hue per search, light without early stopping and dark with it; orange and
#: purple for the fresh (thesis cost model) checks.
_HPO_METHODS = ("RS", "RS+ES", "SH", "SH+ES", "RS+ES fresh", "SH+ES fresh")
_HPO_COLOURS = dict(
    zip(_HPO_METHODS, [sns.color_palette("Paired", 10)[k] for k in (0, 1, 2, 3, 7, 9)], strict=True)
)
_SOLVER_LABELS = {
    "keerthi_own_rule": "Keerthi\n(own rule)",
    "keerthi": "Keerthi\n(LIBSVM rule)",
    "fan_plain": "Fan\n(plain)",
    "fan": "Fan\n(optimised)",
    "libsvm_shrinking": "LIBSVM\n(shrinking)",
    "libsvm": "LIBSVM\n(no shrinking)",
}


def plot_hpo_methods(
    scores: pd.DataFrame, *, dataset: str, beta: float = THESIS_BETA, title: str | None = None
) -> Figure:
    """Figs 4.8, 4.9, 5.4, 5.5: the HPO methods on one dataset, three panels.

    Mean test accuracy (with the std over folds), total wall-clock seconds and
    score, from ``esmo.papers.thesis.hpo.e3_scores``'s table. The dashed line in the
    score panel is the reference, RS without early stopping.
    """
    require_columns(
        scores,
        ["dataset", "method", "test_accuracy_mean", "test_accuracy_std", "seconds", "score"],
        "scores",
    )
    rows = scores[scores["dataset"] == dataset].set_index("method")
    if rows.empty:
        raise ValueError(
            f"no rows for dataset {dataset!r}; the table has {sorted(scores['dataset'].unique())}"
        )
    methods = [m for m in _HPO_METHODS if m in rows.index]
    methods += [m for m in rows.index if m not in methods]
    rows = rows.loc[methods]
    colours = [_HPO_COLOURS.get(m, "0.5") for m in methods]
    x = np.arange(len(methods))
    with sns.axes_style("whitegrid"):
        fig, axes = plt.subplots(1, 3, figsize=(12.0, 3.6), layout="constrained")
    acc_ax, time_ax, score_ax = axes
    acc = rows["test_accuracy_mean"].to_numpy(float) * 100
    std = rows["test_accuracy_std"].to_numpy(float) * 100
    acc_ax.bar(x, acc, yerr=std, color=colours, capsize=4)
    low, high = float(np.min(acc - std)), float(np.max(acc + std))
    pad = max(0.5, 0.15 * (high - low))
    acc_ax.set_ylim(low - pad, high + pad)
    acc_ax.set_ylabel("mean test accuracy (%)")
    time_ax.bar(x, rows["seconds"].to_numpy(float), color=colours)
    time_ax.set_ylabel(_COST_LABELS["seconds"])
    values = rows["score"].to_numpy(float)
    score_ax.bar(x, values, color=colours)
    if "RS" in rows.index:
        score_ax.axhline(rows.loc["RS", "score"], color="black", linestyle="--", lw=1.2)
    spread = float(np.ptp(values))
    pad = max(1e-3, 0.2 * spread)
    score_ax.set_ylim(float(values.min()) - pad, float(values.max()) + pad)
    score_ax.set_ylabel(f"score S (β = {beta:g})")
    for ax in axes:
        rotated = len(methods) > 4
        ax.set_xticks(
            x, methods, rotation=30 if rotated else 0, ha="right" if rotated else "center"
        )
    fig.suptitle(title or dataset)
    return fig


def plot_solver_comparison(runs: pd.DataFrame, *, title: str | None = None) -> Figure:
    """Fig A.1: iterations, seconds and test accuracy of each SMO solver over the runs.

    ``runs`` stacks ``esmo.papers.thesis.solver_comparison.compare_solvers``'s tables (one per fold).
    Each panel shows every run as a dot and the mean as a black bar; iterations
    and seconds are on log axes (the solvers differ by orders of magnitude).
    """
    require_columns(runs, ["solver", "n_iter", "seconds", "test_accuracy"], "runs")
    if runs.empty:
        raise ValueError("runs is empty: pass compare_solvers' tables of the five folds")
    order = [s for s in _SOLVER_LABELS if s in set(runs["solver"])]
    order += sorted(set(runs["solver"]) - set(order))
    data = runs.assign(
        label=runs["solver"].map(lambda s: _SOLVER_LABELS.get(s, s)),
        accuracy=runs["test_accuracy"] * 100,
    )
    labels = [_SOLVER_LABELS.get(s, s) for s in order]
    palette = dict(zip(labels, sns.color_palette("colorblind", len(labels)), strict=True))
    panels = [
        ("n_iter", "SMO iterations", True),
        ("seconds", "wall-clock time (s)", True),
        ("accuracy", "test accuracy (%)", False),
    ]
    with sns.axes_style("whitegrid"):
        fig, axes = plt.subplots(
            1, 3, figsize=(max(13.0, 2.6 * len(labels)), 4.0), layout="constrained"
        )
    for ax, (column, ylabel, log) in zip(axes, panels, strict=True):
        sns.stripplot(
            data=data,
            x="label",
            y=column,
            hue="label",
            order=labels,
            palette=palette,
            size=6,
            jitter=0.15,
            legend=False,
            ax=ax,
        )
        means = data.groupby("label")[column].mean().reindex(labels)
        ax.scatter(
            np.arange(len(labels)),
            means,
            marker="_",
            s=900,
            linewidths=2.5,
            color="black",
            zorder=5,
            label="mean",
        )
        if log:
            ax.set_yscale("log")
        ax.set_xlabel("")
        ax.set_ylabel(ylabel)
        ax.tick_params(axis="x", labelrotation=0)
    axes[0].legend(loc="best", frameon=True)
    if title:
        fig.suptitle(title)
    return fig


def plot_validation_curves(
    curves: pd.DataFrame, *, label: str = "config", title: str | None = None
) -> Figure:
    """Fig 1.1: validation accuracy along the SMO iterations (log x) for several configurations.

    ``curves`` stacks ``esmo.papers.thesis.illustrations.validation_curve_along_iterations``'s
    tables with a ``label`` column naming the configuration. A ring marks
    where SMO converged.
    """
    require_columns(curves, [label, "n_iter", "val_accuracy"], "curves")
    if curves.empty:
        raise ValueError("curves is empty: pass at least one configuration's curve")
    names = list(dict.fromkeys(curves[label]))
    palette = sns.color_palette("colorblind", len(names))
    with sns.axes_style("whitegrid"):
        fig, ax = plt.subplots(figsize=(6.5, 4.0), layout="constrained")
    for colour, name in zip(palette, names, strict=True):
        curve = curves[curves[label] == name].sort_values("n_iter")
        ax.plot(curve["n_iter"], curve["val_accuracy"] * 100, color=colour, lw=1.6, label=name)
        if "converged" in curve.columns and bool(curve["converged"].iloc[-1]):
            end = curve.iloc[-1]
            ax.scatter(
                end["n_iter"],
                end["val_accuracy"] * 100,
                s=60,
                facecolor="none",
                edgecolor=colour,
                linewidth=1.6,
                zorder=4,
            )
    ax.set_xscale("log")
    ax.set_xlabel("SMO iterations")
    ax.set_ylabel("validation accuracy (%)")
    ax.legend(loc="best", frameon=True, fontsize="small")
    if title:
        ax.set_title(title)
    return fig


def plot_decision_boundaries(
    X: np.ndarray,
    y: np.ndarray,
    decision_functions: Mapping[str, object],
    *,
    resolution: int = 200,
    ncols: int = 3,
    title: str | None = None,
) -> Figure:
    """Fig 2.3: decision boundaries of fitted models on a 2-D dataset, one panel each.

    ``decision_functions`` maps a panel title (e.g. ``"γ = 10"``) to a callable
    taking an ``(n, 2)`` array and returning decision values, such as a fitted
    model's ``decision_function``; training stays outside plotting. Each panel
    shades the sign of the decision function, draws its zero level (the
    boundary) and the +-1 margins, and the points coloured by class.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(
            f"X must have two features to draw a decision boundary, got shape {X.shape}"
        )
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must hold one label per row of X ({X.shape[0]}), got {y.shape}")
    if not decision_functions:
        raise ValueError("decision_functions is empty: pass at least one fitted model")
    pad = 0.05 * np.ptp(X, axis=0)
    lo, hi = X.min(axis=0) - pad, X.max(axis=0) + pad
    g0, g1 = np.meshgrid(
        np.linspace(lo[0], hi[0], resolution), np.linspace(lo[1], hi[1], resolution)
    )
    grid = np.column_stack([g0.ravel(), g1.ravel()])
    classes = np.unique(y)
    point_colours = sns.color_palette("colorblind", 2)
    fig, axes = _panels(len(decision_functions), ncols, title)
    for ax, (name, decide) in zip(axes, decision_functions.items(), strict=True):
        if not callable(decide):
            raise TypeError(
                f"decision_functions[{name!r}] is not callable; pass model.decision_function"
            )
        values = np.asarray(decide(grid), dtype=float).reshape(g0.shape)
        ax.contourf(g0, g1, values > 0, levels=[-0.5, 0.5, 1.5], colors=["#f4d8c4", "#c9dcef"])
        ax.contour(g0, g1, values, levels=[0.0], colors="black", linewidths=1.4)
        ax.contour(
            g0, g1, values, levels=[-1.0, 1.0], colors="0.35", linewidths=0.8, linestyles="--"
        )
        for colour, label in zip(point_colours[::-1], classes, strict=False):
            mask = y == label
            ax.scatter(X[mask, 0], X[mask, 1], s=9, color=colour, edgecolor="white", linewidth=0.3)
        ax.set_title(name)
        ax.set_xticks([])
        ax.set_yticks([])
        ax.grid(False)
    return fig


def plot_successive_halving(trials: pd.DataFrame, *, title: str | None = None) -> Figure:
    """Fig 2.4: one successive-halving run's validation accuracy per round.

    ``trials`` is ``esmo.tuning.search.SearchResult.trials``. A line joins each
    configuration's rounds, so one sees where each one was dropped; the
    configuration that survives every round is highlighted.
    """
    require_columns(trials, ["round", "config_id", "val_accuracy"], "trials")
    if trials.empty:
        raise ValueError("trials is empty: pass the trials table of a successive-halving run")
    last = int(trials["round"].max())
    winner = trials.loc[trials["round"] == last, "config_id"].iloc[0]
    with sns.axes_style("whitegrid"):
        fig, ax = plt.subplots(figsize=(6.0, 4.0), layout="constrained")
    for config_id, path in trials.sort_values("round").groupby("config_id", sort=False):
        chosen = config_id == winner
        ax.plot(
            path["round"],
            path["val_accuracy"] * 100,
            marker="o",
            ms=6 if chosen else 3,
            lw=2.2 if chosen else 0.8,
            color="tab:red" if chosen else "0.55",
            alpha=1.0 if chosen else 0.6,
            zorder=5 if chosen else 2,
            label=f"chosen (config {config_id})" if chosen else None,
        )
    rounds = np.arange(last + 1)
    if "n_samples" in trials.columns:
        samples = trials.groupby("round")["n_samples"].first().reindex(rounds)
        ax.set_xticks(rounds, [f"{r}\n(n={int(s)})" for r, s in zip(rounds, samples, strict=True)])
    else:
        ax.set_xticks(rounds)
    ax.set_xlabel("round (training samples)")
    ax.set_ylabel("validation accuracy (%)")
    ax.legend(loc="lower right", frameon=True)
    if title:
        ax.set_title(title)
    return fig
