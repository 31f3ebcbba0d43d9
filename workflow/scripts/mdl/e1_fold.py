"""Item 3(b) on one E1 dataset and run: MDL on train+validation against random search, over
the thesis's configurations and over those inside the paper's grid box."""

import logging

import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.mdl.comparison import e1_comparison, warm_up
from esmo.papers.thesis.splits import load_fold

with job_log(snakemake.log[0], "MDL on an E1 fold"):
    p = snakemake.params
    warm_up(p.shrinking)  # the costs below exclude numba's compilation
    arrays = load_fold(snakemake.input.data, snakemake.input.splits, p.fold, p.normalise)
    configs = pd.read_csv(snakemake.input.configs).head(p.n_configs)
    table = e1_comparison(
        *arrays,
        configs,
        max_iter=p.max_iter,
        shrinking=p.shrinking,
        sigma2=p.sigma2,
        n_params=p.n_params,
        box=p.box,
    )
    table.insert(0, "fold", p.fold)
    table.insert(0, "dataset", snakemake.wildcards.dataset)
    table.to_csv(snakemake.output[0], index=False)
    logging.info("%s", table.to_string())
