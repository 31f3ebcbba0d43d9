"""Fig 1, 2 or 3 of one split (esmo.papers.mdl.analysis.FIGURES)."""

import pandas as pd

from esmo.papers.common.figures import save_figure
from esmo.papers.common.job_log import job_log
from esmo.papers.mdl.analysis import FIGURES

with job_log(snakemake.log[0], "MDL figure"):
    grid = pd.read_csv(snakemake.input.grid)
    selection = pd.read_csv(snakemake.input.selection)
    fig = FIGURES[snakemake.params.figure](grid, selection)
    save_figure(fig, snakemake.output.pdf, snakemake.output.png)
