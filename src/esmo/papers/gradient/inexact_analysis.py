"""Tables and figure of the early-stopped inner solves (docs/gradient-protocol.md sec 7), from the runs' rows.

The rows come from :mod:`esmo.papers.gradient.inexact`: one per tuning
run (variant) and draw, one per inexact gradient at a path point, and the
thesis's searches. Every saving is a ratio to the exact run on the same draw,
so draws of different sizes average fairly.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from esmo.papers.common.tables import require_columns
from esmo.papers.gradient.analysis import verdict

DRAW = ["dataset", "n_trg", "seed"]


def savings(runs: pd.DataFrame) -> pd.DataFrame:
    """Per dataset, size and variant: the mean shares of the exact run's work, and the test error.

    Shares are per draw, then averaged: SMO iterations and CPU seconds of the
    whole run, and of the work until the run first reached the exact run's
    test error (within one binomial standard error); ``reached`` counts the
    draws where it did. ``test_error_change`` is in percentage points.
    """
    require_columns(
        runs,
        [
            *DRAW,
            "variant",
            "nf",
            "smo_iterations",
            "seconds",
            "test_error",
            "iterations_to_reach",
            "seconds_to_reach",
        ],
        "inexact runs",
    )
    exact = runs[runs["variant"] == "exact"].set_index(DRAW)
    rows = []
    for _, run in runs.iterrows():
        ref = exact.loc[tuple(run[DRAW])]
        rows.append(
            {
                **{k: run[k] for k in [*DRAW, "variant"]},
                "nf": run["nf"],
                "iteration_share": run["smo_iterations"] / ref["smo_iterations"],
                "seconds_share": run["seconds"] / ref["seconds"],
                "test_error_change": 100.0 * (run["test_error"] - ref["test_error"]),
                "reached": pd.notna(run["iterations_to_reach"]),
                "iterations_to_reach_share": run["iterations_to_reach"]
                / ref["iterations_to_reach"],
                "seconds_to_reach_share": run["seconds_to_reach"] / ref["seconds_to_reach"],
                "test_error": 100.0 * run["test_error"],
            }
        )
    table = pd.DataFrame(rows)
    order = list(dict.fromkeys(runs["variant"]))
    out = (
        table.groupby(["dataset", "n_trg", "variant"], sort=False)
        .agg(
            draws=("seed", "size"),
            nf=("nf", "mean"),
            test_error=("test_error", "mean"),
            test_error_change=("test_error_change", "mean"),
            iteration_share=("iteration_share", "mean"),
            seconds_share=("seconds_share", "mean"),
            reached=("reached", "sum"),
            iterations_to_reach_share=("iterations_to_reach_share", "mean"),
            seconds_to_reach_share=("seconds_to_reach_share", "mean"),
        )
        .reset_index()
    )
    out["variant"] = pd.Categorical(out["variant"], order, ordered=True)
    return out.sort_values(["dataset", "n_trg", "variant"]).reset_index(drop=True)


def agreement_summary(agreement: pd.DataFrame) -> pd.DataFrame:
    """Per path point, start and solve, over the draws: each statistic named by what it is.

    ``iteration_share_mean``, ``cosine_mean`` and ``cosine_min`` (the worst draw: one
    reversed direction hides in a mean) and ``relative_error_median``.
    """
    require_columns(
        agreement,
        ["point", "start", "solve", "iteration_share", "cosine", "relative_error"],
        "agreement",
    )
    return (
        agreement.groupby(["point", "start", "solve"], sort=False)
        .agg(
            draws=("cosine", "size"),
            iteration_share_mean=("iteration_share", "mean"),
            cosine_mean=("cosine", "mean"),
            cosine_min=("cosine", "min"),
            relative_error_median=("relative_error", "median"),
        )
        .reset_index()
    )


#: The step beyond's question (protocol sec 7): a hypergradient "pointing the same way".
SAME_WAY_COSINE = 0.9
#: ... at "several times fewer" SMO iterations: at most this share of the exact solve's.
FEWER_ITERATIONS = 0.5


def inexact_claims(agreement: pd.DataFrame, savings_table: pd.DataFrame) -> pd.DataFrame:
    """The step beyond judged (issue 34), in :func:`esmo.papers.gradient.analysis.claims`' form.

    ``beyond.early_stopped_direction``: some early-stopping rule, started cold at
    every path point, gives a cosine of at least :data:`SAME_WAY_COSINE` with the
    exact hypergradient on every draw (``cosine_min``) at no more than
    :data:`FEWER_ITERATIONS` of its SMO iterations. ``beyond.warm_start_saves_more``:
    over the tuning runs, the warm-started exact solves spend fewer of the exact
    run's SMO iterations than the cold early-stopped ones (the audit's reading:
    the warm start, not early stopping, does most of the saving).
    """
    require_columns(agreement, ["point", "start", "solve", "iteration_share_mean", "cosine_min"],
                    "agreement")  # fmt: skip
    require_columns(savings_table, ["dataset", "n_trg", "variant", "iteration_share"], "savings")
    rows = []
    cold = agreement[(agreement["start"] == "cold") & agreement["solve"].str.startswith("early")]
    if cold.empty:
        rows.append(("beyond.early_stopped_direction", "not run", "not measured"))
    else:
        per_rule = cold.groupby("solve").agg(
            cosine=("cosine_min", "min"), share=("iteration_share_mean", "max")
        )
        good = (per_rule["cosine"] >= SAME_WAY_COSINE) & (per_rule["share"] <= FEWER_ITERATIONS)
        measure = "; ".join(
            f"{rule}: worst cosine {r.cosine:+.2f} at up to {r.share:.2f} of the iterations"
            for rule, r in per_rule.iterrows()
        )
        rows.append(("beyond.early_stopped_direction", measure, verdict(bool(good.any()))))
    share = savings_table.pivot_table(
        index=["dataset", "n_trg"], columns="variant", values="iteration_share"
    )
    if not {"exact_warm", "early_stopped"} <= set(share.columns):
        rows.append(("beyond.warm_start_saves_more", "not run", "not measured"))
    else:
        warm, stopped = share["exact_warm"].mean(), share["early_stopped"].mean()
        measure = (
            f"mean share of the exact run's SMO iterations: exact_warm {warm:.2f}, "
            f"early_stopped {stopped:.2f}, early_stopped_warm "
            f"{share.get('early_stopped_warm', pd.Series(dtype=float)).mean():.2f}"
        )
        rows.append(("beyond.warm_start_saves_more", measure, verdict(bool(warm < stopped))))
    statements = {
        "beyond.early_stopped_direction": "Beyond the paper: early-stopped inner solves keep "
        f"the hypergradient's direction (cosine >= {SAME_WAY_COSINE:g} on every draw) at "
        f"<= {FEWER_ITERATIONS:g} of the exact solve's SMO iterations",
        "beyond.warm_start_saves_more": "Beyond the paper (the audit's reading): warm starts "
        "save more SMO iterations than early stopping",
    }
    return pd.DataFrame(
        [{"claim": c, "statement": statements[c], "measure": m, "verdict": v} for c, m, v in rows]
    )


def plot_agreement(agreement: pd.DataFrame) -> Figure:
    """Cosine and relative error against the share of the exact solve's iterations, per path point."""
    points = list(dict.fromkeys(agreement["point"]))
    fig, axes = plt.subplots(
        2, len(points), figsize=(4 * len(points), 6.5), sharex=True, squeeze=False
    )
    styles = {"cold": ("o", "C0"), "warm": ("s", "C3")}
    for col, point in enumerate(points):
        part = agreement[agreement["point"] == point]
        for start, (marker, colour) in styles.items():
            rows = part[part["start"] == start]
            if rows.empty:
                continue
            for row_ax, measure in ((0, "cosine"), (1, "relative_error")):
                axes[row_ax, col].scatter(
                    rows["iteration_share"],
                    rows[measure],
                    marker=marker,
                    color=colour,
                    alpha=0.6,
                    label=start,
                )
        axes[0, col].set_title(point.replace("_", " "))
        axes[0, col].axhline(0.9, color="grey", lw=0.8, ls="--")
        axes[0, col].set_ylim(-1.05, 1.05)
        axes[1, col].set_yscale("log")
        axes[1, col].set_xlabel("SMO iterations / exact solve's")
    axes[0, 0].set_ylabel("cosine to the exact hypergradient")
    axes[1, 0].set_ylabel("relative error |g - g*| / |g*| (0 at 1e-12)")
    axes[0, -1].legend(title="inner start", loc="lower right")
    fig.tight_layout()
    return fig


def score_table(scores: pd.DataFrame) -> pd.DataFrame:
    """Per dataset, size and method: mean test error (%), SMO iterations and the thesis's score S."""
    require_columns(scores, [*DRAW, "variant", "test_error", "smo_iterations", "score"], "scores")
    order = list(dict.fromkeys(scores["variant"]))
    out = (
        scores.assign(test_error=100.0 * scores["test_error"])
        .groupby(["dataset", "n_trg", "variant"], sort=False)
        .agg(
            draws=("seed", "size"),
            test_error=("test_error", "mean"),
            smo_iterations=("smo_iterations", "mean"),
            score=("score", "mean"),
            score_seconds=("score_seconds", "mean"),
        )
        .reset_index()
    )
    out["variant"] = pd.Categorical(out["variant"], order, ordered=True)
    out = out.sort_values(["dataset", "n_trg", "variant"]).reset_index(drop=True)
    out["best_score"] = out.groupby(["dataset", "n_trg"])["score"].transform("max") == out["score"]
    return out


def to_frame(rows: list[dict]) -> pd.DataFrame:
    """Rows as a table with NaN for a missing value (a run that never reached the exact error)."""
    return pd.DataFrame(rows).replace({None: np.nan})
