"""Random-search outcomes, scores, wins and the selection of ES configurations.

Experiments E1, E2 and appendix B compare, per dataset, a random search (RS)
without early stopping (the reference, ``es_id = -1``) with the same RS under
each early-stopping (ES) configuration (thesis sec 3.2, protocol §6). Every
function here works on tidy pandas tables, so the same code serves the
iteration-counted sweeps and the wall-clock experiments E3/E4 (pass
``cost="seconds"``).

The pipeline is::

    training-job tables -> random_search_per_fold -> random_search_outcome
        -> scores_against_reference -> select_configurations / best_per_beta
        -> wins_per_beta, count_wins

Selections (j_low, j_high, j_avg, j_r) are written as one table layout,
``SELECTION_COLUMNS``, by ``selection_table`` and read back with
``selected_configurations`` / ``selected_configuration``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from esmo.papers.common.tables import require_columns

#: ``es_id`` of the reference search without early stopping (as in ``esmo.papers.thesis.sweep_jobs``).
REFERENCE_ES_ID = -1

#: Keys that identify one random search (one row of the outcome table).
SEARCH_KEYS = ["dataset", "kernel", "metric", "es_id"]

#: The dataset groups of sec 3.3: "high complexity" means more than 50 features.
THESIS_GROUPS: dict[str, list[str]] = {
    "low": ["australian", "breast-cancer", "diabetes", "fourclass"],
    "high": ["a1a", "splice"],
    "avg": ["a1a", "australian", "breast-cancer", "diabetes", "fourclass", "splice"],
}

#: The thesis's main trade-off: its figures, selections and claims are at this beta.
THESIS_BETA = 0.995

#: The trade-off values of sec 5.2 (table 5.1, 5.2); THESIS_BETA is the thesis' main one.
THESIS_BETAS = (0.0, 0.8, 0.95, THESIS_BETA, 1.0)

_ES_COLUMNS = ["patience", "es_tol", "interval"]

#: Columns of every selection table (``selection_table``): one row per group, kernel and metric.
SELECTION_COLUMNS = [
    "group",
    "es_id",
    "mean_score",
    "n_datasets",
    *_ES_COLUMNS,
    "kernel",
    "metric",
]


def _check_unit_interval(values: pd.Series, name: str) -> None:
    v = values.to_numpy(dtype=float)
    if np.isnan(v).any() or (v < 0).any() or (v > 1).any():
        raise ValueError(
            f"{name} must lie in [0, 1] without NaN (fractions, not percentages); "
            f"got range [{np.nanmin(v)}, {np.nanmax(v)}]"
        )


def _beta_rows(scores: pd.DataFrame, beta: float) -> pd.Series:
    """Rows of ``beta``, matched with a float tolerance (betas come from config files)."""
    mask = np.isclose(scores["beta"].to_numpy(dtype=float), beta, rtol=0.0, atol=1e-12)
    if not mask.any():
        raise ValueError(
            f"beta={beta} is not in the score table (it has {sorted(scores['beta'].unique())}); "
            "add it to the betas passed to scores_against_reference"
        )
    return pd.Series(mask, index=scores.index)


def random_search_per_fold(table: pd.DataFrame, *, cost: str = "n_iter") -> pd.DataFrame:
    """Outcome of each random search on each fold.

    Every configuration is trained, so the fold's cost is the sum of ``cost``
    over all configurations; the chosen model is the one with the highest
    validation accuracy, ties going to the smaller ``config_id`` (the earlier
    configuration, protocol §6). The returned ``config_id``, ``val_accuracy``
    and ``test_accuracy`` are the chosen model's; ``n_configs`` counts the
    configurations and ``n_max_iter`` those that hit ``max_iter`` (when the
    table has ``max_iter_reached``).
    """
    keys = [*SEARCH_KEYS, "fold"]
    require_columns(table, [*keys, "config_id", cost, "val_accuracy", "test_accuracy"], "table")
    if table.empty:
        raise ValueError("the training table is empty: no random search to aggregate")
    _check_unit_interval(table["val_accuracy"], "val_accuracy")
    _check_unit_interval(table["test_accuracy"], "test_accuracy")
    duplicated = table.duplicated([*keys, "config_id"])
    if duplicated.any():
        first = table.loc[duplicated, [*keys, "config_id"]].iloc[0].to_dict()
        raise ValueError(
            f"{int(duplicated.sum())} duplicated rows, e.g. {first}: each configuration must "
            "appear once per fold; did you concatenate a training job twice?"
        )

    ordered = table.sort_values([*keys, "config_id"], kind="stable").reset_index(drop=True)
    grouped = ordered.groupby(keys, sort=True)
    # idxmax returns the first maximum; rows are in config_id order, so ties go to the earlier.
    chosen = ordered.loc[grouped["val_accuracy"].idxmax(), [*keys, "config_id"]]
    chosen = chosen.assign(
        val_accuracy=ordered.loc[chosen.index, "val_accuracy"].to_numpy(),
        test_accuracy=ordered.loc[chosen.index, "test_accuracy"].to_numpy(),
    ).set_index(keys)
    chosen[cost] = grouped[cost].sum()
    chosen["n_configs"] = grouped.size()
    if "max_iter_reached" in table.columns:
        chosen["n_max_iter"] = grouped["max_iter_reached"].sum().astype("int64")
    out = chosen.reset_index()

    # A missing chunk would silently lower a search's cost: every search of a
    # fold must have trained as many configurations as the others.
    spread = out.groupby(["dataset", "kernel", "metric", "fold"])["n_configs"].agg(["min", "max"])
    bad = spread[spread["min"] != spread["max"]]
    if not bad.empty:
        raise ValueError(
            "incomplete training table: searches of the same fold trained different numbers "
            f"of configurations ({bad.reset_index().iloc[0].to_dict()}); rerun the missing "
            "training jobs"
        )
    return out


def random_search_outcome(
    per_fold: pd.DataFrame, *, cost: str = "n_iter", by: Sequence[str] = tuple(SEARCH_KEYS)
) -> pd.DataFrame:
    """Mean and std of the chosen models' test accuracy over folds, and the summed cost.

    The std is the population std (``ddof=0``, numpy's default), the natural
    reading of the thesis' "mean +- std over five runs", which names no
    correction. ``cost`` is summed over folds (protocol §2); any numeric cost
    column works, e.g. seconds for E3/E4. ``by`` names the columns identifying
    one search.
    """
    by = list(by)
    require_columns(per_fold, [*by, cost, "test_accuracy"], "per_fold")
    grouped = per_fold.groupby(by, sort=True)
    out = grouped["test_accuracy"].agg(
        test_accuracy_mean="mean", test_accuracy_std=lambda a: float(np.std(a, ddof=0))
    )
    if "val_accuracy" in per_fold.columns:
        out["val_accuracy_mean"] = grouped["val_accuracy"].mean()
    out[cost] = grouped[cost].sum()
    out["n_folds"] = grouped.size()
    if "n_max_iter" in per_fold.columns:
        out["n_max_iter"] = grouped["n_max_iter"].sum()
    return out.reset_index()


def score(
    acc: np.ndarray | float,
    cost: np.ndarray | float,
    cost_ref: np.ndarray | float,
    beta: np.ndarray | float,
) -> np.ndarray:
    """Scalarised score ``beta*acc + (1 - beta)*(1 - cost/cost_ref)`` (thesis eq. 3.3).

    ``acc`` is a fraction in [0, 1]; ``cost`` and ``cost_ref`` are iterations or
    seconds. Arguments broadcast against each other.
    """
    acc, cost, cost_ref, beta = (np.asarray(a, dtype=float) for a in (acc, cost, cost_ref, beta))
    if np.any((beta < 0) | (beta > 1)):
        raise ValueError(f"beta must lie in [0, 1], got {beta}")
    if np.any(~(cost_ref > 0)):
        raise ValueError(
            f"the reference cost must be positive, got {cost_ref}; a reference search "
            "without iterations or time cannot normalise the cost"
        )
    return beta * acc + (1.0 - beta) * (1.0 - cost / cost_ref)


def scores_against_reference(
    outcome: pd.DataFrame,
    betas: Sequence[float] = THESIS_BETAS,
    *,
    cost: str = "n_iter",
    accuracy: str = "test_accuracy_mean",
) -> pd.DataFrame:
    """Score every search against the reference of its dataset, kernel and metric.

    Returns a long table with one row per (dataset, kernel, metric, es_id, beta):
    the accuracy and cost, the reference's (suffix ``_ref``), ``score``,
    ``score_ref`` and ``win`` (1 if ``score > score_ref``, 0.5 on equality, as
    the sign test splits ties, 0 otherwise). The reference's own rows are kept
    (they tie with themselves), since figures plot the reference score.
    """
    require_columns(outcome, [*SEARCH_KEYS, cost, accuracy], "outcome")
    _check_unit_interval(outcome[accuracy], accuracy)
    base = ["dataset", "kernel", "metric"]
    ref = outcome.loc[outcome["es_id"] == REFERENCE_ES_ID, [*base, accuracy, cost]]
    if ref.duplicated(base).any():
        raise ValueError("several reference searches (es_id = -1) for one dataset/kernel/metric")
    merged = outcome[[*SEARCH_KEYS, accuracy, cost]].merge(
        ref, on=base, how="left", suffixes=("", "_ref"), validate="many_to_one"
    )
    if merged[f"{cost}_ref"].isna().any():
        lacking = merged.loc[merged[f"{cost}_ref"].isna(), base].drop_duplicates()
        raise ValueError(
            "no reference search (es_id = -1) for "
            f"{lacking.to_dict('records')}; every dataset/kernel/metric needs one"
        )
    betas = np.asarray(betas, dtype=float)
    if betas.ndim != 1 or betas.size == 0:
        raise ValueError(f"betas must be a non-empty sequence, got {betas}")
    long = merged.merge(pd.DataFrame({"beta": betas}), how="cross")
    long["score"] = score(long[accuracy], long[cost], long[f"{cost}_ref"], long["beta"])
    long["score_ref"] = score(
        long[f"{accuracy}_ref"], long[f"{cost}_ref"], long[f"{cost}_ref"], long["beta"]
    )
    long["win"] = np.sign(long["score"] - long["score_ref"]) * 0.5 + 0.5
    return long.sort_values([*SEARCH_KEYS, "beta"], kind="stable").reset_index(drop=True)


def early_stopping_rows(
    scores: pd.DataFrame, beta: float, kernel: str, metric: str
) -> pd.DataFrame:
    """The early-stopped searches' rows at ``beta``, ``kernel`` and ``metric`` (the reference
    left out); empty where the table has none of them."""
    require_columns(scores, [*SEARCH_KEYS, "beta", "score", "win"], "scores")
    mask = _beta_rows(scores, beta) & (scores["kernel"] == kernel) & (scores["metric"] == metric)
    return scores.loc[mask & (scores["es_id"] != REFERENCE_ES_ID)]


def _slice(scores: pd.DataFrame, beta: float, kernel: str, metric: str) -> pd.DataFrame:
    part = early_stopping_rows(scores, beta, kernel, metric)
    if part.empty:
        raise ValueError(
            f"no early-stopping scores for kernel={kernel!r}, metric={metric!r}, beta={beta}; "
            f"the table has kernels {sorted(scores['kernel'].unique())} and metrics "
            f"{sorted(scores['metric'].unique())}"
        )
    return part


def _complete_over(part: pd.DataFrame, datasets: Sequence[str], group: str) -> pd.DataFrame:
    """Rows of ``datasets``, checking every ES configuration was run on all of them."""
    datasets = list(dict.fromkeys(datasets))
    if not datasets:
        raise ValueError(f"group {group!r} has no datasets")
    missing = sorted(set(datasets) - set(part["dataset"]))
    if missing:
        raise ValueError(
            f"group {group!r} names dataset(s) {missing} absent from the score table "
            f"(it has {sorted(part['dataset'].unique())})"
        )
    rows = part[part["dataset"].isin(datasets)]
    counts = rows.groupby("es_id")["dataset"].nunique()
    if (counts != len(datasets)).any():
        raise ValueError(
            f"ES configuration(s) {counts[counts != len(datasets)].index.tolist()} lack "
            f"scores on some datasets of group {group!r}; a mean over fewer datasets is "
            "not comparable"
        )
    return rows


def _join_es(table: pd.DataFrame, es_table: pd.DataFrame | None) -> pd.DataFrame:
    if es_table is None:
        return table
    require_columns(es_table, ["es_id"], "es_table")
    columns = ["es_id", *[c for c in _ES_COLUMNS if c in es_table.columns]]
    out = table.merge(es_table[columns], on="es_id", how="left", validate="many_to_one")
    if out[columns[1:]].isna().any().any():
        raise ValueError("es_table lacks some selected es_id; pass the ES table of this sweep")
    return out


def select_configurations(
    scores: pd.DataFrame,
    groups: Mapping[str, Sequence[str]],
    beta: float,
    kernel: str,
    metric: str,
    *,
    es_table: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Per group of datasets, the ES configuration with the highest mean score.

    With ``THESIS_GROUPS`` this gives j_low, j_high and j_avg (sec 3.3); with
    E4's interval sweep and the six datasets, j_r. Ties go to the smaller
    ``es_id``. Returns ``group, es_id, mean_score, n_datasets`` plus
    ``patience, es_tol, interval`` when ``es_table`` is given.
    """
    part = _slice(scores, beta, kernel, metric)
    rows = []
    for name, datasets in groups.items():
        chosen = _complete_over(part, datasets, name)
        mean = chosen.groupby("es_id", sort=True)["score"].mean()
        # the index is sorted, and idxmax returns the first maximum: ties go to the smaller es_id
        best = int(mean.idxmax())
        rows.append(
            {
                "group": name,
                "es_id": best,
                "mean_score": float(mean[best]),
                "n_datasets": len(set(datasets)),
            }
        )
    return _join_es(pd.DataFrame(rows), es_table)


