"""Shared settings, cross-field config checks and target lists.

esmo is imported by every job from <workflow root>/src: PYTHONPATH is set here
in os.environ, which local jobs and cluster jobs inherit, so the workflow runs
whether or not esmo is installed in the job's environment.
"""

import os
import re
import sys

from snakemake.exceptions import WorkflowError

ESMO_SRC = os.path.join(workflow.basedir, "src")
# Set (not required from the user), hence update() rather than an envvars directive.
os.environ.update(
    PYTHONPATH=os.pathsep.join(p for p in (ESMO_SRC, os.environ.get("PYTHONPATH")) if p)
)
if ESMO_SRC not in sys.path:
    sys.path.insert(0, ESMO_SRC)

from esmo.data.libsvm import REGISTRY as LIBSVM_REGISTRY

ENV_ESMO = os.path.join(workflow.basedir, "envs", "esmo.yaml")
KERNELS = ["linear", "rbf"]


def _check_config(cfg):
    """Checks JSON schema cannot express: ranges ordered, runs within folds."""
    problems = []
    for section, ranges in cfg["search_space"].items():
        for key, (low, high) in ranges.items():
            if low > high:
                problems.append(
                    f"search_space.{section}.{key} = [{low}, {high}] has low > high; "
                    "give it as [low, high]"
                )
    if cfg["splits"]["runs"] > cfg["splits"]["n_folds"]:
        problems.append(
            f"splits.runs = {cfg['splits']['runs']} exceeds splits.n_folds = "
            f"{cfg['splits']['n_folds']}; use at most n_folds runs"
        )
    e1 = set(cfg["experiments"]["e1"])
    for key in ("low_complexity", "high_complexity"):
        outside = sorted(set(cfg["scoring"][key]) - e1)
        if outside:
            problems.append(
                f"scoring.{key} names {outside}, which experiments.e1 does not use; "
                "list only E1 datasets there"
            )
    if problems:
        raise WorkflowError("Invalid configuration:\n  " + "\n  ".join(problems))


_check_config(config)


def libsvm_datasets():
    """The LIBSVM datasets any experiment or illustration uses, in first-use order."""
    names = []
    for datasets in [
        *config["experiments"].values(),
        [config["illustrations"]["dataset"]],
    ]:
        names.extend(d for d in datasets if d not in names)
    return names


def blob_datasets():
    """Names of the synthetic blob datasets of E2, blobs-d{d}."""
    return [f"blobs-d{d}" for d in config["synthetic"]["dimensions"]]


def all_datasets():
    return libsvm_datasets() + blob_datasets()


def data_products():
    """Every file the data stage produces, requested by rule all."""
    return (
        expand(
            "results/data/{dataset}.{ext}", dataset=all_datasets(), ext=["npz", "json"]
        )
        + expand("results/splits/{dataset}.npz", dataset=all_datasets())
        + expand("results/configs/svm_{kernel}.csv", kernel=KERNELS)
        + ["results/configs/es.csv", "results/configs/es_interval.csv"]
        + ["results/data/summary.csv"]
    )


def n_chunks(n_configs):
    """Training jobs per (dataset, kernel, run): chunks of sweeps.chunk_size configurations."""
    return -(-n_configs // config["sweeps"]["chunk_size"])


def sweep_metrics(wildcards):
    """Objectives tracked by a sweep: E1's datasets track both (app. B); E2 and E4 accuracy."""
    if wildcards.es_table == "es" and wildcards.dataset in config["experiments"]["e1"]:
        return config["sweeps"]["metrics"]
    return ["accuracy"]


def sweep_chunks(wildcards):
    """Every training-job table of one (ES table, dataset, kernel)."""
    return expand(
        "results/sweeps/{es_table}/{dataset}/{kernel}/fold{fold}_chunk{chunk}.csv",
        es_table=wildcards.es_table,
        dataset=wildcards.dataset,
        kernel=wildcards.kernel,
        fold=range(config["splits"]["runs"]),
        chunk=range(n_chunks(config["sampling"]["n_svm_configs"])),
    )


def complexity_groups():
    """Datasets that select j_low, j_high and j_avg (thesis sec 3.3)."""
    return {
        "low": config["scoring"]["low_complexity"],
        "high": config["scoring"]["high_complexity"],
        "avg": config["experiments"]["e1"],
    }


def e1_products():
    """E1 and appendix B tables and figures."""
    return expand(
        "results/e1/figures/{figure}_{metric}_{kernel}.{ext}",
        figure=["pareto", "top", "selected", "best_per_beta", "wins"],
        metric=config["sweeps"]["metrics"],
        kernel=config["sweeps"]["kernels"],
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
        for dataset in config["experiments"][hpo]
        for ext in ("pdf", "png")
    ]
    illustrations = expand(
        "results/illustrations/{dataset}/{figure}.{ext}",
        dataset=config["illustrations"]["dataset"],
        figure=["validation_curves", "decision_boundaries", "successive_halving"],
        ext=["pdf", "png"],
    )
    return (
        figures
        + illustrations
        + [
            "results/appendix_a/figures/solvers.png",
            "results/reproduction.csv",
            "results/reproduction.html",
        ]
    )
