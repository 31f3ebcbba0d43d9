"""E1 (accuracy objective) and appendix B (hinge): one rule per table, statistic and figure family.

The random-search outcomes of E1's datasets are stacked and scored once; each
product (selections, top configurations, wins, Wilcoxon/Holm, tables 5.1 and
5.2, figures) is its own rule, so a product reruns only when what it reads
or its own settings change.
"""


wildcard_constraints:
    metric="accuracy|hinge",
    e1_figure="pareto|top|selected|best_per_beta|wins",


rule e1_outcome:
    """The random-search outcomes of every E1 dataset and kernel, in one table."""
    input:
        expand(
            "results/sweeps/es/{dataset}/{kernel}/outcome.csv",
            dataset=THESIS["datasets"]["e1"],
            kernel=THESIS["sweeps"]["kernels"],
        ),
    output:
        "results/e1/outcome.csv",
    log:
        "logs/e1/outcome.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../../scripts/thesis/e1_outcome.py"


rule e1_scores:
    """Scores against the reference for every beta (eq. 3.3)."""
    input:
        "results/e1/outcome.csv",
    output:
        "results/e1/scores.csv",
    log:
        "logs/e1/scores.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=4000,
        runtime=10,
    params:
        betas=THESIS["scoring"]["betas"],
    script:
        "../../scripts/thesis/e1_scores.py"


rule e1_selection:
    """j_low, j_high and j_avg per kernel and objective (sec 3.3)."""
    input:
        scores="results/e1/scores.csv",
        es="results/configs/es.csv",
    output:
        report(
            "results/e1/selection.csv",
            caption="../../report/thesis/e1_selection.rst",
            category="E1 and appendix B",
            subcategory="Tables",
        ),
    log:
        "logs/e1/selection.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        kernels=THESIS["sweeps"]["kernels"],
        metrics=THESIS["sweeps"]["metrics"],
        beta=THESIS["scoring"]["beta"],
        groups=complexity_groups(),
    script:
        "../../scripts/thesis/e1_selection.py"


rule e1_top:
    """The top_n early-stopping configurations per kernel and objective (figs 4.3, 4.4, B.3, B.4)."""
    input:
        "results/e1/scores.csv",
    output:
        "results/e1/top.csv",
    log:
        "logs/e1/top.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        kernels=THESIS["sweeps"]["kernels"],
        metrics=THESIS["sweeps"]["metrics"],
        beta=THESIS["scoring"]["beta"],
        top_n=THESIS["scoring"]["top_n"],
    script:
        "../../scripts/thesis/e1_top.py"


rule e1_wins:
    """Wins of every early-stopping configuration over the reference (fig 5.3)."""
    input:
        "results/e1/scores.csv",
    output:
        "results/e1/wins.csv",
    log:
        "logs/e1/wins.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        kernels=THESIS["sweeps"]["kernels"],
        metrics=THESIS["sweeps"]["metrics"],
        beta=THESIS["scoring"]["beta"],
    script:
        "../../scripts/thesis/e1_wins.py"


rule e1_wilcoxon:
    """One-sided Wilcoxon signed-rank tests against the reference, Holm-corrected."""
    input:
        "results/e1/scores.csv",
    output:
        report(
            "results/e1/wilcoxon.csv",
            caption="../../report/thesis/e1_wilcoxon.rst",
            category="E1 and appendix B",
            subcategory="Tables",
        ),
    log:
        "logs/e1/wilcoxon.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        beta=THESIS["scoring"]["beta"],
        alpha=THESIS["scoring"]["alpha"],
    script:
        "../../scripts/thesis/e1_wilcoxon.py"


rule e1_table_5_1:
    """Table 5.1: per kernel and beta, the configuration with the best mean score."""
    input:
        scores="results/e1/scores.csv",
        es="results/configs/es.csv",
    output:
        report(
            "results/e1/table_5_1.csv",
            caption="../../report/thesis/e1_table_5_1.rst",
            category="E1 and appendix B",
            subcategory="Tables",
        ),
    log:
        "logs/e1/table_5_1.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        kernels=THESIS["sweeps"]["kernels"],
        betas=THESIS["scoring"]["betas"],
    script:
        "../../scripts/thesis/e1_table_5_1.py"


rule e1_table_5_2:
    """Table 5.2: wins of j_low, j_high and j_avg on each group, per beta (RBF)."""
    input:
        scores="results/e1/scores.csv",
        es="results/configs/es.csv",
    output:
        report(
            "results/e1/table_5_2.csv",
            caption="../../report/thesis/e1_table_5_2.rst",
            category="E1 and appendix B",
            subcategory="Tables",
        ),
    log:
        "logs/e1/table_5_2.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        betas=THESIS["scoring"]["betas"],
        groups=complexity_groups(),
    script:
        "../../scripts/thesis/e1_table_5_2.py"


rule e1_figure:
    """One E1/appendix B figure family for one objective and kernel."""
    input:
        unpack(e1_figure_inputs),
    output:
        pdf="results/e1/figures/{e1_figure}_{metric}_{kernel}.pdf",
        png=report(
            "results/e1/figures/{e1_figure}_{metric}_{kernel}.png",
            caption="../../report/thesis/e1_figure.rst",
            category="E1 and appendix B",
            subcategory="{metric}, {kernel}",
        ),
    log:
        "logs/e1/figure_{e1_figure}_{metric}_{kernel}.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        kind=lambda wildcards: wildcards.e1_figure,
        datasets=THESIS["datasets"]["e1"],
        beta=THESIS["scoring"]["beta"],
    script:
        "../../scripts/thesis/sweep_figure.py"
