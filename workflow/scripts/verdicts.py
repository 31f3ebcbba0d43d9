"""The five papers' judged tables counted: one line per paper and one for the project."""

import logging
from pathlib import Path

import pandas as pd

from esmo.papers.common.html import html_table
from esmo.papers.common.job_log import job_log
from esmo.papers.common.judging import verdicts

with job_log(snakemake.log[0], "verdicts"):
    inp = snakemake.input
    papers = {
        paper: (
            pd.read_csv(inp[f"{paper}_numbers"]),
            pd.read_csv(inp[f"{paper}_claims"]) if f"{paper}_claims" in inp.keys() else None,
        )
        for paper in snakemake.params.papers
    }
    table = verdicts(papers)
    table.to_csv(snakemake.output.table, index=False)
    Path(snakemake.output.html).write_text(html_table(table, ["paper", "summary"]))
    logging.info("%s", table.to_string(index=False))
