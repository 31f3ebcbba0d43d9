"""The four NSVM algorithms at the paper's step counts on one seed's split: fit on the whole
training set, score the test set, one row per algorithm; the sec 6 diagnostics beside."""

import logging

import numpy as np
import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.nsvm.analysis import diagnostics_rows
from esmo.papers.nsvm.experiment import (
    ALGORITHMS,
    classifier,
    fit_record,
    with_tuned_learning_rates,
)

w, p = snakemake.wildcards, snakemake.params
with job_log(snakemake.log[0], f"NSVM-1..4 on {w.dataset}, seed {w.seed}"):
    d = np.load(snakemake.input.split)
    # the chosen learning rates when nsvm.lr_tuning is on (the input is there only then)
    settings = with_tuned_learning_rates(p.settings, getattr(snakemake.input, "lr_tuning", None))
    records, diagnostics = [], []
    for algorithm in ALGORITHMS:
        clf = classifier(w.dataset, algorithm, settings[algorithm], int(w.seed), p.steps_scale)
        clf.set_params(diagnostic_interval=p.diagnostic_interval)
        record = fit_record(clf, d["X_train"], d["y_train"], d["X_test"], d["y_test"])
        logging.info("%s: %s", algorithm, record)
        records.append({"method": algorithm, **record})
        diagnostics.append(diagnostics_rows(clf.diagnostics_, algorithm))
    labels = {"dataset": w.dataset, "seed": int(w.seed)}
    table = pd.DataFrame(records).assign(**labels, offline_subset=bool(d["offline_subset"]))
    table.to_csv(snakemake.output.runs, index=False)
    pd.concat(diagnostics, ignore_index=True).assign(**labels).to_csv(
        snakemake.output.diagnostics, index=False
    )
