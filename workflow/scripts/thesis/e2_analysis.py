"""E2: scores of the reference and of E1's j_low/j_high/j_avg on the synthetic blobs."""

import logging

import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.thesis.scoring import scores_against_reference, selected_configurations

with job_log(snakemake.log[0], "E2 analysis"):
    p = snakemake.params
    outcome = pd.concat((pd.read_csv(path) for path in snakemake.input.outcomes), ignore_index=True)
    outcome.to_csv(snakemake.output.outcome, index=False)
    scores = scores_against_reference(outcome, p.betas)
    scores.to_csv(snakemake.output.scores, index=False)
    selection = selected_configurations(pd.read_csv(snakemake.input.selection), "rbf", "accuracy")
    at_beta = scores[(scores["beta"] == p.beta) & (scores["metric"] == "accuracy")]
    # j_low and j_avg may be one configuration: keep a row per name, not per es_id
    named = [("reference", -1)] + [
        (f"j_{row.group}", int(row.es_id)) for row in selection.itertuples(index=False)
    ]
    summary = pd.concat(
        [at_beta[at_beta["es_id"] == es_id].assign(configuration=name) for name, es_id in named],
        ignore_index=True,
    )
    summary.to_csv(snakemake.output.summary, index=False)
    logging.info("E2 summary over %d blob datasets", summary["dataset"].nunique())
