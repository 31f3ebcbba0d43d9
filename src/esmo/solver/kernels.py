"""Kernel functions in float64: matrices, the vectorised exp, sparse dot products, RBF exponents.

The compiled pieces (:func:`exp_nonpositive`, :func:`sparse_dots`,
:func:`point_dots`, :func:`rbf_values`, :func:`squared_norms`) serve both
the kernel-row store the solver reads (:mod:`esmo.solver.row_cache`) and fresh
predictions (:mod:`esmo.solver.predictions`), so a kernel value is computed one
way, for dense and sparse points (:mod:`esmo.solver.sparse`) alike.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import types
from numba.extending import overload
from scipy.linalg.blas import ddot

from esmo.solver import sparse
from esmo.solver.compile import jit
from esmo.solver.params import KERNELS, check_parameters


def check_kernel(kernel: str, gamma: float) -> int:
    """The compiled code's number for ``kernel``, after checking it and ``gamma`` by the solver's rules."""
    check_parameters({"kernel": kernel, "gamma": gamma}, "kernel_matrix")
    return KERNELS.index(kernel)


def kernel_matrix(A: Any, B: Any, kernel: str, gamma: float = 1.0) -> np.ndarray:
    """Kernel matrix ``K[a, b] = k(A[a], B[b])`` in float64, through one BLAS product.

    Linear: ``x.z``. RBF: ``exp(-gamma ||x - z||^2)`` with the squared distance
    expanded as ``|x|^2 + |z|^2 - 2 x.z`` (LIBSVM's formula) and clipped at 0
    against cancellation, and the exp of :func:`exp_nonpositive`. When ``A`` or
    ``B`` is scipy.sparse, the dot products are sums over the nonzero features
    in feature order instead (:func:`feature_order_kernel_matrix`): the same values up
    to BLAS's summation order (to the bit where the products are exact, as on
    binary features).
    """
    check_kernel(kernel, gamma)
    if sparse.is_sparse(A) or sparse.is_sparse(B):
        return feature_order_kernel_matrix(A, B, kernel, gamma)
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


def feature_order_kernel_matrix(A: Any, B: Any, kernel: str, gamma: float = 1.0) -> np.ndarray:
    """:func:`kernel_matrix` with each dot product summed over ``B``'s point's nonzero features.

    The sum runs in feature order (:func:`point_dots`), as the kernel-row
    store sums: for dense points these are the float64 values its float32
    rows round, at LIBSVM's sparse cost (on sparse data far less than a BLAS
    product of the dense arrays). Sparse points (one or both) are never
    densified; the RBF exponents and exp are the row store's
    (:func:`rbf_exponents`, :func:`exp_nonpositive`) on squared norms summed in
    feature order (:func:`squared_norms`).
    """
    return FeatureOrderRows(A, B, kernel, gamma).rows(None)


class FeatureOrderRows:
    """Rows of :func:`feature_order_kernel_matrix` ``(A, B)`` for any subset of ``A``'s points.

    ``B``'s side (its points feature by feature, squared norms, and the exp
    table of integer features, sized for ``A`` and ``B`` whole) is prepared
    once, so a caller can compute the rows it needs as it comes to need them,
    at a cost per row of its point's nonzero features: each value the same to
    the bit as in the whole matrix. A dot product sums over the row point's
    nonzero features in feature order; over the column point's it is the same
    sum, as the terms either leaves out are zeros.
    """

    def __init__(
        self,
        A: Any,
        B: Any,
        kernel: str,
        gamma: float = 1.0,
        *,
        prepared: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    ) -> None:
        """``prepared``: for RBF, ``(sq_a, sq_b, table)`` from a caller that holds them already
        (a shared kernel over these points and more): the points' squared norms and an exp
        table sized for them or beyond, the values they give the same."""
        check_kernel(kernel, gamma)
        if sparse.is_sparse(A) or sparse.is_sparse(B):
            A, B = sparse.csr_of(A, "A"), sparse.csr_of(B, "B")
        else:
            A = np.ascontiguousarray(A, dtype=np.float64)
            B = np.ascontiguousarray(B, dtype=np.float64)
        if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[1]:
            raise ValueError(
                "kernel_matrix needs two 2-D arrays with the same number of columns, got shapes "
                f"{A.shape} and {B.shape}."
            )
        self.code, self.gamma = KERNELS.index(kernel), gamma
        if self.code != 1:
            self.sq_a = self.sq_b = self.table = np.empty(0)
        elif prepared is not None:
            self.sq_a, self.sq_b, self.table = prepared
        else:
            self.sq_a, self.sq_b = squared_norms(A), squared_norms(B)
            self.table = integer_distance_table(
                [A, B], np.concatenate([self.sq_a, self.sq_b]), gamma
            )
        if sparse.is_sparse(A):
            A, B = sparse.shared_features([A, B])
            self.points, self.cols = sparse.csr_points(A), sparse.feature_major([B])
        else:
            self.points, self.cols = A, np.ascontiguousarray(B.T)
        self.n_a, self.n_b = A.shape[0], B.shape[0]

    def rows(self, index: np.ndarray | None) -> np.ndarray:
        """``K[index]`` (every row for None): ``len(index)`` by ``B``'s points, float64."""
        index = np.arange(self.n_a) if index is None else np.asarray(index, dtype=np.int64)
        return feature_order_rows(
            self.points, self.cols, index, self.n_b, self.sq_a, self.sq_b, self.code, self.gamma,
            self.table,
        )  # fmt: skip


