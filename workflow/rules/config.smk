"""The config checked against config/schema.yaml before anything reads it, and the
offline switch (``offline``) resolved into each source's mirror."""

import difflib
import os

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


#: The offline switch (config key ``offline``): one folder laid out like
#: ../shared/datasets, each source's copies in a subfolder, by the source's own mirror key.
OFFLINE_LAYOUT = {
    "datasets.mirror": "libsvm",
    "ensembles.uci.mirror": "uci",
    "nsvm.mnist.mirror": "mnist",
    "gradient.downloads.mirror": "libsvm-bz2",
}
#: The mirror keys the offline switch set (a key set explicitly keeps its own value).
MIRRORS_FROM_OFFLINE = set()
OFFLINE_USAGE = (
    "--config offline=../shared/datasets (or --configfile config/offline.yaml), "
    "relative to the working directory"
)


def config_value(key, node=None):
    """The value at a dotted key path of the config (or of ``node``), e.g. ``nsvm.mnist.mirror``."""
    node = config if node is None else node
    for part in key.split("."):
        node = node[part]
    return node


def resolve_offline(config):
    """Apply the offline switch once, before the download rules read their mirrors.

    ``offline`` names a folder laid out like ../shared/datasets (libsvm/, uci/,
    mnist/, and libsvm-bz2/ for the gradient paper's cluster-only files). Each
    mirror key in OFFLINE_LAYOUT left null reads from its subfolder; one set
    explicitly wins. A folder that does not exist stops the run here; a file a
    requested target needs and the folder lacks stops it when the DAG is built
    (``mirror_input``), before any job runs.
    """
    folder = config["offline"]
    if folder is None:
        return
    if not os.path.isdir(folder):
        raise WorkflowError(
            f"offline = {folder!r}: no such folder (from the working directory "
            f"{os.getcwd()}). The offline switch points every data source at one folder "
            "laid out like ../shared/datasets (libsvm/, uci/, mnist/); give an existing "
            f"folder, e.g. {OFFLINE_USAGE}, or leave offline null to download."
        )
    for key, subfolder in OFFLINE_LAYOUT.items():
        section, name = key.rsplit(".", 1)
        owner = config_value(section, config)
        if owner[name] is None:
            owner[name] = os.path.join(folder, subfolder)
            MIRRORS_FROM_OFFLINE.add(key)


def mirror_input(key, locate):
    """The input function of a download whose mirror is the config key ``key``: the files
    ``locate(mirror, wildcards)`` names when the mirror is a local folder (none for a URL
    or no mirror).

    As inputs, the mirror's files are checked before any job runs; one missing stops the
    run with a message naming the file and the setting that chose the folder (the offline
    switch or ``key``).
    """

    def inputs(wildcards):
        from esmo.data.download import is_url

        mirror = config_value(key)
        if mirror is None or is_url(mirror):
            return []
        if key in MIRRORS_FROM_OFFLINE:
            setting = f"the offline switch (offline = {config['offline']!r})"
            remedy = (
                f"put the files there, or point {key} elsewhere, "
                "or leave offline null to download"
            )
        else:
            setting = f"{key} = {mirror!r}"
            remedy = f"put the files there, or set {key} to null to download"
        try:
            files = [str(path) for path in locate(mirror, wildcards)]
            missing = [path for path in files if not os.path.isfile(path)]
            if missing:
                raise FileNotFoundError(
                    f"no file {', '.join(missing)}, which a requested target needs."
                )
        except FileNotFoundError as exc:
            raise WorkflowError(f"{setting}: {exc} Nothing was run; {remedy}.") from exc
        return files

    return inputs
