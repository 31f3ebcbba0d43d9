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

from esmo.datasets import REGISTRY as LIBSVM_REGISTRY

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
    if problems:
        raise WorkflowError("Invalid configuration:\n  " + "\n  ".join(problems))


_check_config(config)


def libsvm_datasets():
    """The LIBSVM datasets any experiment uses, in first-use order."""
    names = []
    for datasets in config["experiments"].values():
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
