"""config/schema.yaml and config/config.yaml: every default written once, in config.yaml;
the schema types and bounds every key; the shipped configs; clear rejection of bad values."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from esmo.early_stopping import J_HIGH
from esmo.papers.thesis.hpo import es_config_of
from esmo.solver.tracking import SMOOTHING_T

REPO = Path(__file__).resolve().parents[2]
SCHEMA = str(REPO / "config" / "schema.yaml")


def _load(name: str) -> dict:
    return yaml.safe_load((REPO / "config" / name).read_text())


def _merged(base: dict, override: dict) -> dict:
    """``override`` merged into ``base`` key by key, as Snakemake merges config files."""
    out = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merged(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _validated(config: dict) -> dict:
    config = copy.deepcopy(config)
    validate(config, SCHEMA)
    return config


def _subschemas(node: dict, path: str):
    """Every schema object inside ``node``, with its path (property names and keywords)."""
    yield node, path
    for keyword in ("properties", "patternProperties", "$defs"):
        for name, sub in node.get(keyword, {}).items():
            yield from _subschemas(
                sub, f"{path}.{name}" if keyword == "properties" else f"{path}.{keyword}.{name}"
            )
    for keyword in ("items", "additionalProperties", "contains", "not", "if", "then", "else"):
        if isinstance(node.get(keyword), dict):
            yield from _subschemas(node[keyword], f"{path}.{keyword}")
    for keyword in ("allOf", "anyOf", "oneOf", "prefixItems"):
        for i, sub in enumerate(node.get(keyword, [])):
            yield from _subschemas(sub, f"{path}.{keyword}[{i}]")


def test_schema_holds_no_defaults():
    """Every default is written once, in config/config.yaml (always loaded before a user's
    configfiles): a ``default`` in the schema would be a second copy that can drift from it."""
    schema = yaml.safe_load(Path(SCHEMA).read_text())
    with_default = [path for node, path in _subschemas(schema, "<schema>") if "default" in node]
    assert not with_default, (
        f"the schema gives a default (put it in config/config.yaml): {with_default}"
    )


def test_config_yaml_is_valid_and_holds_every_key():
    """config/config.yaml, the one place of the defaults, validates unchanged and is complete:
    every key the schema declares under an object with fixed properties is present."""
    schema = yaml.safe_load(Path(SCHEMA).read_text())
    config = _load("config.yaml")
    assert _validated(config) == config
    missing = []

    def walk(node, value, path):
        if "$ref" in node:
            node = {**schema["$defs"][node["$ref"].rsplit("/", 1)[1]], **node}
        if not isinstance(value, dict):
            return
        for key, sub in node.get("properties", {}).items():
            if key in value:
                walk(sub, value[key], f"{path}.{key}" if path else key)
            else:
                missing.append(f"{path}.{key}" if path else key)

    walk(schema, config, "")
    assert not missing, f"config/config.yaml lacks keys the schema declares: {missing}"


def test_schema_documents_and_bounds_every_key():
    schema = yaml.safe_load(Path(SCHEMA).read_text())
    defs = schema["$defs"]

    def walk(node, path):
        if "$ref" in node:
            node = {**defs[node["$ref"].rsplit("/", 1)[1]], **node}
        if node.get("type") == "object":
            assert node.get("additionalProperties") is False, f"{path} accepts unknown keys"
            for key, sub in node["properties"].items():
                walk(sub, f"{path}.{key}")
        elif node.get("type") in ("integer", "number"):
            assert "maximum" in node and ("minimum" in node or "exclusiveMinimum" in node), path

    for key, sub in schema["properties"].items():
        assert "description" in sub, f"{key} is undocumented"
        walk(sub, key)


def test_shared_sections_and_one_section_per_paper():
    """The offline switch, datasets and solver are shared; every paper's keys are under its own
    section, and the benchmark's under ``benchmark``."""
    config = _load("config.yaml")
    papers = ["thesis", "mdl", "nsvm", "ensembles", "gradient"]
    assert list(config) == ["offline", "datasets", "solver", *papers, "benchmark"]
    assert list(config["thesis"]) == [
        "datasets",
        "synthetic",
        "splits",
        "search_space",
        "sampling",
        "early_stopping_rule",
        "sweeps",
        "scoring",
        "hpo",
        "appendix_a",
        "illustrations",
    ]


@pytest.mark.parametrize(
    "name", ["benchmark-paper-scale.yaml", "benchmark-ten-seeds.yaml", "gradient-paper-scale.yaml"]
)
def test_paper_scale_configs_merge_into_valid_configs(name):
    _validated(_merged(_load("config.yaml"), _load(name)))


def test_reduced_config_merges_into_a_valid_config():
    config = _validated(_merged(_load("config.yaml"), _load("test.yaml")))
    thesis = config["thesis"]
    assert thesis["splits"] == {"n_folds": 5, "runs": 2, "seed": 0}
    assert thesis["datasets"]["e1"] == ["fourclass", "breast-cancer", "diabetes"]
    assert thesis["hpo"] == {
        "n_configs": 4,
        "seed": 4,
        "methods": ["RS", "RS+ES", "SH", "SH+ES", "RS+ES fresh", "SH+ES fresh"],
    }
    assert thesis["early_stopping_rule"] == "published"


