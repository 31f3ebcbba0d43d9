"""E1 and appendix B: j_low, j_high and j_avg per kernel and objective (the selection table)."""

import logging

import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.thesis.scoring import selection_table

with job_log(snakemake.log[0], "E1 selection"):
    p = snakemake.params
    selection = selection_table(
        pd.read_csv(snakemake.input.scores),
        p.groups,
        p.beta,
        pd.read_csv(snakemake.input.es),
        kernels=p.kernels,
        metrics=p.metrics,
    )
    selection.to_csv(snakemake.output[0], index=False)
    logging.info("\n%s", selection.to_string())
