"""MDL against CV over many splits: every split's choices, mean and std, paired Wilcoxon."""

import logging

import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.mdl.analysis import paired_comparison, split_summary

with job_log(snakemake.log[0], "MDL many-split comparison"):
    selections = pd.concat(map(pd.read_csv, snakemake.input.selections), ignore_index=True)
    costs = pd.concat(map(pd.read_csv, snakemake.input.costs), ignore_index=True)
    selections.to_csv(snakemake.output.selections, index=False)
    summary = split_summary(selections)
    totals = costs.groupby("method")[["n_fits", "n_iter", "seconds"]].sum()
    summary = summary.merge(totals.add_prefix("total_").reset_index(), on="method", how="left")
    summary.to_csv(snakemake.output.summary, index=False)
    comparison = paired_comparison(selections)
    comparison.to_csv(snakemake.output.comparison, index=False)
    logging.info("%s\n%s", summary.to_string(), comparison.to_string())
