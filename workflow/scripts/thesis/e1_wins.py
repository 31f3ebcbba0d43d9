"""E1 and appendix B: wins of each configuration over the reference per kernel and objective."""

import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.thesis.scoring import by_kernel_and_metric, count_wins

with job_log(snakemake.log[0], "E1 wins"):
    p = snakemake.params
    scores = pd.read_csv(snakemake.input[0])
    wins = by_kernel_and_metric(
        lambda kernel, metric: count_wins(scores, p.beta, kernel, metric), p.kernels, p.metrics
    )
    wins.to_csv(snakemake.output[0], index=False)
