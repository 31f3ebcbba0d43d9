"""Beyond the paper: the savings of each inner solve, the gradients' agreement and the scores S."""

import logging
from pathlib import Path

import pandas as pd

from esmo.papers.common.figures import save_figure
from esmo.papers.common.html import html_table
from esmo.papers.common.job_log import job_log
from esmo.papers.gradient import inexact_analysis as ana

inp = snakemake.input
out = snakemake.output
with job_log(snakemake.log[0], "inexact summary"):
    tables = {
        "savings": ana.savings(pd.concat(map(pd.read_csv, inp.runs), ignore_index=True)),
        "agreement": ana.agreement_summary(
            agreement := pd.concat(map(pd.read_csv, inp.agreement), ignore_index=True)
        ),
        "scores": ana.score_table(pd.concat(map(pd.read_csv, inp.scores), ignore_index=True)),
    }
    for name, table in tables.items():
        table.to_csv(out[f"{name}_csv"], index=False)
        Path(out[f"{name}_html"]).write_text(html_table(table.round(4)))
        logging.info("%s\n%s", name, table.to_string(index=False))
    save_figure(ana.plot_agreement(agreement), out.figure, dpi=150)
