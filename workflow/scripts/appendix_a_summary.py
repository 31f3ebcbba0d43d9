"""Appendix A: the solver table (mean and std over runs) and fig A.1."""

import logging

import matplotlib

matplotlib.use("Agg")

import pandas as pd

from esmo.plotting import plot_solver_comparison, save_figure

logging.basicConfig(
    filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s"
)
try:
    runs = pd.concat((pd.read_csv(path) for path in snakemake.input), ignore_index=True)
    runs.to_csv(snakemake.output.table, index=False)
    save_figure(plot_solver_comparison(runs), snakemake.output.pdf, snakemake.output.png)
    summary = runs.groupby("solver")[["n_iter", "seconds", "test_accuracy"]].agg(["mean", "std"])
    logging.info("\n%s", summary.to_string())
except Exception:
    logging.exception("appendix A summary failed")
    raise
