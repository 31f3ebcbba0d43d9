"""Figs 1.1, 2.3 and 2.4 on one dataset's first run: curves, boundaries, one SH run."""

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd

from esmo.estimators.smo_classifier import SMOClassifier
from esmo.papers.common.figures import save_figure
from esmo.papers.common.job_log import job_log
from esmo.papers.thesis.figures import (
    plot_decision_boundaries,
    plot_successive_halving,
    plot_validation_curves,
)
from esmo.papers.thesis.illustrations import validation_curve_along_iterations
from esmo.papers.thesis.splits import load_fold
from esmo.tuning.search import successive_halving

with job_log(snakemake.log[0], "illustrations"):
    p = snakemake.params
    out = snakemake.output
    X_tr, y_tr, X_val, y_val, _, _ = load_fold(
        snakemake.input.data, snakemake.input.splits, 0, p.normalise
    )
    configs = pd.read_csv(snakemake.input.svm).sort_values("config_id")

    # fig 1.1: validation accuracy after m iterations, m on a geometric grid
    checkpoints = np.unique(np.geomspace(1, p.max_iter, 60).astype(np.int64))
    curves = []
    for row in configs.head(p.n_curves).itertuples(index=False):
        curve = validation_curve_along_iterations(
            X_tr, y_tr, X_val, y_val, C=row.C, gamma=row.gamma, tol=row.tol,
            checkpoints=checkpoints, shrinking=p.shrinking,
        )  # fmt: skip
        curves.append(curve.assign(config=f"C={row.C:.3g}, γ={row.gamma:.3g}"))
    curves = pd.concat(curves, ignore_index=True)
    curves.to_csv(out.curves, index=False)
    save_figure(plot_validation_curves(curves), out.curves_pdf, out.curves_png)

    # fig 2.3: decision boundaries for several gamma at one C
    if X_tr.shape[1] == 2:
        models = {
            f"γ = {gamma:g}": SMOClassifier(
                kernel="rbf", C=p.C, gamma=gamma, shrinking=p.shrinking
            ).fit(X_tr, y_tr)
            for gamma in p.gammas
        }
        boundaries = plot_decision_boundaries(
            X_tr, y_tr, {name: model.decision_function for name, model in models.items()}
        )
    else:
        raise ValueError(
            f"illustrations.dataset must have two features for fig 2.3, "
            f"{snakemake.wildcards.dataset} has {X_tr.shape[1]}"
        )
    save_figure(boundaries, out.boundaries_pdf, out.boundaries_png)

    # fig 2.4: one successive-halving run over the first k configurations
    result = successive_halving(
        lambda row: SMOClassifier(
            kernel="rbf", C=row["C"], gamma=row["gamma"], tol=row["tol"], shrinking=p.shrinking
        ),
        configs.head(p.n_halving),
        X_tr, y_tr, X_val, y_val,
        random_state=p.seed,
    )  # fmt: skip
    result.trials.to_csv(out.halving, index=False)
    save_figure(plot_successive_halving(result.trials), out.halving_pdf, out.halving_png)
