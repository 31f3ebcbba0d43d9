"""Figs 2 and 3: training time against N (tp fixed) and against tp (N fixed), log-log slopes."""

import logging

import numpy as np
import pandas as pd

from esmo.ensembles.cost_model import ensemble_cost
from esmo.ensembles.grid import paper_grid
from esmo.papers.common.job_log import job_log
from esmo.papers.ensembles.analysis import loglog_slope, slopes
from esmo.papers.ensembles.figures import fig_time

with job_log(snakemake.log[0], "figs 2 and 3"):
    p = snakemake.params
    summary = pd.read_csv(snakemake.input.summary, keep_default_na=False, na_values=[""])
    summary["sampling"] = summary["sampling"].fillna("")
    plain = (summary["search"] == "exhaustive") & summary["sampling"].isin(["structured", ""])
    columns = ["dataset", "method", "train_proportion", "n_train", "n_reps", "time_s", "n_iter",
               "kernel_evaluations"]  # fmt: skip

    in_fig2 = plain & summary["dataset"].isin(p.fig2["datasets"])
    in_fig2 &= summary["n_train"].isin(p.fig2["n_train"])
    ens = (summary["method"] == "ensemble") & np.isclose(
        summary["train_proportion"].fillna(-1), p.fig2["train_proportion"]
    )
    fig2 = summary[in_fig2 & (ens | (summary["method"] == "svm"))][columns]
    fig2 = fig2.sort_values(["dataset", "method", "n_train"])
    fig2.to_csv(snakemake.output.fig2_times, index=False)
    slopes2 = slopes(fig2, "n_train", last=p.fig2["fit_last"])
    slopes2.to_csv(snakemake.output.fig2_slopes, index=False)
    fig_time(fig2, "n_train", snakemake.output.fig2, last=p.fig2["fit_last"], xlabel="N_train")

    tps = np.asarray(p.fig3_proportions)
    in_fig3 = (
        plain & summary["dataset"].isin(p.fig3["datasets"]) & (summary["method"] == "ensemble")
    )
    in_fig3 &= summary["n_train"] == p.n_train
    in_fig3 &= summary["train_proportion"].apply(lambda v: bool(np.isclose(v, tps).any()))
    fig3 = summary[in_fig3][columns].sort_values(["dataset", "train_proportion"])
    fig3.to_csv(snakemake.output.fig3_times, index=False)
    slopes3 = slopes(fig3, "train_proportion", last=p.fig3["fit_last"])
    # eq 4's slope over the same tp values, the shape the measured one is compared with
    model = [
        ensemble_cost(p.n_train, p.n_subensembles, tp, len(paper_grid(p.grid_step))) for tp in tps
    ]
    eq4 = {"dataset": "eq4", "method": "cost model", "kernel_slope": float("nan"),
           "slope": loglog_slope(tps, model, last=p.fig3["fit_last"]),
           "n_points": min(p.fig3["fit_last"], tps.size)}  # fmt: skip
    slopes3 = pd.concat([slopes3, pd.DataFrame([eq4])], ignore_index=True)
    slopes3.to_csv(snakemake.output.fig3_slopes, index=False)
    fig_time(fig3, "train_proportion", snakemake.output.fig3, last=p.fig3["fit_last"], xlabel="tp")
    logging.info("fig 2 slopes:\n%s\nfig 3 slopes:\n%s", slopes2.to_string(), slopes3.to_string())
