"""Kernel Pegasos against SMO inside the thesis's random search: outcomes, scores S, equal budgets.

The fold tables of :mod:`esmo.papers.nsvm.e1_runs` go through the
thesis's random-search aggregation (:mod:`esmo.papers.thesis.scoring`) once per
solver, with kernel evaluations as the cost. Every search, SMO's and
Pegasos's, with and without each early-stopping configuration, is scored with
the thesis's ``S = beta acc + (1 - beta)(1 - cost/cost_ref)`` against one
reference per dataset: SMO's random search without early stopping (docs/nsvm-protocol.md's
``cost_ref``). Budgets compare the two solvers at equal kernel evaluations.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from esmo.papers.common.figures import save_figure
from esmo.papers.common.tables import require_columns
from esmo.papers.thesis.scoring import (
    REFERENCE_ES_ID,
    random_search_outcome,
    random_search_per_fold,
    score,
)

COST = "kernel_evaluations"
_KEYS = ["dataset", "solver", "es_id"]


def search_outcomes(runs: pd.DataFrame) -> pd.DataFrame:
    """Per dataset, solver and ``es_id``: the chosen models' test accuracy (mean, std over folds),
    their mean validation accuracy, and the kernel evaluations and steps summed over folds."""
    require_columns(
        runs, ["dataset", "fold", "solver", "config_id", "es_id", "n_iter", COST,
               "val_accuracy", "test_accuracy"], "runs",
    )  # fmt: skip
    outcomes = []
    for solver, part in runs.groupby("solver", sort=True):
        # the thesis's aggregation keys one search by (dataset, kernel, metric, es_id)
        part = part.assign(kernel="rbf", metric="accuracy")
        per_fold = random_search_per_fold(part, cost=COST)
        outcome = random_search_outcome(per_fold, cost=COST, by=["dataset", "es_id"])
        steps = part.groupby(["dataset", "es_id"], as_index=False)["n_iter"].sum()
        outcomes.append(outcome.merge(steps, on=["dataset", "es_id"]).assign(solver=solver))
    columns = [*_KEYS, "test_accuracy_mean", "test_accuracy_std", "val_accuracy_mean", COST,
               "n_iter", "n_folds"]  # fmt: skip
    return pd.concat(outcomes, ignore_index=True)[columns]


def scores(outcomes: pd.DataFrame, beta: float) -> pd.DataFrame:
    """Every search's score S against SMO's random search without early stopping on its dataset.

    Adds ``cost_ref`` (that search's kernel evaluations), ``relative_cost``, ``score``,
    ``score_ref`` and ``win`` (1 above the reference's score, 0.5 equal, 0 below).
    """
    ref = outcomes[(outcomes["solver"] == "smo") & (outcomes["es_id"] == REFERENCE_ES_ID)]
    missing = sorted(set(outcomes["dataset"]) - set(ref["dataset"]))
    if missing:
        raise ValueError(f"no SMO search without early stopping (es_id -1) for {missing}.")
    ref = ref.set_index("dataset")
    out = outcomes.copy()
    out["cost_ref"] = ref.loc[out["dataset"], COST].to_numpy()
    acc_ref = ref.loc[out["dataset"], "test_accuracy_mean"].to_numpy()
    out["relative_cost"] = out[COST] / out["cost_ref"]
    out["beta"] = beta
    out["score"] = score(out["test_accuracy_mean"], out[COST], out["cost_ref"], beta)
    out["score_ref"] = score(acc_ref, out["cost_ref"], out["cost_ref"], beta)
    out["win"] = np.sign(out["score"] - out["score_ref"]) * 0.5 + 0.5
    return out


def best_configuration(scored: pd.DataFrame, solver: str) -> int:
    """The early-stopping configuration with the highest mean score over the datasets (the
    thesis's j_avg for this experiment); ties go to the smaller ``es_id``."""
    part = scored[(scored["solver"] == solver) & (scored["es_id"] != REFERENCE_ES_ID)]
    if part.empty:
        raise ValueError(f"no early-stopped search of solver {solver!r} to choose from.")
    means = part.groupby("es_id")["score"].mean()
    return int(means.index[np.argmax(means.to_numpy())])


def summary(scored: pd.DataFrame) -> pd.DataFrame:
    """Per dataset, the four searches: SMO and Pegasos, without early stopping and at each
    solver's ``j_avg``; with accuracy, cost, score and how many of the solver's early-stopping
    configurations beat the reference (``wins`` of ``n_es``)."""
    rows = []
    for solver in sorted(scored["solver"].unique()):
        j_avg = best_configuration(scored, solver)
        part = scored[scored["solver"] == solver]
        tracked = part[part["es_id"] != REFERENCE_ES_ID]
        wins = tracked.groupby("dataset")["win"].apply(lambda w: int((w == 1.0).sum()))
        for es_id, search in ((REFERENCE_ES_ID, f"{solver} RS"), (j_avg, f"{solver} RS+ES")):
            chosen = part[part["es_id"] == es_id].set_index("dataset")
            chosen = chosen.assign(search=search, wins=wins, n_es=tracked.groupby("dataset").size())
            rows.append(chosen.reset_index())
    columns = ["dataset", "search", "solver", "es_id", "test_accuracy_mean", "test_accuracy_std",
               COST, "relative_cost", "n_iter", "score", "score_ref", "win", "wins", "n_es"]  # fmt: skip
    return pd.concat(rows, ignore_index=True)[columns].sort_values(["dataset", "search"])


def equal_budget(
    scored: pd.DataFrame,
    searches: pd.DataFrame,
    budgets: Sequence[str] = ("smo RS", "smo RS+ES"),
) -> pd.DataFrame:
    """Both solvers at equal kernel evaluations: per dataset and budget (the cost of one of
    SMO's searches in ``searches``, :func:`summary`'s table of ``scored``), each solver's search
    within the budget with the best mean validation accuracy (the choice a user could make
    without the test set)."""
    table = searches.set_index(["dataset", "search"])
    rows = []
    for (dataset, search), budget in table[COST].items():
        if search not in budgets:
            continue
        for solver, part in scored[scored["dataset"] == dataset].groupby("solver", sort=True):
            within = part[part[COST] <= budget]
            row = {"dataset": dataset, "budget": search, "budget_evaluations": budget,
                   "solver": solver, "n_within": len(within)}  # fmt: skip
            if not within.empty:
                best = within.sort_values(["val_accuracy_mean", "es_id"], ascending=[False, True])
                best = best.iloc[0]
                row |= {key: best[key] for key in ("es_id", "val_accuracy_mean",
                        "test_accuracy_mean", COST)}  # fmt: skip
            rows.append(row)
    return pd.DataFrame(rows)


def accuracy_cost_figure(scored: pd.DataFrame, path: str) -> None:
    """Test accuracy against kernel evaluations, per dataset: every search of both solvers."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    datasets = sorted(scored["dataset"].unique())
    n_cols = min(3, len(datasets))
    n_rows = -(-len(datasets) // n_cols)
    fig, axes = plt.subplots(n_rows, n_cols, figsize=(4.2 * n_cols, 3.4 * n_rows), squeeze=False)
    for ax, dataset in zip(axes.flat, datasets, strict=False):
        part = scored[scored["dataset"] == dataset]
        for solver, colour in (("smo", "tab:blue"), ("pegasos", "tab:orange")):
            s = part[part["solver"] == solver]
            es = s[s["es_id"] != REFERENCE_ES_ID]
            ax.scatter(es[COST], 100 * es["test_accuracy_mean"], s=8, alpha=0.5, color=colour,
                       label=f"{solver} + ES")  # fmt: skip
            ref = s[s["es_id"] == REFERENCE_ES_ID]
            ax.scatter(ref[COST], 100 * ref["test_accuracy_mean"], s=60, marker="*",
                       color=colour, edgecolor="k", label=f"{solver}, no ES")  # fmt: skip
        ax.set_xscale("log")
        ax.set_title(dataset)
        ax.set_xlabel("kernel evaluations (sum over folds)")
        ax.set_ylabel("test accuracy (%)")
    for ax in axes.flat[len(datasets) :]:
        ax.set_visible(False)
    axes.flat[0].legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, path, dpi=120)
    plt.close(fig)
