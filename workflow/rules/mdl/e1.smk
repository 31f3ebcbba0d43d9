"""Item 3(b): MDL on train+validation against random search with validation, on E1's folds."""


rule mdl_e1_fold:
    """One E1 dataset and run: both methods over the thesis's first n RBF configurations."""
    input:
        data="results/data/{dataset}.npz",
        splits="results/splits/{dataset}.npz",
        configs="results/configs/svm_rbf.csv",
    output:
        "results/mdl/e1/{dataset}/fold{fold}.csv",
    log:
        "logs/mdl/e1/{dataset}/fold{fold}.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    params:
        fold=lambda wildcards: int(wildcards.fold),
        n_configs=MDL["e1"]["n_configs"],
        normalise=config["datasets"]["normalise"],
        max_iter=config["solver"]["max_iter"],
        shrinking=config["solver"]["shrinking"],
        sigma2=MDL["sigma2"],
        n_params=MDL["n_params"],
        # the headline grid's box: the same selections confined to it (the cause test)
        box={key: MDL["grids"][MDL["headline"]["grid"]][key] for key in ("C", "gamma")},
    script:
        "../../scripts/mdl/e1_fold.py"


rule mdl_e1_summary:
    """Test accuracy and cost per dataset and method; each MDL reading against random search."""
    input:
        expand(
            "results/mdl/e1/{dataset}/fold{fold}.csv",
            dataset=MDL["e1"]["datasets"],
            fold=range(config["thesis"]["splits"]["runs"]),
        ),
    output:
        runs="results/mdl/e1/runs.csv",
        summary=report(
            "results/mdl/e1/summary.csv",
            caption="../../report/mdl/e1_summary.rst",
            category="MDL",
        ),
        comparison=report(
            "results/mdl/e1/comparison.csv",
            caption="../../report/mdl/e1_comparison.rst",
            category="MDL",
        ),
    log:
        "logs/mdl/e1/summary.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        datasets=MDL["e1"]["datasets"],
        runs=config["thesis"]["splits"]["runs"],
    script:
        "../../scripts/mdl/e1_summary.py"
