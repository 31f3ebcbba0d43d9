"""The kernel-row store the SMO loop reads from: rows computed on demand, kept while they fit.

The solver needs, per iteration, the kernel rows ``K(x_i, .)`` and ``K(x_j, .)``
of the working pair against the training points and, while it tracks early
stopping, against the validation and test points too. Those rows live in one
``float32`` (or ``float64``) array of *slots* that the solver fills the first
time a point enters a working pair: short runs, the common case in a
hyperparameter search, touch few rows, and filling all ``n`` rows up front cost
more than many whole fits. When all rows fit the memory budget each keeps its
slot; otherwise the most recently used ones stay, like LIBSVM's LRU kernel
cache, so memory stays bounded for any ``n``.

Fresh early-stopping checks read a second, float64 store beside it: the
evaluation columns of each support vector, kept from the first check that needs
them while the budget left by the rows allows (:func:`fresh_sums`).

``float32`` is the default storage because LIBSVM stores ``Q`` in single
precision (``Qfloat``): the same rounding is what makes our iteration counts
agree with LIBSVM's, and it halves memory traffic in the solver's inner loops.

Sparse training points (scipy CSR, :mod:`esmo.solver.sparse`) stay sparse: the
store then holds them as CSR rows and the column points feature by feature, and
a row's dot products are the same sums as for the dense points, to the bit
(:func:`esmo.solver.kernels.point_dots`). Float64 storage keeps its BLAS
products for dense points only; sparse points take the sums over their nonzero
features with float64 storage too, so there a sparse fit equals LIBSVM's sparse
one rather than the dense BLAS fit, up to the last bits.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numba import prange, types
from numba.extending import overload

from esmo.solver import row_memory, sparse
from esmo.solver.compile import jit
from esmo.solver.kernels import (
    integer_distance_table,
    kernel_matrix,
    point_dots,
    rbf_values,
    sparse_dots,
    squared_norms,
)
from esmo.solver.params import SolverParams
from esmo.solver.predictions import decisions_from_rows

# rows per BLAS call when float64 storage fills every row up front; bounds the
# float64 temporary to ``_CHUNK_ROWS * n_cols`` doubles
_CHUNK_ROWS = 512

#: Columns from which a row is filled by several threads (``SolverParams.n_jobs``).
#: Measured on a1a.t (14 nonzero features a row, 2 cores): 20,000 columns take 110 us
#: on one thread and 47 us on two; below a few thousand the start of the threads
#: outweighs the halved work.
PARALLEL_MIN_COLUMNS = 4096

# slots of KernelRows.clock, the store's counters (module-level ints: numba compiles
# clock[LRU_TICK] as clock[0])
#: the use counter: one tick per row read, the stamp of a row's last use (the LRU order)
LRU_TICK = 0
#: row slots handed out so far (in order, before the first eviction)
SLOTS_TAKEN = 1
#: kernel rows the run has computed
ROWS_COMPUTED = 2
#: kernel values the run has computed in those rows
VALUES_COMPUTED = 3
#: slots of ``eval_values`` taken (:func:`fresh_sums`)
EVAL_SLOTS_TAKEN = 4
#: the length of ``clock``
N_CLOCK_SLOTS = 5


class KernelRows(NamedTuple):
    """Kernel rows of the training points against every column point, on demand.

    A named tuple, so the compiled loop takes the store as one argument. The
    columns are the training points, then the evaluation blocks. ``XT`` holds
    them transposed, so a row is a sum of contiguous columns, and ``sq_all`` their
    squared norms. ``X_all`` holds the rows' own points: the training points, or
    with ``blas`` (float64 storage, which keeps BLAS products, see
    :func:`build_kernel_rows`) every column point. For sparse points ``X_all``
    is the training points' CSR rows and ``XT`` the column points feature by
    feature (both :class:`~esmo.solver.sparse.SparsePoints`): numba compiles the
    loop for each representation. ``data[slot_of[i]]`` is row
    ``i`` when ``slot_of[i] >= 0``. The solver fills a slot the first time it
    needs a row; with ``resident`` every row has a slot of its own, otherwise the
    least recently used (``stamp``) is evicted when all are taken. ``clock`` holds
    the store's counters at the slots named above it (:data:`LRU_TICK` to
    :data:`EVAL_SLOTS_TAKEN`); a row's kernel values are its columns, the
    training points plus the evaluation points while early stopping tracks them.
    ``eval_values[eval_slot_of[k]]`` holds point ``k``'s float64 kernel values at
    the evaluation points, for fresh checks. ``threads`` fill a long row in as many
    column ranges at once (:func:`compute_row`): dense points whose sums esmo
    computes; 1 for sparse points and for BLAS products, which keep their own.
    ``exp_table`` holds the RBF values of integer features by squared distance
    (:func:`~esmo.solver.kernels.integer_distance_table`), empty otherwise;
    ``XT32`` then holds the dense columns again in float32, exact for integers,
    which a row's sums read at half the bytes (:func:`_row_dots`); empty
    otherwise. A field of its own rather than ``XT`` in float32: one type of
    store for every dense fit, so numba compiles the loop once (a float32
    ``XT`` made a second one, which numba 0.58 mixed up with the first).
    A store with a ``source`` (a search's kernel matrix,
    :class:`~esmo.solver.shared_kernel.SharedKernel`; else empty) gathers a
    missing row from it instead of computing it: row ``i``'s column ``k`` is
    ``source[source_of[i], source_of[k]]``, in slot ``i``, not counted as
    computed.
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
    clock: np.ndarray
    resident: bool
    blas: bool
    eval_values: np.ndarray
    eval_slot_of: np.ndarray
    threads: int
    exp_table: np.ndarray
    XT32: np.ndarray
    source: np.ndarray
    source_of: np.ndarray


