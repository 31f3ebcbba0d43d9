"""One cell: one model on one repetition's split, single-threaded and timed; one row per arm."""

import logging

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from esmo.data.uci import Table
from esmo.ensembles.grid import SVMSettings
from esmo.papers.common.job_log import job_log
from esmo.papers.ensembles import cells as exp

wc = snakemake.wildcards
spec = snakemake.params.spec
cfg = snakemake.params.settings
with job_log(snakemake.log[0], f"cell {wc.dataset}/rep{wc.rep}/{wc.cell}"), threadpool_limits(1):
    rep = int(wc.rep)
    table = None
    if snakemake.input:
        data = np.load(snakemake.input[0])
        table = Table(
            data["numeric"], data["categorical"], data["y"],
            tuple(data["numeric_names"]), tuple(data["categorical_names"]),
        )  # fmt: skip
    split = exp.repetition_split(
        wc.dataset,
        rep,
        seed=cfg["seed"],
        n_train=cfg["n_train"],
        n_test=cfg["n_test_synthetic"],
        table=table,
        ringnorm_a=cfg["ringnorm_a"],
    )
    es = cfg["variants"]["early_stopping"]
    settings = SVMSettings(
        tol=cfg["tol"],
        max_iter=snakemake.params.solver["max_iter"],
        cache_size_mb=snakemake.params.solver["cache_size_mb"],
        shrinking=snakemake.params.solver["shrinking"],
        es_patience=es["patience"],
        es_tol=es["es_tol"],
        es_interval=es["interval"],
    )
    exp.warm_up(settings)
    random_state = exp.cell_random_state(cfg["seed"], wc.dataset, wc.cell, rep)
    common = dict(grid_step=cfg["grid_step"], search=spec["search"], settings=settings,
                  random_state=random_state, grid_tie=cfg["grid_tie"])  # fmt: skip
    if spec["kind"] == "ensemble":
        rows = exp.ensemble_cell(
            split,
            train_proportion=spec["tp"],
            n_subensembles=cfg["n_subensembles"],
            sh_min_samples=cfg["variants"]["sh_min_samples"],
            arms=tuple(spec["arms"]),
            n_train=spec["n"],
            **common,
        )
    else:
        rows = exp.single_svm_cell(split, n_train=spec["n"], n_folds=cfg["n_folds"], **common)
    frame = pd.DataFrame(rows).assign(dataset=wc.dataset, rep=rep, cell=wc.cell)
    frame = frame[exp.CELL_COLUMNS]
    frame.to_csv(snakemake.output[0], index=False)
    logging.info("%s", frame.drop(columns="params").to_string(index=False))
