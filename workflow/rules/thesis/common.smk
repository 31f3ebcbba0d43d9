"""The thesis's config checks, dataset lists, input functions and target lists.

Every thesis key lives in the config section ``thesis`` (``THESIS`` below);
the shared sections ``datasets`` and ``solver`` are read from ``config``.
"""

import re

THESIS = config["thesis"]
KERNELS = ["linear", "rbf"]


def thesis_config_problems(cfg):
    """Checks JSON schema cannot express: ranges ordered, runs within folds, groups within E1."""
    thesis = cfg["thesis"]
    problems = []
    for section, ranges in thesis["search_space"].items():
        for key, (low, high) in ranges.items():
            if low > high:
                problems.append(
                    f"thesis.search_space.{section}.{key} = [{low}, {high}] has low > high; "
                    "give it as [low, high]"
                )
    splits = thesis["splits"]
    if splits["runs"] > splits["n_folds"]:
        problems.append(
            f"thesis.splits.runs = {splits['runs']} exceeds thesis.splits.n_folds = "
            f"{splits['n_folds']}; use at most n_folds runs"
        )
    e1 = set(thesis["datasets"]["e1"])
    for key in ("low_complexity", "high_complexity"):
        outside = sorted(set(thesis["scoring"][key]) - e1)
        if outside:
            problems.append(
                f"thesis.scoring.{key} names {outside}, which thesis.datasets.e1 does not "
                "use; list only E1 datasets there"
            )
    check, sampling = thesis["sweeps"]["check"], thesis["sampling"]
    first_job = min(thesis["sweeps"]["chunk_size"], sampling["n_svm_configs"])
    if check["n_svm"] > first_job:
        problems.append(
            f"thesis.sweeps.check.n_svm = {check['n_svm']} exceeds the {first_job} SVM "
            "configurations of the first sweep job (thesis.sweeps.chunk_size, "
            "thesis.sampling.n_svm_configs); use at most that many"
        )
    if check["n_es"] > sampling["n_es_configs"]:
        problems.append(
            f"thesis.sweeps.check.n_es = {check['n_es']} exceeds thesis.sampling.n_es_configs "
            f"= {sampling['n_es_configs']}; use at most that many"
        )
    return problems


raise_config_problems(thesis_config_problems(config))


def libsvm_datasets():
    """The LIBSVM datasets any thesis experiment or illustration uses, in first-use order."""
    names = []
    for datasets in [
        *THESIS["datasets"].values(),
        [THESIS["illustrations"]["dataset"]],
    ]:
        names.extend(d for d in datasets if d not in names)
    return names


def blob_datasets():
    """Names of the synthetic blob datasets of E2, blobs-d{d}."""
    return [f"blobs-d{d}" for d in THESIS["synthetic"]["dimensions"]]


def thesis_datasets():
    return libsvm_datasets() + blob_datasets()


def thesis_data_products():
    """The thesis's prepared datasets, fold splits and configuration tables."""
    return (
        expand(
            "results/data/{dataset}.{ext}",
            dataset=thesis_datasets(),
            ext=["npz", "json"],
        )
        + expand("results/splits/{dataset}.npz", dataset=thesis_datasets())
        + expand("results/configs/svm_{kernel}.csv", kernel=KERNELS)
        + ["results/configs/es.csv", "results/configs/es_interval.csv"]
    )


