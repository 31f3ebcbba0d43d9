"""Kernel matrices and the kernel-row store the SMO solver reads from.

The solver needs, per iteration, the two kernel rows ``K(x_i, .)`` and
``K(x_j, .)`` of the working pair against the training points and, when it
tracks early stopping, against the validation and test points too. Those rows
live in one ``float32`` (or ``float64``) array of *slots* that the solver fills
on demand, the first time a point enters a working pair: short runs, the common
case in a hyperparameter search, touch few rows, and filling all ``n`` rows up
front cost more than many whole fits. When all rows fit the memory budget each
keeps its slot; otherwise the most recently used ones stay, like LIBSVM's LRU
kernel cache, so memory stays bounded for any ``n``.

``float32`` is the default storage because LIBSVM stores ``Q`` in single
precision (``Qfloat``): the same rounding is what makes our iteration counts
agree with LIBSVM's, and it halves memory traffic in the solver's inner loops.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numba
import numpy as np

KERNELS: tuple[str, ...] = ("linear", "rbf")
_KERNEL_CODE = {"linear": 0, "rbf": 1}

# rows per BLAS call when float64 storage fills every row up front; bounds the
# float64 temporary to ``_CHUNK_ROWS * n_cols`` doubles
_CHUNK_ROWS = 512


def check_kernel(kernel: str, gamma: float) -> int:
    """Return the solver's code for ``kernel`` after validating it and ``gamma``."""
    if kernel not in _KERNEL_CODE:
        raise ValueError(f"Unknown kernel {kernel!r}; use one of {KERNELS}.")
    if kernel == "rbf" and not (np.isfinite(gamma) and gamma > 0):
        raise ValueError(
            f"gamma must be a positive finite number for the rbf kernel, got {gamma!r}."
        )
    return _KERNEL_CODE[kernel]


def kernel_matrix(A: np.ndarray, B: np.ndarray, kernel: str, gamma: float = 1.0) -> np.ndarray:
    """Kernel matrix ``K[a, b] = k(A[a], B[b])`` in float64, through one BLAS product.

    Linear: ``x.z``. RBF: ``exp(-gamma ||x - z||^2)`` with the squared distance
    expanded as ``|x|^2 + |z|^2 - 2 x.z`` (LIBSVM's formula) and clipped at 0
    against cancellation, and the exp of :func:`exp_nonpositive`.
    """
    check_kernel(kernel, gamma)
    A = np.ascontiguousarray(A, dtype=np.float64)
    B = np.ascontiguousarray(B, dtype=np.float64)
    if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[1]:
        raise ValueError(
            f"kernel_matrix needs two 2-D arrays with the same number of columns, got shapes {A.shape} and {B.shape}."
        )
    K = A @ B.T
    if kernel == "rbf":
        sq_a = np.einsum("ij,ij->i", A, A)
        sq_b = np.einsum("ij,ij->i", B, B)
        K *= -2.0
        K += sq_a[:, None] + sq_b[None, :]  # (|x|^2 + |z|^2) - 2 x.z, LIBSVM's order
        np.maximum(K, 0.0, out=K)
        K *= -gamma
        flat = K.reshape(-1)  # a view: the product is a new C-contiguous array
        exp_nonpositive(flat, flat)
    return K


def kernel_diagonal(X: np.ndarray, kernel: str) -> np.ndarray:
    """``K(x_i, x_i)`` in float64: LIBSVM keeps this diagonal (``QD``) in double."""
    if kernel == "rbf":
        return np.ones(X.shape[0])
    return np.einsum("ij,ij->i", X, X)


@dataclass
class KernelRows:
    """Kernel rows of the training points against every column point, on demand.

    The columns are the training points, then the evaluation blocks. ``XT`` holds
    them transposed, so a row is a sum of contiguous columns, and ``sq_all`` their
    squared norms. ``X_all`` holds the rows' own points: the training points, or
    with ``blas`` (float64 storage, which keeps BLAS products, see
    :func:`build_kernel_rows`) every column point. ``data[slot_of[i]]`` is row
    ``i`` when ``slot_of[i] >= 0``. The solver fills a slot the first time it
    needs a row; with ``resident`` every row has a slot of its own, otherwise the
    least recently used (``stamp``) is evicted when all are taken.
    """

    X_all: np.ndarray
    XT: np.ndarray
    sq_all: np.ndarray
    kernel_code: int
    gamma: float
    data: np.ndarray
    slot_of: np.ndarray
    owner: np.ndarray
    stamp: np.ndarray
    resident: bool
    blas: bool


