"""Pool, encode and verify one dataset of the gradient paper into results/gradient/data/{name}.npz + .json."""

import json
import logging
from pathlib import Path

import numpy as np

from esmo.data.libsvm import SHAPE_CHECKED
from esmo.papers.common.job_log import downloaded_inputs, job_log
from esmo.papers.gradient.data import get_dataset, load_dataset

with job_log(snakemake.log[0], "preparing the dataset"):
    name = snakemake.wildcards.gradient_dataset
    resources = Path(snakemake.input[0]).parents[1]
    # the rules that fetched the inputs: a damaged one is fetched again with --forcerun
    rules = {
        "gradient_download_large"
        if Path(f).name in SHAPE_CHECKED
        else ("ensembles_download_uci" if Path(f).parent.name == "uci" else "download_libsvm")
        for f in snakemake.input
    }
    with downloaded_inputs(snakemake.input, " ".join(sorted(rules))):
        X, y = load_dataset(name, resources)
    np.savez(snakemake.output.npz, X=X, y=y)
    spec = get_dataset(name)
    meta = {
        "name": name,
        "paper_dataset": spec.paper_dataset,
        "files": list(snakemake.input),
        "n_samples": int(X.shape[0]),
        "n_features": int(X.shape[1]),
        "class_counts": {"-1": int(np.sum(y == -1)), "+1": int(np.sum(y == 1))},
        "verified": "by digest" if spec.source != "shape_checked" else "by shape and labels only",
    }
    Path(snakemake.output.meta).write_text(json.dumps(meta, indent=2) + "\n")
    logging.info("prepared %s: %s", name, meta)
