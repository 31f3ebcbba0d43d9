"""The report tables: accuracy beside the paper and the baselines; early-stopped T against fixed T
(at the stop, and retrained on the whole training set at the stop's T)."""

import pandas as pd

from esmo.analysis.nsvm import accuracy_table, early_stopping_table
from esmo.experiments.job_log import job_log

with job_log(snakemake.log[0], "NSVM tables"):
    inp, out = snakemake.input, snakemake.output
    runs = pd.concat([pd.read_csv(path) for path in inp.runs], ignore_index=True)
    baselines = pd.concat([pd.read_csv(path) for path in inp.baselines], ignore_index=True)
    accuracy = accuracy_table(pd.concat([runs, baselines], ignore_index=True))
    accuracy.to_csv(out.accuracy, index=False)
    with open(out.accuracy_html, "w") as f:
        f.write(accuracy.to_html(index=False, float_format=lambda v: f"{v:.4g}", na_rep="–"))
    outcomes = pd.concat([pd.read_csv(path) for path in inp.early_stopping], ignore_index=True)
    retrain = pd.concat([pd.read_csv(path) for path in inp.retrain], ignore_index=True)
    es = early_stopping_table(outcomes, retrain)
    es.to_csv(out.early_stopping, index=False)
    with open(out.early_stopping_html, "w") as f:
        f.write(es.to_html(index=False, float_format=lambda v: f"{v:.4g}", na_rep="–"))
