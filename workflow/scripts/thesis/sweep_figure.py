"""One figure of E1, E2 or appendix B, drawn from the aggregated sweep tables.

``params.kind`` names the figure family; ``wildcards`` carry kernel and metric.
"""

import matplotlib

matplotlib.use("Agg")

import pandas as pd

from esmo.papers.common.figures import save_figure
from esmo.papers.common.job_log import job_log
from esmo.papers.thesis import figures as plotting
from esmo.papers.thesis.scoring import selected_configurations

with job_log(snakemake.log[0], "figure"):
    p = snakemake.params
    inp = snakemake.input
    kernel = snakemake.wildcards.get("kernel", "rbf")
    metric = snakemake.wildcards.get("metric", "accuracy")
    outcome = pd.read_csv(inp.outcome)
    es_table = pd.read_csv(inp.es)
    common = dict(kernel=kernel, metric=metric, datasets=p.datasets)
    if p.kind == "pareto":
        fig = plotting.plot_pareto_fronts(outcome, beta=p.beta, **common)
    elif p.kind == "top":
        top = pd.read_csv(inp.top)
        top = top[(top["kernel"] == kernel) & (top["metric"] == metric)]
        labels = plotting.configuration_labels(
            es_table, top["es_id"].tolist(), prefix=[f"#{r}" for r in top["rank"]]
        )
        fig = plotting.plot_selected_configurations(outcome, labels, beta=p.beta, **common)
    elif p.kind == "selected":
        sel = selected_configurations(pd.read_csv(inp.selection), kernel, metric)
        labels = plotting.configuration_labels(
            es_table, sel["es_id"].tolist(), prefix=[f"j_{g}" for g in sel["group"]]
        )
        fig = plotting.plot_selected_configurations(outcome, labels, beta=p.beta, **common)
    elif p.kind == "best_per_beta":
        fig = plotting.plot_best_per_beta(outcome, pd.read_csv(inp.table_5_1), **common)
    elif p.kind == "wins":
        wins = pd.read_csv(inp.wins)
        wins = wins[(wins["kernel"] == kernel) & (wins["metric"] == metric)]
        fig = plotting.plot_win_histogram(wins, n_datasets=len(p.datasets))
    elif p.kind == "score_by_dimension":
        sel = selected_configurations(pd.read_csv(inp.selection), kernel, metric)
        labels = plotting.configuration_labels(
            es_table, sel["es_id"].tolist(), prefix=[f"j_{g}" for g in sel["group"]]
        )
        dims = {name: int(name.rsplit("-d", 1)[1]) for name in p.datasets}
        fig = plotting.plot_score_by_dimension(
            pd.read_csv(inp.scores), labels, dims, kernel=kernel, metric=metric, beta=p.beta
        )
    else:
        raise ValueError(f"unknown figure kind {p.kind!r}")
    save_figure(fig, *snakemake.output)
