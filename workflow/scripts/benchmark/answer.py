"""The benchmark's answer, the report's front page: the goals, the budget table, the CD diagram."""

from pathlib import Path

import pandas as pd

from esmo.benchmark.analysis import answer_html
from esmo.papers.common.job_log import job_log

with job_log(snakemake.log[0], "benchmark answer"):
    page = answer_html(pd.read_csv(snakemake.input.records), snakemake.input.cd_diagram)
    Path(snakemake.output.html).write_text(page)
