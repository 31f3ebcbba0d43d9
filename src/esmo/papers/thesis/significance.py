"""Significance of ES gains across datasets: one-sided Wilcoxon with Holm's correction.

Following Demšar (2006), the thesis (sec 4.1, 5.3) tests per ES configuration
whether its score exceeds the reference's across the datasets (one-sided
Wilcoxon signed-rank), then corrects over the family of tested configurations
with Holm's step-down method.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from esmo.papers.common.statistics import holm, wilcoxon_greater
from esmo.papers.common.tables import require_columns
from esmo.papers.thesis.scoring import REFERENCE_ES_ID, _beta_rows


def wilcoxon_holm(
    scores: pd.DataFrame,
    beta: float,
    alpha: float = 0.05,
    *,
    datasets: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Per ES configuration, the Wilcoxon test of its gain over the reference, Holm-corrected.

    The family for Holm's correction is every ES configuration of one
    (kernel, metric), e.g. the 100 of E1 (sec 5.3: with 100 configurations even
    the smallest possible p = 1/64 for six datasets adjusts to 1).
    ``datasets`` restricts the test to some datasets (default: all).

    Returns ``kernel, metric, es_id, n_datasets, wins, statistic, pvalue,
    pvalue_adj, reject`` (wins count ties half).
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    require_columns(
        scores,
        ["dataset", "kernel", "metric", "es_id", "beta", "score", "score_ref", "win"],
        "scores",
    )
    part = scores[_beta_rows(scores, beta) & (scores["es_id"] != REFERENCE_ES_ID)]
    if datasets is not None:
        part = part[part["dataset"].isin(list(datasets))]
    if part.empty:
        raise ValueError("no early-stopping scores to test for these datasets and beta")
    rows = []
    for (kernel, metric, es_id), group in part.groupby(["kernel", "metric", "es_id"], sort=True):
        statistic, pvalue = wilcoxon_greater(group["score"] - group["score_ref"])
        rows.append(
            {
                "kernel": kernel,
                "metric": metric,
                "es_id": int(es_id),
                "n_datasets": group["dataset"].nunique(),
                "wins": float(group["win"].sum()),
                "statistic": statistic,
                "pvalue": pvalue,
            }
        )
    table = pd.DataFrame(rows)
    table["pvalue_adj"] = table.groupby(["kernel", "metric"])["pvalue"].transform(
        lambda p: holm(p.to_numpy())
    )
    table["reject"] = table["pvalue_adj"] < alpha
    return table
