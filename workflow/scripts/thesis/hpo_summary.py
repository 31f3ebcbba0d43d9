"""E3/E4: per dataset and method, accuracy, summed seconds and score against RS without ES."""

import logging

import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.thesis.hpo import e3_scores

with job_log(snakemake.log[0], "HPO summary"):
    per_fold = pd.concat((pd.read_csv(path) for path in snakemake.input), ignore_index=True)
    per_fold.to_csv(snakemake.output.per_fold, index=False)
    scores = e3_scores(per_fold, snakemake.params.beta)
    scores.to_csv(snakemake.output.scores, index=False)
    logging.info("\n%s", scores.to_string())
