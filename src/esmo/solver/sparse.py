"""Sparse points (scipy CSR or CSC): taken as they are, and summed as the dense rows are.

The solver never densifies sparse data. It keeps the training points as CSR rows
(:class:`SparsePoints`) and the column points (training, then validation and
test) feature by feature (:func:`feature_major`), so a kernel row is a sum over
the nonzero features of ``x_i`` that visits, for each feature, only the points
where it is nonzero (:func:`csr_dots`). Each dot product ``x_i . x_k`` still
adds ``x_i[t] x_k[t]`` over ``t`` in feature order, exactly as
:func:`esmo.solver.kernels.sparse_dots` adds it for dense rows; the terms that
sum leaves out are ``c * 0.0``, which leave a sum unchanged. So sparse and
dense input give the same kernel values, iterations and model to the bit.

The feature-major points are indexed by the features some point uses only
(:func:`shared_features`), so the solver's memory is that of the nonzeros,
whatever the number of features.

The other quantities a fit reads are computed here the dense path's way too:
the squared norms in feature order (:func:`squared_norms`), the linear
kernel's diagonal by BLAS ``ddot`` over each row written out in turn into one
buffer of ``n_features`` doubles (:func:`ddot_diagonal`, as
:func:`esmo.solver.kernels.kernel_diagonal` takes it for dense rows), and
``X.var()`` for ``gamma='scale'`` by numpy's own pairwise summation over the
dense layout, zeros included (:func:`dense_variance`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.linalg.blas import ddot

from esmo.solver.compile import jit

#: the formats taken as they are (CSC converted to CSR once); others are refused
SPARSE_FORMATS = ("csr", "csc")


class SparsePoints(NamedTuple):
    """Points in compressed rows: row ``r``'s entries are ``indptr[r]:indptr[r + 1]`` of the others.

    ``indices`` ascend within a row. Used two ways: the training points as rows
    (``indices`` are features), and the column points feature-major (row ``t``
    lists the points with a nonzero feature ``t``, ``indices`` are point numbers).
    """

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray


def is_sparse(X: Any) -> bool:
    """Whether ``X`` is a scipy.sparse matrix or array."""
    return sp.issparse(X)


def as_csr(X: Any, name: str = "X") -> Any:
    """``X`` as canonical float64 CSR: CSC converted, duplicates summed, explicit zeros dropped.

    The caller's matrix is never changed: a copy is made only when something
    must change. Formats other than CSR and CSC are refused (convert them with
    ``.tocsr()``), and so are NaN and infinity among the stored values.
    """
    if X.format not in SPARSE_FORMATS:
        raise TypeError(
            f"{name} is a scipy.sparse matrix in {X.format.upper()} format; the solver takes "
            f"CSR or CSC: convert it with {name}.tocsr()."
        )
    copied = X.format != "csr" or X.dtype != np.float64
    X = X.tocsr().astype(np.float64, copy=False)
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, n_features), got shape {X.shape}.")
    if not np.isfinite(X.data).all():
        raise ValueError(f"{name} contains NaN or infinity; impute or drop those values first.")
    if not X.has_canonical_format:
        X = X if copied else X.copy()
        copied = True
        X.sum_duplicates()
    if not X.data.all():
        X = X if copied else X.copy()
        X.eliminate_zeros()
    return X


def csr_of(X: Any, name: str = "X") -> Any:
    """``X`` as canonical float64 CSR: sparse through :func:`as_csr`, a dense array converted."""
    if is_sparse(X):
        return as_csr(X, name)
    return sp.csr_matrix(np.asarray(X, dtype=np.float64))


def csr_points(X: Any) -> SparsePoints:
    """The rows of canonical CSR ``X`` (:func:`as_csr`) for compiled code, with int64 indices."""
    return SparsePoints(
        X.indptr.astype(np.int64), X.indices.astype(np.int64), np.asarray(X.data, np.float64)
    )


def shared_features(blocks: list[Any]) -> list[Any]:
    """The CSR ``blocks`` with their columns narrowed to the features some point of them uses.

    The features keep their order, so every sum in feature order is unchanged,
    and :func:`feature_major` then takes memory for the nonzeros only, not for
    every feature: 400 points of 10^7 features would otherwise need 80 MB of
    column pointers. Blocks that use every feature are returned as they are.
    """
    used = np.unique(np.concatenate([b.indices for b in blocks]))
    if used.size == blocks[0].shape[1]:
        return blocks
    return [
        sp.csr_matrix(
            (b.data, np.searchsorted(used, b.indices), b.indptr), shape=(b.shape[0], used.size)
        )
        for b in blocks
    ]


def feature_major(blocks: list[Any]) -> SparsePoints:
    """The points of the CSR ``blocks`` (stacked in order) feature by feature.

    Row ``t`` lists, in ascending order, the points whose feature ``t`` is
    nonzero and their values: the sparse counterpart of the dense points
    transposed (``KernelRows.XT``).
    """
    by_feature = stack(blocks).tocsc()
    by_feature.sort_indices()
    return SparsePoints(
        by_feature.indptr.astype(np.int64),
        by_feature.indices.astype(np.int64),
        np.asarray(by_feature.data, np.float64),
    )


@jit
def csr_dots(rows, i, cols, start, stop):
    """``x_i . x_k`` for the points ``k`` in ``[start, stop)`` of the feature-major ``cols``.

    ``x_i`` is row ``i`` of ``rows``. Each ``dots[k]`` adds ``x_k[t] x_i[t]``
    over the nonzero features ``t`` of ``x_i`` in ascending order, as
    :func:`esmo.solver.kernels.sparse_dots` does for dense columns, skipping
    only the terms with ``x_k[t] = 0``; the cost is the number of those
    points' nonzeros in the features of ``x_i``.
    """
    dots = np.zeros(stop - start)
    points = cols.indices
    for p in range(rows.indptr[i], rows.indptr[i + 1]):
        t = rows.indices[p]
        v = rows.data[p]
        lo, hi = cols.indptr[t], cols.indptr[t + 1]
        if lo == hi:
            continue
        if points[lo] < start:
            lo += np.searchsorted(points[lo:hi], start)
        if hi > lo and points[hi - 1] >= stop:
            hi = lo + np.searchsorted(points[lo:hi], stop)
        for q in range(lo, hi):
            dots[points[q] - start] += cols.data[q] * v
    return dots


@jit
def column_subset(cols, points, n_points):
    """The feature-major ``cols`` (of ``n_points`` points) restricted to ``points`` (ascending).

    The points kept are renumbered ``0, 1, ...`` in the order of ``points``.
    """
    d = cols.indptr.shape[0] - 1
    renumber = np.full(n_points, -1, dtype=np.int64)
    for j in range(points.shape[0]):
        renumber[points[j]] = j
    indptr = np.zeros(d + 1, dtype=np.int64)
    keep = 0
    for q in range(cols.indices.shape[0]):
        if renumber[cols.indices[q]] >= 0:
            keep += 1
    indices = np.empty(keep, dtype=np.int64)
    data = np.empty(keep)
    keep = 0
    for t in range(d):
        for q in range(cols.indptr[t], cols.indptr[t + 1]):
            j = renumber[cols.indices[q]]
            if j >= 0:
                indices[keep] = j
                data[keep] = cols.data[q]
                keep += 1
        indptr[t + 1] = keep
    return SparsePoints(indptr, indices, data)


@jit
def row_squared_norms(indptr, data):
    """``|x_r|^2`` of each CSR row, its squares added in feature order (as LIBSVM's ``dot(x, x)``)."""
    n = indptr.shape[0] - 1
    out = np.zeros(n)
    for r in range(n):
        s = 0.0
        for p in range(indptr[r], indptr[r + 1]):
            s += data[p] * data[p]
        out[r] = s
    return out


def squared_norms(X: Any) -> np.ndarray:
    """``|x|^2`` of each row of canonical CSR ``X``, equal to the bit to the dense rows' own."""
    return row_squared_norms(X.indptr.astype(np.int64), np.asarray(X.data, np.float64))


def ddot_diagonal(X: Any) -> np.ndarray:
    """``x . x`` of each row of canonical CSR ``X`` by BLAS ``ddot`` over the row written out.

    :func:`esmo.solver.kernels.kernel_diagonal` takes the linear kernel's
    diagonal from ``ddot`` on the dense rows, and ``ddot``'s last bit depends on
    where the zeros sit (its lanes and fused multiply-adds). Each row is written
    into one buffer of ``n_features`` doubles in turn and cleared after: the
    only dense temporary of a sparse fit, one row long.
    """
    n, d = X.shape
    out = np.empty(n)
    row = np.zeros(d)
    for r in range(n):
        features = X.indices[X.indptr[r] : X.indptr[r + 1]]
        row[features] = X.data[X.indptr[r] : X.indptr[r + 1]]
        out[r] = ddot(row, row)
        row[features] = 0.0
    return out


def largest_abs(X: Any) -> float:
    """``max |X|`` of a dense array or a sparse matrix (0 when empty)."""
    values = X.data if is_sparse(X) else X
    if values.size == 0:
        return 0.0
    return max(float(values.max()), -float(values.min()), 0.0)


def stack(blocks: list[Any]) -> Any:
    """The blocks' points one after the other: CSR if they are sparse, else one array."""
    if is_sparse(blocks[0]):
        return blocks[0] if len(blocks) == 1 else sp.vstack(blocks, format="csr")
    return np.concatenate(blocks)


# numpy's pairwise summation (``pairwise_sum`` in numpy/_core/src/umath/loops_utils.h.src),
# which ``np.add.reduce`` applies to a contiguous array: below 8 values one by one; up to
# 128 in eight interleaved partial sums; above, the two halves (split at a multiple of 8)
_PW_BLOCK = 128


@jit
def _block_sum(buf, n):
    """numpy's ``pairwise_sum`` of ``buf[:n]``, ``n <= 128``."""
    if n < 8:
        res = 0.0
        for k in range(n):
            res += buf[k]
        return res
    r0, r1, r2, r3 = buf[0], buf[1], buf[2], buf[3]
    r4, r5, r6, r7 = buf[4], buf[5], buf[6], buf[7]
    i = 8
    while i < n - (n % 8):
        r0 += buf[i]
        r1 += buf[i + 1]
        r2 += buf[i + 2]
        r3 += buf[i + 3]
        r4 += buf[i + 4]
        r5 += buf[i + 5]
        r6 += buf[i + 6]
        r7 += buf[i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += buf[i]
        i += 1
    return res


@jit
def _stretch_sum(pos, val, a, b, lo, n, mean, square, buf):
    """numpy's sum of the dense values ``lo .. lo + n - 1`` (``n <= 128``), stored ones ``a:b``."""
    zero = 0.0
    if square:
        zero = 0.0 - mean
        zero = zero * zero
    buf[:n] = zero
    for p in range(a, b):
        x = val[p]
        if square:
            x = x - mean
            x = x * x
        buf[pos[p] - lo] = x
    return _block_sum(buf, n)


@jit
def _pairwise(pos, val, size, mean, square):
    """numpy's pairwise sum of a dense array of ``size`` values, row-major, held sparsely.

    The array holds ``val[p]`` at position ``pos[p]`` (ascending) and 0
    elsewhere; with ``square`` each value ``x`` enters as ``(x - mean)^2``, as
    ``np.var`` squares the deviations. The halving recursion runs on an
    explicit stack (numba cannot cache a recursive function), each frame with
    its stretch's stored values ``a:b``; a stretch without stored values sums
    to a number that depends on its length alone, computed once per length.
    """
    buf = np.empty(_PW_BLOCK)
    depth = 64
    frame = np.zeros((depth, 4), dtype=np.int64)  # lo, n, a, b of each open stretch
    left_sum = np.zeros(depth)
    right_next = np.zeros(depth, dtype=np.bool_)  # the left half is summed
    seen_n = np.zeros(2 * depth, dtype=np.int64)
    seen_sum = np.zeros(2 * depth)
    n_seen = 0
    top = 0
    frame[0, 1], frame[0, 3] = size, pos.shape[0]
    while True:
        lo, n, a, b = frame[top, 0], frame[top, 1], frame[top, 2], frame[top, 3]
        known = -1
        if a == b:
            for k in range(n_seen):
                if seen_n[k] == n:
                    known = k
        if known < 0 and n > _PW_BLOCK:  # split at a multiple of 8, left half first
            half = n // 2
            half -= half % 8
            right_next[top] = False
            top += 1
            m = a + np.searchsorted(pos[a:b], lo + half)
            frame[top, 0], frame[top, 1], frame[top, 2], frame[top, 3] = lo, half, a, m
            continue
        if known >= 0:
            s = seen_sum[known]
        else:
            s = _stretch_sum(pos, val, a, b, lo, n, mean, square, buf)
        # hand the sum up through every frame it completes
        while True:
            if a == b and known < 0 and n_seen < seen_n.shape[0]:
                seen_n[n_seen], seen_sum[n_seen] = n, s
                n_seen += 1
            if top == 0:
                return s
            top -= 1
            lo, n, a, b = frame[top, 0], frame[top, 1], frame[top, 2], frame[top, 3]
            if not right_next[top]:
                left_sum[top] = s
                right_next[top] = True
                half = n // 2
                half -= half % 8
                m = frame[top + 1, 3]  # where the left half's stored values ended
                top += 1
                frame[top, 0], frame[top, 1], frame[top, 2], frame[top, 3] = (
                    lo + half,
                    n - half,
                    m,
                    b,
                )
                break
            s = left_sum[top] + s
            known = -1


@jit
def _dense_variance(pos, val, size):
    mean = (0.0 + _pairwise(pos, val, size, 0.0, False)) / size
    return (0.0 + _pairwise(pos, val, size, mean, True)) / size


def dense_variance(X: Any) -> float:
    """``X.toarray().var()``, to the bit, without writing ``X`` out.

    ``np.var`` sums the whole array (the mean, then the squared deviations,
    zeros included) by numpy's pairwise summation; this repeats those sums in
    numpy 2's order over the stored values, the stretches of zeros summed once
    per length (numpy 1.x orders large sums otherwise: there the last bit or two
    may differ). ``X`` is canonical CSR (:func:`as_csr`).
    """
    n, d = X.shape
    if n * d == 0:
        return float("nan")
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(X.indptr))
    positions = rows * d + X.indices.astype(np.int64)
    with np.errstate(over="ignore", invalid="ignore"):
        return float(_dense_variance(positions, np.asarray(X.data, np.float64), n * d))
