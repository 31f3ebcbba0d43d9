"""Table 2 beside the paper's numbers, the cost of MDL against CV, the widened grid's choices."""

import logging

import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.common.reproduction import load_paper_values
from esmo.papers.mdl.analysis import cost_comparison, table_2

with job_log(snakemake.log[0], "MDL tables"):
    inp = snakemake.input
    paper = load_paper_values(inp.paper)
    table = table_2(pd.read_csv(inp.selection[0]), paper)
    table.to_csv(snakemake.output.table_2, index=False)
    cost = cost_comparison(pd.read_csv(inp.cost[0]).drop(columns="seed"))
    cost.to_csv(snakemake.output.cost, index=False)
    wide = pd.concat(
        pd.read_csv(path).assign(grid=grid)
        for grid, path in zip(snakemake.params.sensitivity_grids, inp.sensitivity, strict=True)
    )
    wide = wide[wide["method"].isin(["mdl", "cv", "oracle"])]
    wide[["grid", *wide.columns[:-1]]].to_csv(snakemake.output.sensitivity, index=False)
    logging.info("%s\n%s", table.to_string(), cost.to_string())
