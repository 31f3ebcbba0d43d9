"""esmo: budget-aware SVM training and tuning, and the reproduction of five papers.

Each paper has a named target: the 2025 MSc thesis on early stopping inside SMO
(``thesis``), MDL model selection without validation data (``mdl``), neural SVMs
and kernel Pegasos (``nsvm``), SVM ensembles on a budget (``ensembles``) and
gradient-based tuning of C, gamma and ARD weights (``gradient``); ``all`` runs
them all. Each paper's protocol is docs/<paper>-protocol.md; the layout and the
data contracts are in docs/architecture.md. Run with
`snakemake --profile profiles/default`.
"""

import difflib

import jsonschema
import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import min_version

min_version("8.0")


configfile: os.path.join(workflow.basedir, "config", "config.yaml")


def check_config(config, schema_file):
    """Validate the config against the schema, one short line per problem.

    Snakemake's own validate prints the whole schema and config after the first
    problem (thousands of lines for a misspelt key); this names each key path and
    the nearest known key.
    """
    with open(os.path.join(workflow.basedir, schema_file)) as f:
        schema = yaml.safe_load(f)
    validator = jsonschema.validators.validator_for(schema)(schema)
    lines = []
    for error in sorted(
        validator.iter_errors(config), key=lambda e: list(map(str, e.path))
    ):
        where = ".".join(map(str, error.path)) or "the top level"
        line = f"{where}: {error.message}"
        if error.validator == "additionalProperties":
            known = list(error.schema.get("properties", {}))
            for key in set(error.instance) - set(known):
                near = difflib.get_close_matches(str(key), known, n=1)
                line += f"; did you mean {near[0]!r} for {key!r}?" if near else ""
        lines.append(line)
    if lines:
        raise WorkflowError(
            f"Invalid configuration ({schema_file}; keys in config/README.md):\n  "
            + "\n  ".join(lines)
        )


check_config(config, "config/schema.yaml")


report: "workflow/report/workflow.rst"


# Shared by every paper: helpers, the registry of papers, LIBSVM download and preparation.
include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
# One folder per paper (workflow/rules/<paper>/paper.smk: its rules and named targets).
include: "workflow/rules/thesis/paper.smk"
include: "workflow/rules/mdl/paper.smk"
include: "workflow/rules/nsvm/paper.smk"
include: "workflow/rules/ensembles/paper.smk"
include: "workflow/rules/gradient/paper.smk"


rule all:
    """Every paper's reproduction (the rules thesis, mdl, nsvm, ensembles and gradient)."""
    default_target: True
    input:
        paper_products(),
