"""One cell: one method's tuning run on one seed's problem, single-threaded; its row and detail."""

import logging

import pandas as pd
from threadpoolctl import threadpool_limits

from esmo.papers.common.job_log import job_log
from esmo.papers.gradient.cells import run_cell
from esmo.papers.gradient.data import load_problem

wc = snakemake.wildcards
p = snakemake.params
with (
    job_log(snakemake.log[0], f"cell {wc.dataset}/n{wc.n_trg}/seed{wc.seed}/{wc.method}"),
    threadpool_limits(1),
):
    problem = load_problem(snakemake.input.data, wc.dataset, int(wc.n_trg), int(wc.seed), p.n_folds)
    grad_row = None
    if wc.method == "grad_ard":
        grad_row = pd.read_csv(snakemake.input.grad).iloc[0].to_dict()
    limit = p.grid_time_limit_h
    row, detail = run_cell(
        problem, wc.method, p.settings, grad_row=grad_row,
        time_limit_s=None if limit is None else 3600.0 * limit,
    )  # fmt: skip
    row.to_csv(snakemake.output.row, index=False)
    detail.to_csv(snakemake.output.detail, index=False)
    logging.info("%s", row.T.to_string(header=False))
