"""The config checked against config/schema.yaml before anything reads it."""

import difflib

import jsonschema
import yaml
from snakemake.exceptions import WorkflowError


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
