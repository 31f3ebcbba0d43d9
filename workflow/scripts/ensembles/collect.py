"""Every cell's rows in one table (sorted, so job order does not matter) and their summary."""

import logging

import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.ensembles.analysis import summarise

with job_log(snakemake.log[0], "collecting the cells"):
    cells = pd.concat(
        [pd.read_csv(path, keep_default_na=False, na_values=[""]) for path in snakemake.input]
    )
    cells["sampling"] = cells["sampling"].fillna("")
    cells = cells.sort_values(["dataset", "rep", "cell", "sampling"], kind="stable")
    cells.to_csv(snakemake.output.cells, index=False)
    summary = summarise(cells, time_reps=snakemake.params.time_reps)
    summary.to_csv(snakemake.output.summary, index=False)
    logging.info("%d cells, %d settings", len(cells), len(summary))
