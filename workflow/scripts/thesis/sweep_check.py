"""The sweep's rows beside separately run early-stopped fits of the same pairs."""

import logging

import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.thesis.splits import load_fold
from esmo.papers.thesis.sweep_check import compare_with_sweep, separate_fits
from esmo.papers.thesis.sweep_jobs import config_chunk

with job_log(snakemake.log[0], "sweep check"):
    p, inp = snakemake.params, snakemake.input
    fold_data = load_fold(inp.data, inp.splits, 0, p.normalise)
    svm = config_chunk(pd.read_csv(inp.svm), 0, p.chunk_size).head(p.n_svm)
    es = pd.read_csv(inp.es).sort_values("es_id", kind="stable").head(p.n_es)
    separate = separate_fits(
        fold_data,
        svm,
        es,
        metric="accuracy",
        kernel="rbf",
        max_iter=p.max_iter,
        cache_size_mb=p.cache_size_mb,
        shrinking=p.shrinking,
        rule=p.rule,
    )
    table = compare_with_sweep(pd.read_csv(inp.sweep), separate)
    table.insert(0, "dataset", p.dataset)
    table.to_csv(snakemake.output[0], index=False)
    logging.info("%d of %d pairs equal", int(table["equal"].sum()), len(table))
