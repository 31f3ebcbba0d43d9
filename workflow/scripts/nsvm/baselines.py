"""The baselines of one dataset and seed: SMO on raw features, kernel Pegasos without a network."""

import numpy as np
import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.nsvm.baselines import pegasos_baselines, smo_baseline

w, p = snakemake.wildcards, snakemake.params
with job_log(snakemake.log[0], f"baselines on {w.dataset}, seed {w.seed}"):
    d = np.load(snakemake.input[0])
    seed = int(w.seed)
    X, y, X_test, y_test = d["X_train"], d["y_train"], d["X_test"], d["y_test"]
    records = [smo_baseline(X, y, X_test, y_test, seed=seed, shrinking=p.shrinking, **p.smo)]
    records += pegasos_baselines(X, y, d["tune"], X_test, y_test, lam=p.lam, seed=seed, **p.pegasos)
    table = pd.DataFrame(records).assign(
        dataset=w.dataset, seed=seed, offline_subset=bool(d["offline_subset"])
    )
    table.to_csv(snakemake.output[0], index=False)
