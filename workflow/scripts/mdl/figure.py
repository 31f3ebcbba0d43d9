"""Fig 1, 2 or 3 of one split (esmo.analysis.mdl.FIGURES)."""

import pandas as pd

from esmo.analysis.mdl import FIGURES
from esmo.analysis.plotting import save_figure
from esmo.experiments.job_log import job_log

with job_log(snakemake.log[0], "MDL figure"):
    grid = pd.read_csv(snakemake.input.grid)
    selection = pd.read_csv(snakemake.input.selection)
    fig = FIGURES[snakemake.params.figure](grid, selection)
    save_figure(fig, snakemake.output.pdf, snakemake.output.png)
