"""The budget benchmark's analysis (docs/benchmark-protocol.md sec 6), from the anytime records.

Input is ``results/benchmark/records.csv``: every run's records with the columns
of sec 4 (:data:`RECORD_COLUMNS`), checked by :func:`check_records`. A *run* is
(dataset, seed, method); a *block* is (dataset, seed) where the reference
``grid_svc`` has a final record, whose test accuracy and CPU seconds are the
reference on that block. Accuracies stay in [0, 1] as recorded; a *point* is a
percentage point, so 0.5 points is 0.005.

A run's *incumbent at cost c* is its last record with ``cpu_seconds <= c`` (none
before its first record); after its final record the final model stays. On
that rule rest

- :func:`anytime_curves`: per dataset, each method's incumbent test accuracy on
  a common log-spaced grid of CPU seconds, averaged over seeds;
- :func:`regret_table`: each run's final accuracy against the reference's;
- :func:`within_table`: the first record at or above the reference's accuracy
  minus 0.5 points, its cost and that cost as a fraction of the reference's;
- :func:`budget_accuracies` and :func:`budget_rank_table`: the budget axis, at
  1, 3, 10, 30 and 100 % of the reference's CPU seconds on the same block, each
  method's accuracy (its incumbent within the budget), its rank on the block
  (1 = best; no incumbent: ranked last; ties share the mean rank), the mean rank
  per budget and overall, "which method for which budget";
- :func:`friedman_table`: Friedman's test over blocks of the per-block overall
  ranks (the mean over budgets), Nemenyi's pairwise p-values and the critical
  difference;
- :func:`claims`: each paper's claim restated on this ground, by the rules of
  protocol sec 6 (fixed before the run and written in each function's docstring);
- :func:`goals`: the two goals of issue 32 as computed lines;
- :func:`answer_html`: the report's landing content.

Significance: Friedman's statistic is computed here (:func:`friedman`, with
scipy's tie correction and Iman and Davenport's F; scipy's own
``friedmanchisquare`` refuses fewer than three methods), Nemenyi's post-hoc test
and the critical-difference diagram come from **scikit-posthocs**
(``posthoc_nemenyi_friedman``, ``critical_difference_diagram``). It was chosen
over autorank because it takes the block x method matrix this module builds and
runs the test it is asked for, while autorank picks its own test (ANOVA or
Friedman, by normality and variance checks), re-ranks raw scores, refuses fewer
than five blocks and prints to stdout; and because scikit-posthocs needs only the
``analysis`` extra's packages (numpy, scipy, pandas, matplotlib, seaborn,
statsmodels), where autorank brings baycomp. Its floor is 0.16.1: 0.16 is the
first release whose Nemenyi p-values compare ``q * sqrt(2)`` with the
studentized range (Demšar 2006's critical difference; earlier ones are too
conservative), and 0.16.0 imports a statsmodels function from a place
statsmodels 0.15 removed.
"""

from __future__ import annotations

import base64
import html
import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import scikit_posthocs
from scipy import stats

from esmo.benchmark.trace import RECORD_COLUMNS
from esmo.papers.common.html import html_table
from esmo.papers.common.reproduction import CLAIM_COLUMNS
from esmo.papers.common.tables import require_columns

RUN = ["dataset", "seed", "method"]
BLOCK = ["dataset", "seed"]

#: The reference method (protocol sec 5): GridSearchCV(SVC()), 5-fold, the grid of sec 2.
REFERENCE = "grid_svc"
#: The budget axis: fractions of the reference's CPU seconds on the same block (sec 6).
BUDGETS = (0.01, 0.03, 0.10, 0.30, 1.00)
#: "Within 0.5 points" of the reference's test accuracy.
WITHIN = 0.005
#: Points of each dataset's cost grid for the anytime curves.
ANYTIME_POINTS = 64
#: Significance level of the Friedman and Nemenyi tests.
ALPHA = 0.05
#: Slack of every threshold and budget comparison, so that a value on the line counts
#: despite rounding (e.g. 0.8 - 0.005 or 0.3 x 10 s); far below any real difference.
TOLERANCE = 1e-9

#: The esmo searches that hand back one SMO-trained SVM (the ensembles claim's rivals).
SINGLE_SVM_SEARCHES = (
    "esmo_rs",
    "esmo_rs_es",
    "esmo_sh",
    "esmo_sh_es",
    "esmo_sh_iter",
    "esmo_hyperband",
    "esmo_optuna",
    "esmo_gradient",
    "esmo_gradient_es",
    "esmo_mdl",
    "esmo_path",
)
#: The esmo methods are the ones whose name starts with this.
ESMO_PREFIX = "esmo_"
#: The rivals of esmo's best method in the second goal.
RIVALS = ("halving_svc", "optuna_svc")

ANYTIME_COLUMNS = ["dataset", "method", "cpu_seconds", "test_accuracy", "sd", "n_seeds", "n_runs"]
REGRET_COLUMNS = [
    *RUN,
    "cpu_seconds",
    "cost_fraction",
    "test_accuracy",
    "reference_accuracy",
    "regret",
]
WITHIN_COLUMNS = [
    *RUN,
    "reference_accuracy",
    "reference_cpu_seconds",
    "threshold",
    "reached",
    "step",
    "cpu_seconds",
    "cost_fraction",
    "n_evaluations",
    "kernel_evaluations",
]
BUDGET_COLUMNS = [*BLOCK, "budget", "cpu_budget", "method", "test_accuracy", "rank"]
GOAL_COLUMNS = ["goal", "question", "answer", "value"]

_TRUE = {"true", "1", "1.0", "yes"}
_FALSE = {"false", "0", "0.0", "no", ""}


