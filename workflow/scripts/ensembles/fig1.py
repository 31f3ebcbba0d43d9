"""Fig 1: structured subbagging against subbagging (shared D_b and (C_b, gamma_b))."""

import logging

import numpy as np
import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.ensembles.analysis import fig1_table
from esmo.papers.ensembles.figures import fig1

with job_log(snakemake.log[0], "fig 1"):
    summary = pd.read_csv(snakemake.input.summary, keep_default_na=False, na_values=[""])
    summary["sampling"] = summary["sampling"].fillna("")
    proportions = np.asarray(snakemake.params.proportions, dtype=float)
    keep = summary["train_proportion"].apply(lambda v: bool(np.isclose(v, proportions).any()))
    table = fig1_table(
        summary[keep], n_train=snakemake.params.n_train, datasets=snakemake.params.datasets
    )
    table.to_csv(snakemake.output.table, index=False)
    fig1(table, snakemake.output.figure)
    logging.info("fig 1:\n%s", table.to_string())
