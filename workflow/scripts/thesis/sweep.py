"""One training job: a chunk of SVM configurations on one fold, every ES configuration tracked."""

import logging
import time

import pandas as pd

from esmo.data.splits import load_fold
from esmo.experiments.job_log import job_log
from esmo.experiments.sweep_jobs import config_chunk, sweep_chunk

with job_log(snakemake.log[0], "sweep"):
    wc = snakemake.wildcards
    fold, chunk = int(wc.fold), int(wc.chunk)
    parts = load_fold(
        snakemake.input.data, snakemake.input.splits, fold, snakemake.params.normalise
    )
    svm_configs = config_chunk(pd.read_csv(snakemake.input.svm), chunk, snakemake.params.chunk_size)
    es_configs = pd.read_csv(snakemake.input.es)
    start = time.perf_counter()
    table = sweep_chunk(
        parts,
        svm_configs,
        es_configs,
        metrics=snakemake.params.metrics,
        kernel=wc.kernel,
        max_iter=snakemake.params.max_iter,
        cache_size_mb=snakemake.params.cache_size_mb,
        dataset=wc.dataset,
        fold=fold,
        rule=snakemake.params.rule,
    )
    table.to_csv(snakemake.output[0], index=False)
    logging.info(
        "%s %s fold %d chunk %d: %d SVM configurations x %d ES configurations in %.1f s",
        wc.dataset,
        wc.kernel,
        fold,
        chunk,
        len(svm_configs),
        len(es_configs),
        time.perf_counter() - start,
    )
