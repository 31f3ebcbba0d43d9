"""E3/E4 on one dataset and run: RS and SH, with and without early stopping, wall-clock timed."""

import logging

import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.thesis.hpo import run_hpo_methods
from esmo.papers.thesis.scoring import selected_configuration
from esmo.papers.thesis.splits import load_fold

with job_log(snakemake.log[0], "HPO methods"):
    p = snakemake.params
    fold = int(snakemake.wildcards.fold)
    parts = load_fold(snakemake.input.data, snakemake.input.splits, fold, p.normalise)
    configs = pd.read_csv(snakemake.input.svm).sort_values("config_id").head(p.n_configs)
    # j_high of E1's selection (E3) or j_r of E4's, both RBF and accuracy
    chosen = selected_configuration(pd.read_csv(snakemake.input.selection), p.group)
    es_config = {key: chosen[key] for key in ("patience", "es_tol", "interval")}
    es_config["rule"] = p.rule
    table = run_hpo_methods(
        *parts,
        configs,
        es_config,
        methods=p.methods,
        max_iter=p.max_iter,
        shrinking=p.shrinking,
        random_state=p.seed + fold,
    )
    table = table.assign(
        dataset=snakemake.wildcards.dataset, fold=fold, es_id=int(chosen["es_id"]), **es_config
    )
    table.to_csv(snakemake.output[0], index=False)
    logging.info("ES configuration %s\n%s", es_config, table.to_string())
