"""Item 3(c) over E1's datasets and runs: the summary table and the tracking overhead."""

import logging

import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.mdl.stopping import stopping_summary

with job_log(snakemake.log[0], "MDL early stopping summary"):
    outcomes = pd.concat(map(pd.read_csv, snakemake.input.outcomes), ignore_index=True)
    timing = pd.concat(map(pd.read_csv, snakemake.input.timing), ignore_index=True)
    summary = stopping_summary(outcomes)
    summary.to_csv(snakemake.output.summary, index=False)
    overhead = (
        timing.groupby(["dataset", "interval"])[
            ["us_per_iter_plain", "overhead_accuracy", "overhead_mdl"]
        ]
        .mean()
        .reset_index()
    )
    overhead.to_csv(snakemake.output.overhead, index=False)
    logging.info("%s\n%s", summary.to_string(), overhead.to_string())
