"""Which method for which budget: the mean rank table, as CSV, HTML and a heatmap."""

import logging
from pathlib import Path

import pandas as pd

from esmo.benchmark.analysis import budget_rank_table
from esmo.benchmark.figures import plot_budget_ranks
from esmo.papers.common.figures import save_figure
from esmo.papers.common.html import html_table
from esmo.papers.common.job_log import job_log

with job_log(snakemake.log[0], "benchmark budget ranks"):
    table = budget_rank_table(pd.read_csv(snakemake.input.records))
    table.to_csv(snakemake.output.table, index=False)
    Path(snakemake.output.html).write_text(html_table(table, digits=3))
    save_figure(plot_budget_ranks(table), snakemake.output.figure)
    logging.info("\n%s", table.to_string(index=False))
