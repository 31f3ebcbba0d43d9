"""The paper's surviving numbers beside ours, and the claims of docs/gradient-protocol.md sec 6 with verdicts."""

import json
import logging
from pathlib import Path

import pandas as pd

from esmo.papers.common.html import html_table, reproduction_html
from esmo.papers.common.job_log import job_log
from esmo.papers.common.judging import judge_claims, judge_paper, summary_line
from esmo.papers.common.reproduction import load_paper_values
from esmo.papers.gradient import analysis as ana
from esmo.papers.gradient.inexact_analysis import inexact_claims

with job_log(snakemake.log[0], "gradient reproduction"):
    inp = snakemake.input
    experiments = snakemake.params.experiments
    cells = pd.read_csv(inp.cells)
    parts = ana.by_experiment(cells, experiments)
    ours = ana.our_values(parts, settings=snakemake.params.tuner)
    table = judge_paper(load_paper_values(inp.paper), ours, inp.rules, values_source=inp.paper)
    table.to_csv(snakemake.output.table, index=False)
    claims = ana.claims(
        parts,
        fig1=json.loads(Path(inp.fig1).read_text()),
        restarts=pd.read_csv(inp.restarts),
    )
    if "inexact_agreement" in inp.keys():
        claims = pd.concat(
            [
                claims,
                inexact_claims(
                    pd.read_csv(inp.inexact_agreement), pd.read_csv(inp.inexact_savings)
                ),
            ],
            ignore_index=True,
        )
    claims = judge_claims(ana.claims_to_judge(claims))
    summary = summary_line(table, claims)
    Path(snakemake.output.html).write_text(reproduction_html(table, summary=summary))
    claims.to_csv(snakemake.output.claims, index=False)
    Path(snakemake.output.claims_html).write_text(html_table(claims))
    logging.info("%s\n%s\n%s", summary, table.to_string(index=False), claims.to_string(index=False))