def by_kernel_and_metric(
    table_of: Callable[[str, str], pd.DataFrame],
    kernels: Sequence[str],
    metrics: Sequence[str],
) -> pd.DataFrame:
    """``table_of(kernel, metric)`` for every kernel and metric, stacked, with both as columns.

    Kernels vary slowest; ``kernel`` and ``metric`` are appended as the last columns.
    """
    frames = [
        table_of(kernel, metric).assign(kernel=kernel, metric=metric)
        for kernel in kernels
        for metric in metrics
    ]
    if not frames:
        raise ValueError(f"no kernel and metric to tabulate (kernels={kernels}, metrics={metrics})")
    return pd.concat(frames, ignore_index=True)


def selection_table(
    scores: pd.DataFrame,
    groups: Mapping[str, Sequence[str]],
    beta: float,
    es_table: pd.DataFrame,
    *,
    kernels: Sequence[str] = ("rbf",),
    metrics: Sequence[str] = ("accuracy",),
) -> pd.DataFrame:
    """The selection table: j_g for every group g, kernel and metric, in ``SELECTION_COLUMNS``.

    Every selection the workflow writes has this one layout, whoever reads it:
    E1's j_low, j_high and j_avg (``THESIS_GROUPS``, both kernels and
    objectives) and E4's j_r (one group ``"r"``, RBF and accuracy, over an ES
    table with intervals). Rows come per kernel, then metric, then group in the
    order of ``groups``; read them back with ``selected_configurations``.
    """
    require_columns(es_table, ["es_id", "patience", "es_tol", "interval"], "es_table")
    table = by_kernel_and_metric(
        lambda kernel, metric: select_configurations(
            scores, groups, beta, kernel, metric, es_table=es_table
        ),
        kernels,
        metrics,
    )
    return table[SELECTION_COLUMNS]


