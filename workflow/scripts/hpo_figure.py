"""Figs 4.8/4.9 (E3) and 5.4/5.5 (E4) for one dataset."""

import logging

import matplotlib

matplotlib.use("Agg")

import pandas as pd

from esmo.plotting import plot_hpo_methods, save_figure

logging.basicConfig(
    filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s"
)
try:
    scores = pd.read_csv(snakemake.input[0])
    fig = plot_hpo_methods(scores, dataset=snakemake.wildcards.dataset)
    save_figure(fig, *snakemake.output)
except Exception:
    logging.exception("figure failed")
    raise
