"""Appendix A on one run: iterations, seconds and test accuracy of each SMO solver."""

import logging

from esmo.papers.common.job_log import job_log
from esmo.papers.thesis.solver_comparison import compare_solvers
from esmo.papers.thesis.splits import load_fold

with job_log(snakemake.log[0], "solver comparison"):
    p = snakemake.params
    fold = int(snakemake.wildcards.fold)
    X_tr, y_tr, _, _, X_te, y_te = load_fold(
        snakemake.input.data, snakemake.input.splits, fold, p.normalise
    )
    table = compare_solvers(
        X_tr, y_tr, X_te, y_te, C=p.C, gamma=p.gamma, tol=p.tol, solvers=p.solvers,
        max_iter=p.max_iter, shrinking=p.shrinking,
    )  # fmt: skip
    table = table.assign(dataset=snakemake.wildcards.dataset, fold=fold)
    table.to_csv(snakemake.output[0], index=False)
    logging.info("\n%s", table.to_string())