def selected_configurations(
    selection: pd.DataFrame, kernel: str = "rbf", metric: str = "accuracy"
) -> pd.DataFrame:
    """The rows of one kernel and metric of a selection table (``selection_table``'s layout)."""
    require_columns(selection, SELECTION_COLUMNS, "selection")
    rows = selection[(selection["kernel"] == kernel) & (selection["metric"] == metric)]
    if rows.empty:
        raise ValueError(
            f"the selection table has no rows for kernel={kernel!r}, metric={metric!r}; it has "
            f"{sorted(set(zip(selection['kernel'], selection['metric'], strict=True)))}"
        )
    return rows.reset_index(drop=True)


def selected_configuration(
    selection: pd.DataFrame, group: str, kernel: str = "rbf", metric: str = "accuracy"
) -> pd.Series:
    """The one row of group ``group`` (e.g. ``"high"`` for j_high, ``"r"`` for j_r)."""
    rows = selected_configurations(selection, kernel, metric)
    rows = rows[rows["group"] == group]
    if len(rows) != 1:
        raise ValueError(
            f"expected one selection of group {group!r} for kernel={kernel!r}, "
            f"metric={metric!r}, found {len(rows)}"
        )
    return rows.iloc[0]


def top_configurations(
    scores: pd.DataFrame,
    beta: float,
    kernel: str,
    metric: str,
    *,
    n: int = 5,
    datasets: Sequence[str] | None = None,
) -> pd.DataFrame:
    """The ``n`` ES configurations with the highest mean score (figs 4.3, 4.4, B.3, B.4).

    Ties in mean score go to the smaller ``es_id``. Returns ``rank, es_id,
    mean_score``.
    """
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    part = _slice(scores, beta, kernel, metric)
    datasets = sorted(part["dataset"].unique()) if datasets is None else datasets
    mean = _complete_over(part, datasets, "top").groupby("es_id")["score"].mean()
    frame = mean.rename("mean_score").reset_index()
    frame = frame.sort_values(["mean_score", "es_id"], ascending=[False, True], kind="stable")
    frame = frame.head(n).reset_index(drop=True)
    frame.insert(0, "rank", np.arange(1, len(frame) + 1))
    return frame


