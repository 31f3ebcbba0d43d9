"""E1 and appendix B: every search scored against its reference, for every beta (eq. 3.3)."""

import logging

import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.thesis.scoring import scores_against_reference

with job_log(snakemake.log[0], "E1 scores"):
    scores = scores_against_reference(pd.read_csv(snakemake.input[0]), snakemake.params.betas)
    scores.to_csv(snakemake.output[0], index=False)
    logging.info("%d scores at betas %s", len(scores), snakemake.params.betas)