def build_kernel_rows(
    X_train: np.ndarray,
    X_eval: Sequence[np.ndarray],
    params: SolverParams,
    incremental: bool = True,
    fresh_checks: bool = False,
) -> KernelRows:
    """Prepare the on-demand row store: one slot per row if they fit ``cache_size_mb``, else LRU.

    Rows run over the training points, then the blocks of ``X_eval`` (validation
    and test points) in order. They are never filled up front: an SMO run reads
    only the rows of the points that enter a working pair, often a small share of
    ``n`` (LIBSVM computes rows on demand for the same reason), and a row costs
    ``O(n_cols * nnz(x_i))``. Float32 storage (the default, LIBSVM's) rounds away
    the last-bit differences between summation orders. Float64 storage exposes
    them, so it keeps the BLAS products its reference results were computed with:
    all rows up front with ``gemm`` when they fit, else ``gemv`` rows on demand
    (dense points only: sparse ones are never written out).
    Rows have room for the evaluation columns only with ``incremental`` (some
    configuration moves the decision values by them): a row store wider than
    the training columns costs a plain loop cache misses. With ``fresh_checks``
    the budget the rows leave holds the evaluation columns that fresh checks
    compute (:func:`fresh_sums`).
    """
    code, gamma, dtype = params.kernel_code, params.gamma, params.kernel_dtype
    blocks = [X_train, *X_eval]
    n, n_cols = X_train.shape[0], sum(b.shape[0] for b in blocks)
    itemsize = np.dtype(dtype).itemsize
    budget = params.cache_size_mb * 2**20
    width = n_cols if incremental else n
    check_two_rows(params.cache_size_mb, width, itemsize)
    sq_all = np.zeros(n_cols)
    exp_table = np.empty(0)
    if code == 1:
        sq_all[:] = np.concatenate([squared_norms(b) for b in blocks])
        exp_table = integer_distance_table(blocks, sq_all, gamma)
    if sparse.is_sparse(X_train):  # CSR blocks, as esmo.solver.inputs leaves them
        narrow = sparse.shared_features(blocks)
        X_all, XT, blas = sparse.csr_points(narrow[0]), sparse.feature_major(narrow), False
    else:
        # the transposed columns are written block by block: no concatenated copy
        XT = np.empty((X_train.shape[1], n_cols))
        start = 0
        for b in blocks:
            XT[:, start : start + b.shape[0]] = b.T
            start += b.shape[0]
        blas = np.dtype(dtype) == np.float64
        X_all = np.concatenate(blocks) if blas and len(blocks) > 1 else X_train
    XT32 = np.empty((0, 0), np.float32)
    if exp_table.size and isinstance(XT, np.ndarray) and not blas:
        XT32 = XT.astype(np.float32)
    clock = np.zeros(N_CLOCK_SLOTS, dtype=np.int64)
    # threads for dense points filled by the sums (numba's parallel loops take
    # arrays, not the sparse points' named tuples; BLAS keeps its own threads)
    threads = params.n_jobs if isinstance(X_all, np.ndarray) and not blas else 1
    if blas and n * width * itemsize <= budget:
        clock[ROWS_COMPUTED], clock[VALUES_COMPUTED] = n, n * width
        data = row_memory.take((n, width), dtype)
        row_blocks = blocks if incremental else blocks[:1]
        for start in range(0, n, _CHUNK_ROWS):
            stop = min(start + _CHUNK_ROWS, n)
            col = 0
            for b in row_blocks:  # one product per block: see _blas_dots
                data[start:stop, col : col + b.shape[0]] = kernel_matrix(
                    X_train[start:stop], b, params.kernel, gamma
                )
                col += b.shape[0]
        slot_of = np.arange(n, dtype=np.int64)
        stamp = np.zeros(n, np.int64)
        left = budget - data.nbytes if fresh_checks else 0
        return KernelRows(
            X_all,
            XT,
            sq_all,
            code,
            gamma,
            data,
            slot_of,
            slot_of.copy(),
            stamp,
            clock,
            True,
            True,
            *_eval_store(n, n_cols - n, left),
            threads,
            exp_table,
            XT32,
            *_no_source(dtype),
        )
    n_slots = int(min(n, budget // (width * itemsize)))  # two at least: check_two_rows
    left = budget - n_slots * width * itemsize if fresh_checks else 0
    return KernelRows(
        X_all,
        XT,
        sq_all,
        code,
        gamma,
        row_memory.take((n_slots, width), dtype),
        np.full(n, -1, dtype=np.int64),
        np.full(n_slots, -1, dtype=np.int64),
        np.full(n_slots, -1, dtype=np.int64),
        clock,
        n_slots == n,
        blas,
        *_eval_store(n, n_cols - n, left),
        threads,
        exp_table,
        XT32,
        *_no_source(dtype),
    )


def _no_source(dtype) -> tuple[np.ndarray, np.ndarray]:
    """``source`` and ``source_of`` of a store that computes its rows."""
    return np.empty((0, 0), dtype=dtype), np.empty(0, dtype=np.int64)


def check_two_rows(cache_size_mb: float, width: int, itemsize: int) -> None:
    """Refuse a budget below two rows, before any work: the working pair must be resident
    together (LIBSVM quietly takes more memory than asked; esmo says so instead)."""
    need_mb = 2 * width * itemsize / 2**20
    if cache_size_mb < need_mb:
        enough = math.ceil(need_mb * 1000) / 1000  # rounded up: the value given is enough
        raise ValueError(
            f"cache_size_mb={cache_size_mb:g} holds fewer than the two kernel rows of "
            f"{width} values each that SMO's working pair needs; set cache_size_mb to at "
            f"least {enough:g}."
        )


def check_shared_rows(
    rows: KernelRows, n: int, m: int, fresh: np.ndarray, predictions: bool = False
) -> None:
    """A store handed to a run (:mod:`esmo.solver.shared_kernel`) fits its ``n`` training and
    ``m`` evaluation points, with a slot for each row, every row in place or gathered from its
    source, and room for incremental checks; a gathered store holds no points, so no final
    ``predictions`` at the evaluation points either."""
    width = n + m if m else n
    gathered = (
        rows.source_of.shape[0] == width if rows.source.size else not (rows.slot_of < 0).any()
    )
    if rows.data.shape != (n, width) or not rows.resident or not gathered:
        raise ValueError(
            f"The given kernel rows hold {rows.data.shape} values; a run on {n} points with "
            f"{m} evaluation points needs all {n} rows of {width} columns, in place or gathered "
            "(SharedKernel.rows builds them)."
        )
    if m and fresh.any():
        raise ValueError(
            "Shared kernel rows serve incremental checks only; pass evaluation='incremental'."
        )
    if predictions and m and rows.source.size:
        raise ValueError(
            "Gathered kernel rows (SharedKernel.rows) hold no points to compute final "
            "predictions from; pass final_predictions_at_eval=False and predict with the "
            "fitted model."
        )


def store_signature(
    params: SolverParams, n: int, blocks: Sequence, incremental: bool, fresh_checks: bool
) -> tuple:
    """What a kept store must match to serve another run on the same points: the kernel,
    its width, storage and budget, threads, and the columns and evaluation mode it was built for."""
    return (
        params.kernel, params.gamma, np.dtype(params.kernel_dtype).str, params.cache_size_mb,
        params.n_jobs, n, tuple(b.shape[0] for b in blocks), incremental, fresh_checks,
    )  # fmt: skip


def count_afresh(rows: KernelRows) -> KernelRows:
    """A kept store for one more run: its rows and slots as they are, its cost counted from 0."""
    rows.clock[ROWS_COMPUTED] = 0
    rows.clock[VALUES_COMPUTED] = 0
    return rows


def stored_sums(rows: KernelRows, alpha: np.ndarray, y: np.ndarray, n: int) -> np.ndarray:
    """``sum_k a_k y_k K(x_k, x)`` at the evaluation columns of a store whose rows are in place
    or gathered (a search's, :mod:`esmo.solver.shared_kernel`): a warm start's validation sums
    read from the store instead of computed afresh.

    Each support vector's row is read where it lies, gathered first where it
    is not yet (:func:`~esmo.solver.predictions.decisions_from_rows`; a gather
    of the rows for one BLAS product first copied them: a path's warm starts
    spent a quarter of early stopping's cost there).
    """
    for i in np.flatnonzero((alpha != 0.0) & (rows.slot_of[:n] < 0)):
        get_row(rows, i, rows.data.shape[1])
    coef = np.zeros(rows.data.shape[0])
    slots = rows.slot_of[:n]
    placed = slots >= 0  # the others' coefficients are 0: their slots are never read
    coef[slots[placed]] = (alpha * y)[placed]  # by slot, as the rows lie
    return decisions_from_rows(rows.data[:, n:], coef, 0.0)


def _eval_store(n: int, m: int, budget: float) -> tuple[np.ndarray, np.ndarray]:
    """Slots for the float64 evaluation columns of up to ``n`` points, as many as ``budget`` holds.

    Unused memory is never touched (``np.empty``), so a generous budget costs
    only the slots fresh checks fill.
    """
    n_slots = int(min(n, budget // (8 * m))) if m and budget > 0 else 0
    return np.empty((n_slots, m)), np.full(n, -1, dtype=np.int64)


@jit
def _blas_dots(X_all, xi, n, n_cols):
    """``x_i . x_k`` for the first ``n_cols`` column points, by BLAS, the training columns alone.

    One product over the training columns and one over the evaluation columns:
    BLAS may block a longer product differently and round the training columns
    otherwise, so a run that tracks early stopping would leave the plain run's
    path (numpy 1.24.1's OpenBLAS did: 959 against 936 iterations on one problem).
    """
    if n_cols == n:
        return np.dot(X_all[:n], xi)
    dots = np.empty(n_cols)
    dots[:n] = np.dot(X_all[:n], xi)
    dots[n:] = np.dot(X_all[n:n_cols], xi)
    return dots


def _row_dots(X_all, XT, XT32, blas, i, n, start, stop):
    """``x_i . x_k`` for the column points ``k`` in ``[start, stop)``: compiled code only.

    BLAS products (float64 storage of dense points) always start at column 0.
    Integer features sum over the float32 columns ``XT32`` when present: the
    same exact integers as over ``XT``.
    """
    raise NotImplementedError("_row_dots runs in compiled code only")


@overload(_row_dots)
def _row_dots_impl(X_all, XT, XT32, blas, i, n, start, stop):
    if not isinstance(X_all, types.Array):  # sparse points: never BLAS

        def sparse_points(X_all, XT, XT32, blas, i, n, start, stop):
            return sparse.csr_dots(X_all, i, XT, start, stop)

        return sparse_points

    def dense(X_all, XT, XT32, blas, i, n, start, stop):
        if blas:
            return _blas_dots(X_all, X_all[i], n, stop)
        if XT32.size > 0:
            return sparse_dots(X_all[i], XT32, start, stop)
        return sparse_dots(X_all[i], XT, start, stop)

    return dense


@jit(inline="always")
def cached_slot(rows, i):
    """Row ``i``'s slot, its use stamped, when the store holds it; else -1 (then :func:`fill_slot`).

    The hit path, a few loads and stores, reads only the fields it needs, at the
    top: a store field read in a branch, or the store handed to a call, makes
    numba take a reference to each of its arrays per row read (about 20
    reference-count operations; without them plain fits run 0-5 % faster, 6 %
    on a long german.numer fit), so the solver loop calls :func:`fill_slot`
    itself on a miss.
    """
    clock, slot_of, stamp = rows.clock, rows.slot_of, rows.stamp
    clock[LRU_TICK] += 1
    s = slot_of[i]
    if s >= 0:
        stamp[s] = clock[LRU_TICK]
    return s


@jit
def fill_slot(rows, i, n_cols):
    """Compute row ``i`` (its first ``n_cols`` entries) into a slot, and return the slot.

    Free slots are handed out in order, without a search; once all are taken the
    least recently used is evicted (:func:`compute_row` computes it). A gathered
    store's row goes to its own slot, gathered whole (:func:`gather_in_place`).
    """
    clock = rows.clock
    if rows.source.shape[0] > 0:
        gather_in_place(rows.source, rows.source_of, rows.slot_of, rows.owner, i, rows.data[i])
        rows.stamp[i] = clock[LRU_TICK]
        return i
    if clock[SLOTS_TAKEN] < rows.owner.shape[0]:
        s = clock[SLOTS_TAKEN]
        clock[SLOTS_TAKEN] += 1
    else:
        s = np.argmin(rows.stamp)  # the least recently used
        rows.slot_of[rows.owner[s]] = -1
    rows.owner[s] = i
    rows.slot_of[i] = s
    rows.stamp[s] = clock[LRU_TICK]
    compute_row(rows, i, n_cols, rows.data[s])
    return s


@jit
def compute_row(rows, i, n_cols, row):
    """Row ``i``'s first ``n_cols`` kernel values into ``row``, counted in ``clock``.

    Float32 storage computes the dot products with
    :func:`~esmo.solver.kernels.sparse_dots` (:func:`esmo.solver.sparse.csr_dots`
    for sparse points), float64 storage of dense points with BLAS. With
    ``rows.threads > 1`` a long row is filled in that many column ranges at once
    (:func:`_fill_in_parts`); each value is the same sum either way, so the row
    is the same to the bit for any number of threads. A store with a ``source``
    gathers the whole ``row`` from it instead, uncounted (:func:`gather_row`).
    """
    if rows.source.shape[0] > 0:  # every column of the row, so a row gathered once serves all
        gather_row(rows.source, rows.source_of, i, row)
        return
    compute_columns(rows, i, 0, n_cols, row)


@jit
def compute_columns(rows, i, start, stop, row):
    """Row ``i``'s kernel values at the columns ``[start, stop)`` into ``row[start:stop]``,
    counted in ``clock`` as a row; each value the one :func:`compute_row` gives."""
    clock = rows.clock
    clock[ROWS_COMPUTED] += 1
    clock[VALUES_COMPUTED] += stop - start
    _fill_row(rows, i, start, stop, row)


@jit(nogil=True)
def gather_in_place(source, source_of, slot_of, owner, i, row):
    """Row ``i`` of a gathered store gathered into ``row``, its slot: such a store has a slot
    per row, row ``i`` in slot ``i``, so a row read once stays (the one rule for the solver's
    reads, :func:`fill_slot`, and the active-set rounds', ``active_set.ensure_row``)."""
    gather_row(source, source_of, i, row)
    slot_of[i] = i
    owner[i] = i


@jit(nogil=True)
def gather_row(source, source_of, i, row):
    """Row ``i`` of a store whose points are ``source_of`` in ``source``: ``source[source_of[i],
    source_of[k]]`` for each of ``row``'s columns ``k``."""
    values = source[source_of[i]]
    for k in range(row.shape[0]):
        row[k] = values[source_of[k]]


def _fill_row(rows, i, start, stop, row):
    """Row ``i``'s values at the columns ``[start, stop)``, in parts where ``rows.threads``
    asks: compiled only."""
    raise NotImplementedError("_fill_row runs in compiled code only")


@overload(_fill_row)
def _fill_row_impl(rows, i, start, stop, row):
    if not isinstance(rows.types[rows.fields.index("X_all")], types.Array):
        # sparse points: one thread (numba's parallel loops take arrays, not named tuples)
        return lambda rows, i, start, stop, row: fill_columns(rows, i, start, stop, row)

    def dense(rows, i, start, stop, row):
        if rows.threads > 1 and stop - start >= PARALLEL_MIN_COLUMNS:
            _fill_in_parts(rows, i, start, stop, row)
        else:
            fill_columns(rows, i, start, stop, row)

    return dense


@jit
def fill_columns(rows, i, start, stop, row):
    """Row ``i``'s kernel values at the columns ``[start, stop)`` into ``row[start:stop]``."""
    dots = _row_dots(
        rows.X_all, rows.XT, rows.XT32, rows.blas, i, rows.slot_of.shape[0], start, stop
    )
    kernel_values(rows, dots, rows.sq_all[i], rows.sq_all, start, row[start:stop])


@jit(inline="always")
def kernel_values(rows, dots, sq_i, sq_cols, start, out):
    """The kernel values from point ``i``'s dot products with the columns ``start`` on, into ``out``.

    ``sq_i`` is ``|x_i|^2`` and ``sq_cols`` the columns' squared norms (read from
    ``start``); ``dots`` is overwritten. Every row, whichever columns it covers,
    takes its values here, so equal dot products give equal values; with
    integer features they are read from ``rows.exp_table``, the same values.
    """
    if rows.kernel_code == 1:
        rbf_values(dots, sq_i, sq_cols, start, rows.gamma, rows.exp_table, out)
    else:
        for k in range(out.shape[0]):
            out[k] = dots[k]


@jit(parallel=True)
def _fill_in_parts(rows, i, start, stop, row):
    """:func:`fill_columns` over ``rows.threads`` ranges of the columns ``[start, stop)``, one
    per thread.

    Every value adds its terms in feature order within one range, and the
    exponential is taken value by value, so the ranges change no bit of the row.
    """
    parts = rows.threads
    size = (stop - start + parts - 1) // parts
    for part in prange(parts):
        lo = start + part * size
        hi = min(stop, lo + size)
        if lo < hi:
            fill_columns(rows, i, lo, hi, row)


@jit
def peek_row(rows, i, spare):
    """Row ``i`` as stored, else computed into ``spare`` (its training columns): the store unchanged.

    For passes that read many rows once, outside the working pair
    (:func:`esmo.solver.shrinking.reconstruct_gradient`): no use is stamped and
    no row evicted, so the rows a run keeps, and so its kernel cost, do not
    depend on them; a row computed here is counted all the same.
    """
    s = rows.slot_of[i]
    if s >= 0:
        return rows.data[s]
    compute_row(rows, i, spare.shape[0], spare)
    return spare


@jit
def get_row(rows, i, n_cols):
    """Row ``i`` of the store ``rows`` (the first ``n_cols`` entries valid), computing it on a miss.

    The solver loop takes the same two steps itself (:func:`cached_slot` says why).
    """
    s = cached_slot(rows, i)
    return rows.data[s if s >= 0 else fill_slot(rows, i, n_cols)]


@jit
def fresh_sums(rows, alpha, y, n, m):
    """``sum_k a_k y_k K(x_k, x)`` at the ``m`` evaluation columns, from the current alphas alone.

    Returns the sums and the kernel values computed. A support vector's values
    at the evaluation points are computed as :func:`get_row` computes a row's
    (sparse dot products over its nonzero features, the vectorised exp), in
    float64, the first time a check needs them, and kept in ``eval_values``
    while slots remain, so a run computes each support vector's ``m`` values
    once, not at every check; the support vectors are added in index order. So
    the sums depend on the alphas alone, bit for bit, whatever the run tracks
    or caches.
    """
    sums = np.zeros(m)
    n_values = 0
    slot_of, store, clock = rows.eval_slot_of, rows.eval_values, rows.clock
    for k in range(n):
        if alpha[k] == 0.0:
            continue
        s = slot_of[k]
        if s >= 0:
            values = store[s]
        else:
            values = _eval_values(rows, k, n, m)
            n_values += m
            if clock[EVAL_SLOTS_TAKEN] < store.shape[0]:
                slot_of[k] = clock[EVAL_SLOTS_TAKEN]
                store[clock[EVAL_SLOTS_TAKEN]] = values
                clock[EVAL_SLOTS_TAKEN] += 1
        c = alpha[k] * y[k]
        for v in range(m):
            sums[v] += c * values[v]
    return sums, n_values


@jit
def _eval_values(rows, k, n, m):
    """Point ``k``'s float64 kernel values at the ``m`` evaluation columns."""
    dots = point_dots(rows.X_all, rows.XT, k, n, n + m)
    kernel_values(rows, dots, rows.sq_all[k], rows.sq_all, n, dots)  # in place
    return dots