def build_kernel_rows(
    X_train: np.ndarray,
    X_eval: Sequence[np.ndarray],
    kernel: str,
    gamma: float,
    cache_size_mb: float,
    dtype: type = np.float32,
) -> KernelRows:
    """Prepare the on-demand row store: one slot per row if they fit ``cache_size_mb``, else LRU.

    Rows run over the training points, then the blocks of ``X_eval`` (validation
    and test points) in order. They are never filled up front: an SMO run reads
    only the rows of the points that enter a working pair, often a small share of
    ``n`` (LIBSVM computes rows on demand for the same reason), and a row costs
    ``O(n_cols * nnz(x_i))``. Float32 storage (the default, LIBSVM's) rounds away
    the last-bit differences between summation orders. Float64 storage exposes
    them, so it keeps the BLAS products its reference results were computed with:
    all rows up front with ``gemm`` when they fit, else ``gemv`` rows on demand.
    """
    code = check_kernel(kernel, gamma)
    blocks = [X_train, *X_eval]
    n, n_cols = X_train.shape[0], sum(b.shape[0] for b in blocks)
    itemsize = np.dtype(dtype).itemsize
    budget = float(cache_size_mb) * 2**20
    sq_all = np.zeros(n_cols)
    # the transposed columns are written block by block: no concatenated copy
    XT = np.empty((X_train.shape[1], n_cols))
    start = 0
    for b in blocks:
        XT[:, start : start + b.shape[0]] = b.T
        if code == 1:
            sq_all[start : start + b.shape[0]] = np.einsum("ij,ij->i", b, b)
        start += b.shape[0]
    blas = np.dtype(dtype) == np.float64
    X_all = np.concatenate(blocks) if blas and len(blocks) > 1 else X_train
    if blas and n * n_cols * itemsize <= budget:
        data = np.empty((n, n_cols), dtype=dtype)
        for start in range(0, n, _CHUNK_ROWS):
            stop = min(start + _CHUNK_ROWS, n)
            data[start:stop] = kernel_matrix(X_train[start:stop], X_all, kernel, gamma)
        slot_of = np.arange(n, dtype=np.int64)
        return KernelRows(
            X_all,
            XT,
            sq_all,
            code,
            float(gamma),
            data,
            slot_of,
            slot_of.copy(),
            np.zeros(n, np.int64),
            True,
            True,
        )
    # two rows are the minimum: the working pair must be resident together
    n_slots = int(max(2, min(n, budget // (n_cols * itemsize))))
    return KernelRows(
        X_all,
        XT,
        sq_all,
        code,
        float(gamma),
        np.empty((n_slots, n_cols), dtype=dtype),
        np.full(n, -1, dtype=np.int64),
        np.full(n_slots, -1, dtype=np.int64),
        np.full(n_slots, -1, dtype=np.int64),
        n_slots == n,
        blas,
    )


# exp(x) = 2^m e^r, m = round(x / ln 2), r = x - m ln 2, in arithmetic the compiler
# vectorises (libm's exp is a scalar call, most of a kernel row's cost): ln 2 split
# in two (Cody and Waite) keeps r exact, e^r is its Taylor series to degree 13 in
# Estrin's form, and 2^m is written into the exponent bits. The relative error is
# below 5e-16 (libm's is about 1e-16): rounded to float32 storage it gives libm's
# value unless that lies within 5e-16 of a float32 rounding boundary.
_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_ROUND = 6755399441055744.0  # 1.5 * 2^52: adding it rounds to an integer held in the low bits
_EXP_MIN = -708.0  # below, exp(x) < 3.3e-308 flushes to 0, so 2^m stays a normal double
_EXP_BLOCK = 512  # entries per pass, so the scratch arrays stay in L1
_C = [1.0 / math.factorial(k) for k in range(14)]
_C0, _C1, _C2, _C3, _C4, _C5, _C6, _C7, _C8, _C9, _C10, _C11, _C12, _C13 = _C


@numba.njit(cache=True)
def exp_nonpositive(x, out):
    """``out[k] = exp(x[k])`` for ``x <= 0`` (1-D; ``out`` may be ``x`` or float32), vectorised.

    Results below ``exp(-708)``, about 3.3e-308, are returned as 0.
    """
    p = np.empty(_EXP_BLOCK)
    t = np.empty(_EXP_BLOCK)
    bits = t.view(np.int64)
    for start in range(0, x.shape[0], _EXP_BLOCK):
        size = min(_EXP_BLOCK, x.shape[0] - start)
        # slices indexed from 0: an index like x[start + k] could be negative as
        # far as numba knows, and its wraparound check stops vectorisation
        xb = x[start : start + size]
        ob = out[start : start + size]
        for k in range(size):
            xk = max(xb[k], _EXP_MIN)
            tk = xk * _LOG2E + _ROUND
            m = tk - _ROUND
            r = (xk - m * _LN2_HI) - m * _LN2_LO
            r2 = r * r
            r4 = r2 * r2
            lo = (_C0 + _C1 * r) + (_C2 + _C3 * r) * r2
            lo += ((_C4 + _C5 * r) + (_C6 + _C7 * r) * r2) * r4
            hi = (_C8 + _C9 * r) + (_C10 + _C11 * r) * r2 + (_C12 + _C13 * r) * r4
            p[k] = lo + hi * (r4 * r4)
            t[k] = tk
        # the low bits of t hold m + 2^51; shifted into the exponent field they give 2^m
        for k in range(size):
            bits[k] = (bits[k] + 1023) << 52
        for k in range(size):
            ob[k] = p[k] * t[k] if xb[k] >= _EXP_MIN else 0.0


@numba.njit(cache=True)
def get_row(
    i, n_cols, X_all, XT, sq_all, kernel_code, gamma, blas, data, slot_of, owner, stamp, clock
):
    """Row ``i`` of the kernel store (the first ``n_cols`` entries valid), computing it on a miss.

    ``clock`` holds the use counter that orders the LRU eviction and the number
    of slots taken so far (free slots are handed out in order, without a search).
    Float32 storage computes the dot products with :func:`sparse_dots`.
    """
    clock[0] += 1
    s = slot_of[i]
    if s >= 0:
        stamp[s] = clock[0]
        return data[s]
    if clock[1] < owner.shape[0]:
        s = clock[1]
        clock[1] += 1
    else:
        s = np.argmin(stamp)  # the least recently used
        slot_of[owner[s]] = -1
    owner[s] = i
    slot_of[i] = s
    stamp[s] = clock[0]
    xi = X_all[i]
    dots = np.dot(X_all[:n_cols], xi) if blas else sparse_dots(xi, XT, 0, n_cols)
    row = data[s]
    if kernel_code == 1:
        rbf_exponents(dots, sq_all[i], sq_all, 0, gamma)
        exp_nonpositive(dots, row)
    else:
        for k in range(n_cols):
            row[k] = dots[k]
    return row


@numba.njit(cache=True)
def sparse_dots(xi, XT, start, stop):
    """``x_i . x_k`` for the columns ``k`` in ``[start, stop)`` of ``XT`` (the points transposed).

    The sum runs over the nonzero features of ``x_i`` only, in feature order: the
    cost of LIBSVM's sparse dot products, for dense and sparse data alike. Each
    vectorised pass adds four features' columns, so ``dots`` is loaded and stored
    once per four features rather than once per feature (1.4-1.8x faster on the
    LIBSVM datasets with more than a few features); every entry still adds its
    terms one by one in feature order, so the sums are the same to the bit. The
    count of nonzero features is padded to a multiple of four with the value 0.0,
    and adding ``c * 0.0`` (``c`` finite) leaves a sum as it is.
    """
    m = stop - start
    dots = np.zeros(m)
    d = xi.shape[0]
    feature = np.empty(d + 3, dtype=np.int64)
    value = np.zeros(d + 3)
    nnz = 0
    for t in range(d):
        if xi[t] != 0.0:
            feature[nnz] = t
            value[nnz] = xi[t]
            nnz += 1
    if nnz == 0:
        return dots
    feature[nnz : nnz + 3] = feature[0]
    for g in range(0, nnz, 4):
        v0, v1, v2, v3 = value[g], value[g + 1], value[g + 2], value[g + 3]
        # slices indexed from 0, so the loop vectorises
        c0 = XT[feature[g], start:stop]
        c1 = XT[feature[g + 1], start:stop]
        c2 = XT[feature[g + 2], start:stop]
        c3 = XT[feature[g + 3], start:stop]
        for k in range(m):
            s = dots[k]
            s += c0[k] * v0
            s += c1[k] * v1
            s += c2[k] * v2
            s += c3[k] * v3
            dots[k] = s
    return dots


@numba.njit(cache=True)
def rbf_exponents(dots, sq_i, sq_all, start, gamma):
    """Turn ``dots[k] = x_i . x_(start+k)`` into ``-gamma ||x_i - x_(start+k)||^2``, in place.

    The squared distance is LIBSVM's ``(|x_i|^2 + |x_k|^2) - 2 x_i.x_k``, clipped at 0.
    """
    sq = sq_all[start : start + dots.shape[0]]
    for k in range(dots.shape[0]):
        dots[k] = -gamma * max(sq_i + sq[k] - 2.0 * dots[k], 0.0)
