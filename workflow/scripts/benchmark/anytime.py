"""The anytime curves: per dataset, each method's incumbent test accuracy on a log grid of CPU seconds."""

import pandas as pd

from esmo.benchmark.analysis import anytime_curves
from esmo.benchmark.figures import plot_anytime
from esmo.papers.common.figures import save_figure
from esmo.papers.common.job_log import job_log

with job_log(snakemake.log[0], "benchmark anytime curves"):
    curves = anytime_curves(pd.read_csv(snakemake.input.records))
    curves.to_csv(snakemake.output.table, index=False)
    save_figure(plot_anytime(curves), snakemake.output.figure)
