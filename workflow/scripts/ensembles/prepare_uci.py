"""Parse, verify and pool one UCI dataset into results/ensembles/data/{name}.npz + .json."""

import json
import logging
from pathlib import Path

import numpy as np

from esmo.data.uci import get_dataset, load
from esmo.papers.common.job_log import downloaded_inputs, job_log

with job_log(snakemake.log[0], "preparing the UCI dataset"):
    name = snakemake.wildcards.uci
    with downloaded_inputs(snakemake.input, "ensembles_download_uci"):
        table = load(name, Path(snakemake.input[0]).parent)
    np.savez_compressed(
        snakemake.output.npz,
        numeric=table.numeric,
        categorical=table.categorical,
        y=table.y,
        numeric_names=np.array(table.numeric_names),
        categorical_names=np.array(table.categorical_names),
    )
    meta = {
        "name": name,
        "source": "uci",
        "files": list(get_dataset(name).files),
        "n_samples": int(table.y.size),
        "n_numeric": int(table.numeric.shape[1]),
        "n_categorical": int(table.categorical.shape[1]),
        "class_counts": {"-1": int(np.sum(table.y == -1)), "+1": int(np.sum(table.y == 1))},
        "positive": get_dataset(name).positive,
    }
    Path(snakemake.output.meta).write_text(json.dumps(meta, indent=2) + "\n")
    logging.info("prepared %s: %s", name, meta)
