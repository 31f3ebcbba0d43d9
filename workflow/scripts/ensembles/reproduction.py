"""The paper's numbers beside ours: every key of paper_values.csv, and table 1 side by side."""

import logging
from pathlib import Path

import pandas as pd

from esmo.papers.common.html import html_table, reproduction_html
from esmo.papers.common.job_log import job_log
from esmo.papers.common.judging import judge_paper, summary_line
from esmo.papers.common.reproduction import load_paper_values
from esmo.papers.ensembles.analysis import our_values, ratio_values, table1_beside_paper

with job_log(snakemake.log[0], "reproduction table"):
    inp = snakemake.input
    paper = load_paper_values(inp.paper)
    table = pd.read_csv(inp.table1)
    table["setting"] = table["setting"].astype(str)
    ours = our_values(
        table, pd.read_csv(inp.fig2_slopes), pd.read_csv(inp.fig3_slopes), pd.read_csv(inp.best)
    )
    ours |= ratio_values(pd.read_csv(inp.fig2_times))
    # a cell the paper does not report (another N or tp) has no row to join
    keys = set(paper["key"])
    ours = {k: v for k, v in ours.items() if k in keys}
    result = judge_paper(paper, ours, inp.rules, values_source=inp.paper)
    result.to_csv(snakemake.output.table, index=False)
    summary = summary_line(result)
    Path(snakemake.output.html).write_text(reproduction_html(result, summary=summary))
    beside = table1_beside_paper(table, paper)
    beside.to_csv(snakemake.output.beside, index=False)
    Path(snakemake.output.beside_html).write_text(html_table(beside))
    logging.info("%s", summary)
