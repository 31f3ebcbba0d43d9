"""The MDL paper's config checks, grid and split lists, and products; it registers the paper.

Every key lives in the config section ``mdl`` (``MDL`` below). WDBC comes with
scikit-learn, so the shared data rules prepare only the E1 datasets of item 3(b);
their fold splits and RBF configurations are the thesis's
(results/splits/{dataset}.npz, results/configs/svm_rbf.csv).
"""

MDL = config["mdl"]
MDL_FIGURES = ["fig1", "fig2", "fig3"]


def mdl_config_problems(cfg):
    """Checks JSON schema cannot express: every grid range ordered low to high."""
    mdl = cfg["mdl"]
    problems = []
    for name, grid in mdl["grids"].items():
        for key in ("C", "gamma"):
            low, high = grid[key]
            if low > high:
                problems.append(
                    f"mdl.grids.{name}.{key} = [{low}, {high}] has low > high; give it as [low, high]"
                )
    return problems


raise_config_problems(mdl_config_problems(config))


def mdl_grid(name):
    """A named grid's (C values, gamma values) settings for the holdout script."""
    return MDL["grids"][name]


def mdl_holdout_files(grid, seeds, table):
    return [f"results/mdl/holdout/{grid}/seed{seed}/{table}.csv" for seed in seeds]


def mdl_split_seeds():
    return list(range(MDL["splits"]["n_splits"]))


def mdl_figure_grids():
    """Figs 1-3 are drawn for the headline split and for each widened grid."""
    sensitivity = MDL["sensitivity"]
    return [f"{MDL['headline']['grid']}/seed{MDL['headline']['seed']}"] + [
        f"{grid}/seed{sensitivity['seed']}" for grid in sensitivity["grids"]
    ]


def mdl_stopping_files(name):
    """Item 3(c)'s per-fold files, ``name`` a pattern in {fold}, for every dataset and run."""
    return expand(
        f"results/mdl/stopping/{{dataset}}/{name}",
        dataset=MDL["stopping"]["datasets"],
        fold=range(config["thesis"]["splits"]["runs"]),
    )


def mdl_products():
    """Table 2, the cost, the many-split comparison, E1, figs 1-3 and the reproduction table."""
    figures = expand(
        "results/mdl/figures/{run}/{figure}.{ext}",
        run=mdl_figure_grids(),
        figure=MDL_FIGURES,
        ext=["pdf", "png"],
    )
    return figures + [
        "results/mdl/table_2.csv",
        "results/mdl/cost.csv",
        "results/mdl/sensitivity.csv",
        "results/mdl/splits/summary.csv",
        "results/mdl/splits/comparison.csv",
        "results/mdl/e1/summary.csv",
        "results/mdl/e1/comparison.csv",
        "results/mdl/stopping/summary.csv",
        "results/mdl/stopping/overhead.csv",
        "results/mdl/reproduction.csv",
        "results/mdl/reproduction.html",
    ]


def mdl_datasets():
    """The E1 datasets items 3(b) and 3(c) read, in first-use order."""
    names = list(MDL["e1"]["datasets"])
    return names + [d for d in MDL["stopping"]["datasets"] if d not in names]


register_paper("mdl", datasets=mdl_datasets, products=mdl_products)