@jit
def feature_order_rows(A, B_cols, index, n_b, sq_a, sq_b, kernel_code, gamma, table):
    """``K[r] = k(a_index[r], B)``: each row's dot products over its point's nonzero features
    (:func:`point_dots`), then its RBF values (:func:`rbf_values`)."""
    K = np.empty((index.shape[0], n_b))
    for r in range(index.shape[0]):
        a = index[r]
        dots = point_dots(A, B_cols, a, 0, n_b)
        if kernel_code == 1:
            rbf_values(dots, sq_a[a], sq_b, 0, gamma, table, K[r])
        else:
            K[r] = dots
    return K


def kernel_diagonal(X: Any, kernel: str) -> np.ndarray:
    """``K(x_i, x_i)`` in float64, as LIBSVM keeps this diagonal (``QD``) in double.

    For the linear kernel each ``x_i . x_i`` comes from BLAS ``ddot``, as in
    LIBSVM as scikit-learn builds it: the diagonal enters every curvature
    ``K_ii + K_jj - 2 K_ij`` unrounded, so its last bit (which depends on the
    summation order, and BLAS sums with fused multiply-adds) can change the path.
    Sparse rows are written out a block at a time for ``ddot``
    (:func:`esmo.solver.sparse.ddot_diagonal`), so both give the same diagonal.
    """
    if kernel == "rbf":
        return np.ones(X.shape[0])
    if sparse.is_sparse(X):
        return sparse.ddot_diagonal(X)
    return np.array([ddot(x, x) for x in X], dtype=np.float64)


def squared_norms(X: Any) -> np.ndarray:
    """``|x|^2`` of each row, its squares added in feature order (LIBSVM's ``dot(x, x)``).

    The RBF kernel rows' norms (:mod:`esmo.solver.row_cache`); a dense row and
    the same row as canonical CSR (:func:`esmo.solver.sparse.as_csr`) give the
    same value to the bit, since adding ``0 * 0`` leaves a sum unchanged.
    """
    if sparse.is_sparse(X):
        return sparse.squared_norms(X)
    return _dense_squared_norms(np.ascontiguousarray(X, dtype=np.float64))


@jit
def _dense_squared_norms(X):
    out = np.zeros(X.shape[0])
    for r in range(X.shape[0]):
        s = 0.0
        for t in range(X.shape[1]):
            s += X[r, t] * X[r, t]
        out[r] = s
    return out


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


@jit
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


@jit
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


def point_dots(points, cols, i, start, stop):
    """``x_i . x_k`` for the column points ``k`` in ``[start, stop)``: compiled code only.

    ``points`` holds the rows (``x_i`` is row ``i``), ``cols`` the column points:
    dense (a 2-D array and the points transposed: :func:`sparse_dots`) or sparse
    (two :class:`~esmo.solver.sparse.SparsePoints`, the second feature-major:
    :func:`esmo.solver.sparse.csr_dots`). numba picks the implementation by
    type, so the dense loop compiles as it did before sparse points existed.
    """
    raise NotImplementedError("point_dots runs in compiled code only")


