"""The reproduction table: each headline number of the thesis beside this run's."""


rule reproduction:
    """Thesis values and claims beside this run's, each judged: reproduced, explained or not."""
    input:
        thesis=workflow.source_path("../../data/thesis/thesis_values.csv"),
        rules=workflow.source_path("../../data/thesis/rules.csv"),
        explanations=workflow.source_path("../../data/thesis/explanations.csv"),
        e1_selection="results/e1/selection.csv",
        table_5_1="results/e1/table_5_1.csv",
        table_5_2="results/e1/table_5_2.csv",
        wins="results/e1/wins.csv",
        e1_scores="results/e1/scores.csv",
        es="results/configs/es.csv",
        es_interval="results/configs/es_interval.csv",
        e4_interval_scores="results/e4/interval_scores.csv",
        e2_summary="results/e2/summary.csv",
        wilcoxon="results/e1/wilcoxon.csv",
        e4_selection="results/e4/selection.csv",
        e3_scores="results/e3/scores.csv",
        e4_scores="results/e4/scores.csv",
        solvers="results/appendix_a/solvers.csv",
        orderings="results/appendix_a/orderings.csv",
        sweep_check="results/e1/sweep_check.csv",
    output:
        table=report(
            "results/reproduction.csv",
            caption="../../report/thesis/reproduction.rst",
            category="Reproduction",
        ),
        claims=report(
            "results/reproduction_claims.csv",
            caption="../../report/thesis/reproduction_claims.rst",
            category="Reproduction",
        ),
        html=report(
            "results/reproduction.html",
            caption="../../report/thesis/reproduction.rst",
            category="Reproduction",
        ),
    log:
        "logs/reproduction.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/thesis/reproduction.py"