def best_per_beta(
    scores: pd.DataFrame,
    betas: Sequence[float] = THESIS_BETAS,
    *,
    kernels: Sequence[str] = ("linear", "rbf"),
    metric: str = "accuracy",
    datasets: Sequence[str] | None = None,
    es_table: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Table 5.1: per kernel and beta, the ES configuration with the best mean score.

    The mean runs over ``datasets`` (default: every dataset in ``scores``).
    Returns ``kernel, beta, es_id, mean_score, n_datasets`` plus the ES
    parameters when ``es_table`` is given.
    """
    frames = []
    for kernel in kernels:
        for beta in betas:
            part = _slice(scores, beta, kernel, metric)
            names = sorted(part["dataset"].unique()) if datasets is None else list(datasets)
            chosen = select_configurations(scores, {"all": names}, beta, kernel, metric)
            frames.append(chosen.drop(columns="group").assign(kernel=kernel, beta=float(beta)))
    table = pd.concat(frames, ignore_index=True)
    table = table[["kernel", "beta", "es_id", "mean_score", "n_datasets"]]
    return _join_es(table, es_table)


def count_wins(
    scores: pd.DataFrame,
    beta: float,
    kernel: str,
    metric: str,
    *,
    datasets: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Wins of each ES configuration over the reference (ties half; fig 5.3).

    Returns ``es_id, n_datasets, wins``.
    """
    part = _slice(scores, beta, kernel, metric)
    if datasets is not None:
        part = _complete_over(part, datasets, "wins")
    grouped = part.groupby("es_id", sort=True)
    return pd.DataFrame(
        {"n_datasets": grouped["dataset"].nunique(), "wins": grouped["win"].sum()}
    ).reset_index()


#: Columns of :func:`wins_by_effective_patience`.
WINS_BY_PATIENCE_COLUMNS = [
    "table",
    "decade",
    "n_configs",
    "n_winning_everywhere",
    "mean_wins",
    "mean_ties",
    "n_datasets",
]


def wins_by_effective_patience(
    tables: Mapping[str, tuple[pd.DataFrame, pd.DataFrame]],
    beta: float,
    *,
    kernel: str = "rbf",
    metric: str = "accuracy",
) -> pd.DataFrame:
    """Wins per decade of effective patience ``p * r`` (iterations), per ES table.

    ``tables`` maps a name to ``(scores, es_table)``: E1's configurations (r =
    1) and E4's (r sampled) put p * r over five decades more. A configuration
    that never stops on a dataset ties there (half a win), so only
    configurations that stop on every dataset without losing accuracy win
    everywhere (fig 5.3); the table shows where along p * r they lie. Decade
    ``k`` holds ``10^k <= p * r < 10^(k+1)``.
    """
    rows = []
    for name, (scores, es_table) in tables.items():
        part = _slice(scores, beta, kernel, metric)
        per = part.groupby("es_id", sort=True).agg(
            n_datasets=("dataset", "nunique"),
            wins=("win", "sum"),
            ties=("win", lambda w: int((w == 0.5).sum())),
        )
        es = es_table.set_index("es_id")
        interval = es["interval"] if "interval" in es.columns else 1
        effective = (es["patience"] * interval).reindex(per.index)
        if effective.isna().any():
            raise ValueError(f"es_table of {name!r} lacks es_id(s) its scores name")
        per["decade"] = np.floor(np.log10(effective.to_numpy(float))).astype(int)
        n = int(per["n_datasets"].max())
        for decade, group in per.groupby("decade", sort=True):
            rows.append(
                {
                    "table": name,
                    "decade": int(decade),
                    "n_configs": len(group),
                    "n_winning_everywhere": int((group["wins"] == n).sum()),
                    "mean_wins": float(group["wins"].mean()),
                    "mean_ties": float(group["ties"].mean()),
                    "n_datasets": n,
                }
            )
    return pd.DataFrame(rows, columns=WINS_BY_PATIENCE_COLUMNS)


def wins_per_beta(
    scores: pd.DataFrame,
    betas: Sequence[float] = THESIS_BETAS,
    *,
    groups: Mapping[str, Sequence[str]] = THESIS_GROUPS,
    kernel: str = "rbf",
    metric: str = "accuracy",
    selection_beta: float | None = None,
    es_table: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Table 5.2: wins of j_g (one per group g) on each group's datasets, per beta.

    By default (``selection_beta=None``) j_low, j_high and j_avg are selected
    anew at each beta: sec 5.2 reports "the best configurations corresponding
    to the beta's used earlier", selected "using the same strategy described
    in Section 3.3", i.e. the strategy, not its beta = 0.995 result, is reused.
    Pass ``selection_beta=0.995`` to keep the beta = 0.995 selections fixed and
    only rescore them.

    Returns a long table ``beta, selection, es_id, evaluated_on, n_datasets,
    wins`` (``selection`` and ``evaluated_on`` are group names); pivot it on
    ``evaluated_on`` for the thesis' layout.
    """
    rows = []
    fixed = (
        None
        if selection_beta is None
        else select_configurations(scores, groups, selection_beta, kernel, metric)
    )
    for beta in betas:
        selected = (
            select_configurations(scores, groups, beta, kernel, metric) if fixed is None else fixed
        )
        part = _slice(scores, beta, kernel, metric)
        for sel in selected.itertuples(index=False):
            for name, datasets in groups.items():
                rows_j = _complete_over(part, datasets, name)
                rows_j = rows_j[rows_j["es_id"] == sel.es_id]
                rows.append(
                    {
                        "beta": float(beta),
                        "selection": sel.group,
                        "es_id": int(sel.es_id),
                        "evaluated_on": name,
                        "n_datasets": len(rows_j),
                        "wins": float(rows_j["win"].sum()),
                    }
                )
    return _join_es(pd.DataFrame(rows), es_table)
