"""The paper's numbers beside ours, judged by workflow/data/mdl/rules.csv: table 2 at the
headline split, and the many-split means; the claims of fig 3, the wider grids and E1."""

import logging
from pathlib import Path

import pandas as pd

from esmo.papers.common.html import reproduction_html
from esmo.papers.common.job_log import job_log
from esmo.papers.common.judging import judge_claims, judge_paper, summary_line
from esmo.papers.common.reproduction import load_paper_values
from esmo.papers.mdl.analysis import METRICS, e1_claims, fig3_claim, sensitivity_claims

with job_log(snakemake.log[0], "MDL reproduction table"):
    inp = snakemake.input
    paper = load_paper_values(inp.paper)
    table_2 = pd.read_csv(inp.table_2)
    ours = {
        f"table_2.{row.method}.{metric}": float(getattr(row, metric))
        for row in table_2[table_2["source"] == "ours"].itertuples(index=False)
        for metric in METRICS
    }
    # the paper's claim in numbers: MDL - CV on each metric (one split there), judged on the
    # mean over splits and shown on the headline split alone
    comparison = pd.read_csv(inp.comparison).set_index("metric")
    for metric in METRICS:
        ours[f"claim.mdl_minus_cv.{metric}"] = float(comparison.loc[metric, "mean_difference"])
        one = f"claim.mdl_minus_cv_one_split.{metric}"
        ours[one] = ours[f"table_2.mdl.{metric}"] - ours[f"table_2.cv.{metric}"]
    table = judge_paper(paper, ours, inp.rules, values_source=inp.paper)
    table.to_csv(snakemake.output.table, index=False)
    n_grid = len(pd.read_csv(inp.headline_grid))
    claims = judge_claims(
        pd.concat(
            [
                fig3_claim(pd.read_csv(inp.headline_selection), n_grid),
                sensitivity_claims(pd.read_csv(inp.sensitivity)),
                e1_claims(pd.read_csv(inp.e1_comparison)),
            ],
            ignore_index=True,
        )
    )
    claims.to_csv(snakemake.output.claims, index=False)
    summary = summary_line(table, claims)
    Path(snakemake.output.html).write_text(reproduction_html(table, claims, summary))
    logging.info("%s\n%s", summary, table.to_string())
