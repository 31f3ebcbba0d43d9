"""E1 and appendix B: the top_n configurations per kernel and objective (figs 4.3/4.4/B.3/B.4)."""

import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.thesis.scoring import by_kernel_and_metric, top_configurations

with job_log(snakemake.log[0], "E1 top configurations"):
    p = snakemake.params
    scores = pd.read_csv(snakemake.input[0])
    top = by_kernel_and_metric(
        lambda kernel, metric: top_configurations(scores, p.beta, kernel, metric, n=p.top_n),
        p.kernels,
        p.metrics,
    )
    top.to_csv(snakemake.output[0], index=False)
