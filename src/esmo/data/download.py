"""One download path for every data source: verified, atomic, retried.

:func:`fetch_verified` is how the LIBSVM files (:mod:`esmo.data.libsvm`, the
digest-verified ones and the shape-checked ones), the UCI files
(:mod:`esmo.data.uci`) and MNIST (:mod:`esmo.data.mnist`) reach the disk. A
source is a URL or a local file (a mirror); the copy goes to a temporary file
in the destination folder, is verified there by content (a callback, e.g.
:func:`digest_check`), and only then moved into place with ``os.replace``, so
``dest`` is either absent or a verified file: a failed check, a transfer cut
mid-stream or an interrupt leaves nothing behind. Transient network errors are
retried with exponential backoff; a local copy is made once. Each source keeps
its own error messages: the ``hint`` it passes names its mirror option, and
:func:`workflow_advice` adds the workflow's: its offline switch (one folder for
every source, :data:`OFFLINE_SWITCH`) and the source's own mirror key.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import shutil
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path

#: Schemes that make a source (or a mirror) a URL rather than a local path.
URL_SCHEMES = ("http", "https", "ftp", "file")
#: The mode a file is created with before the umask applies (as ``open`` creates files).
_CREATION_MODE = 0o666


def _umask() -> int:
    """The process's umask (read by setting it, then setting it back)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


#: Errors another attempt may not meet: network failures, timeouts, a connection cut
#: mid-stream (``http.client.IncompleteRead`` is an ``HTTPException``, not an ``OSError``).
TRANSIENT_ERRORS = (
    urllib.error.URLError,
    TimeoutError,
    ConnectionError,
    http.client.HTTPException,
)


class DatasetVerificationError(ValueError):
    """A file (or the dataset parsed from it) differs from what its registry expects."""


class DownloadError(OSError):
    """A file could not be fetched from its URL or mirror."""


def is_url(location: str | os.PathLike[str]) -> bool:
    """Whether ``location`` is a URL (one of :data:`URL_SCHEMES`) rather than a local path."""
    return urllib.parse.urlparse(os.fspath(location)).scheme in URL_SCHEMES


def mirror_hint(files: str, example: str) -> str:
    """The advice a failed download of a registry ends with: the ``mirror=`` to pass."""
    return (
        f"If this machine is offline, fetch from a mirror instead: pass mirror= a folder or "
        f"base URL holding {files} (e.g. mirror='{example}')."
    )


#: The workflow's offline switch: the config key naming one folder laid out like
#: :data:`OFFLINE_EXAMPLE` (libsvm/, uci/, mnist/), every source's mirror at once.
OFFLINE_SWITCH = "offline"
#: The offline copies beside a checkout, relative to the repository (the working directory).
OFFLINE_EXAMPLE = "../shared/datasets"
#: The workflow's one setting that makes every download read the offline copies.
OFFLINE_CONFIG = f"--config {OFFLINE_SWITCH}={OFFLINE_EXAMPLE}"


def workflow_advice(mirror_key: str, mirror_example: str) -> str:
    """What a failed download in the workflow ends with: the offline switch, which points every
    source at one folder, then ``mirror_key``, the source's own mirror (``mirror_example`` is a
    ``--config`` value setting it)."""
    return (
        f"In the workflow, turn on the offline switch, snakemake {OFFLINE_CONFIG} (a folder "
        f"laid out like {OFFLINE_EXAMPLE}: libsvm/, uci/, mnist/; or --configfile "
        f"config/offline.yaml), or set {mirror_key} alone to a folder or base URL with the "
        f"files, e.g. snakemake --config '{mirror_example}'."
    )


def fetch_in_workflow(
    fetch: Callable[..., Path], *args, mirror_key: str, mirror_example: str, **kwargs
) -> Path:
    """``fetch(*args, **kwargs)`` (a registry's fetch) for a workflow rule: a
    :class:`DownloadError` is raised again with :func:`workflow_advice` appended."""
    try:
        return fetch(*args, **kwargs)
    except DownloadError as exc:
        raise DownloadError(f"{exc}\n{workflow_advice(mirror_key, mirror_example)}") from exc


def digest_check(expected: str, algorithm: str = "sha256") -> Callable[[Path], None]:
    """A check for :func:`fetch_verified`: the file's ``algorithm`` hex digest must be ``expected``."""

    def check(path: Path) -> None:
        with open(path, "rb") as f:
            found = hashlib.file_digest(f, algorithm).hexdigest()
        if found != expected:
            raise DatasetVerificationError(
                f"{algorithm.upper()} {found}, not the official {expected}: the file is "
                "truncated, corrupted or a different version; fetch it again"
            )

    return check


def _download(url: str, target: Path, timeout: float) -> None:
    with urllib.request.urlopen(url, timeout=timeout) as response, open(target, "wb") as out:
        shutil.copyfileobj(response, out)


def fetch_verified(
    source: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    dest: str | os.PathLike[str],
    check: Callable[[Path], None],
    *,
    hint: str,
    retries: int = 3,
    timeout: float = 60.0,
) -> Path:
    """Copy or download ``source`` into a temporary file beside ``dest``, ``check`` it, move it.

    ``source`` is a URL or a local path, or several tried in order (mirrors of
    one file). ``check`` raises :class:`DatasetVerificationError` for a wrong
    file; it may rewrite the temporary file (e.g. to decompress it or keep one
    archive member). A URL is tried ``retries`` times with exponential backoff
    (2, 4, ... seconds, at most 30) on :data:`TRANSIENT_ERRORS` and on failed
    checks; a local copy once, its failed check raised at once. Every failure
    removes the temporary file, so ``dest`` appears only verified and whole.
    A download that never succeeds raises :class:`DownloadError` ending with
    ``hint`` (how to point the source at a mirror).
    """
    if retries < 1:
        raise ValueError(f"retries must be >= 1, got {retries}")
    if isinstance(source, str | os.PathLike):
        sources = [os.fspath(source)]
    else:
        sources = [os.fspath(s) for s in source]
    if not sources:
        raise ValueError("give at least one source (a URL or a local path)")
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    attempts = retries if any(is_url(s) for s in sources) else 1
    last_error: Exception | None = None
    for attempt in range(attempts):
        if attempt:
            time.sleep(min(2.0**attempt, 30.0))
        for src in sources:
            remote = is_url(src)
            fd, tmp_name = tempfile.mkstemp(
                prefix=f".{dest.name}.", suffix=".part", dir=dest.parent
            )
            os.close(fd)
            tmp = Path(tmp_name)
            tmp.chmod(_CREATION_MODE & ~_umask())  # mkstemp's 0600 would hide it from the group
            try:
                if remote:
                    _download(src, tmp, timeout)
                else:
                    shutil.copyfile(src, tmp)
                check(tmp)
                os.replace(tmp, dest)
                return dest
            except TRANSIENT_ERRORS as exc:
                last_error = exc
            except DatasetVerificationError as exc:
                if not remote:
                    raise DatasetVerificationError(f"{src}: {exc}") from exc
                last_error = exc
            finally:
                tmp.unlink(missing_ok=True)
    where = ", ".join(sources)
    if isinstance(last_error, DatasetVerificationError):
        raise DatasetVerificationError(
            f"{where} failed verification {attempts} times: {last_error}"
        ) from last_error
    raise DownloadError(
        f"could not download {where} after {attempts} attempts ({last_error}). {hint}"
    ) from last_error
