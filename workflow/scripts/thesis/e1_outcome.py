"""E1 and appendix B: the random-search outcomes of every E1 dataset and kernel, stacked."""

import logging

import pandas as pd

from esmo.papers.common.job_log import job_log

with job_log(snakemake.log[0], "E1 outcome"):
    outcome = pd.concat((pd.read_csv(path) for path in snakemake.input), ignore_index=True)
    outcome.to_csv(snakemake.output[0], index=False)
    logging.info("%d searches from %d tables", len(outcome), len(snakemake.input))
