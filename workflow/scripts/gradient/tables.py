"""Tables 1 and 2, the F experiment, table 3 and the cost break-up, from each experiment's cells."""

import logging
from pathlib import Path

import pandas as pd

from esmo.papers.common.html import html_table
from esmo.papers.common.job_log import job_log
from esmo.papers.gradient import analysis as ana

with job_log(snakemake.log[0], "gradient tables"):
    cells = pd.read_csv(snakemake.input.cells)
    parts = ana.by_experiment(cells, snakemake.params.experiments)
    tables = {
        "table1": ana.speed_table(parts["table1"], ["grid", "grad", "grad_ard"]),
        "table2": ana.speed_table(parts["table2"], ["grid", "grad"]),
        "f_measure": ana.f_measure_table(parts["f_measure"]),
        "table3": ana.weighted_table(parts["table3"]),
        "cost_breakup": ana.cost_breakup(cells),
        "start": ana.start_table(cells),
    }
    out = snakemake.output
    for name, table in tables.items():
        table.to_csv(out[f"{name}_csv"], index=False)
        shown = table[[c for c in table.columns if not c.endswith((" mean", " sd"))]]
        Path(out[f"{name}_html"]).write_text(html_table(shown))
        logging.info("%s\n%s", name, shown.to_string(index=False))
