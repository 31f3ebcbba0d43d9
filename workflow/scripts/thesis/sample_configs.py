"""Sample one configuration table (SVM per kernel, or early stopping) into a CSV."""

import logging

from esmo.papers.common.job_log import job_log
from esmo.tuning.sampling import sample_es_configs, sample_svm_configs

with job_log(snakemake.log[0], "sampling"):
    params = snakemake.params
    if "kernel" in snakemake.wildcards.keys():
        table = sample_svm_configs(snakemake.wildcards.kernel, params.n, params.seed, params.space)
    else:
        table = sample_es_configs(
            params.n, params.seed, params.space, with_interval=params.with_interval
        )
    table.to_csv(snakemake.output[0], index=False)
    logging.info("sampled %d configurations into %s", len(table), snakemake.output[0])
