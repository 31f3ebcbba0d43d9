"""E1 and appendix B: scores, j_low/j_high/j_avg, wins, Wilcoxon/Holm, tables 5.1 and 5.2."""

import logging

import pandas as pd

from esmo.analysis.scoring import (
    best_per_beta,
    count_wins,
    scores_against_reference,
    selection_table,
    top_configurations,
    wins_per_beta,
)
from esmo.analysis.statistics import wilcoxon_holm
from esmo.experiments.job_log import job_log

with job_log(snakemake.log[0], "E1 analysis"):
    p = snakemake.params
    out = snakemake.output
    es_table = pd.read_csv(snakemake.input.es)
    outcome = pd.concat((pd.read_csv(path) for path in snakemake.input.outcomes), ignore_index=True)
    outcome.to_csv(out.outcome, index=False)
    scores = scores_against_reference(outcome, p.betas)
    scores.to_csv(out.scores, index=False)

    selection_table(
        scores, p.groups, p.beta, es_table, kernels=p.kernels, metrics=p.metrics
    ).to_csv(out.selection, index=False)
    tops, tests, wins = [], [], []
    for kernel in p.kernels:
        for metric in p.metrics:
            tops.append(
                top_configurations(scores, p.beta, kernel, metric, n=p.top_n).assign(
                    kernel=kernel, metric=metric
                )
            )
            wins.append(
                count_wins(scores, p.beta, kernel, metric).assign(kernel=kernel, metric=metric)
            )
    pd.concat(tops, ignore_index=True).to_csv(out.top, index=False)
    pd.concat(wins, ignore_index=True).to_csv(out.wins, index=False)

    tests = wilcoxon_holm(scores, p.beta, p.alpha)
    tests.to_csv(out.wilcoxon, index=False)
    logging.info(
        "Wilcoxon/Holm at beta=%s: %d of %d tests reject H0",
        p.beta,
        int(tests["reject"].sum()),
        len(tests),
    )

    best_per_beta(scores, p.betas, kernels=p.kernels, metric="accuracy", es_table=es_table).to_csv(
        out.table_5_1, index=False
    )
    wins_per_beta(
        scores, p.betas, groups=p.groups, kernel="rbf", metric="accuracy", es_table=es_table
    ).to_csv(out.table_5_2, index=False)
