"""The paper's single-run numbers beside our means over seeds, judged by workflow/data/nsvm/rules.csv."""

import pandas as pd

from esmo.papers.common.html import reproduction_html
from esmo.papers.common.job_log import job_log
from esmo.papers.common.judging import judge_paper, summary_line
from esmo.papers.common.reproduction import load_paper_values
from esmo.papers.nsvm.analysis import reproduction_values

with job_log(snakemake.log[0], "NSVM reproduction table"):
    paper = load_paper_values(snakemake.input.paper)
    ours = reproduction_values(pd.read_csv(snakemake.input.accuracy))
    table = judge_paper(paper, ours, snakemake.input.rules, values_source=snakemake.input.paper)
    table.to_csv(snakemake.output.table, index=False)
    with open(snakemake.output.html, "w") as f:
        f.write(reproduction_html(table, summary=summary_line(table)))
