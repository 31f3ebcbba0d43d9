"""One run: a method tuned on one draw's training part; its anytime records (one row per incumbent)."""

import logging

from esmo.benchmark.run import run_job
from esmo.papers.common.job_log import job_log

wc = snakemake.wildcards
with job_log(snakemake.log[0], f"run {wc.dataset}/s{wc.seed}/{wc.method}"):
    records = run_job(
        snakemake.input[0], wc.dataset, int(wc.seed), wc.method, snakemake.params.settings
    )
    records.to_csv(snakemake.output[0], index=False)
    logging.info("%d records\n%s", len(records), records.to_string())
