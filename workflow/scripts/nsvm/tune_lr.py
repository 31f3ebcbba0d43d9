"""The note's learning-rate choice on one dataset (its first seed's split), for the
algorithms ``nsvm.lr_tuning.algorithms`` lists for it; the others keep their stored lr."""

import logging

import numpy as np
import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.nsvm.experiment import tune_learning_rate

w, p = snakemake.wildcards, snakemake.params
with job_log(snakemake.log[0], f"learning rates on {w.dataset}"):
    split = dict(np.load(snakemake.input[0]))
    tables = []
    for algorithm in p.algorithms:
        table = tune_learning_rate(
            w.dataset, algorithm, p.settings[algorithm], split, p.grid[algorithm], p.seed,
            p.steps_scale,
        )  # fmt: skip
        logging.info("%s:\n%s", algorithm, table.to_string())
        tables.append(table)
    pd.concat(tables, ignore_index=True).assign(dataset=w.dataset, seed=p.seed).to_csv(
        snakemake.output[0], index=False
    )
