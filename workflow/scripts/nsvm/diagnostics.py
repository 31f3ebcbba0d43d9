"""The sec 6 diagnostics of every run in one table, and their figure."""

import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.nsvm.figures import diagnostics_figure

with job_log(snakemake.log[0], "NSVM diagnostics"):
    table = pd.concat([pd.read_csv(path) for path in snakemake.input], ignore_index=True)
    table.to_csv(snakemake.output.table, index=False)
    diagnostics_figure(table, snakemake.output.figure)
