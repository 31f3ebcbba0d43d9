"""Fetch MNIST (official URLs or the mirror folder) and keep the zeros and ones, normalised."""

import logging
import tempfile

import numpy as np

from esmo.data.mnist import fetch, load_zero_one
from esmo.papers.common.job_log import job_log

with job_log(snakemake.log[0], "MNIST 0/1"):
    p = snakemake.params
    with tempfile.TemporaryDirectory() as tmp:
        files = fetch(tmp, base_urls=p.base_urls, mirror=p.mirror, timeout=p.timeout_s)
        data = load_zero_one(files)
    if data["offline_subset"]:
        logging.warning(
            "DEVIATION: no training images in the mirror; training on the offline subset's "
            "%d zeros and ones instead of 12,665",
            len(data["y"]),
        )
    np.savez_compressed(snakemake.output[0], **data)
    logging.info("%d training and %d test images", len(data["y"]), len(data["y_test"]))
