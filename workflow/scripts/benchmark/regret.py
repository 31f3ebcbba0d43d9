"""Each run's regret against grid_svc and its cost to come within 0.5 points of grid_svc."""

import pandas as pd

from esmo.benchmark.analysis import regret_table, within_table
from esmo.papers.common.job_log import job_log

with job_log(snakemake.log[0], "benchmark regret"):
    records = pd.read_csv(snakemake.input.records)
    regret_table(records).to_csv(snakemake.output.regret, index=False)
    within_table(records).to_csv(snakemake.output.within, index=False)
