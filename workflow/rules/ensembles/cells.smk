"""One job per cell: one model (ensemble at a tp, or single SVM at a size) on one repetition."""


rule ensembles_cell:
    """Fit one cell's model on its repetition's split; its accuracy and its cost, one row per arm."""
    input:
        ensembles_cell_data,
    output:
        "results/ensembles/cells/{dataset}/rep{rep}/{cell}.csv",
    log:
        "logs/ensembles/cells/{dataset}/rep{rep}/{cell}.log",
    wildcard_constraints:
        dataset="|".join(DATASET_NAMES_ENSEMBLES),
        rep="[0-9]+",
        cell="(ens|svm)-[a-z_]+-[a-z0-9.\\-]+",
    group:
        ensembles_group
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=3000,
        runtime=ensembles_runtime,
    params:
        spec=ensembles_cell_spec,
        settings=ENSEMBLES,
        solver=config["solver"],
    script:
        "../../scripts/ensembles/cell.py"


rule ensembles_collect:
    """Every cell's rows in one table, and their summary over repetitions."""
    input:
        ensembles_cell_files(),
    output:
        cells="results/ensembles/cells.csv",
        summary="results/ensembles/summary.csv",
    log:
        "logs/ensembles/collect.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        time_reps=ENSEMBLES["time_reps"],
    script:
        "../../scripts/ensembles/collect.py"
