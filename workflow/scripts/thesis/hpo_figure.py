"""Figs 4.8/4.9 (E3) and 5.4/5.5 (E4) for one dataset."""

import matplotlib

matplotlib.use("Agg")

import pandas as pd

from esmo.papers.common.figures import save_figure
from esmo.papers.common.job_log import job_log
from esmo.papers.thesis.figures import plot_hpo_methods

with job_log(snakemake.log[0], "figure"):
    scores = pd.read_csv(snakemake.input[0])
    fig = plot_hpo_methods(scores, dataset=snakemake.wildcards.dataset)
    save_figure(fig, *snakemake.output)
