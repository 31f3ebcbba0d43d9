"""Fetch one dataset file into resources/, verified by content (the LIBSVM or UCI registry).

The rule names the registry (``esmo.data.<registry>``, whose ``fetch``, or the
function the optional ``fetch`` parameter names, verifies the file) and the
config key of its mirror, which a failed download's message points to after the
offline switch (``esmo.data.download.workflow_advice``).
"""

import importlib
import logging

from esmo.data.download import DownloadError, fetch_in_workflow
from esmo.papers.common.job_log import job_log

p = snakemake.params
source = importlib.import_module(f"esmo.data.{p.registry}")
name = snakemake.wildcards[0]
with job_log(snakemake.log[0], f"fetching {name}"):
    try:
        path = fetch_in_workflow(
            getattr(source, getattr(p, "fetch", "fetch")),
            name,
            snakemake.output[0],
            mirror=p.mirror,
            base_url=p.base_url,
            retries=p.retries,
            timeout=p.timeout_s,
            mirror_key=p.mirror_key,
            mirror_example=p.mirror_example,
        )
    except DownloadError as exc:
        logging.error("%s", exc)
        raise SystemExit(str(exc)) from exc
    logging.info("fetched %s from %s to %s, verified", name, p.mirror or p.base_url, path)
