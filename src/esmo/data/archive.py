"""Safe extraction of downloaded zip archives (the UCI datasets come zipped).

``zipfile.ZipFile.extractall`` strips ``..`` and leading slashes, but it silently
rewrites such names instead of refusing them, follows no size limit, and writes
straight into the target, so a failure leaves half an archive behind. A dataset
archive with an entry aiming outside its folder is corrupt or hostile: refuse it
whole, before anything is written, and extract the rest into a temporary folder
that replaces the target only when every member is out.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import zipfile
from pathlib import Path, PurePosixPath


class UnsafeArchiveError(ValueError):
    """A zip archive whose entries would land outside the target folder, or too big."""


def _member_problem(info: zipfile.ZipInfo) -> str | None:
    name = info.filename
    path = PurePosixPath(name.replace("\\", "/"))
    if not name or path.is_absolute() or (len(name) > 1 and name[1] == ":"):
        return "is an absolute path"
    if ".." in path.parts:
        return "climbs out of the target folder (..)"
    if stat.S_ISLNK(info.external_attr >> 16):
        return "is a symbolic link"
    return None


def extract_zip(
    archive: str | os.PathLike[str],
    target: str | os.PathLike[str],
    *,
    max_bytes: int = 4 * 1024**3,
) -> list[Path]:
    """Extract ``archive`` into the folder ``target`` and return the files written.

    Every entry is checked first: an absolute name, a ``..`` component, a symbolic
    link, or a total uncompressed size above ``max_bytes`` (a zip bomb) raises
    :class:`UnsafeArchiveError` naming the entry, and nothing is written. A corrupt
    member (bad CRC) raises ``zipfile.BadZipFile`` and leaves ``target`` untouched.
    ``target`` appears only once the whole archive is extracted; an existing
    ``target`` is replaced.
    """
    target = Path(target)
    with zipfile.ZipFile(archive) as zf:
        infos = zf.infolist()
        for info in infos:
            problem = _member_problem(info)
            if problem:
                raise UnsafeArchiveError(
                    f"{os.fspath(archive)}: entry {info.filename!r} {problem}; refusing to "
                    "extract it (the archive is corrupt or not the expected dataset)"
                )
        total = sum(info.file_size for info in infos)
        if total > max_bytes:
            raise UnsafeArchiveError(
                f"{os.fspath(archive)}: {total} bytes uncompressed, above max_bytes={max_bytes}"
            )
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
        try:
            root = staging.resolve()
            written = []
            for info in infos:
                dest = (staging / info.filename).resolve()
                if root not in dest.parents and dest != root:  # defence in depth
                    raise UnsafeArchiveError(f"entry {info.filename!r} resolves outside")
                if info.is_dir():
                    dest.mkdir(parents=True, exist_ok=True)
                    continue
                dest.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(info) as src, open(dest, "wb") as out:
                    shutil.copyfileobj(src, out)  # zipfile checks each member's CRC
                written.append(dest.relative_to(root))
            if target.exists():
                shutil.rmtree(target)
            os.replace(staging, target)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    return [target / rel for rel in written]
