"""Table 5.1: per kernel and beta, the configuration with the best mean score (accuracy)."""

import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.thesis.scoring import best_per_beta

with job_log(snakemake.log[0], "table 5.1"):
    p = snakemake.params
    table = best_per_beta(
        pd.read_csv(snakemake.input.scores),
        p.betas,
        kernels=p.kernels,
        metric="accuracy",
        es_table=pd.read_csv(snakemake.input.es),
    )
    table.to_csv(snakemake.output[0], index=False)
