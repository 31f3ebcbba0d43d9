"""Item 3(c): the description length as a validation-free early-stopping rule, on E1's folds."""


rule mdl_stopping_fold:
    """One E1 dataset and run: converged, accuracy-stopped and MDL-stopped fits, and their costs."""
    input:
        data="results/data/{dataset}.npz",
        splits="results/splits/{dataset}.npz",
        configs="results/configs/svm_rbf.csv",
        selection="results/e1/selection.csv",
    output:
        outcomes="results/mdl/stopping/{dataset}/fold{fold}.csv",
        timing="results/mdl/stopping/{dataset}/fold{fold}_timing.csv",
    log:
        "logs/mdl/stopping/{dataset}/fold{fold}.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    params:
        fold=lambda wildcards: int(wildcards.fold),
        normalise=config["datasets"]["normalise"],
        max_iter=config["solver"]["max_iter"],
        shrinking=config["solver"]["shrinking"],
        stopping=MDL["stopping"],
    script:
        "../../scripts/mdl/stopping_fold.py"


rule mdl_stopping_summary:
    """Stop iterations, test accuracy and tracking overhead per dataset, method and MDL rule."""
    input:
        outcomes=mdl_stopping_files("fold{fold}.csv"),
        timing=mdl_stopping_files("fold{fold}_timing.csv"),
    output:
        summary=report(
            "results/mdl/stopping/summary.csv",
            caption="../../report/mdl/stopping_summary.rst",
            category="MDL",
        ),
        overhead=report(
            "results/mdl/stopping/overhead.csv",
            caption="../../report/mdl/stopping_overhead.rst",
            category="MDL",
        ),
    log:
        "logs/mdl/stopping/summary.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/mdl/stopping_summary.py"
