"""E3/E4 on one dataset and run: RS and SH, with and without early stopping, wall-clock timed."""

import logging

import pandas as pd

from esmo.data.splits import load_fold
from esmo.experiments.job_log import job_log
from esmo.experiments.timing import run_hpo_methods

with job_log(snakemake.log[0], "HPO methods"):
    p = snakemake.params
    fold = int(snakemake.wildcards.fold)
    parts = load_fold(snakemake.input.data, snakemake.input.splits, fold, p.normalise)
    configs = pd.read_csv(snakemake.input.svm).sort_values("config_id").head(p.n_configs)
    selection = pd.read_csv(snakemake.input.selection)
    if "kernel" in selection:  # E1's table holds every kernel and objective
        selection = selection[(selection["kernel"] == "rbf") & (selection["metric"] == "accuracy")]
    chosen = selection[selection["group"] == p.group].iloc[0]
    es_config = {key: chosen[key] for key in ("patience", "es_tol", "interval")}
    table = run_hpo_methods(
        *parts, configs, es_config, max_iter=p.max_iter, random_state=p.seed + fold
    )
    table = table.assign(
        dataset=snakemake.wildcards.dataset, fold=fold, es_id=int(chosen["es_id"]), **es_config
    )
    table.to_csv(snakemake.output[0], index=False)
    logging.info("ES configuration %s\n%s", es_config, table.to_string())
