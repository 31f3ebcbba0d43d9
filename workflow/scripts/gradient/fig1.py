"""Fig 1: the smoothed CV error and test error surfaces, Grad's path, Grid's pick, the restarts."""

import json
import logging
from pathlib import Path

import pandas as pd

from esmo.papers.common.figures import save_figure
from esmo.papers.common.job_log import job_log
from esmo.papers.gradient import analysis as ana

with job_log(snakemake.log[0], "fig 1"):
    inp = snakemake.input
    spec = snakemake.params.fig1
    grid, test, path = (pd.read_csv(f) for f in (inp.grid, inp.test, inp.path))
    restarts = {Path(f).stem.split(".")[0]: pd.read_csv(f) for f in inp.restarts}
    dataset = snakemake.params.dataset
    title = f"{dataset}, n_trg = {spec['n_trg']}, seed {spec['seed']}"
    save_figure(ana.plot_fig1(grid, test, path, restarts, title=title), snakemake.output.figure)
    table = ana.restarts_table(
        pd.read_csv(inp.cells), dataset, int(spec["n_trg"]), int(spec["seed"])
    )
    table.to_csv(snakemake.output.restarts, index=False)
    values = ana.fig1_values(grid, test, path)
    Path(snakemake.output.values).write_text(json.dumps(values, indent=2) + "\n")
    logging.info("%s\n%s", values, table.to_string(index=False))
