"""Beyond the paper, one draw: tuning runs per inner solve, the thesis's searches, and the scores S."""

import logging

from threadpoolctl import threadpool_limits

from esmo.papers.common.job_log import job_log
from esmo.papers.gradient.data import load_problem
from esmo.papers.gradient.inexact import (
    inner_solve_runs,
    scores_against_exact,
    thesis_searches,
    variant_settings,
)
from esmo.papers.gradient.inexact_analysis import to_frame

wc = snakemake.wildcards
p = snakemake.params
out = snakemake.output
with (
    job_log(snakemake.log[0], f"inexact runs {wc.dataset}/n{wc.n_trg}/seed{wc.seed}"),
    threadpool_limits(1),
):
    problem = load_problem(snakemake.input.data, wc.dataset, int(wc.n_trg), int(wc.seed), p.n_folds)
    parts = (problem.X_train, problem.y_train, problem.X_test, problem.y_test, problem.folds)
    runs, paths = inner_solve_runs(
        *parts,
        variant_settings(p.inexact["variants"], p.inexact["early_stopping"]),
        tol=p.smo["tol"],
        max_fun=p.tuner["max_fun"],
        shrinking=p.smo["shrinking"],
    )
    searches = thesis_searches(
        *parts,
        n_configs=p.inexact["searches"]["n_configs"],
        space=p.search_space,
        es_config=p.inexact["searches"]["early_stopping"],
        seed=int(wc.seed),
        shrinking=p.smo["shrinking"],
    )
    scores = scores_against_exact(runs + searches, beta=p.inexact["searches"]["beta"])
    draw = {"dataset": wc.dataset, "n_trg": int(wc.n_trg), "seed": int(wc.seed)}
    to_frame([{**draw, **row} for row in runs]).to_csv(out.runs, index=False)
    to_frame([{**draw, **row} for row in paths]).to_csv(out.paths, index=False)
    to_frame([{**draw, **row} for row in scores]).to_csv(out.scores, index=False)
    logging.info("\n%s", to_frame(scores).to_string(index=False))
