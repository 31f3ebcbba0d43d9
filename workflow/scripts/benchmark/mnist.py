"""Fetch MNIST (official URLs or the mirror folder) and keep every image with its digit."""

import logging

from esmo.benchmark.data import write_mnist_pool
from esmo.papers.common.job_log import job_log

p = snakemake.params
with job_log(snakemake.log[0], "MNIST's pool"):
    offline = write_mnist_pool(
        snakemake.output[0], base_urls=p.base_urls, mirror=p.mirror, timeout=p.timeout_s
    )
    if offline:
        logging.warning(
            "DEVIATION: no training images in the mirror; the pool is the offline 5k subset "
            "and the 10,000 test images, not MNIST's 70,000 images"
        )
