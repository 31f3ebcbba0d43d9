"""Shared settings and helpers of every paper's rules, and the registry of papers.

esmo is imported by every job from <workflow root>/src: PYTHONPATH is set here
in os.environ, which local jobs and cluster jobs inherit, so the workflow runs
whether or not esmo is installed in the job's environment.

Each paper (workflow/rules/<paper>/) registers itself with ``register_paper``:
the LIBSVM datasets and blobs it uses (the shared data rules prepare and
summarise their union) and the files its reproduction produces (the default
target ``all`` requests every paper's).
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

#: paper name -> {"datasets": callable, "products": callable}, in registration order.
PAPERS = {}


def register_paper(name, *, datasets, products):
    """Declare a paper: ``datasets()`` lists the datasets it prepares, ``products()`` its files."""
    if name in PAPERS:
        raise WorkflowError(f"paper {name!r} is registered twice")
    PAPERS[name] = {"datasets": datasets, "products": products}


def raise_config_problems(problems):
    """Stop before any job is built when a paper's cross-field config checks failed."""
    if problems:
        raise WorkflowError("Invalid configuration:\n  " + "\n  ".join(problems))


def all_datasets():
    """Every dataset any paper uses, in first-use order (papers in registration order)."""
    names = []
    for paper in PAPERS.values():
        names.extend(d for d in paper["datasets"]() if d not in names)
    return names


def data_products():
    """The prepared datasets of every paper and their summary table."""
    return expand(
        "results/data/{dataset}.{ext}", dataset=all_datasets(), ext=["npz", "json"]
    ) + ["results/data/summary.csv"]


def data_summary_inputs(wildcards):
    """Metadata of every prepared dataset (an input function: papers register after data.smk)."""
    return expand("results/data/{dataset}.json", dataset=all_datasets())


def paper_products():
    """Everything every paper produces, requested by the default target ``all``."""
    products = data_products()
    for paper in PAPERS.values():
        products += [p for p in paper["products"]() if p not in products]
    return products
