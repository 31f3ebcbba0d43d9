"""Beyond the paper: the savings of each inner solve, the gradients' agreement and the scores S."""

import logging
from pathlib import Path

import pandas as pd

from esmo.analysis import gradient_inexact as ana
from esmo.analysis.ensembles import to_html
from esmo.experiments.job_log import job_log

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
        Path(out[f"{name}_html"]).write_text(to_html(table.round(4)))
        logging.info("%s\n%s", name, table.to_string(index=False))
    ana.plot_agreement(agreement).savefig(out.figure, dpi=150)
