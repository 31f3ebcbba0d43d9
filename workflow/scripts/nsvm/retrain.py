"""The protocol's final retrain (note, sec 7): each early-stopping configuration's stop fixes T,
the same algorithm retrains on the whole training set; nsvm_train's runs give the paper's T."""

import numpy as np
import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.nsvm.experiment import retrain_at_stops, with_tuned_learning_rates

w, p = snakemake.wildcards, snakemake.params
with job_log(snakemake.log[0], f"retrain at the stops on {w.dataset}, seed {w.seed}"):
    d = np.load(snakemake.input.split)
    # the chosen learning rates when nsvm.lr_tuning is on (the input is there only then)
    settings = with_tuned_learning_rates(p.settings, getattr(snakemake.input, "lr_tuning", None))
    table = retrain_at_stops(
        w.dataset, settings, d, pd.read_csv(snakemake.input.early_stopping), int(w.seed),
        p.steps_scale, p.lam, runs=pd.read_csv(snakemake.input.runs),
    )  # fmt: skip
    table.to_csv(snakemake.output[0], index=False)
