"""Random-search outcome of one dataset and kernel: the reference and every ES configuration."""

import logging

import pandas as pd

from esmo.scoring import random_search_outcome, random_search_per_fold

logging.basicConfig(
    filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s"
)
try:
    table = pd.concat((pd.read_csv(path) for path in snakemake.input), ignore_index=True)
    per_fold = random_search_per_fold(table)
    per_fold.to_csv(snakemake.output.per_fold, index=False)
    random_search_outcome(per_fold).to_csv(snakemake.output.outcome, index=False)
    logging.info("%d training rows from %d jobs", len(table), len(snakemake.input))
except Exception:
    logging.exception("random-search aggregation failed")
    raise
