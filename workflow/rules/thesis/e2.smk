"""E2: the reference against E1's j_low, j_high and j_avg on Gaussian blobs of growing d."""


wildcard_constraints:
    e2_figure="score_by_dimension|selected",


rule e2_analysis:
    """Scores of every blob dataset, and the reference against j_low/j_high/j_avg."""
    input:
        outcomes=expand(
            "results/sweeps/es/{dataset}/rbf/outcome.csv", dataset=blob_datasets()
        ),
        selection="results/e1/selection.csv",
    output:
        outcome="results/e2/outcome.csv",
        scores="results/e2/scores.csv",
        summary=report(
            "results/e2/summary.csv",
            caption="../../report/thesis/e2_summary.rst",
            category="E2",
        ),
    log:
        "logs/e2/analysis.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        beta=THESIS["scoring"]["beta"],
        betas=THESIS["scoring"]["betas"],
    script:
        "../../scripts/thesis/e2_analysis.py"


rule e2_figure:
    """Figs 4.6 (score against dimension) and 4.7 (iterations against accuracy per d)."""
    input:
        outcome="results/e2/outcome.csv",
        scores="results/e2/scores.csv",
        selection="results/e1/selection.csv",
        es="results/configs/es.csv",
    output:
        pdf="results/e2/figures/{e2_figure}_accuracy_rbf.pdf",
        png=report(
            "results/e2/figures/{e2_figure}_accuracy_rbf.png",
            caption="../../report/thesis/e2_figure.rst",
            category="E2",
        ),
    log:
        "logs/e2/figure_{e2_figure}.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        kind=lambda wildcards: wildcards.e2_figure,
        datasets=blob_datasets(),
        beta=THESIS["scoring"]["beta"],
    script:
        "../../scripts/thesis/sweep_figure.py"
