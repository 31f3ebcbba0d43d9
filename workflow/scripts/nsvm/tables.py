"""The report tables: accuracy beside the paper and the baselines; early-stopped T against fixed T
(at the stop, and retrained on the whole training set at the stop's T)."""

from pathlib import Path

import pandas as pd

from esmo.papers.common.html import html_table
from esmo.papers.common.job_log import job_log
from esmo.papers.nsvm.analysis import accuracy_table, early_stopping_table

with job_log(snakemake.log[0], "NSVM tables"):
    inp, out = snakemake.input, snakemake.output
    runs = pd.concat([pd.read_csv(path) for path in inp.runs], ignore_index=True)
    baselines = pd.concat([pd.read_csv(path) for path in inp.baselines], ignore_index=True)
    accuracy = accuracy_table(pd.concat([runs, baselines], ignore_index=True))
    accuracy.to_csv(out.accuracy, index=False)
    Path(out.accuracy_html).write_text(html_table(accuracy))
    outcomes = pd.concat([pd.read_csv(path) for path in inp.early_stopping], ignore_index=True)
    retrain = pd.concat([pd.read_csv(path) for path in inp.retrain], ignore_index=True)
    es = early_stopping_table(outcomes, retrain)
    es.to_csv(out.early_stopping, index=False)
    Path(out.early_stopping_html).write_text(html_table(es))
