"""Fig 4: accuracy against training time, ensembles (every search) and single SVMs."""

import logging

import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.ensembles.figures import fig4

with job_log(snakemake.log[0], "fig 4"):
    summary = pd.read_csv(snakemake.input.summary, keep_default_na=False, na_values=[""])
    summary["sampling"] = summary["sampling"].fillna("")
    ens = (summary["method"] == "ensemble") & (summary["sampling"] == "structured")
    ens &= summary["n_train"] == snakemake.params.n_train
    svm = summary["method"] == "svm"
    part = summary[(ens | svm) & summary["accuracy_mean"].notna()]
    fig4(part, snakemake.output[0])
    logging.info("fig 4 from %d settings", len(part))
