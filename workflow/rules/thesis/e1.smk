"""E1 (accuracy objective) and appendix B (hinge): scores, selections, statistics, figures."""


wildcard_constraints:
    metric="accuracy|hinge",
    e1_figure="pareto|top|selected|best_per_beta|wins",


rule e1_analysis:
    """Scores for every beta, j_low/j_high/j_avg, wins, Wilcoxon/Holm, tables 5.1 and 5.2."""
    input:
        outcomes=expand(
            "results/sweeps/es/{dataset}/{kernel}/outcome.csv",
            dataset=THESIS["datasets"]["e1"],
            kernel=THESIS["sweeps"]["kernels"],
        ),
        es="results/configs/es.csv",
    output:
        outcome="results/e1/outcome.csv",
        scores="results/e1/scores.csv",
        selection=report(
            "results/e1/selection.csv",
            caption="../../report/thesis/e1_selection.rst",
            category="E1 and appendix B",
            subcategory="Tables",
        ),
        top="results/e1/top.csv",
        wins="results/e1/wins.csv",
        wilcoxon=report(
            "results/e1/wilcoxon.csv",
            caption="../../report/thesis/e1_wilcoxon.rst",
            category="E1 and appendix B",
            subcategory="Tables",
        ),
        table_5_1=report(
            "results/e1/table_5_1.csv",
            caption="../../report/thesis/e1_table_5_1.rst",
            category="E1 and appendix B",
            subcategory="Tables",
        ),
        table_5_2=report(
            "results/e1/table_5_2.csv",
            caption="../../report/thesis/e1_table_5_2.rst",
            category="E1 and appendix B",
            subcategory="Tables",
        ),
    log:
        "logs/e1/analysis.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        kernels=THESIS["sweeps"]["kernels"],
        metrics=THESIS["sweeps"]["metrics"],
        beta=THESIS["scoring"]["beta"],
        betas=THESIS["scoring"]["betas"],
        alpha=THESIS["scoring"]["alpha"],
        top_n=THESIS["scoring"]["top_n"],
        groups=complexity_groups(),
    script:
        "../../scripts/thesis/e1_analysis.py"


rule e1_figure:
    """One E1/appendix B figure family for one objective and kernel."""
    input:
        outcome="results/e1/outcome.csv",
        es="results/configs/es.csv",
        top="results/e1/top.csv",
        selection="results/e1/selection.csv",
        table_5_1="results/e1/table_5_1.csv",
        wins="results/e1/wins.csv",
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
