"""Fetch one LIBSVM file into resources/libsvm/, verified by content."""

import logging

from esmo.data.libsvm import DownloadError, fetch
from esmo.experiments.job_log import job_log

name = snakemake.wildcards.libsvm
mirror = snakemake.params.mirror
with job_log(snakemake.log[0], f"fetching {name}"):
    try:
        path = fetch(
            name,
            snakemake.output[0],
            mirror=mirror,
            base_url=snakemake.params.base_url,
            retries=snakemake.params.retries,
            timeout=snakemake.params.timeout_s,
        )
    except DownloadError as exc:
        message = (
            f"{exc}\nIn the workflow, set datasets.mirror to a folder or base URL with the "
            'LIBSVM files, e.g.\n  snakemake --config \'datasets={"mirror": '
            '"../shared/datasets/libsvm"}\'\nor `mirror: ../shared/datasets/libsvm` under '
            "`datasets:` in config/config.yaml."
        )
        logging.error(message)
        raise SystemExit(message) from exc
    logging.info(
        "fetched %s from %s to %s, verified", name, mirror or snakemake.params.base_url, path
    )
