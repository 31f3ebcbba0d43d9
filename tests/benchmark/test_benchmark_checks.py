"""The benchmark's bad-input rules (docs/benchmark-protocol.md sec 8): each refused by name."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml
from snakemake.utils import update_config

from esmo.benchmark.checks import config_problems

REPO = Path(__file__).resolve().parents[2]
CONFIG = yaml.safe_load((REPO / "config" / "config.yaml").read_text())


def _with(patch: dict) -> dict:
    config = copy.deepcopy(CONFIG)
    for path, value in patch.items():
        *parents, key = path.split(".")
        node = config
        for name in parents:
            node = node[name]
        node[key] = value
    return config


@pytest.mark.parametrize("name", ["config.yaml", "test.yaml", "benchmark-paper-scale.yaml"])
def test_the_shipped_configs_pass(name):
    config = copy.deepcopy(CONFIG)
    update_config(config, yaml.safe_load((REPO / "config" / name).read_text()))  # Snakemake's merge
    assert config_problems(config) == []


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        (
            {"benchmark.methods": ["grid_svc", "gridsearch"]},
            "benchmark.methods names 'gridsearch', which is not a method of the benchmark",
        ),
        (
            {"benchmark.budgets.esmo_optuna.n_configs": 0},
            "benchmark.budgets.esmo_optuna.n_configs = 0 is below one fit",
        ),
        (
            {"benchmark.budgets.random_svc.n_iter": 0},
            "benchmark.budgets.random_svc.n_iter = 0 is below one fit; set it to 1 or more",
        ),
        (
            {"benchmark.budgets.esmo_gradient.max_fun": 0},
            "benchmark.budgets.esmo_gradient.max_fun = 0 is below one fit",
        ),
        (
            {"benchmark.budgets.esmo_pegasos_es.epochs": 0},
            "benchmark.budgets.esmo_pegasos_es.epochs = 0 gives no Pegasos step",
        ),
        (
            {"benchmark.budgets.random_svc": {}},
            "benchmark.budgets.random_svc.n_iter is missing",
        ),
        (
            {"benchmark.spaces.hpobench.log2_C": [3, 1]},
            "benchmark.spaces.hpobench.log2_C = [3, 1] is an empty range; give [low, high] "
            "with low < high",
        ),
        (
            {"benchmark.spaces.thesis.log2_gamma": [2, 2]},
            "benchmark.spaces.thesis.log2_gamma = [2, 2] is an empty range",
        ),
        (
            {"benchmark.split.max_train": 60},
            "benchmark.datasets: w1a's training part holds about 1 rows of its rarer class "
            "(benchmark.split: test_fraction 0.3, max_train 60), fewer than the "
            "benchmark.n_folds = 5 folds need; raise benchmark.split.max_train or remove w1a",
        ),
        (
            {"benchmark.budgets.esmo_sh.n_configs": 200},
            "benchmark.budgets.esmo_sh.n_configs = 200 leaves successive halving's first round",
        ),
        (
            {"benchmark.budgets.esmo_ensemble.train_proportion": 0.001},
            "benchmark.budgets.esmo_ensemble.train_proportion = 0.001 gives members of",
        ),
        (
            {"benchmark.budgets.esmo_ensemble_halving.train_proportion": 0.1},
            "benchmark.budgets.esmo_ensemble_halving.train_proportion = 0.1 gives members of "
            "60 rows on w8a, about 1.7 of its rarer class",
        ),
    ],
)
def test_bad_input_is_refused_naming_the_key(patch, message):
    problems = config_problems(_with(patch))
    assert any(message in problem for problem in problems), problems


def test_a_method_left_out_is_not_checked():
    config = _with({"benchmark.methods": ["grid_svc"], "benchmark.budgets.random_svc.n_iter": 0})
    assert config_problems(config) == []
