"""One WDBC split: MDL against k-fold CV on a (C, gamma) grid (esmo.papers.mdl.comparison.holdout_comparison)."""

import logging

from esmo.papers.common.job_log import job_log
from esmo.papers.mdl.comparison import grid_values, holdout_comparison, warm_up
from esmo.papers.mdl.wdbc import holdout_split, load_wdbc

with job_log(snakemake.log[0], "MDL holdout comparison"):
    p = snakemake.params
    warm_up(p.shrinking)  # the costs below exclude numba's compilation
    grid = p.grid
    spacing = grid.get("spacing", "log")
    Cs = grid_values(*grid["C"], grid["n_C"], spacing)
    gammas = grid_values(*grid["gamma"], grid["n_gamma"], spacing)
    X, y = load_wdbc()
    X_tr, y_tr, X_te, y_te = holdout_split(
        X, y, seed=p.seed, test_size=p.data["test_size"], scale=p.data["scale"]
    )
    table, selection, cost = holdout_comparison(
        X_tr, y_tr, X_te, y_te, Cs, gammas,
        n_folds=p.n_folds, tol=p.tol, max_iter=p.max_iter, shrinking=p.shrinking,
        sigma2=p.sigma2, n_params=p.n_params,
    )  # fmt: skip
    table.to_csv(snakemake.output.grid, index=False)
    selection.assign(seed=p.seed).to_csv(snakemake.output.selection, index=False)
    cost.assign(seed=p.seed).to_csv(snakemake.output.cost, index=False)
    hits = int(table["max_iter_reached"].sum())
    if hits:
        logging.warning("%d fits hit max_iter; they are scored as they are", hits)
    logging.info(
        "seed %d, %d x %d grid: %d training, %d test rows\n%s\n%s",
        p.seed, len(Cs), len(gammas), len(y_tr), len(y_te),
        selection.to_string(), cost.to_string(),
    )  # fmt: skip
