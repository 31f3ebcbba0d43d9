"""Fetch one dataset file into resources/, verified by content (the LIBSVM or UCI registry).

The rule names the registry (``esmo.data.<registry>``, whose ``fetch``, or the
function the optional ``fetch`` parameter names, verifies the file) and the
config key of its mirror, which a failed download's message points to.
"""

import importlib
import logging

from esmo.papers.common.job_log import job_log

p = snakemake.params
source = importlib.import_module(f"esmo.data.{p.registry}")
name = snakemake.wildcards[0]
with job_log(snakemake.log[0], f"fetching {name}"):
    try:
        path = getattr(source, getattr(p, "fetch", "fetch"))(
            name,
            snakemake.output[0],
            mirror=p.mirror,
            base_url=p.base_url,
            retries=p.retries,
            timeout=p.timeout_s,
        )
    except source.DownloadError as exc:
        message = (
            f"{exc}\nIn the workflow, set {p.mirror_key} to a folder or base URL with the "
            f"{p.registry.upper()} files, e.g.\n  snakemake --config '{p.mirror_example}'\n"
            "or the same key in config/config.yaml."
        )
        logging.error(message)
        raise SystemExit(message) from exc
    logging.info("fetched %s from %s to %s, verified", name, p.mirror or p.base_url, path)
