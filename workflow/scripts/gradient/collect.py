"""Every cell's row in one table, sorted so that job order does not matter."""

import logging

import pandas as pd

from esmo.papers.common.job_log import job_log

with job_log(snakemake.log[0], "collecting the cells"):
    cells = pd.concat([pd.read_csv(path) for path in snakemake.input], ignore_index=True)
    cells = cells.sort_values(["dataset", "n_trg", "seed", "method"], kind="stable")
    cells.to_csv(snakemake.output[0], index=False)
    logging.info("%d cells", len(cells))