# ---------------------------------------------------------------------------- the records


def _flags(values: pd.Series) -> pd.Series:
    """The ``final`` column as booleans: True/False, true/false, 1/0; empty is False."""
    if pd.api.types.is_bool_dtype(values):
        return values.astype(bool)
    text = values.astype("string").str.strip().str.lower().fillna("")
    unknown = sorted(set(text) - _TRUE - _FALSE)
    if unknown:
        raise ValueError(
            f"records: column 'final' holds {unknown[:5]}; write true on a run's last record "
            "and false (or nothing) on the others"
        )
    return text.isin(_TRUE)


def _name_runs(frame: pd.DataFrame, limit: int = 5) -> str:
    runs = frame[RUN].drop_duplicates().head(limit)
    return ", ".join(f"({r.dataset}, {r.seed}, {r.method})" for r in runs.itertuples())


def check_records(records: pd.DataFrame) -> pd.DataFrame:
    """The records as this module reads them, or a ValueError naming the runs at fault.

    Keeps :data:`RECORD_COLUMNS` with numbers as floats, ``seed`` and ``step`` as
    integers and ``final`` as booleans, sorted by run and step. Every record
    needs its run, step, CPU seconds and a test accuracy in [0, 1]; a run's
    steps are distinct, its CPU seconds do not fall from one step to the next,
    and exactly one record, its last, is final.
    """
    require_columns(records, RECORD_COLUMNS, "records")
    out = records[RECORD_COLUMNS].copy()
    for column in ("dataset", "method"):
        if out[column].isna().any():
            raise ValueError(f"records: {int(out[column].isna().sum())} record(s) lack a {column}")
        out[column] = out[column].astype(str)
    for column in RECORD_COLUMNS[3:-1] + ["seed"]:
        out[column] = pd.to_numeric(out[column], errors="coerce").astype(float)
    for column in ("seed", "step", "cpu_seconds", "test_accuracy"):
        bad = out[out[column].isna()]
        if len(bad):
            raise ValueError(
                f"records: column {column!r} is empty or not a number in run(s) {_name_runs(bad)}"
            )
    for column in ("seed", "step"):
        bad = out[out[column] != np.round(out[column])]
        if len(bad):
            raise ValueError(f"records: {column} is not a whole number in run(s) {_name_runs(bad)}")
        out[column] = out[column].astype(np.int64)
    bad = out[(out["test_accuracy"] < 0) | (out["test_accuracy"] > 1)]
    if len(bad):
        raise ValueError(
            f"records: test_accuracy outside [0, 1] in run(s) {_name_runs(bad)}; "
            "accuracies are fractions, not percent"
        )
    bad = out[out["cpu_seconds"] < 0]
    if len(bad):
        raise ValueError(f"records: negative cpu_seconds in run(s) {_name_runs(bad)}")
    out["final"] = _flags(records["final"]).to_numpy()
    out = out.sort_values([*RUN, "step"], kind="stable").reset_index(drop=True)
    same_run = (out[RUN] == out[RUN].shift()).all(axis=1)
    bad = out[same_run & (out["step"] == out["step"].shift())]
    if len(bad):
        raise ValueError(f"records: a step appears twice in run(s) {_name_runs(bad)}")
    bad = out[same_run & (out["cpu_seconds"] < out["cpu_seconds"].shift())]
    if len(bad):
        raise ValueError(
            f"records: cpu_seconds falls from one step to the next in run(s) "
            f"{_name_runs(bad)}; it is the cost so far"
        )
    last = ~(out[RUN] == out[RUN].shift(-1)).all(axis=1)
    bad = out[out["final"] != last]
    if len(bad):
        raise ValueError(
            f"records: run(s) {_name_runs(bad)} do not have exactly one final record, "
            "their last step"
        )
    return out


def references(records: pd.DataFrame) -> pd.DataFrame:
    """Per block, the reference's final ``reference_accuracy``, ``reference_cpu_seconds``
    and ``reference_evaluations`` (``records`` checked by :func:`check_records`)."""
    final = records[records["final"] & (records["method"] == REFERENCE)]
    return (
        final[[*BLOCK, "test_accuracy", "cpu_seconds", "n_evaluations"]]
        .rename(
            columns={
                "test_accuracy": "reference_accuracy",
                "cpu_seconds": "reference_cpu_seconds",
                "n_evaluations": "reference_evaluations",
            }
        )
        .reset_index(drop=True)
    )


def _with_references(records: pd.DataFrame) -> pd.DataFrame:
    """``records`` of the blocks that have a reference, with its columns."""
    return records.merge(references(records), on=BLOCK, how="inner")


def incumbent(
    run: pd.DataFrame, costs: Sequence[float] | np.ndarray, column: str = "test_accuracy"
) -> np.ndarray:
    """``column`` of ``run``'s incumbent at each cost: its last record with
    ``cpu_seconds <= cost`` (NaN before its first record). ``run``: one run's
    records sorted by step."""
    cpu = run["cpu_seconds"].to_numpy(float)
    index = np.searchsorted(cpu, np.asarray(costs, dtype=float), side="right") - 1
    values = run[column].to_numpy(float)
    return np.where(index >= 0, values[np.maximum(index, 0)], np.nan)


def _runs(records: pd.DataFrame) -> dict[tuple, pd.DataFrame]:
    return {(str(d), int(s), str(m)): run for (d, s, m), run in records.groupby(RUN, sort=True)}


# ---------------------------------------------------------------------------- anytime, regret


def cost_grid(costs: pd.Series | np.ndarray, n_points: int = ANYTIME_POINTS) -> np.ndarray:
    """``n_points`` log-spaced costs from the smallest positive cost to the largest."""
    positive = np.asarray(costs, dtype=float)
    positive = positive[positive > 0]
    if positive.size == 0:
        return np.zeros(1)
    low, high = positive.min(), positive.max()
    return np.array([low]) if low == high else np.geomspace(low, high, n_points)


