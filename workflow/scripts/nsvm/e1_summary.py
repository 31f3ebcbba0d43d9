"""Pegasos against SMO in the thesis's random search: scores, equal budgets, the figure."""

import logging

import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.nsvm.e1_analysis import (
    accuracy_cost_figure,
    equal_budget,
    scores,
    search_outcomes,
    summary,
)

with job_log(snakemake.log[0], "Pegasos in the E1 random search"):
    out = snakemake.output
    runs = pd.concat(map(pd.read_csv, snakemake.input), ignore_index=True)
    runs.to_csv(out.runs, index=False)
    scored = scores(search_outcomes(runs), snakemake.params.beta)
    scored.to_csv(out.scores, index=False)
    table = summary(scored)
    table.to_csv(out.summary, index=False)
    budgets = equal_budget(scored, table)
    budgets.to_csv(out.equal_budget, index=False)
    accuracy_cost_figure(scored, out.figure)
    logging.info("%s\n%s", table.to_string(), budgets.to_string())
