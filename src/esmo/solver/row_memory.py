"""The memory of kernel-row stores, kept from one fit for the next: fresh pages cost as much as rows.

A row store touches up to ``cache_size_mb`` of memory (1,024 MB by default),
page by page as its rows fill. Memory the process has not touched before is
slow to hand out: the kernel zeroes every page, and on a virtual machine the
host may back it only then. On the 2-core machine of the benchmarks a first
touch of 1 GB took 2.3 s of system time, the same gigabyte freed and touched
again 0.13 s, and a fit on MAGIC whole (19,020 points, 13,041 rows, 1.0 s of
computing) spent up to 1.5 s more in page faults (``benchmarks/bench_scale.py``).
LIBSVM keeps freed rows in its heap, and oneDAL in TBB's allocator; esmo keeps
the last stores' buffers: :func:`take` hands the smallest that fits to the
next store, and a run gives its store back (:func:`give_back`) when no one
reads it any more. :data:`KEPT_BUFFERS` are kept at most, the largest given
back; :func:`release` frees them. Values never depend on which memory a store got.
"""

from __future__ import annotations

import threading

import numpy as np

#: idle buffers kept at most: what a C path on two threads reads at once, its shared
#: matrix and two folds' gathers (:func:`esmo.tuning.path.fit_path`). Keeping one, each
#: path's first gather touched fresh pages: 1,642 page faults, 8 to 12 ms of a 0.14 s
#: path on w1a, none with three.
KEPT_BUFFERS = 3

_LOCK = threading.Lock()
#: the idle buffers (uint8), largest first
_IDLE: list[np.ndarray] = []


def take(shape: tuple[int, ...], dtype: type) -> np.ndarray:
    """An uninitialised array, as ``np.empty``, on the smallest idle buffer large enough."""
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    with _LOCK:
        fits = [k for k, idle in enumerate(_IDLE) if idle.nbytes >= nbytes]
        buffer = _IDLE.pop(fits[-1]) if fits else None
    if buffer is None:
        buffer = np.empty(max(nbytes, 1), dtype=np.uint8)
    return on_buffer(buffer, shape, dtype)


def on_buffer(buffer: np.ndarray, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    """An array of ``shape`` and ``dtype`` on the first bytes of ``buffer`` (one of :func:`take`'s,
    large enough), uninitialised: its ``base`` is ``buffer``, what :func:`give_back` keeps."""
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    return buffer[:nbytes].view(dtype).reshape(shape)


def give_back(array: np.ndarray) -> None:
    """Keep the memory under ``array`` (from :func:`take`) for a later store: the caller reads it no more."""
    buffer = array.base if array.base is not None else array
    if buffer.dtype != np.uint8 or buffer.ndim != 1:
        return  # not a buffer of take's
    with _LOCK:
        _IDLE.append(buffer)
        _IDLE.sort(key=lambda idle: -idle.nbytes)
        del _IDLE[KEPT_BUFFERS:]  # the smallest dropped


def release() -> None:
    """Free the idle buffers, if any (the next store allocates afresh)."""
    with _LOCK:
        _IDLE.clear()


def idle_bytes() -> int:
    """The size of the idle buffers together (0 if none)."""
    with _LOCK:
        return sum(idle.nbytes for idle in _IDLE)
