"""Appendix A: the solver table (mean and std over runs) and fig A.1."""

import logging

import matplotlib

matplotlib.use("Agg")

import pandas as pd

from esmo.analysis.plotting import plot_solver_comparison, save_figure
from esmo.experiments.job_log import job_log

with job_log(snakemake.log[0], "appendix A summary"):
    runs = pd.concat((pd.read_csv(path) for path in snakemake.input), ignore_index=True)
    runs.to_csv(snakemake.output.table, index=False)
    save_figure(plot_solver_comparison(runs), snakemake.output.pdf, snakemake.output.png)
    summary = runs.groupby("solver")[["n_iter", "seconds", "test_accuracy"]].agg(["mean", "std"])
    logging.info("\n%s", summary.to_string())
