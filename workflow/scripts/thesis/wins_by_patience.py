"""Fig 5.3's wins per decade of effective patience p * r, from E1's and E4's score tables."""

import logging

import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.thesis.scoring import wins_by_effective_patience

with job_log(snakemake.log[0], "wins by patience"):
    inp = snakemake.input
    tables = {
        "e1": (pd.read_csv(inp.e1_scores), pd.read_csv(inp.e1_es)),
        "e4": (pd.read_csv(inp.e4_scores), pd.read_csv(inp.e4_es)),
    }
    table = wins_by_effective_patience(tables, snakemake.params.beta)
    table.to_csv(snakemake.output[0], index=False)
    logging.info("\n%s", table.to_string())
