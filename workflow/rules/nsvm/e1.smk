"""Beyond the paper: kernel Pegasos with early stopping inside the thesis's random search (E1)."""


rule nsvm_e1_fold:
    """One E1 dataset and run: SMO and Pegasos over the first n RBF configurations, each run
    once while every early-stopping configuration of the thesis is tracked."""
    input:
        data="results/data/{dataset}.npz",
        splits="results/splits/{dataset}.npz",
        configs="results/configs/svm_rbf.csv",
        es="results/configs/es.csv",
    output:
        "results/nsvm/e1/{dataset}/fold{fold}.csv",
    log:
        "logs/nsvm/e1/{dataset}/fold{fold}.log",
    wildcard_constraints:
        fold=r"\d+",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    params:
        fold=lambda wildcards: int(wildcards.fold),
        n_configs=NSVM["e1"]["n_configs"],
        epochs=NSVM["e1"]["epochs"],
        seed=NSVM["e1"]["seed"],
        rule=config["thesis"]["early_stopping_rule"],
        normalise=config["datasets"]["normalise"],
        max_iter=config["solver"]["max_iter"],
        cache_size_mb=config["solver"]["cache_size_mb"],
        shrinking=config["solver"]["shrinking"],
    script:
        "../../scripts/nsvm/e1_fold.py"


rule nsvm_e1_summary:
    """Scores S at kernel-evaluation cost against SMO's search without early stopping, the two
    solvers at equal budgets, and accuracy against cost per dataset."""
    input:
        nsvm_e1_folds(),
    output:
        runs="results/nsvm/e1/runs.csv",
        scores="results/nsvm/e1/scores.csv",
        summary=report(
            "results/nsvm/e1/summary.csv",
            caption="../../report/nsvm/e1_summary.rst",
            category="NSVM",
        ),
        equal_budget=report(
            "results/nsvm/e1/equal_budget.csv",
            caption="../../report/nsvm/e1_equal_budget.rst",
            category="NSVM",
        ),
        figure=report(
            "results/nsvm/e1/accuracy_cost.png",
            caption="../../report/nsvm/e1_accuracy_cost.rst",
            category="NSVM",
        ),
    log:
        "logs/nsvm/e1/summary.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        beta=config["thesis"]["scoring"]["beta"],
    script:
        "../../scripts/nsvm/e1_summary.py"
