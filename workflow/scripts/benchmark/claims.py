"""The five papers' claims restated on the benchmark, with their verdicts (protocol sec 6)."""

import logging
from pathlib import Path

import pandas as pd

from esmo.benchmark.analysis import claims
from esmo.papers.common.html import html_table
from esmo.papers.common.job_log import job_log
from esmo.papers.common.reproduction import CLAIM_COLUMNS

with job_log(snakemake.log[0], "benchmark claims"):
    table = claims(pd.read_csv(snakemake.input.records))
    table.to_csv(snakemake.output.table, index=False)
    Path(snakemake.output.html).write_text(html_table(table, CLAIM_COLUMNS, numeric=()))
    logging.info("\n%s", table[["claim", "measure", "status"]].to_string(index=False))
