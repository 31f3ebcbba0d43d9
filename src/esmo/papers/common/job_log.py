"""Logging of one workflow job into the log file its Snakemake rule declares."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def job_log(path: str, task: str) -> Iterator[None]:
    """Send :mod:`logging` to ``path`` and record a failure's traceback there before it propagates.

    Snakemake deletes a failed job's outputs but keeps its log, and the profiles
    print failed jobs' logs, so the traceback in the log is what a user reads.
    """
    logging.basicConfig(
        filename=path,
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(message)s",
        force=True,
    )
    try:
        yield
    except Exception:
        logging.exception("%s failed", task)
        raise
