"""E3 (j_high), E4's rerun (j_r) and appendix A: searches and solvers, wall-clock timed.

Timed jobs ask for every core of the machine (``threads: workflow.cores``),
so a local run never times them beside another job; on a cluster each gets a
node share of its own.
"""


wildcard_constraints:
    hpo="e3|e4",


rule hpo_methods:
    """RS, RS+ES, SH and SH+ES on one dataset and run, each really run and timed."""
    input:
        data="results/data/{dataset}.npz",
        splits="results/splits/{dataset}.npz",
        svm="results/configs/svm_rbf.csv",
        selection=hpo_selection,
    output:
        "results/{hpo}/runs/{dataset}/fold{fold}.csv",
    log:
        "logs/{hpo}/runs/{dataset}/fold{fold}.log",
    conda:
        ENV_ESMO
    threads: workflow.cores
    resources:
        mem_mb=4000,
        runtime=240,
    params:
        group=lambda wildcards: {"e3": "high", "e4": "r"}[wildcards.hpo],
        n_configs=config["e3"]["n_configs"],
        seed=config["e3"]["seed"],
        max_iter=config["solver"]["max_iter"],
        normalise=config["datasets"]["normalise"],
    script:
        "../scripts/hpo_methods.py"


rule hpo_summary:
    """Mean and std of accuracy, summed seconds and scores against RS without ES."""
    input:
        lambda wildcards: expand(
            "results/{hpo}/runs/{dataset}/fold{fold}.csv",
            hpo=wildcards.hpo,
            dataset=config["experiments"][wildcards.hpo],
            fold=range(config["splits"]["runs"]),
        ),
    output:
        per_fold="results/{hpo}/per_fold.csv",
        scores=report(
            "results/{hpo}/scores.csv",
            caption="../report/hpo_scores.rst",
            category="E3 and E4",
        ),
    log:
        "logs/{hpo}/summary.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        beta=config["scoring"]["beta"],
    script:
        "../scripts/hpo_summary.py"


rule hpo_figure:
    """Figs 4.8/4.9 (E3) and 5.4/5.5 (E4): accuracy, seconds and score of the four methods."""
    input:
        "results/{hpo}/scores.csv",
    output:
        pdf="results/{hpo}/figures/{dataset}.pdf",
        png=report(
            "results/{hpo}/figures/{dataset}.png",
            caption="../report/hpo_figure.rst",
            category="E3 and E4",
        ),
    log:
        "logs/{hpo}/figure_{dataset}.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/hpo_figure.py"


rule appendix_a_run:
    """Keerthi's SMO, plain Fan, esmo and LIBSVM at appendix A's hyperparameters, one run."""
    input:
        data="results/data/{dataset}.npz",
        splits="results/splits/{dataset}.npz",
    output:
        "results/appendix_a/runs/{dataset}/fold{fold}.csv",
    log:
        "logs/appendix_a/{dataset}/fold{fold}.log",
    conda:
        ENV_ESMO
    threads: workflow.cores
    resources:
        mem_mb=4000,
        runtime=120,
    params:
        C=config["appendix_a"]["C"],
        gamma=config["appendix_a"]["gamma"],
        tol=config["appendix_a"]["tol"],
        solvers=config["appendix_a"]["solvers"],
        max_iter=config["solver"]["max_iter"],
        normalise=config["datasets"]["normalise"],
    script:
        "../scripts/appendix_a.py"


rule appendix_a_summary:
    """Fig A.1 and the table of iterations, seconds and accuracy per solver."""
    input:
        expand(
            "results/appendix_a/runs/{dataset}/fold{fold}.csv",
            dataset=config["experiments"]["appendix_a"],
            fold=range(config["splits"]["runs"]),
        ),
    output:
        table=report(
            "results/appendix_a/solvers.csv",
            caption="../report/appendix_a_table.rst",
            category="Appendix A",
        ),
        pdf="results/appendix_a/figures/solvers.pdf",
        png=report(
            "results/appendix_a/figures/solvers.png",
            caption="../report/appendix_a_figure.rst",
            category="Appendix A",
        ),
    log:
        "logs/appendix_a/summary.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/appendix_a_summary.py"
