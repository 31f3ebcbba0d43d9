"""One training job: a chunk of SVM configurations on one fold, every ES configuration tracked.

A job tracks one ES table or, where several share the SVM runs (E1's and E4's on
E1's RBF runs), all of them in one run per configuration: ``input.es`` lists the
ES tables, ``params.metrics`` their objectives and ``output`` their job tables,
in the same order.
"""

import logging
import time

import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.thesis.splits import load_fold
from esmo.papers.thesis.sweep_jobs import config_chunk, sweep_chunk_tables

with job_log(snakemake.log[0], "sweep"):
    wc = snakemake.wildcards
    fold, chunk = int(wc.fold), int(wc.chunk)
    kernel = snakemake.params.kernel
    parts = load_fold(
        snakemake.input.data, snakemake.input.splits, fold, snakemake.params.normalise
    )
    svm_configs = config_chunk(pd.read_csv(snakemake.input.svm), chunk, snakemake.params.chunk_size)
    es_tables = [
        (pd.read_csv(path), metrics)
        for path, metrics in zip(snakemake.input.es, snakemake.params.metrics, strict=True)
    ]
    start = time.perf_counter()
    tables = sweep_chunk_tables(
        parts,
        svm_configs,
        es_tables,
        kernel=kernel,
        max_iter=snakemake.params.max_iter,
        cache_size_mb=snakemake.params.cache_size_mb,
        shrinking=snakemake.params.shrinking,
        dataset=wc.dataset,
        fold=fold,
        rule=snakemake.params.rule,
    )
    for table, path in zip(tables, snakemake.output, strict=True):
        table.to_csv(path, index=False)
    logging.info(
        "%s %s fold %d chunk %d: %d SVM configurations x %s ES configurations in %.1f s",
        wc.dataset,
        kernel,
        fold,
        chunk,
        len(svm_configs),
        " + ".join(f"{len(es)} x {len(metrics)}" for es, metrics in es_tables),
        time.perf_counter() - start,
    )
