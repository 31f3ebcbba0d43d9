"""Appendix A on one run: iterations, seconds and test accuracy of each SMO solver."""

import logging

import numpy as np

from esmo.experiments import compare_solvers
from esmo.splits import fold_arrays, load_splits

logging.basicConfig(
    filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s"
)
try:
    p = snakemake.params
    fold = int(snakemake.wildcards.fold)
    with np.load(snakemake.input.data) as data:
        X, y = data["X"], data["y"]
    X_tr, y_tr, _, _, X_te, y_te = fold_arrays(
        X, y, load_splits(snakemake.input.splits), fold, p.normalise
    )
    table = compare_solvers(
        X_tr, y_tr, X_te, y_te, C=p.C, gamma=p.gamma, tol=p.tol, solvers=p.solvers,
        max_iter=p.max_iter,
    )  # fmt: skip
    table = table.assign(dataset=snakemake.wildcards.dataset, fold=fold)
    table.to_csv(snakemake.output[0], index=False)
    logging.info("\n%s", table.to_string())
except Exception:
    logging.exception("solver comparison failed")
    raise
