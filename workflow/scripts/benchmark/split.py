"""One seed's draw of one dataset into results/benchmark/data/{dataset}_s{seed}.npz."""

import logging

from esmo.benchmark.data import write_split
from esmo.papers.common.job_log import job_log

wc = snakemake.wildcards
with job_log(snakemake.log[0], f"drawing {wc.dataset} seed {wc.seed}"):
    part = write_split(
        wc.dataset, snakemake.input, int(wc.seed), snakemake.params.split, snakemake.output[0]
    )
    logging.info(
        "%d training and %d test rows, %d features",
        *part.X_train.shape[:1],
        len(part.y_test),
        part.X_train.shape[1],
    )
