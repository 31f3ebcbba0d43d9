"""Kernel Pegasos and SMO in the thesis's random search on one E1 dataset and run."""

import logging

import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.nsvm.e1_runs import fold_table
from esmo.papers.thesis.splits import load_fold

with job_log(snakemake.log[0], "Pegasos and SMO on an E1 fold"):
    p = snakemake.params
    arrays = load_fold(snakemake.input.data, snakemake.input.splits, p.fold, p.normalise)
    table = fold_table(
        arrays, pd.read_csv(snakemake.input.configs).head(p.n_configs),
        pd.read_csv(snakemake.input.es), epochs=p.epochs, seed=p.seed, fold=p.fold,
        rule=p.rule, max_iter=p.max_iter, cache_size_mb=p.cache_size_mb, shrinking=p.shrinking,
    )  # fmt: skip
    table.insert(0, "fold", p.fold)
    table.insert(0, "dataset", snakemake.wildcards.dataset)
    table.to_csv(snakemake.output[0], index=False)
    logging.info("%d rows", len(table))
