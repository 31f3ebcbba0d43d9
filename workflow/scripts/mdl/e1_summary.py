"""Item 3(b) over E1's datasets and runs: per-dataset means, and each MDL reading against RS."""

import logging

import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.mdl.analysis import e1_comparison_table, e1_summary

with job_log(snakemake.log[0], "MDL E1 summary"):
    runs = pd.concat(map(pd.read_csv, snakemake.input), ignore_index=True)
    runs.to_csv(snakemake.output.runs, index=False)
    summary = e1_summary(runs)
    summary.to_csv(snakemake.output.summary, index=False)
    comparison = e1_comparison_table(runs)
    comparison.to_csv(snakemake.output.comparison, index=False)
    logging.info("%s\n%s", summary.to_string(), comparison.to_string())
