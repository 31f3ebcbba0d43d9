"""Every run's records in one table, sorted so that job order does not matter."""

import logging

from esmo.benchmark.run import collect_records
from esmo.papers.common.job_log import job_log

with job_log(snakemake.log[0], "collecting the records"):
    records = collect_records(snakemake.input)
    records.to_csv(snakemake.output[0], index=False)
    logging.info("%d records of %d runs", len(records), len(snakemake.input))
