"""Logging of one workflow job into its rule's log file, and what a failed job tells the user."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from esmo.data.download import DatasetVerificationError


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


@contextmanager
def downloaded_inputs(paths: list[str] | tuple[str, ...], rule: str) -> Iterator[None]:
    """Turn a verification failure of already downloaded files into the way to fetch them again.

    The download rules verify every file before it appears, so a file that fails
    here was damaged afterwards; Snakemake sees it present and would not download
    it again, so "fetch it again" alone leaves the user stuck. The message names
    the files to delete and the ``--forcerun`` that refetches them.
    """
    try:
        yield
    except DatasetVerificationError as exc:
        files = " ".join(str(Path(p)) for p in paths)
        raise DatasetVerificationError(
            f"{exc}\nThe downloaded file(s) {files} are damaged. Delete them (rm {files}) or "
            f"rerun with `--forcerun {rule}` so that the workflow fetches them again."
        ) from exc
