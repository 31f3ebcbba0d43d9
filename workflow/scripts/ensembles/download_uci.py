"""Fetch one UCI file into resources/uci/, verified by rows, class counts and digest."""

import logging

from esmo.data.uci import DownloadError, fetch
from esmo.experiments.job_log import job_log

name = snakemake.wildcards.uci_file
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
            f"{exc}\nIn the workflow, set ensembles.uci.mirror to a folder or base URL with the "
            'UCI files, e.g.\n  snakemake --config \'ensembles={"uci": {"mirror": '
            '"../shared/datasets/uci"}}\'\nor `mirror: ../shared/datasets/uci` under '
            "`ensembles: uci:` in config/config.yaml."
        )
        logging.error(message)
        raise SystemExit(message) from exc
    logging.info(
        "fetched %s from %s to %s, verified", name, mirror or snakemake.params.base_url, path
    )
