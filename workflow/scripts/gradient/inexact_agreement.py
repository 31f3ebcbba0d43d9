"""Beyond the paper, one draw: the hypergradient of inexact inner solves along exact Grad's path."""

import logging

from threadpoolctl import threadpool_limits

from esmo.early_stopping import EarlyStopping
from esmo.papers.common.job_log import job_log
from esmo.papers.gradient.data import load_problem
from esmo.papers.gradient.inexact import agreement_along_path
from esmo.papers.gradient.inexact_analysis import to_frame

wc = snakemake.wildcards
p = snakemake.params
with (
    job_log(snakemake.log[0], f"inexact agreement {wc.dataset}/n{wc.n_trg}/seed{wc.seed}"),
    threadpool_limits(1),
):
    problem = load_problem(snakemake.input.data, wc.dataset, int(wc.n_trg), int(wc.seed), p.n_folds)
    spec = p.inexact["agreement"]
    rules = [EarlyStopping(metric="smoothed_error", **rule) for rule in spec["rules"]]
    rows = agreement_along_path(
        problem.X_train,
        problem.y_train,
        problem.folds,
        iteration_budgets=spec["iteration_budgets"],
        early_stopping=rules,
        tol=p.smo["tol"],
        max_fun=p.tuner["max_fun"],
        shrinking=p.smo["shrinking"],
    )
    draw = {"dataset": wc.dataset, "n_trg": int(wc.n_trg), "seed": int(wc.seed)}
    table = to_frame([{**draw, **row} for row in rows])
    table.to_csv(snakemake.output[0], index=False)
    logging.info("\n%s", table.to_string(index=False))
