"""WDBC: MDL against k-fold CV on one 80/20 split per (grid, seed), and the tables and figures."""


wildcard_constraints:
    mdl_grid="[A-Za-z0-9_]+",
    mdl_seed="[0-9]+",
    mdl_figure="|".join(MDL_FIGURES),


rule mdl_holdout:
    """One stratified split: MDL on the training part, k-fold CV on it, every grid model tested."""
    output:
        grid="results/mdl/holdout/{mdl_grid}/seed{mdl_seed}/grid.csv",
        selection="results/mdl/holdout/{mdl_grid}/seed{mdl_seed}/selection.csv",
        cost="results/mdl/holdout/{mdl_grid}/seed{mdl_seed}/cost.csv",
    log:
        "logs/mdl/holdout/{mdl_grid}/seed{mdl_seed}.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        grid=lambda wildcards: mdl_grid(wildcards.mdl_grid),
        seed=lambda wildcards: int(wildcards.mdl_seed),
        data=MDL["data"],
        tol=MDL["tol"],
        max_iter=config["solver"]["max_iter"],
        shrinking=config["solver"]["shrinking"],
        n_folds=MDL["n_folds"],
        sigma2=MDL["sigma2"],
        n_params=MDL["n_params"],
    script:
        "../../scripts/mdl/holdout.py"


rule mdl_tables:
    """Table 2 beside the paper's, the cost of MDL against CV, and the widened grid's choices."""
    input:
        paper=workflow.source_path("../../data/mdl/paper_values.csv"),
        selection=mdl_holdout_files(
            MDL["headline"]["grid"], [MDL["headline"]["seed"]], "selection"
        ),
        cost=mdl_holdout_files(
            MDL["headline"]["grid"], [MDL["headline"]["seed"]], "cost"
        ),
        sensitivity=[
            mdl_holdout_files(grid, [MDL["sensitivity"]["seed"]], "selection")[0]
            for grid in MDL["sensitivity"]["grids"]
        ],
    output:
        table_2=report(
            "results/mdl/table_2.csv",
            caption="../../report/mdl/table_2.rst",
            category="MDL",
        ),
        cost=report(
            "results/mdl/cost.csv", caption="../../report/mdl/cost.rst", category="MDL"
        ),
        sensitivity=report(
            "results/mdl/sensitivity.csv",
            caption="../../report/mdl/sensitivity.rst",
            category="MDL",
        ),
    log:
        "logs/mdl/tables.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        sensitivity_grids=MDL["sensitivity"]["grids"],
    script:
        "../../scripts/mdl/tables.py"


rule mdl_splits:
    """MDL against CV over many stratified splits: mean, std, paired Wilcoxon per metric."""
    input:
        selections=mdl_holdout_files(
            MDL["splits"]["grid"], mdl_split_seeds(), "selection"
        ),
        costs=mdl_holdout_files(MDL["splits"]["grid"], mdl_split_seeds(), "cost"),
    output:
        selections="results/mdl/splits/selections.csv",
        summary=report(
            "results/mdl/splits/summary.csv",
            caption="../../report/mdl/splits_summary.rst",
            category="MDL",
        ),
        comparison=report(
            "results/mdl/splits/comparison.csv",
            caption="../../report/mdl/splits_comparison.rst",
            category="MDL",
        ),
    log:
        "logs/mdl/splits.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        seeds=mdl_split_seeds(),
    script:
        "../../scripts/mdl/splits.py"


rule mdl_figure:
    """Figs 1-3 of one split: CV accuracy and DL over (gamma, C), test accuracy against gamma."""
    input:
        grid="results/mdl/holdout/{mdl_grid}/seed{mdl_seed}/grid.csv",
        selection="results/mdl/holdout/{mdl_grid}/seed{mdl_seed}/selection.csv",
    output:
        pdf="results/mdl/figures/{mdl_grid}/seed{mdl_seed}/{mdl_figure}.pdf",
        png=report(
            "results/mdl/figures/{mdl_grid}/seed{mdl_seed}/{mdl_figure}.png",
            caption="../../report/mdl/figure.rst",
            category="MDL",
        ),
    log:
        "logs/mdl/figures/{mdl_grid}/seed{mdl_seed}/{mdl_figure}.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=5,
    params:
        figure=lambda wildcards: wildcards.mdl_figure,
    script:
        "../../scripts/mdl/figure.py"


rule mdl_reproduction:
    """The paper's numbers (workflow/data/mdl/paper_values.csv) beside this run's."""
    input:
        paper=workflow.source_path("../../data/mdl/paper_values.csv"),
        rules=workflow.source_path("../../data/mdl/rules.csv"),
        table_2="results/mdl/table_2.csv",
        comparison="results/mdl/splits/comparison.csv",
        sensitivity="results/mdl/sensitivity.csv",
        e1_comparison="results/mdl/e1/comparison.csv",
        headline_selection=mdl_holdout_files(
            MDL["headline"]["grid"], [MDL["headline"]["seed"]], "selection"
        )[0],
        headline_grid=mdl_holdout_files(
            MDL["headline"]["grid"], [MDL["headline"]["seed"]], "grid"
        )[0],
    output:
        table=report(
            "results/mdl/reproduction.csv",
            caption="../../report/mdl/reproduction.rst",
            category="MDL",
        ),
        claims=report(
            "results/mdl/claims.csv",
            caption="../../report/mdl/claims.rst",
            category="MDL",
        ),
        html=report(
            "results/mdl/reproduction.html",
            caption="../../report/mdl/reproduction.rst",
            category="MDL",
        ),
    log:
        "logs/mdl/reproduction.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/mdl/reproduction.py"
