"""Appendix A: the runs table, the per-solver summary beside the thesis, the orderings, fig A.1."""

import logging

import matplotlib

matplotlib.use("Agg")

import pandas as pd

from esmo.analysis.plotting import plot_solver_comparison, save_figure
from esmo.analysis.reproduction import load_thesis_values
from esmo.analysis.solver_comparison import solver_orderings, solver_summary
from esmo.experiments.job_log import job_log

with job_log(snakemake.log[0], "appendix A summary"):
    out = snakemake.output
    runs = pd.concat((pd.read_csv(path) for path in snakemake.input.runs), ignore_index=True)
    runs.to_csv(out.table, index=False)
    summary = solver_summary(runs, load_thesis_values(snakemake.input.thesis))
    summary.to_csv(out.summary, index=False)
    orderings = solver_orderings(runs)
    orderings.to_csv(out.orderings, index=False)
    save_figure(plot_solver_comparison(runs), out.pdf, out.png)
    logging.info("\n%s", summary.to_string())
    logging.info("\n%s", orderings.drop(columns=["claim", "section"]).to_string())