def test_the_configs_library_values_are_the_librarys():
    """j_high's entries and the sigmoid's sharpness are the library's constants."""
    config = _load("config.yaml")
    j_high = es_config_of(J_HIGH)
    assert config["ensembles"]["variants"]["early_stopping"] == j_high
    assert config["gradient"]["inexact"]["searches"]["early_stopping"] == j_high
    assert config["gradient"]["tuner"]["sharpness"] == SMOOTHING_T
    assert config["benchmark"]["early_stopping"] == j_high


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ({"datasets": {"normalise": "global"}}, "'global' is not one of"),
        ({"datasets": {"retries": 0}}, "less than the minimum of 1"),
        ({"datasets": {"mirror": ""}}, "should be non-empty"),
        ({"offline": ""}, "should be non-empty"),
        ({"offline": ["../shared/datasets"]}, "is not of type 'string', 'null'"),
        ({"datasets": {"base_url": "www.example.org"}}, "does not match"),
        ({"datasets": {"mirrors": "x"}}, "'mirrors' was unexpected"),
        ({"thesis": {"datasets": {"e1": ["iris"]}}}, "'iris' is not one of"),
        ({"thesis": {"splits": {"n_folds": 2}}}, "less than the minimum of 3"),
        ({"thesis": {"synthetic": {"dimensions": [2, 2]}}}, "non-unique"),
        ({"thesis": {"sampling": {"n_svm_configs": "400"}}}, "'400' is not of type 'integer'"),
        ({"thesis": {"search_space": {"rbf": {"log2_C": [1]}}}}, "too short"),
        ({"thesis": {"hpo": {"n_configs": 1}}}, "less than the minimum of 2"),
        ({"thesis": {"e3": {"n_configs": 4}}}, "'e3' was unexpected"),
        ({"experiments": {"e1": ["a1a"]}}, "'experiments' was unexpected"),
        ({"solver": {"max_iter": 0}}, "less than the minimum of 1"),
        ({"nsvm": {"lr_tuning": {"algorithms": {"mnist": ["nsvm5"]}}}}, "'nsvm5' is not one of"),
        ({"nsvm": {"lr_tuning": {"algorithms": {"mnst": ["nsvm3"]}}}}, "'mnst' was unexpected"),
    ],
)
def test_bad_values_are_rejected_with_a_clear_message(patch, message):
    with pytest.raises(WorkflowError, match=message):
        _validated(_merged(_load("config.yaml"), patch))


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ({"thesis": {"splits": {"runs": 6}}}, "thesis.splits.runs = 6 exceeds thesis.splits"),
        ({"thesis": {"search_space": {"linear": {"log2_C": [5, -3]}}}}, "has low > high"),
        (
            {"thesis": {"scoring": {"high_complexity": ["a1a", "w1a"]}}},
            "thesis.scoring.high_complexity names ['w1a']",
        ),
        ({"datasets": {"normalise": "global"}}, "'global' is not one of"),
        (
            {"thesis": {"sweeps": {"check": {"n_svm": 3, "n_es": 101}}}},
            "thesis.sweeps.check.n_es = 101 exceeds thesis.sampling.n_es_configs = 100",
        ),
        (
            {"thesis": {"sweeps": {"chunk_size": 2, "check": {"n_svm": 3, "n_es": 10}}}},
            "thesis.sweeps.check.n_svm = 3 exceeds the 2 SVM configurations of the first",
        ),
        # passed the dry run and failed mid-run before (issue 35, item 8)
        (
            {"ensembles": {"table1": {"train_proportions": [0.001]}}},
            "ensembles.table1.train_proportions on bank (n = 10000): train_proportion=0.001 "
            "leaves on average 1.17 rows of class 1 (of 1170)",
        ),
        (
            {"gradient": {"tuner": {"sharpness": 5.0}}},
            "gradient.tuner.sharpness = 5.0 differs from the sharpness 10.0",
        ),
        (
            {"benchmark": {"budgets": {"random_svc": {"n_iter": 0}}}},
            "benchmark.budgets.random_svc.n_iter = 0 is below one fit; set it to 1 or more",
        ),
        (
            {"benchmark": {"methods": ["grid_svc", "esmo_hyperbands"]}},
            "benchmark.methods names 'esmo_hyperbands', which is not a method of the benchmark",
        ),
        (
            {"benchmark": {"spaces": {"hpobench": {"log2_C": [10, -10]}}}},
            "benchmark.spaces.hpobench.log2_C = [10, -10] is an empty range",
        ),
        (
            {"benchmark": {"split": {"max_train": 100}}},
            "benchmark.datasets: w1a's training part holds about 2 rows of its rarer class",
        ),
    ],
)
def test_workflow_rejects_bad_config_before_running(tmp_path, override, message):
    """The checks the schema cannot express run when the Snakefile loads.

    The override goes through a configfile: ``--config`` parses nested values
    with YAML's BaseLoader, so numbers inside a nested mapping arrive as strings.
    """
    configfile = tmp_path / "override.yaml"
    configfile.write_text(yaml.safe_dump(override))
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--cores", "1", "--snakefile",
         str(REPO / "Snakefile"), "--directory", str(tmp_path), "--configfile", str(configfile)],
        capture_output=True, text=True, cwd=REPO, check=False,
    )  # fmt: skip
    assert result.returncode != 0
    assert message in result.stdout + result.stderr


def test_a_misspelt_key_gets_one_short_line_and_the_key_meant(tmp_path):
    """Snakemake's own validate printed the whole schema and config (3,641 lines) after the
    one useful line (issue 35, item 8): the check names the key path and the nearest key."""
    configfile = tmp_path / "override.yaml"
    configfile.write_text(yaml.safe_dump({"thesiss": {"splits": {"runs": 2}}, "solver": {"tl": 1}}))
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--cores", "1", "--snakefile",
         str(REPO / "Snakefile"), "--directory", str(tmp_path), "--configfile", str(configfile)],
        capture_output=True, text=True, cwd=REPO, check=False,
    )  # fmt: skip
    out = result.stdout + result.stderr
    assert result.returncode != 0
    assert "did you mean 'thesis' for 'thesiss'?" in out
    assert "solver: Additional properties are not allowed ('tl' was unexpected)" in out
    assert len(out.splitlines()) < 40, out
