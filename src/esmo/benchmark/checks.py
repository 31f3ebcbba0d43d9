"""The benchmark's configuration checks (docs/benchmark-protocol.md sec 8).

:func:`config_problems` is called by the workflow when it reads its
configuration, after the schema (types and bounds): a method the benchmark
does not know, a budget below one fit, a search space with an empty range or
a dataset too small for the folds is refused before any job runs, each with a
message naming the key and the fix. The sizes come from the dataset
registry (:data:`esmo.benchmark.data.DATASETS`), so nothing is loaded.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from esmo.benchmark.data import get_dataset, smallest_training_class, split_sizes
from esmo.benchmark.methods import METHODS
from esmo.tuning.halving import MIN_PER_CLASS


def _method_problems(bench: Mapping[str, Any]) -> list[str]:
    problems = []
    for name in bench["methods"]:
        if name not in METHODS:
            problems.append(
                f"benchmark.methods names {name!r}, which is not a method of the benchmark "
                f"(docs/benchmark-protocol.md sec 5); choose among {list(METHODS)}"
            )
    return problems


def _budget_problems(bench: Mapping[str, Any]) -> list[str]:
    problems = []
    for name in bench["methods"]:
        method = METHODS.get(name)
        if method is None:
            continue
        budget = bench["budgets"].get(name, {})
        for key in method.budget:
            if key not in budget:
                problems.append(
                    f"benchmark.budgets.{name}.{key} is missing; give {name}'s budget there"
                )
        for key in method.counts:
            if key in budget and budget[key] < 1:
                problems.append(
                    f"benchmark.budgets.{name}.{key} = {budget[key]} is below one fit; set it to "
                    "1 or more"
                )
    return problems


def _space_problems(bench: Mapping[str, Any]) -> list[str]:
    problems = []
    for space, box in bench["spaces"].items():
        for key in ("log2_C", "log2_gamma"):
            low, high = box[key]
            if not low < high:
                problems.append(
                    f"benchmark.spaces.{space}.{key} = [{low}, {high}] is an empty range; give "
                    "[low, high] with low < high"
                )
    return problems


def _size_problems(bench: Mapping[str, Any]) -> list[str]:
    """The datasets against the folds, the holdout, halving's first round and the ensembles' shares."""
    split = bench["split"]
    methods = [METHODS[m] for m in bench["methods"] if m in METHODS]
    n_folds = int(bench["n_folds"])
    holdout = float(bench["holdout_fraction"])
    where = (
        f"(benchmark.split: test_fraction {split['test_fraction']}, max_train {split['max_train']})"
    )
    problems = []
    for dataset in bench["datasets"]:
        rarer = smallest_training_class(dataset, **split)
        n_train, _ = split_sizes(get_dataset(dataset).n_samples, **split)
        fix = f"raise benchmark.split.max_train or remove {dataset} from benchmark.datasets"
        if any("n_folds" in m.shared for m in methods) and rarer < n_folds:
            problems.append(
                f"benchmark.datasets: {dataset}'s training part holds about {rarer} rows of its "
                f"rarer class {where}, fewer than the benchmark.n_folds = {n_folds} folds need; "
                f"{fix}"
            )
        if any("holdout_fraction" in m.shared for m in methods) and (
            math.floor(rarer * holdout) < 1 or rarer - math.ceil(rarer * holdout) < MIN_PER_CLASS
        ):
            problems.append(
                f"benchmark.datasets: {dataset}'s training part holds about {rarer} rows of its "
                f"rarer class {where}, too few for a holdout of benchmark.holdout_fraction = "
                f"{holdout} and {MIN_PER_CLASS} rows left to fit; {fix}"
            )
        n_fit = n_train - math.ceil(holdout * n_train)
        for name in ("esmo_sh", "esmo_sh_es"):
            if name in bench["methods"]:
                k = bench["budgets"].get(name, {}).get("n_configs", 1)
                if k >= 1 and n_fit // k < 2 * MIN_PER_CLASS:
                    problems.append(
                        f"benchmark.budgets.{name}.n_configs = {k} leaves successive halving's "
                        f"first round {n_fit // k} rows of {dataset}, fewer than "
                        f"{2 * MIN_PER_CLASS}; lower it to at most {n_fit // (2 * MIN_PER_CLASS)} "
                        f"or {fix}"
                    )
        for name in ("esmo_ensemble", "esmo_ensemble_halving"):
            if name in bench["methods"]:
                tp = bench["budgets"].get(name, {}).get("train_proportion", 0.5)
                m = math.floor(tp * n_train + 0.5)
                if m < 2 * MIN_PER_CLASS or rarer * tp < MIN_PER_CLASS:
                    problems.append(
                        f"benchmark.budgets.{name}.train_proportion = {tp} gives members of "
                        f"{m} rows on {dataset}, about {rarer * tp:.1f} of its rarer class "
                        f"(SVMEnsembleClassifier needs {2 * MIN_PER_CLASS} rows and "
                        f"{MIN_PER_CLASS} of each class); raise it or {fix}"
                    )
        if "esmo_pegasos_es" in bench["methods"]:
            epochs = bench["budgets"].get("esmo_pegasos_es", {}).get("epochs", 1.0)
            if round(epochs * n_fit) < 1:
                problems.append(
                    f"benchmark.budgets.esmo_pegasos_es.epochs = {epochs} gives no Pegasos step "
                    f"on {dataset}'s {n_fit} rows (below one fit); raise it"
                )
    return problems


def config_problems(config: Mapping[str, Any]) -> list[str]:
    """Every problem of the workflow configuration's ``benchmark`` section (empty: none)."""
    bench = config["benchmark"]
    return (
        _method_problems(bench)
        + _budget_problems(bench)
        + _space_problems(bench)
        + _size_problems(bench)
    )
