"""Generate one synthetic blob dataset into results/data/blobs-d{d}.npz + .json."""

import json
import logging

import numpy as np

from esmo.data.libsvm import array_digest, minmax_normalise
from esmo.papers.common.job_log import job_log
from esmo.papers.thesis.blobs import gaussian_blobs

with job_log(snakemake.log[0], "generating the blobs"):
    d = int(snakemake.wildcards.d)
    params = snakemake.params
    # One stream per dimension, all fixed by the configured seed.
    seed = [params.seed, d]
    X, y = gaussian_blobs(
        d, sample_factor=params.sample_factor, min_samples=params.min_samples, seed=seed
    )
    raw_digest = array_digest(X, y)
    if params.normalise == "dataset":
        X = minmax_normalise(X)
    np.savez_compressed(snakemake.output.npz, X=X, y=y)
    meta = {
        "name": f"blobs-d{d}",
        "source": "synthetic",
        "d": d,
        "sample_factor": params.sample_factor,
        "min_samples": params.min_samples,
        "seed": params.seed,
        "n_samples": int(X.shape[0]),
        "n_features": int(X.shape[1]),
        "class_counts": {"-1": int(np.sum(y == -1)), "+1": int(np.sum(y == 1))},
        "normalise": params.normalise,
        "raw_digest": raw_digest,
        "digest": array_digest(X, y),
    }
    with open(snakemake.output.meta, "w") as f:
        json.dump(meta, f, indent=2)
    logging.info("generated %s", meta)
