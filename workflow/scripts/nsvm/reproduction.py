"""The reproduction table: the paper's single-run numbers beside our means over seeds."""

import pandas as pd

from esmo.analysis.nsvm import reproduction_values
from esmo.analysis.reproduction import load_thesis_values, reproduction_table, to_report_html
from esmo.experiments.job_log import job_log

with job_log(snakemake.log[0], "NSVM reproduction table"):
    paper = load_thesis_values(snakemake.input.paper)
    ours = reproduction_values(pd.read_csv(snakemake.input.accuracy))
    table = reproduction_table(paper, ours)
    table.rename(columns={"thesis": "paper"}).to_csv(snakemake.output.table, index=False)
    with open(snakemake.output.html, "w") as f:
        f.write(to_report_html(table).replace("<th>thesis</th>", "<th>paper</th>"))