def anytime_curves(records: pd.DataFrame, n_points: int = ANYTIME_POINTS) -> pd.DataFrame:
    """Per dataset and method, the incumbent test accuracy at each cost of the dataset's grid.

    The grid (:func:`cost_grid`) is common to the dataset's methods and seeds;
    ``test_accuracy`` is the mean over the seeds that have an incumbent at that
    cost (``n_seeds`` of the method's ``n_runs``), ``sd`` their sample sd.
    """
    records = check_records(records)
    parts = []
    for dataset, part in records.groupby("dataset", sort=True):
        grid = cost_grid(part["cpu_seconds"], n_points)
        for method, runs in part.groupby("method", sort=True):
            values = np.vstack([incumbent(run, grid) for _, run in runs.groupby("seed")])
            have = ~np.isnan(values)
            n = have.sum(axis=0)
            mean = np.where(
                n > 0, np.where(have, values, 0.0).sum(axis=0) / np.maximum(n, 1), np.nan
            )
            spread = np.where(have, values - mean, 0.0)
            sd = np.where(n > 1, np.sqrt((spread**2).sum(axis=0) / np.maximum(n - 1, 1)), np.nan)
            parts.append(
                pd.DataFrame(
                    {
                        "dataset": dataset,
                        "method": method,
                        "cpu_seconds": grid,
                        "test_accuracy": mean,
                        "sd": sd,
                        "n_seeds": n,
                        "n_runs": len(values),
                    }
                )
            )
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=ANYTIME_COLUMNS)


def regret_table(records: pd.DataFrame) -> pd.DataFrame:
    """Each run's final model against the reference's on its block.

    ``regret = reference_accuracy - test_accuracy`` (positive: worse than
    ``grid_svc``), ``cost_fraction`` = its CPU seconds / the reference's. Runs on
    a block without a reference are left out.
    """
    final = _with_references(check_records(records))
    final = final[final["final"]]
    return final.assign(
        cost_fraction=final["cpu_seconds"] / final["reference_cpu_seconds"],
        regret=final["reference_accuracy"] - final["test_accuracy"],
    )[REGRET_COLUMNS].reset_index(drop=True)


def within_table(records: pd.DataFrame, within: float = WITHIN) -> pd.DataFrame:
    """Each run's first record at or above the reference's accuracy minus ``within``.

    ``reached`` is False and the cost columns NaN when no record gets there;
    ``cost_fraction`` is the record's CPU seconds / the reference's, beside its
    ``n_evaluations`` and ``kernel_evaluations``. Runs on a block without a
    reference are left out.
    """
    rows = _with_references(check_records(records))
    rows = rows.assign(threshold=rows["reference_accuracy"] - within)
    hits = rows[rows["test_accuracy"] >= rows["threshold"] - TOLERANCE].groupby(RUN).head(1)
    runs = rows.groupby(RUN, sort=True).head(1)[
        [*RUN, "reference_accuracy", "reference_cpu_seconds", "threshold"]
    ]
    cost = ["step", "cpu_seconds", "n_evaluations", "kernel_evaluations"]
    out = runs.merge(hits[[*RUN, *cost]], on=RUN, how="left")
    out["reached"] = out["step"].notna()
    out["cost_fraction"] = out["cpu_seconds"] / out["reference_cpu_seconds"]
    return out[WITHIN_COLUMNS].reset_index(drop=True)


# ---------------------------------------------------------------------------- the budget axis


def budget_label(budget: float) -> str:
    """A budget's column heading: ``0.03`` -> ``"3%"``."""
    return f"{100 * budget:g}%"


def budget_accuracies(records: pd.DataFrame, budgets: Sequence[float] = BUDGETS) -> pd.DataFrame:
    """Per block, budget and method: the incumbent's test accuracy within the budget and its rank.

    The budget is ``budget`` x the reference's CPU seconds on the block
    (``cpu_budget``). Every method of the records is ranked on every block:
    rank 1 is the highest accuracy, ties share their mean rank, and a method
    without an incumbent within the budget (or without a run on the block) has
    accuracy NaN and shares the last ranks.
    """
    records = check_records(records)
    methods = sorted(records["method"].unique())
    runs = _runs(records)
    fractions = np.asarray(budgets, dtype=float)
    parts = []
    for block in references(records).itertuples(index=False):
        cpu_budget = fractions * block.reference_cpu_seconds
        accuracy = np.full((len(methods), len(fractions)), np.nan)
        for i, method in enumerate(methods):
            run = runs.get((block.dataset, int(block.seed), method))
            if run is not None:
                accuracy[i] = incumbent(run, cpu_budget * (1 + TOLERANCE))
        ranks = stats.rankdata(-np.nan_to_num(accuracy, nan=-np.inf), axis=0, method="average")
        parts.append(
            pd.DataFrame(
                {
                    "dataset": block.dataset,
                    "seed": int(block.seed),
                    "budget": np.tile(fractions, len(methods)),
                    "cpu_budget": np.tile(cpu_budget, len(methods)),
                    "method": np.repeat(methods, len(fractions)),
                    "test_accuracy": accuracy.ravel(),
                    "rank": ranks.ravel(),
                }
            )
        )
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=BUDGET_COLUMNS)


