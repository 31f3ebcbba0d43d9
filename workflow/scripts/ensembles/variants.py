"""Sec 7: the early-stopped and successive-halving grid searches beside the exhaustive one."""

import logging
from pathlib import Path

import pandas as pd

from esmo.papers.common.html import html_table
from esmo.papers.common.job_log import job_log
from esmo.papers.ensembles.analysis import variants_table

with job_log(snakemake.log[0], "variants"):
    cells = pd.read_csv(snakemake.input.cells, keep_default_na=False, na_values=[""])
    table = variants_table(
        cells,
        n_train=snakemake.params.n_train,
        datasets=snakemake.params.datasets,
        beta=snakemake.params.beta,
    )
    table.to_csv(snakemake.output.table, index=False)
    Path(snakemake.output.html).write_text(html_table(table))
    logging.info("variants:\n%s", table.to_string())
