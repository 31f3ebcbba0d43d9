"""The reproduction table: the paper's single-run numbers beside our means over seeds."""

import pandas as pd

from esmo.papers.common.html import reproduction_html
from esmo.papers.common.job_log import job_log
from esmo.papers.common.reproduction import load_paper_values, reproduction_table
from esmo.papers.nsvm.analysis import reproduction_values

with job_log(snakemake.log[0], "NSVM reproduction table"):
    paper = load_paper_values(snakemake.input.paper)
    ours = reproduction_values(pd.read_csv(snakemake.input.accuracy))
    table = reproduction_table(paper, ours, source=snakemake.input.paper)
    table.to_csv(snakemake.output.table, index=False)
    with open(snakemake.output.html, "w") as f:
        f.write(reproduction_html(table))