def budget_rank_table(records: pd.DataFrame, budgets: Sequence[float] = BUDGETS) -> pd.DataFrame:
    """Which method for which budget: each method's mean rank over blocks at each budget.

    One row per method: a column per budget (:func:`budget_label`), ``overall``
    (the mean over budgets) and ``n_blocks``; best overall first.
    """
    long = budget_accuracies(records, budgets)
    labels = [budget_label(b) for b in budgets]
    if long.empty:
        return pd.DataFrame(columns=["method", *labels, "overall", "n_blocks"])
    wide = long.pivot_table(index="method", columns="budget", values="rank", aggfunc="mean")
    wide = wide[list(budgets)].set_axis(labels, axis=1)
    wide["overall"] = wide[labels].mean(axis=1)
    wide["n_blocks"] = len(long[BLOCK].drop_duplicates())
    wide = wide.reset_index().sort_values(["overall", "method"], kind="stable")
    return wide.reset_index(drop=True)


def best_per_budget(table: pd.DataFrame) -> dict[str, list[str]]:
    """Per budget column of :func:`budget_rank_table`, the method(s) of the lowest mean rank."""
    out = {}
    for column in [c for c in table.columns if c.endswith("%")]:
        best = table[column].min()
        out[column] = sorted(table.loc[table[column] <= best + TOLERANCE, "method"])
    return out


# ---------------------------------------------------------------------------- significance


def block_ranks(records: pd.DataFrame, budgets: Sequence[float] = BUDGETS) -> pd.DataFrame:
    """Blocks x methods: each method's overall rank on the block (its mean rank over budgets)."""
    long = budget_accuracies(records, budgets)
    if long.empty:
        return pd.DataFrame()
    return long.pivot_table(index=BLOCK, columns="method", values="rank", aggfunc="mean")


def friedman(matrix: pd.DataFrame | np.ndarray) -> dict[str, float | np.ndarray]:
    """Friedman's test on a blocks x methods matrix (lower value = better), ties corrected.

    Each block's values are ranked (ties share the mean rank); with ``R_j`` the
    mean rank of method j over N blocks and k methods,
    ``chi2 = 12 N / (k (k + 1)) (sum_j R_j^2 - k (k + 1)^2 / 4) / c`` with
    ``c = 1 - sum (t^3 - t) / (N k (k^2 - 1))`` over the groups of t tied values
    (scipy's correction), its p-value from chi2 with k - 1 degrees of freedom,
    and Iman and Davenport's ``F = (N - 1) chi2 / (N (k - 1) - chi2)`` on
    (k - 1, (k - 1)(N - 1)) degrees of freedom (Demšar 2006, sec 3.2.2). A
    matrix of ties only carries no evidence: chi2 = 0, p = 1. Fewer than two
    blocks or methods: NaN.
    """
    values = np.asarray(matrix, dtype=float)
    n, k = values.shape if values.ndim == 2 else (0, 0)
    nan = {
        "n_blocks": n,
        "n_methods": k,
        "statistic": math.nan,
        "pvalue": math.nan,
        "iman_davenport": math.nan,
        "iman_davenport_pvalue": math.nan,
        "mean_ranks": np.full(k, np.nan),
    }
    if n < 2 or k < 2 or np.isnan(values).any():
        return nan
    ranks = stats.rankdata(values, axis=1, method="average")
    mean_ranks = ranks.mean(axis=0)
    ties = sum(
        float((t**3 - t).sum()) for t in (np.unique(row, return_counts=True)[1] for row in values)
    )
    correction = 1.0 - ties / (n * k * (k * k - 1.0))
    if correction <= 0:
        return nan | {
            "statistic": 0.0,
            "pvalue": 1.0,
            "iman_davenport": 0.0,
            "iman_davenport_pvalue": 1.0,
            "mean_ranks": mean_ranks,
        }
    chi2 = 12.0 * n / (k * (k + 1.0)) * ((mean_ranks**2).sum() - k * (k + 1.0) ** 2 / 4.0)
    chi2 /= correction
    denominator = n * (k - 1.0) - chi2
    if denominator > 0:
        f = (n - 1.0) * chi2 / denominator
        f_p = float(stats.f.sf(f, k - 1, (k - 1) * (n - 1)))
    else:  # every block ranks the methods alike
        f, f_p = math.inf, 0.0
    return {
        "n_blocks": n,
        "n_methods": k,
        "statistic": float(chi2),
        "pvalue": float(stats.chi2.sf(chi2, k - 1)),
        "iman_davenport": float(f),
        "iman_davenport_pvalue": f_p,
        "mean_ranks": mean_ranks,
    }


def critical_difference(n_methods: int, n_blocks: int, alpha: float = ALPHA) -> float:
    """Nemenyi's critical difference of mean ranks: ``q_alpha sqrt(k (k + 1) / (6 N))``, with
    ``q_alpha`` the studentized range's 1 - alpha quantile (k groups, infinite df) over sqrt 2."""
    if n_methods < 2 or n_blocks < 1:
        return math.nan
    q = stats.studentized_range.ppf(1 - alpha, n_methods, np.inf) / math.sqrt(2)
    return float(q * math.sqrt(n_methods * (n_methods + 1) / (6.0 * n_blocks)))