@overload(point_dots)
def _point_dots(points, cols, i, start, stop):
    if isinstance(points, types.Array):
        return lambda points, cols, i, start, stop: sparse_dots(points[i], cols, start, stop)
    return lambda points, cols, i, start, stop: sparse.csr_dots(points, i, cols, start, stop)


#: the most entries of an exp table of integer squared distances (8 bytes each)
MAX_TABLE_ENTRIES = 1 << 16


def integer_distance_table(blocks: list[Any], sq_all: np.ndarray, gamma: float) -> np.ndarray:
    """``exp(-gamma s)`` for ``s = 0, 1, ...`` up to the largest squared distance between
    the points of ``blocks``, when every feature value is an integer; else an empty array.

    With integer features every product, dot product, squared norm and squared
    distance is an exact integer in float64 (in any summation order, far below
    2^53 here), so each RBF exponent :func:`rbf_exponents` computes is
    ``-gamma s`` for an integer ``s``: reading ``exp`` from this table
    (:func:`rbf_from_table`) gives :func:`exp_nonpositive`'s value to the bit,
    without the exponential and the exponents, on binary data such as a9a,
    w8a, a1a and w1a (a row of a9a: 5.6 ns a value against 6.2). ``sq_all``
    holds the points' squared norms: a squared distance
    ``|x - z|^2 <= (|x| + |z|)^2`` is at most four times the largest (twice,
    for non-negative features; the table is sized for signed ones).
    """
    largest = 4.0 * float(sq_all.max()) if sq_all.size else np.inf
    if largest >= MAX_TABLE_ENTRIES:
        return np.empty(0)
    for b in blocks:
        values = b.data if sparse.is_sparse(b) else b.reshape(-1)
        if not _all_integers(values):
            return np.empty(0)
    table = np.empty(int(largest) + 1)
    exp_nonpositive(-gamma * np.arange(table.shape[0], dtype=np.float64), table)
    return table


@jit
def _all_integers(values):
    """Whether every value is an integer: a vectorised count per block, stopping at the first
    block with a fraction (scaled features have one in their first points)."""
    for start in range(0, values.shape[0], _EXP_BLOCK):
        block = values[start : start + _EXP_BLOCK]
        fractions = 0
        for k in range(block.shape[0]):
            fractions += block[k] != np.floor(block[k])
        if fractions:
            return False
    return True


@jit(inline="always")
def rbf_values(dots, sq_i, sq_all, start, gamma, table, out):
    """RBF values from ``dots[k] = x_i . x_(start+k)`` into ``out`` (``dots`` is overwritten).

    Read from ``table`` when it is not empty (integer features:
    :func:`rbf_from_table`), else :func:`rbf_exponents` then
    :func:`exp_nonpositive`: the same values to the bit. Every RBF value of a
    row, a held-out block or a fresh prediction is taken here.
    """
    if table.shape[0] > 0:
        rbf_from_table(dots, sq_i, sq_all, start, table, out)
    else:
        rbf_exponents(dots, sq_i, sq_all, start, gamma)
        exp_nonpositive(dots, out)


@jit
def rbf_from_table(dots, sq_i, sq_all, start, table, out):
    """:func:`rbf_exponents` then :func:`exp_nonpositive` into ``out``, read from ``table``.

    For integer features only (:func:`integer_distance_table`): the squared
    distance, the same exact integer as there, indexes the table.
    """
    sq = sq_all[start : start + out.shape[0]]
    for k in range(out.shape[0]):
        out[k] = table[np.uint64(max(sq_i + sq[k] - 2.0 * dots[k], 0.0))]


@jit
def rbf_exponents(dots, sq_i, sq_all, start, gamma):
    """Turn ``dots[k] = x_i . x_(start+k)`` into ``-gamma ||x_i - x_(start+k)||^2``, in place.

    The squared distance is LIBSVM's ``(|x_i|^2 + |x_k|^2) - 2 x_i.x_k``, clipped at 0.
    """
    sq = sq_all[start : start + dots.shape[0]]
    for k in range(dots.shape[0]):
        dots[k] = -gamma * max(sq_i + sq[k] - 2.0 * dots[k], 0.0)
