"""Item 3(c) on one E1 dataset and run: MDL-stopped SMO against accuracy-stopped and converged."""

import itertools
import logging

import pandas as pd

from esmo.early_stopping import EarlyStopping
from esmo.papers.common.job_log import job_log
from esmo.papers.mdl.comparison import warm_up
from esmo.papers.mdl.stopping import stopping_outcomes, tracking_overhead
from esmo.papers.thesis.scoring import selected_configuration
from esmo.papers.thesis.splits import load_fold

with job_log(snakemake.log[0], "MDL early stopping on an E1 fold"):
    p = snakemake.params
    cfg = p.stopping
    warm_up(p.shrinking)  # the timings below exclude numba's compilation
    X_tr, y_tr, X_val, y_val, X_te, y_te = load_fold(
        snakemake.input.data, snakemake.input.splits, p.fold, p.normalise
    )
    configs = pd.read_csv(snakemake.input.configs).head(cfg["n_configs"])
    j_high = selected_configuration(pd.read_csv(snakemake.input.selection), "high")
    accuracy_rule = EarlyStopping(int(j_high.patience), float(j_high.es_tol), int(j_high.interval))
    grid = cfg["mdl_rules"]
    mdl_rules = [
        EarlyStopping(patience, es_tol, interval, "mdl_logistic")
        for patience, es_tol, interval in itertools.product(
            grid["patience"], grid["es_tol"], grid["interval"]
        )
    ]
    outcomes = stopping_outcomes(
        X_tr, y_tr, X_val, y_val, X_te, y_te, configs, accuracy_rule, mdl_rules,
        max_iter=p.max_iter, shrinking=p.shrinking,
    )  # fmt: skip
    timing = tracking_overhead(
        X_tr, y_tr, X_val, y_val, configs.head(cfg["n_timed"]), max_iter=p.max_iter,
        shrinking=p.shrinking,
    )  # fmt: skip
    for table, path in ((outcomes, snakemake.output.outcomes), (timing, snakemake.output.timing)):
        table.insert(0, "fold", p.fold)
        table.insert(0, "dataset", snakemake.wildcards.dataset)
        table.to_csv(path, index=False)
    logging.info("%s\n%s", outcomes.to_string(), timing.to_string())