def friedman_table(records: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """The significance table: one row per method, best first.

    ``overall_rank`` is the budget table's overall (the mean over blocks of the
    per-block mean rank over budgets); ``friedman_rank`` the mean over blocks of
    each block's ranks of those per-block values, the ranks Friedman's test and
    Nemenyi's critical difference speak of (and the CD diagram draws);
    ``p_<method>`` Nemenyi's p-value against that method (scikit-posthocs).
    The test's numbers (:func:`friedman`), ``alpha`` and the critical
    difference repeat on every row.
    """
    matrix = block_ranks(records)
    test = friedman(matrix)
    methods = [str(m) for m in matrix.columns]
    out = pd.DataFrame(
        {
            "method": methods,
            "overall_rank": matrix.mean(axis=0).to_numpy(float),
            "friedman_rank": test["mean_ranks"],
        }
    )
    for key in ("statistic", "pvalue", "iman_davenport", "iman_davenport_pvalue"):
        out[key] = test[key]
    out["n_blocks"], out["n_methods"], out["alpha"] = test["n_blocks"], test["n_methods"], alpha
    tested = not math.isnan(test["statistic"])
    out["critical_difference"] = (
        critical_difference(test["n_methods"], test["n_blocks"], alpha) if tested else math.nan
    )
    p = (
        scikit_posthocs.posthoc_nemenyi_friedman(
            matrix.set_axis(methods, axis=1).reset_index(drop=True)
        )
        if tested
        else pd.DataFrame(np.nan, index=methods, columns=methods)
    )
    for other in methods:
        out[f"p_{other}"] = p[other].reindex(methods).to_numpy(float)
    return out.sort_values(["friedman_rank", "method"], kind="stable").reset_index(drop=True)


def nemenyi_matrix(table: pd.DataFrame) -> pd.DataFrame:
    """The methods x methods Nemenyi p-values of a :func:`friedman_table`."""
    methods = table["method"].tolist()
    return pd.DataFrame(
        table[[f"p_{m}" for m in methods]].to_numpy(float), index=methods, columns=methods
    )


# ---------------------------------------------------------------------------- the claims


def _status(holds: bool | None) -> str:
    return "not measured" if holds is None else "reproduced" if holds else "not reproduced"


def _claim(
    claim: str,
    section: str,
    statement: str,
    rule: str,
    measured: Callable[[], tuple[str, bool | None]],
    needs: Sequence[str],
    methods: set[str],
) -> dict:
    """One claim row; "not measured" when a method it needs has no records."""
    absent = [m for m in needs if m not in methods]
    if absent:
        measure, holds = f"not measured: no records of {', '.join(absent)}", None
    else:
        measure, holds = measured()
    return {
        "claim": claim,
        "section": section,
        "statement": statement,
        "measure": measure,
        "holds": holds,
        "status": _status(holds),
        "explanation": f"rule: {rule}",
    }


def _final(records: pd.DataFrame, method: str) -> pd.DataFrame:
    """``method``'s final records indexed by block."""
    part = records[records["final"] & (records["method"] == method)]
    return part.set_index(BLOCK)


def _geometric_mean(ratios: pd.Series) -> float:
    ratios = ratios[(ratios > 0) & np.isfinite(ratios)]
    return float(np.exp(np.log(ratios).mean())) if len(ratios) else math.nan


def _majority(ok: pd.Series) -> bool | None:
    """More than half of the measurable blocks (None when none is)."""
    return None if ok.empty else bool(ok.sum() > len(ok) / 2)


def es_gain(records: pd.DataFrame, plain: str, early: str) -> dict[str, float]:
    """Early stopping's gain for one search: ``early`` (with) against ``plain`` (without).

    ``accuracy``: the mean over (block, budget) pairs where both have an
    incumbent of ``early``'s minus ``plain``'s test accuracy, in points;
    ``speedup``: the geometric mean over the blocks where both come within 0.5
    points of the reference of ``plain``'s cost to get there over ``early``'s.
    """
    long = budget_accuracies(records)
    pairs = long[long["method"].isin([plain, early])].pivot_table(
        index=[*BLOCK, "budget"], columns="method", values="test_accuracy", aggfunc="first"
    )
    both = pairs.dropna() if {plain, early} <= set(pairs.columns) else pairs.iloc[:0]
    accuracy = 100 * (both[early] - both[plain]).mean() if len(both) else math.nan
    within = within_table(records)
    costs = within[within["reached"]].pivot_table(
        index=BLOCK, columns="method", values="cpu_seconds", aggfunc="first"
    )
    reached = costs.dropna(subset=[plain, early]) if {plain, early} <= set(costs.columns) else None
    speedup = _geometric_mean(reached[plain] / reached[early]) if reached is not None else math.nan
    return {
        "accuracy": float(accuracy),
        "n_pairs": len(both),
        "speedup": speedup,
        "n_blocks": 0 if reached is None else len(reached),
    }


def thesis_claim(records: pd.DataFrame) -> tuple[str, bool | None]:
    """The thesis (E3, E4): early stopping helps random search more than successive halving.

    Rule: early stopping's gain for a search is measured twice (:func:`es_gain`):
    the mean, over the (block, budget) pairs where both have a model, of the
    early-stopped search's test accuracy minus the plain one's; and the
    geometric mean, over the blocks where both come within 0.5 points of
    grid_svc, of the plain search's cost to get there over the early-stopped
    one's. The claim holds when the gain of random search (esmo_rs_es vs
    esmo_rs) is larger than that of halving (esmo_sh_es vs esmo_sh) on at
    least one measure and smaller on neither; a measure that either search
    cannot give is left out; neither measurable: not measured.
    """
    rs = es_gain(records, "esmo_rs", "esmo_rs_es")
    sh = es_gain(records, "esmo_sh", "esmo_sh_es")
    differences = [
        rs["accuracy"] - sh["accuracy"],
        math.log(rs["speedup"]) - math.log(sh["speedup"])
        if rs["speedup"] > 0 and sh["speedup"] > 0
        else math.nan,
    ]
    known = [d for d in differences if not math.isnan(d)]
    holds = None if not known else any(d > TOLERANCE for d in known) and min(known) >= -TOLERANCE
    measure = (
        f"accuracy gain at equal budget: RS {rs['accuracy']:+.3g} points ({rs['n_pairs']} pairs), "
        f"SH {sh['accuracy']:+.3g} points ({sh['n_pairs']} pairs); speed-up to within 0.5 points: "
        f"RS {rs['speedup']:.3g}x ({rs['n_blocks']} blocks), SH {sh['speedup']:.3g}x "
        f"({sh['n_blocks']} blocks)"
    )
    return measure, holds


def ensembles_claim(records: pd.DataFrame) -> tuple[str, bool | None]:
    """The ensembles paper: an SVM ensemble is at least as accurate as one SVM at equal time.

    Rule: on each block where esmo_ensemble ran, with c its final CPU seconds,
    each single-SVM esmo search (:data:`SINGLE_SVM_SEARCHES`: esmo_rs, esmo_rs_es,
    esmo_sh, esmo_sh_es, esmo_sh_iter, esmo_hyperband, esmo_optuna, esmo_gradient,
    esmo_gradient_es, esmo_mdl, esmo_path) is given its incumbent at the larger of c and its
    first record's cost, so the ensemble is never the dearer; the best single search is the one of the highest mean
    such accuracy over the blocks where it ran. The claim holds when the
    ensemble's mean final accuracy minus that search's, over those blocks, is
    >= 0.
    """
    ensemble = _final(records, "esmo_ensemble")
    runs = _runs(records)
    best: tuple[float, str, pd.Series] | None = None
    for method in SINGLE_SVM_SEARCHES:
        accuracy = {}
        for (dataset, seed), row in ensemble.iterrows():
            run = runs.get((str(dataset), int(seed), method))
            if run is not None:
                cost = max(row["cpu_seconds"], run["cpu_seconds"].iloc[0])
                accuracy[(dataset, seed)] = incumbent(run, [cost * (1 + TOLERANCE)])[0]
        if accuracy:
            series = pd.Series(accuracy)
            if best is None or series.mean() > best[0]:
                best = (float(series.mean()), method, series)
    if best is None:
        return "not measured: no single-SVM esmo search ran on esmo_ensemble's blocks", None
    mean, method, series = best
    mine = ensemble["test_accuracy"].reindex(series.index)
    difference = 100 * float((mine - series).mean())
    measure = (
        f"esmo_ensemble {100 * mine.mean():.2f} % at {ensemble['cpu_seconds'].mean():.3g} s mean; "
        f"best single-SVM search at equal or lower cost: {method} {100 * mean:.2f} %; "
        f"difference {difference:+.3g} points over {len(series)} blocks"
    )
    return measure, difference >= -100 * TOLERANCE


def mdl_claim(records: pd.DataFrame) -> tuple[str, bool | None]:
    """The MDL paper: MDL reaches CV's accuracy at a fraction of its cost.

    Rule: on a block, esmo_mdl's final test accuracy is within 1 point of
    grid_svc's and its CPU seconds at most a third of grid_svc's; the claim
    holds on more than half of the blocks where both ran.
    """
    mdl, reference = _final(records, "esmo_mdl"), _final(records, REFERENCE)
    both = mdl.merge(reference, left_index=True, right_index=True, suffixes=("_mdl", "_ref"))
    if both.empty:
        return "not measured: esmo_mdl and grid_svc share no block", None
    gap = both["test_accuracy_mdl"] - both["test_accuracy_ref"]
    fraction = both["cpu_seconds_mdl"] / both["cpu_seconds_ref"]
    ok = (gap >= -0.01 - TOLERANCE) & (fraction <= 1 / 3 + TOLERANCE)
    measure = (
        f"within 1 point at <= 1/3 of the cost on {int(ok.sum())} of {len(ok)} blocks; "
        f"mean accuracy difference {100 * gap.mean():+.3g} points, median cost fraction "
        f"{fraction.median():.3g}"
    )
    return measure, _majority(ok)


def gradient_claim(records: pd.DataFrame, max_evaluations: int = 30) -> tuple[str, bool | None]:
    """The gradient paper: a few evaluations reach the grid's accuracy.

    Rule: on a block, esmo_gradient's first record within 0.5 points of
    grid_svc's final test accuracy (:func:`within_table`) has at most 30
    evaluations (``max_evaluations``), and a block where it never gets there
    fails; the claim holds on more than half of the blocks where both ran and
    the evaluations are recorded.
    """
    within = within_table(records)
    mine = within[within["method"] == "esmo_gradient"]
    reference = _final(records, REFERENCE)["n_evaluations"]
    if mine.empty:
        return "not measured: esmo_gradient and grid_svc share no block", None
    counted = mine[~mine["reached"] | mine["n_evaluations"].notna()]
    if counted.empty:
        return "not measured: esmo_gradient's records lack n_evaluations", None
    ok = counted["reached"] & (counted["n_evaluations"] <= max_evaluations)
    measure = (
        f"within 0.5 points in <= {max_evaluations} evaluations on {int(ok.sum())} of "
        f"{len(ok)} blocks; median evaluations to get there "
        f"{counted['n_evaluations'].median():.3g} (never on {int((~counted['reached']).sum())}); "
        f"grid_svc's evaluations {reference.median():.3g}"
    )
    return measure, _majority(ok.reset_index(drop=True))


def nsvm_claim(records: pd.DataFrame) -> tuple[str, bool | None]:
    """The NSVM paper (Pegasos): early stopping saves steps at equal accuracy.

    Rule: the best esmo SMO random search is the one of esmo_rs and esmo_rs_es
    with the higher mean final test accuracy over its blocks; on a block,
    esmo_pegasos_es's final test accuracy is within 1 point of it and its final
    kernel evaluations are fewer; the claim holds on more than half of the
    blocks where both ran with kernel evaluations recorded.
    """
    searches = {m: _final(records, m) for m in ("esmo_rs", "esmo_rs_es")}
    searches = {m: f for m, f in searches.items() if len(f)}
    if not searches:
        return "not measured: no records of esmo_rs or esmo_rs_es", None
    method = max(sorted(searches), key=lambda m: searches[m]["test_accuracy"].mean())
    both = _final(records, "esmo_pegasos_es").merge(
        searches[method], left_index=True, right_index=True, suffixes=("_peg", "_rs")
    )
    both = both.dropna(subset=["kernel_evaluations_peg", "kernel_evaluations_rs"])
    if both.empty:
        return (
            f"not measured: esmo_pegasos_es and {method} share no block with kernel evaluations",
            None,
        )
    gap = both["test_accuracy_peg"] - both["test_accuracy_rs"]
    fewer = both["kernel_evaluations_peg"] < both["kernel_evaluations_rs"]
    ok = (gap >= -0.01 - TOLERANCE) & fewer
    measure = (
        f"within 1 point of {method} at fewer kernel evaluations on {int(ok.sum())} of "
        f"{len(ok)} blocks; mean accuracy difference {100 * gap.mean():+.3g} points, median "
        f"kernel-evaluation ratio {(both['kernel_evaluations_peg'] / both['kernel_evaluations_rs']).median():.3g}"
    )
    return measure, _majority(ok)


def claims(records: pd.DataFrame) -> pd.DataFrame:
    """The five papers' claims restated on the benchmark (protocol sec 6), :data:`CLAIM_COLUMNS`.

    ``holds`` is True, False or None; ``status`` reproduced, not reproduced or
    not measured (a method the claim needs has no records, or no block measures
    it); ``explanation`` states the verdict rule, fixed before the run in the
    docstring of the claim's function.
    """
    records = check_records(records)
    methods = set(records["method"])

    def rule(function: Callable) -> str:
        doc = (function.__doc__ or "").split("Rule:", 1)[-1]
        doc = re.sub(r" \(:\w+:`[^`]*`\)", "", doc)  # a bare cross-reference says nothing here
        doc = re.sub(r":\w+:`([^`]*)`", r"\1", doc).replace("``", "")
        return " ".join(doc.split())

    rows = [
        _claim(
            "thesis.es_helps_rs_more_than_sh",
            "6 (thesis E3, E4)",
            "early stopping inside SMO gains more for random search than for successive halving",
            rule(thesis_claim),
            lambda: thesis_claim(records),
            [REFERENCE, "esmo_rs", "esmo_rs_es", "esmo_sh", "esmo_sh_es"],
            methods,
        ),
        _claim(
            "ensembles.at_least_one_svm_at_equal_cost",
            "6 (ensembles)",
            "an SVM ensemble is at least as accurate as the best single SVM search at equal "
            "or lower cost",
            rule(ensembles_claim),
            lambda: ensembles_claim(records),
            ["esmo_ensemble"],
            methods,
        ),
        _claim(
            "mdl.cv_accuracy_at_a_third_of_its_cost",
            "6 (MDL)",
            "MDL comes within 1 point of grid search CV at a third of its cost or less",
            rule(mdl_claim),
            lambda: mdl_claim(records),
            ["esmo_mdl", REFERENCE],
            methods,
        ),
        _claim(
            "gradient.grid_accuracy_in_30_evaluations",
            "6 (gradient)",
            "gradient tuning comes within 0.5 points of the grid's accuracy in 30 evaluations or "
            "fewer (grid_svc: 121 at the default grid step)",
            rule(gradient_claim),
            lambda: gradient_claim(records),
            ["esmo_gradient", REFERENCE],
            methods,
        ),
        _claim(
            "nsvm.pegasos_es_at_fewer_kernel_evaluations",
            "6 (NSVM)",
            "early-stopped kernel Pegasos comes within 1 point of esmo's SMO random search at "
            "fewer kernel evaluations",
            rule(nsvm_claim),
            lambda: nsvm_claim(records),
            ["esmo_pegasos_es"],
            methods,
        ),
    ]
    return pd.DataFrame(rows, columns=CLAIM_COLUMNS)


# ---------------------------------------------------------------------------- the goals


def cheap_within_share(records: pd.DataFrame, fraction: float = 0.10) -> dict:
    """Goal 1: the datasets on which some esmo method comes within 0.5 points of ``grid_svc`` at
    <= ``fraction`` of its CPU seconds, on more than half of the dataset's blocks.

    Returns ``share`` (NaN without blocks), ``datasets`` (the datasets with a
    block), and ``methods``: per qualifying dataset, the esmo methods that do it.
    """
    within = within_table(records)
    n_blocks = within.groupby("dataset")["seed"].nunique()
    ok = within[
        within["method"].str.startswith(ESMO_PREFIX)
        & within["reached"]
        & (within["cost_fraction"] <= fraction + TOLERANCE)
    ]
    counts = ok.groupby(["dataset", "method"])["seed"].nunique()
    methods: dict[str, list[str]] = {}
    for (dataset, method), count in counts.items():
        if count > n_blocks[dataset] / 2:
            methods.setdefault(str(dataset), []).append(str(method))
    share = len(methods) / len(n_blocks) if len(n_blocks) else math.nan
    return {"share": share, "datasets": sorted(map(str, n_blocks.index)), "methods": methods}


def esmo_against_rivals(table: pd.DataFrame, rivals: Sequence[str] = RIVALS) -> dict:
    """Goal 2 from a :func:`friedman_table`: esmo's best method (the lowest ``friedman_rank``)
    against each rival: ahead (a lower rank) and significantly so (Friedman's p and
    Nemenyi's p below alpha). ``holds`` is None when esmo or a rival is missing."""
    ranked = table.dropna(subset=["friedman_rank"])
    esmo = ranked[ranked["method"].astype(str).str.startswith(ESMO_PREFIX)]
    if esmo.empty:
        return {"best": None, "rivals": {}, "holds": None}
    best = esmo.iloc[0]
    row = ranked.set_index("method")
    omnibus = bool(best["pvalue"] < best["alpha"])
    found = {}
    for rival in rivals:
        if rival in row.index:
            p = float(row.loc[best["method"], f"p_{rival}"])
            ahead = bool(best["friedman_rank"] < row.loc[rival, "friedman_rank"])
            found[rival] = {
                "rank": float(row.loc[rival, "friedman_rank"]),
                "p": p,
                "ahead": ahead,
                "significant": ahead and omnibus and p < best["alpha"],
            }
    holds = all(r["significant"] for r in found.values()) if len(found) == len(rivals) else None
    return {
        "best": best["method"],
        "rank": float(best["friedman_rank"]),
        "omnibus": omnibus,
        "friedman_p": float(best["pvalue"]),
        "rivals": found,
        "holds": holds,
    }


def goals(records: pd.DataFrame, table: pd.DataFrame | None = None) -> pd.DataFrame:
    """The two goals of issue 32 as computed lines (:data:`GOAL_COLUMNS`); ``value`` is goal 1's
    share and goal 2's verdict (1 holds, 0 does not, NaN not measured). ``table``: the
    :func:`friedman_table` of ``records`` when already computed."""
    cheap = cheap_within_share(records)
    if math.isnan(cheap["share"]):
        first = "not measured: no block has a grid_svc record"
    else:
        named = "; ".join(f"{d} ({', '.join(m)})" for d, m in sorted(cheap["methods"].items()))
        first = (
            f"{len(cheap['methods'])} of {len(cheap['datasets'])} datasets "
            f"({100 * cheap['share']:.0f} %)" + (f": {named}" if named else "")
        )
    table = friedman_table(records) if table is None else table
    versus = esmo_against_rivals(table)
    if versus["best"] is None:
        second = "not measured: no esmo method was ranked"
    else:
        parts = [
            f"{rival} ({r['rank']:.2f}; Nemenyi p = {r['p']:.3g}: "
            + (
                "behind"
                if not r["ahead"]
                else "significant"
                if r["significant"]
                else "not significant"
            )
            + ")"
            for rival, r in versus["rivals"].items()
        ]
        absent = [r for r in RIVALS if r not in versus["rivals"]]
        parts += [f"{r} (not measured: no records)" for r in absent]
        verdict = {True: "yes", False: "no", None: "not measured"}[versus["holds"]]
        second = (
            f"{verdict}: {versus['best']} (mean rank {versus['rank']:.2f} in the CD diagram; "
            f"Friedman p = {versus['friedman_p']:.3g}) against " + ", ".join(parts)
        )
    value = math.nan if versus["holds"] is None else float(versus["holds"])
    rows = [
        (
            "cheap_within",
            "On what share of datasets does some esmo method come within 0.5 points of "
            "grid_svc at <= 1/10 of its CPU time (on more than half of the dataset's seeds)?",
            first,
            cheap["share"],
        ),
        (
            "rank_ahead",
            "Does esmo's best method rank ahead of halving_svc and optuna_svc, "
            "significantly in the CD diagram (Friedman, then Nemenyi at alpha = 0.05)?",
            second,
            value,
        ),
    ]
    return pd.DataFrame(rows, columns=GOAL_COLUMNS)


# ---------------------------------------------------------------------------- the answer page


def _image(path: str | Path | None, alt: str) -> str:
    if path is None or not Path(path).is_file():
        return ""
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return (
        f'<p><img src="data:image/png;base64,{data}" alt="{html.escape(alt)}" '
        'style="max-width: 100%"></p>\n'
    )


def answer_html(records: pd.DataFrame, cd_diagram: str | Path | None = None) -> str:
    """The benchmark's answer for the report's landing page: the goals, the budget table,
    the best method per budget, Friedman's test and the CD diagram (``cd_diagram``, a
    PNG embedded in the page so that the page stands alone)."""
    table = budget_rank_table(records)
    significance = friedman_table(records)
    parts = ['<div class="benchmark-answer">\n']
    for row in goals(records, significance).itertuples(index=False):
        parts.append(f"<p><b>{html.escape(row.question)}</b> {html.escape(row.answer)}</p>\n")
    n_blocks = int(table["n_blocks"].max()) if len(table) else 0
    parts.append(
        f"<p>Mean rank of each method (1 = best) over {n_blocks} (dataset, seed) blocks at "
        "each budget, a share of grid_svc's CPU seconds on the block; no model within the "
        "budget ranks last.</p>\n"
    )
    parts.append(html_table(table, digits=3, css="budget-ranks"))
    best = best_per_budget(table)
    if best:
        parts.append(
            "<p>Best: "
            + html.escape("; ".join(f"{b}: {', '.join(m)}" for b, m in best.items()))
            + ".</p>\n"
        )
    if len(significance) and not math.isnan(significance["statistic"].iloc[0]):
        s = significance.iloc[0]
        parts.append(
            f"<p>Friedman over {int(s['n_blocks'])} blocks and {int(s['n_methods'])} methods: "
            f"chi2 = {s['statistic']:.3g}, p = {s['pvalue']:.3g} (Iman-Davenport F = "
            f"{s['iman_davenport']:.3g}, p = {s['iman_davenport_pvalue']:.3g}); Nemenyi's "
            f"critical difference at alpha = {s['alpha']:g}: {s['critical_difference']:.3g}.</p>\n"
        )
    parts.append(_image(cd_diagram, "critical-difference diagram"))
    parts.append("</div>\n")
    return "".join(parts)
