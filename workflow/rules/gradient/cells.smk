"""One job per cell: one method's tuning run on one seed's draw of one dataset at one n_trg."""


rule gradient_cell:
    """Tune (or grid-search) one cell single-threaded: its row and its detail (grid, history)."""
    input:
        unpack(gradient_cell_inputs),
    output:
        row="results/gradient/cells/{dataset}/n{n_trg}/seed{seed}/{method}.csv",
        detail="results/gradient/cells/{dataset}/n{n_trg}/seed{seed}/{method}.detail.csv",
    log:
        "logs/gradient/cells/{dataset}/n{n_trg}/seed{seed}/{method}.log",
    wildcard_constraints:
        dataset="|".join(GRADIENT_DATASETS),
        n_trg="[0-9]+",
        seed="[0-9]+",
        method="grid|grad|grad_scaled|grad_plain_smo|grad_ard|f_direct|f_bias|wer[1-4]_(bias|direct)|fig1_test|restart[0-9]+",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=4000,
        runtime=lambda wc: 60 * (GRADIENT["grid_time_limit_h"] or 24) + 60,
    params:
        settings=gradient_settings,
        n_folds=GRADIENT["n_folds"],
        grid_time_limit_h=GRADIENT["grid_time_limit_h"],
    script:
        "../../scripts/gradient/cell.py"


rule gradient_collect:
    """Every cell's row in one table, sorted (job order does not matter)."""
    input:
        gradient_cell_files(),
    output:
        "results/gradient/cells.csv",
    log:
        "logs/gradient/collect.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/gradient/collect.py"
