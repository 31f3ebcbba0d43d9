"""Stratified fold indices of one dataset into results/splits/{dataset}.npz."""

import logging

import numpy as np

from esmo.papers.common.job_log import job_log
from esmo.papers.thesis.splits import fold_splits, save_splits

with job_log(snakemake.log[0], "splitting"):
    with np.load(snakemake.input[0]) as data:
        y = data["y"]
    splits = fold_splits(y, snakemake.params.n_folds, seed=snakemake.params.seed)
    save_splits(snakemake.output[0], splits)
    sizes = {key: int(idx.size) for key, idx in splits.items()}
    logging.info("%s: %s", snakemake.wildcards.dataset, sizes)
