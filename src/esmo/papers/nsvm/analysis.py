"""The NSVM paper's tables: accuracy over seeds beside the paper's single runs, early-stopped T.

Inputs are the workflow's per-run records (one JSON per dataset, algorithm and
seed; one CSV of baselines per dataset and seed; one CSV of early-stopping
outcomes per tracked run). Accuracies are in percent, as the paper prints them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from esmo.papers.common.tables import require_columns

#: the paper's single-run results (sec 5.1.2 and 5.2.2), for the report table
PAPER_ACCURACY = {
    ("ringnorm", "nsvm1"): 98.1,
    ("ringnorm", "nsvm2"): 97.6,
    ("ringnorm", "nsvm3"): 97.0,
    ("ringnorm", "nsvm4"): 98.2,
    ("mnist", "nsvm1"): 100.0 * (1 - 2 / 2115),
    ("mnist", "nsvm2"): 100.0 * (1 - 2 / 2115),
    ("mnist", "nsvm3"): 100.0,
    ("mnist", "nsvm4"): 100.0,
}

RUN_COLUMNS = ["dataset", "method", "seed", "test_accuracy", "test_errors", "n_test"]


def accuracy_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per dataset and method: seeds, test accuracy mean and sd (ddof 1, %), errors, steps,
    theta updates and CPU seconds (means), beside the paper's single run."""
    require_columns(runs, RUN_COLUMNS, "runs")
    runs = runs.assign(test_accuracy=100.0 * runs["test_accuracy"])
    for column in (
        "n_steps",
        "n_part1_steps",
        "theta_updates",
        "fit_cpu_seconds",
        "offline_subset",
    ):
        if column not in runs:
            runs[column] = np.nan
    grouped = runs.groupby(["dataset", "method"], sort=False)
    table = grouped.agg(
        n_seeds=("seed", "nunique"),
        test_accuracy_mean=("test_accuracy", "mean"),
        test_accuracy_sd=("test_accuracy", lambda a: a.std(ddof=1) if len(a) > 1 else np.nan),
        test_errors_mean=("test_errors", "mean"),
        test_errors_min=("test_errors", "min"),
        test_errors_max=("test_errors", "max"),
        n_test=("n_test", "first"),
        n_train=("n_train", "first"),
        n_steps=("n_steps", "mean"),
        n_part1_steps=("n_part1_steps", "mean"),
        theta_updates=("theta_updates", "mean"),
        fit_cpu_seconds=("fit_cpu_seconds", "mean"),
        offline_subset=("offline_subset", "max"),
    ).reset_index()
    table["paper_test_accuracy"] = [
        PAPER_ACCURACY.get((d, m), np.nan)
        for d, m in zip(table["dataset"], table["method"], strict=True)
    ]
    return table


#: the early-stopping and retrain tables' key of one configuration's row
ES_KEYS = ["dataset", "method", "seed", "patience", "es_tol"]


def early_stopping_table(
    outcomes: pd.DataFrame, retrain: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Per dataset, algorithm and configuration (means over seeds): the stop step against the
    paper's T, the steps saved, test accuracy at the stop against at T, and seconds.

    ``retrain`` (:func:`esmo.papers.nsvm.experiment.retrain_at_stops`' rows, one per outcome) adds
    the protocol's final model, retrained on the whole training set at the stop's T, beside
    the same training at the paper's T. ``nsvm4_part1`` rows stop both parts: their
    ``total_steps_saved`` counts Part I and Part II against the paper's sum.
    """
    require_columns(
        outcomes,
        ["dataset", "method", "seed", "patience", "es_tol", "stop_step", "paper_steps",
         "test_accuracy", "test_accuracy_at_end", "seconds_at_stop", "seconds_at_end"],
        "outcomes",
    )  # fmt: skip
    retrained = ["test_accuracy_retrained", "test_accuracy_at_paper_steps"]
    if retrain is not None:
        require_columns(retrain, [*ES_KEYS, *retrained], "retrain")
        merged = outcomes.merge(
            retrain[ES_KEYS + retrained], on=ES_KEYS, how="left", validate="one_to_one",
            indicator=True,
        )  # fmt: skip
        if (merged["_merge"] != "both").any():
            missing = merged.loc[merged["_merge"] != "both", ES_KEYS]
            raise ValueError(
                f"retrain lacks rows of the early-stopping outcomes, e.g. "
                f"{missing.iloc[0].to_dict()}; rerun rule nsvm_retrain on the current outcomes."
            )
        outcomes = merged.drop(columns="_merge")
    outcomes = outcomes.copy()
    for column in [*retrained, "part2_stop_step", "part2_paper_steps", "part2_max_steps"]:
        if column not in outcomes:
            outcomes[column] = np.nan
    table = (
        outcomes.groupby(["dataset", "method", "patience", "es_tol"], sort=False)
        .agg(
            n_seeds=("seed", "nunique"),
            paper_steps=("paper_steps", "first"),
            max_steps=("max_steps", "first"),
            stop_step=("stop_step", "mean"),
            stopped_early=("stopped_early", "mean"),
            part2_paper_steps=("part2_paper_steps", "first"),
            part2_max_steps=("part2_max_steps", "first"),
            part2_stop_step=("part2_stop_step", "mean"),
            val_accuracy=("val_accuracy", "mean"),
            test_accuracy=("test_accuracy", "mean"),
            test_accuracy_at_end=("test_accuracy_at_end", "mean"),
            test_accuracy_retrained=("test_accuracy_retrained", "mean"),
            test_accuracy_at_paper_steps=("test_accuracy_at_paper_steps", "mean"),
            seconds_at_stop=("seconds_at_stop", "mean"),
            seconds_at_end=("seconds_at_end", "mean"),
        )
        .reset_index()
    )
    table["steps_saved"] = 1.0 - table["stop_step"] / table["paper_steps"]
    table["total_steps_saved"] = 1.0 - (table["stop_step"] + table["part2_stop_step"]) / (
        table["paper_steps"] + table["part2_paper_steps"]
    )
    for column in ("val_accuracy", "test_accuracy", "test_accuracy_at_end", *retrained):
        table[column] *= 100.0
    return table


def reproduction_values(accuracy: pd.DataFrame) -> dict[str, float]:
    """Our numbers under the keys of ``workflow/data/nsvm/paper_values.csv``."""
    values = {}
    for row in accuracy.itertuples(index=False):
        if not row.method.startswith("nsvm"):
            continue
        prefix = f"{row.dataset}.{row.method}"
        values[f"{row.dataset}.n_train"] = float(row.n_train)  # a setting, shown beside the paper's
        if row.dataset == "ringnorm":
            values[f"{prefix}.test_accuracy"] = float(row.test_accuracy_mean)
        else:
            values[f"{prefix}.test_errors"] = float(row.test_errors_mean)
        values[f"{prefix}.n_steps"] = float(row.n_steps)
        if row.method == "nsvm4":
            values[f"{prefix}.n_part1_steps"] = float(row.n_part1_steps)
    return values


DIAGNOSTIC_COLUMNS = ["step", "mean_offdiag_kernel", "alignment"]


def diagnostics_rows(diagnostics: dict[str, np.ndarray], method: str) -> pd.DataFrame:
    """One fit's ``diagnostics_`` (sec 6: kernel statistics over training) as rows for ``method``."""
    return pd.DataFrame({"method": method, **{c: diagnostics[c] for c in DIAGNOSTIC_COLUMNS}})
