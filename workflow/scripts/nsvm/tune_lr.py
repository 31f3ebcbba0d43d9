"""The note's learning-rate choice for NSVM-1..4 on one dataset (its first seed's split)."""

import logging

import numpy as np
import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.nsvm.experiment import ALGORITHMS, tune_learning_rate

w, p = snakemake.wildcards, snakemake.params
with job_log(snakemake.log[0], f"learning rates on {w.dataset}"):
    split = dict(np.load(snakemake.input[0]))
    tables = []
    for algorithm in ALGORITHMS:
        table = tune_learning_rate(
            w.dataset, algorithm, p.settings[algorithm], split, p.grid[algorithm], p.seed,
            p.steps_scale,
        )  # fmt: skip
        logging.info("%s:\n%s", algorithm, table.to_string())
        tables.append(table)
    pd.concat(tables, ignore_index=True).assign(dataset=w.dataset, seed=p.seed).to_csv(
        snakemake.output[0], index=False
    )
