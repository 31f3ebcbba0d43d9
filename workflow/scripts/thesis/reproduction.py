"""The reproduction table: the thesis's headline numbers beside this run's."""

import logging
from pathlib import Path

import pandas as pd

from esmo.papers.common.html import reproduction_html
from esmo.papers.common.job_log import job_log
from esmo.papers.common.judging import judge_claims, judge_paper, summary_line
from esmo.papers.common.reproduction import load_paper_values
from esmo.papers.thesis.configuration_claims import (
    E1_PATIENCE_KEY,
    dimension_claims,
    mean_patience,
    patience_claim,
    selected_claims,
    top_five_claims,
)
from esmo.papers.thesis.reproduction import (
    LABEL,
    e1_claims,
    es_configuration_values,
    headline_claims,
    hpo_claims,
    hpo_values,
    solver_values,
    table_5_2_values,
    wilcoxon_values,
)
from esmo.papers.thesis.scoring import (
    THESIS_GROUPS,
    selected_configuration,
    selected_configurations,
)
from esmo.papers.thesis.solver_comparison import ordering_claims
from esmo.papers.thesis.sweep_check import sweep_claim


def beta_key(beta: float) -> str:
    """The thesis keys write betas as 0, 0.8, 0.95, 0.995 and 1."""
    return f"{beta:g}"


with job_log(snakemake.log[0], "reproduction table"):
    inp = snakemake.input
    thesis = load_paper_values(inp.thesis)
    ours: dict[str, float] = {}

    e1_selection = pd.read_csv(inp.e1_selection)
    rbf = selected_configurations(e1_selection, "rbf", "accuracy")
    for row in rbf.itertuples(index=False):
        ours |= es_configuration_values(f"j_{row.group}", patience=row.patience, es_tol=row.es_tol)
    j_r = selected_configuration(pd.read_csv(inp.e4_selection), "r")
    ours |= es_configuration_values(
        "j_r", patience=j_r["patience"], es_tol=j_r["es_tol"], interval=j_r["interval"]
    )

    for row in pd.read_csv(inp.table_5_1).itertuples(index=False):
        prefix = f"table_5_1.{row.kernel}.beta_{beta_key(row.beta)}"
        ours[f"{prefix}.patience"] = float(row.patience)
        ours[f"{prefix}.es_tol"] = float(row.es_tol)

    ours |= table_5_2_values(pd.read_csv(inp.table_5_2))
    ours |= wilcoxon_values(pd.read_csv(inp.wilcoxon))
    e1_scores = pd.read_csv(inp.e1_scores)
    patience = mean_patience(pd.read_csv(inp.e4_interval_scores), pd.read_csv(inp.es_interval))
    e1_patience = mean_patience(e1_scores, pd.read_csv(inp.es), prefix=E1_PATIENCE_KEY)
    ours |= patience | e1_patience

    hpo_scores = {"e3": pd.read_csv(inp.e3_scores), "e4": pd.read_csv(inp.e4_scores)}
    for experiment, scores in hpo_scores.items():
        ours |= hpo_values(scores, experiment)
    ours |= solver_values(pd.read_csv(inp.solvers))

    # a reduced config uses other datasets: their values have no thesis counterpart
    keys = set(thesis["key"])
    unmatched = sorted(set(ours) - keys)
    if unmatched:
        logging.info("no thesis value for %d keys: %s", len(unmatched), unmatched)
    explanations = pd.read_csv(inp.explanations)
    numbers = judge_paper(
        thesis,
        {k: v for k, v in ours.items() if k in keys},
        inp.rules,
        label=LABEL,
        values_source=inp.thesis,
        explanations=explanations,
        explanations_source=inp.explanations,
    )
    claims = pd.concat(
        [
            headline_claims(e1_scores),
            e1_claims(pd.read_csv(inp.wins)),
            top_five_claims(e1_scores, THESIS_GROUPS["avg"]),
            selected_claims(e1_scores, e1_selection),
            dimension_claims(pd.read_csv(inp.e2_summary)),
            patience_claim(patience, e1_patience, e1_scores["dataset"].nunique()),
            hpo_claims(hpo_scores),
            ordering_claims(pd.read_csv(inp.orderings)),
            sweep_claim(pd.read_csv(inp.sweep_check), "E1's first dataset, run 0"),
        ],
        ignore_index=True,
    )
    claims = judge_claims(claims, explanations, inp.explanations)
    numbers.to_csv(snakemake.output.table, index=False)
    claims.to_csv(snakemake.output.claims, index=False)
    summary = summary_line(numbers, claims)
    Path(snakemake.output.html).write_text(reproduction_html(numbers, claims, summary))
    logging.info("%s", summary)
