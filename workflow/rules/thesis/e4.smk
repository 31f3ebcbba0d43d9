"""E4's configuration search: (p, es_tol, r) on E1's datasets, RBF, and the choice of j_r."""


rule e4_selection:
    """Mean score of every (p, es_tol, r) configuration over E1's datasets; j_r is the best."""
    input:
        outcomes=expand(
            "results/sweeps/es_interval/{dataset}/rbf/outcome.csv",
            dataset=THESIS["datasets"]["e1"],
        ),
        es="results/configs/es_interval.csv",
    output:
        outcome="results/e4/interval_outcome.csv",
        scores="results/e4/interval_scores.csv",
        selection=report(
            "results/e4/selection.csv",
            caption="../../report/thesis/e4_selection.rst",
            category="E3 and E4",
        ),
    log:
        "logs/e4/selection.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        beta=THESIS["scoring"]["beta"],
        datasets=THESIS["datasets"]["e1"],
    script:
        "../../scripts/thesis/e4_selection.py"


rule wins_by_patience:
    """Wins over the reference per decade of effective patience p * r, E1's and E4's tables."""
    input:
        e1_scores="results/e1/scores.csv",
        e1_es="results/configs/es.csv",
        e4_scores="results/e4/interval_scores.csv",
        e4_es="results/configs/es_interval.csv",
    output:
        report(
            "results/e4/wins_by_patience.csv",
            caption="../../report/thesis/wins_by_patience.rst",
            category="E1",
        ),
    log:
        "logs/e4/wins_by_patience.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        beta=THESIS["scoring"]["beta"],
    script:
        "../../scripts/thesis/wins_by_patience.py"
