"""Appendix A: the runs table, the per-solver summary beside the thesis, the orderings, fig A.1."""

import logging

import matplotlib

matplotlib.use("Agg")

import pandas as pd

from esmo.papers.common.figures import save_figure
from esmo.papers.common.job_log import job_log
from esmo.papers.common.reproduction import load_paper_values
from esmo.papers.thesis.figures import plot_solver_comparison
from esmo.papers.thesis.solver_comparison import solver_orderings, solver_summary

with job_log(snakemake.log[0], "appendix A summary"):
    out = snakemake.output
    runs = pd.concat((pd.read_csv(path) for path in snakemake.input.runs), ignore_index=True)
    runs.to_csv(out.table, index=False)
    summary = solver_summary(runs, load_paper_values(snakemake.input.thesis))
    summary.to_csv(out.summary, index=False)
    orderings = solver_orderings(runs)
    orderings.to_csv(out.orderings, index=False)
    save_figure(plot_solver_comparison(runs), out.pdf, out.png)
    logging.info("\n%s", summary.to_string())
    logging.info("\n%s", orderings.drop(columns=["claim", "section"]).to_string())
