"""Friedman's test over (dataset, seed) blocks, Nemenyi's p-values and the critical-difference diagram."""

import logging

import pandas as pd

from esmo.benchmark.analysis import friedman_table
from esmo.benchmark.figures import plot_cd_diagram
from esmo.papers.common.figures import save_figure
from esmo.papers.common.job_log import job_log

with job_log(snakemake.log[0], "benchmark Friedman test"):
    table = friedman_table(pd.read_csv(snakemake.input.records))
    table.to_csv(snakemake.output.table, index=False)
    save_figure(plot_cd_diagram(table), snakemake.output.figure)
    logging.info("\n%s", table.to_string(index=False))
