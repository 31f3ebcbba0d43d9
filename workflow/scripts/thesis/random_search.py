"""Random-search outcome of one dataset and kernel: the reference and every ES configuration."""

import logging

import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.thesis.scoring import random_search_outcome, random_search_per_fold

with job_log(snakemake.log[0], "random-search aggregation"):
    table = pd.concat((pd.read_csv(path) for path in snakemake.input), ignore_index=True)
    per_fold = random_search_per_fold(table)
    per_fold.to_csv(snakemake.output.per_fold, index=False)
    random_search_outcome(per_fold).to_csv(snakemake.output.outcome, index=False)
    logging.info("%d training rows from %d jobs", len(table), len(snakemake.input))