def n_chunks(n_configs):
    """Training jobs per (dataset, kernel, run): chunks of thesis.sweeps.chunk_size configurations."""
    return -(-n_configs // THESIS["sweeps"]["chunk_size"])


def sweep_metrics(es_table, dataset):
    """Objectives tracked by a sweep: E1's datasets track both (app. B); E2 and E4 accuracy."""
    if es_table == "es" and dataset in THESIS["datasets"]["e1"]:
        return THESIS["sweeps"]["metrics"]
    return ["accuracy"]


#: ES tables tracked together in the RBF runs of E1's datasets: E1's (and
#: appendix B's) and E4's configurations read the same SMO runs
SHARED_RBF_TABLES = ["es", "es_interval"]


def shared_rbf_datasets_pattern():
    """The wildcard pattern of the datasets whose RBF runs every ES table shares: E1's."""
    return "|".join(re.escape(dataset) for dataset in THESIS["datasets"]["e1"])


def sweep_chunks(wildcards):
    """Every training-job table of one (ES table, dataset, kernel)."""
    return expand(
        "results/sweeps/{es_table}/{dataset}/{kernel}/fold{fold}_chunk{chunk}.csv",
        es_table=wildcards.es_table,
        dataset=wildcards.dataset,
        kernel=wildcards.kernel,
        fold=range(THESIS["splits"]["runs"]),
        chunk=range(n_chunks(THESIS["sampling"]["n_svm_configs"])),
    )


def complexity_groups():
    """Datasets that select j_low, j_high and j_avg (thesis sec 3.3)."""
    return {
        "low": THESIS["scoring"]["low_complexity"],
        "high": THESIS["scoring"]["high_complexity"],
        "avg": THESIS["datasets"]["e1"],
    }


def e1_figure_inputs(wildcards):
    """The tables one E1/appendix B figure family draws from, and only those."""
    inputs = {"outcome": "results/e1/outcome.csv", "es": "results/configs/es.csv"}
    extra = {
        "pareto": {},
        "top": {"top": "results/e1/top.csv"},
        "selected": {"selection": "results/e1/selection.csv"},
        "best_per_beta": {"table_5_1": "results/e1/table_5_1.csv"},
        "wins": {"wins": "results/e1/wins.csv"},
    }
    return inputs | extra[wildcards.e1_figure]


def e1_products():
    """E1 and appendix B tables and figures."""
    return expand(
        "results/e1/figures/{figure}_{metric}_{kernel}.{ext}",
        figure=["pareto", "top", "selected", "best_per_beta", "wins"],
        metric=THESIS["sweeps"]["metrics"],
        kernel=THESIS["sweeps"]["kernels"],
        ext=["pdf", "png"],
    ) + ["results/e1/wilcoxon.csv", "results/e1/table_5_2.csv"]


def e2_products():
    """E2 summary and figures 4.6 and 4.7."""
    return expand(
        "results/e2/figures/{figure}_accuracy_rbf.{ext}",
        figure=["score_by_dimension", "selected"],
        ext=["pdf", "png"],
    ) + ["results/e2/summary.csv"]


def hpo_selection(wildcards):
    """E3 uses E1's j_high; E4's rerun uses j_r."""
    return {"e3": "results/e1/selection.csv", "e4": "results/e4/selection.csv"}[
        wildcards.hpo
    ]


def e3_e4_products():
    """E3, E4's rerun, appendix A, the illustrations and the reproduction table."""
    figures = [
        f"results/{hpo}/figures/{dataset}.{ext}"
        for hpo in ("e3", "e4")
        for dataset in THESIS["datasets"][hpo]
        for ext in ("pdf", "png")
    ]
    illustrations = expand(
        "results/illustrations/{dataset}/{figure}.{ext}",
        dataset=THESIS["illustrations"]["dataset"],
        figure=["validation_curves", "decision_boundaries", "successive_halving"],
        ext=["pdf", "png"],
    )
    return (
        figures
        + illustrations
        + [
            "results/appendix_a/figures/solvers.png",
            "results/e4/wins_by_patience.csv",
            "results/reproduction.csv",
            "results/reproduction.html",
        ]
    )


def thesis_products():
    """The whole thesis reproduction: its data, E1, E2, appendix B, E3, E4, appendix A."""
    return thesis_data_products() + e1_products() + e2_products() + e3_e4_products()


register_paper("thesis", datasets=thesis_datasets, products=thesis_products)
