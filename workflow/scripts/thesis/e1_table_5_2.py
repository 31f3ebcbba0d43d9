"""Table 5.2: wins of j_low, j_high and j_avg on each group's datasets, per beta (RBF, accuracy)."""

import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.thesis.scoring import wins_per_beta

with job_log(snakemake.log[0], "table 5.2"):
    p = snakemake.params
    table = wins_per_beta(
        pd.read_csv(snakemake.input.scores),
        p.betas,
        groups=p.groups,
        kernel="rbf",
        metric="accuracy",
        es_table=pd.read_csv(snakemake.input.es),
    )
    table.to_csv(snakemake.output[0], index=False)
