"""The memory of kernel-row stores, kept from one fit for the next: fresh pages cost as much as rows.

A row store touches up to ``cache_size_mb`` of memory (1,024 MB by default),
page by page as its rows fill. Memory the process has not touched before is
slow to hand out: the kernel zeroes every page, and on a virtual machine the
host may back it only then. On the 2-core machine of the benchmarks a first
touch of 1 GB took 2.3 s of system time, the same gigabyte freed and touched
again 0.13 s, and a fit on MAGIC whole (19,020 points, 13,041 rows, 1.0 s of
computing) spent up to 1.5 s more in page faults (``benchmarks/bench_scale.py``).
LIBSVM keeps freed rows in its heap, and oneDAL in TBB's allocator; esmo keeps
the last store's buffer: :func:`take` hands it to the next store that fits in
it, and a run gives its store back (:func:`give_back`) when no one reads it
any more. One buffer is kept at most, the largest given back; :func:`release`
frees it. Values never depend on which memory a store got.
"""

from __future__ import annotations

import threading

import numpy as np

_LOCK = threading.Lock()
#: the idle buffer (uint8), or nothing: a list so that the lock guards one object
_IDLE: list[np.ndarray] = []


def take(shape: tuple[int, ...], dtype: type) -> np.ndarray:
    """An uninitialised array, as ``np.empty``, on the idle buffer when it is large enough."""
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    with _LOCK:
        buffer = _IDLE.pop() if _IDLE else None
    if buffer is None or buffer.nbytes < nbytes:
        buffer = np.empty(max(nbytes, 1), dtype=np.uint8)  # a smaller idle buffer is dropped
    return buffer[:nbytes].view(dtype).reshape(shape)


def give_back(array: np.ndarray) -> None:
    """Keep the memory under ``array`` (from :func:`take`) for a later store: the caller reads it no more."""
    buffer = array.base if array.base is not None else array
    if buffer.dtype != np.uint8 or buffer.ndim != 1:
        return  # not a buffer of take's
    with _LOCK:
        if not _IDLE or _IDLE[0].nbytes < buffer.nbytes:
            _IDLE[:] = [buffer]


def release() -> None:
    """Free the idle buffer, if any (the next store allocates afresh)."""
    with _LOCK:
        _IDLE.clear()


def idle_bytes() -> int:
    """The size of the idle buffer (0 if none)."""
    with _LOCK:
        return _IDLE[0].nbytes if _IDLE else 0
