"""E4: scores of the (p, es_tol, r) sweep on E1's datasets and the selection of j_r."""

import logging

import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.thesis.scoring import scores_against_reference, selection_table

with job_log(snakemake.log[0], "E4 selection"):
    p = snakemake.params
    outcome = pd.concat((pd.read_csv(path) for path in snakemake.input.outcomes), ignore_index=True)
    outcome.to_csv(snakemake.output.outcome, index=False)
    scores = scores_against_reference(outcome, [p.beta])
    scores.to_csv(snakemake.output.scores, index=False)
    # j_r: one group of every E1 dataset, RBF and accuracy, in the layout of E1's selection
    es_table = pd.read_csv(snakemake.input.es)
    selection = selection_table(scores, {"r": p.datasets}, p.beta, es_table)
    selection.to_csv(snakemake.output.selection, index=False)
    logging.info("j_r: %s", selection.to_dict("records"))
