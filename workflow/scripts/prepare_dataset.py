"""Parse, verify and normalise one LIBSVM dataset into results/data/{name}.npz + .json."""

import json
import logging

import numpy as np

from esmo.data.libsvm import array_digest, get_spec, load, minmax_normalise, verify
from esmo.papers.common.job_log import downloaded_inputs, job_log

with job_log(snakemake.log[0], "preparing the dataset"):
    name = snakemake.wildcards.libsvm
    normalise = snakemake.params.normalise
    with downloaded_inputs(snakemake.input, "download_libsvm"):
        X, y = load(snakemake.input[0], name)
        verify(X, y, name)
    raw_digest = array_digest(X, y)
    if normalise == "dataset":
        X = minmax_normalise(X)
    np.savez_compressed(snakemake.output.npz, X=X, y=y)
    meta = {
        "name": name,
        "source": "libsvm",
        "file": get_spec(name).filename,
        "n_samples": int(X.shape[0]),
        "n_features": int(X.shape[1]),
        "class_counts": {"-1": int(np.sum(y == -1)), "+1": int(np.sum(y == 1))},
        "normalise": normalise,
        "raw_digest": raw_digest,
        "digest": array_digest(X, y),
    }
    with open(snakemake.output.meta, "w") as f:
        json.dump(meta, f, indent=2)
    logging.info("prepared %s: %s", name, meta)
