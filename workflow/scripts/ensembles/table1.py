"""Table 1, claim 1 (accuracy at matched time) and the times of the best scores."""

import logging
from pathlib import Path

import pandas as pd

from esmo.papers.common.html import html_table
from esmo.papers.common.job_log import job_log
from esmo.papers.ensembles.analysis import best_time_ratio, matched_time, table1

with job_log(snakemake.log[0], "table 1"):
    summary = pd.read_csv(snakemake.input.summary, keep_default_na=False, na_values=[""])
    summary["sampling"] = summary["sampling"].fillna("")
    summary = summary[summary["dataset"].isin(snakemake.params.datasets)]
    table = table1(summary, n_train=snakemake.params.n_train)
    table.to_csv(snakemake.output.table, index=False)
    Path(snakemake.output.html).write_text(html_table(table))
    matched = matched_time(table)
    matched.to_csv(snakemake.output.matched, index=False)
    best = best_time_ratio(table)
    best.to_csv(snakemake.output.best, index=False)
    logging.info("table 1:\n%s\nmatched time:\n%s", table.to_string(), matched.to_string())
