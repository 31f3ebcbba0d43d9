"""One kernel matrix for many fits: the rows every fold and every ``C`` of a search reads.

A fit's kernel rows depend on ``gamma`` and on the points, never on ``C`` or on
which fold the points train in; a 5-fold search over 50 values of ``C``
recomputes each value up to 250 times (scikit-learn's ``GridSearchCV(SVC)``
does). :class:`SharedKernel` computes the kernel matrix of the whole training
set once, in the row store's own arithmetic
(:func:`esmo.solver.row_cache.compute_columns`, float32 like LIBSVM's
``Qfloat``; the upper half, the lower copied), and hands each fit a store whose rows are
gathers of those rows: a fold's training points as rows, its training and its
held-out points as columns, each row gathered the first time a fit reads it. A
value is the same sum whichever store computes it, so a fit reading the
gathered store takes the very path of a fit that computes its own rows: the
same iterations, alphas and rho, to the bit.
"""

from __future__ import annotations

import queue

import numpy as np

from esmo.solver import row_memory
from esmo.solver.compile import jit, numba_threads
from esmo.solver.inputs import as_features, check_kernel_range
from esmo.solver.params import SolverParams
from esmo.solver.row_cache import (
    VALUES_COMPUTED,
    KernelRows,
    build_kernel_rows,
    compute_columns,
)

MB = 2**20


@jit
def _fill_every_row(rows, n):
    """Every row of a resident store, row ``i`` in slot ``i``: its values from column ``i`` on
    computed, the ones before copied from the rows above (:func:`copy_upper_to_lower`)."""
    for i in range(n):
        rows.slot_of[i] = i
        rows.owner[i] = i
        compute_columns(rows, i, i, n, rows.data[i])
    copy_upper_to_lower(rows.data, n)


#: side of the square blocks :func:`copy_upper_to_lower` copies, each read and written in cache
MIRRORED_BLOCK = 64


@jit
def copy_upper_to_lower(M, n):
    """``M[i, j] = M[j, i]`` below the diagonal of ``M[:n, :n]``, block by block.

    A kernel value is the same to the bit either way round: its dot product adds
    the nonzero products of the two points' features in feature order (a term
    only one point has is a zero), and its norms are added in either order, so
    copying half the matrix gives the matrix every row computed whole gives.
    """
    for top in range(0, n, MIRRORED_BLOCK):
        for left in range(0, top + 1, MIRRORED_BLOCK):
            for i in range(top, min(top + MIRRORED_BLOCK, n)):
                for j in range(left, min(left + MIRRORED_BLOCK, i)):
                    M[i, j] = M[j, i]


def shared_kernel_mb(n: int, gathers: int = 1) -> float:
    """Memory a :class:`SharedKernel` of ``n`` points needs: the matrix, and ``gathers`` folds' gathers."""
    return (1 + gathers) * n * n * np.dtype(np.float32).itemsize / MB


class SharedKernel:
    """The float32 kernel matrix of the points ``X`` (dense or sparse) for one kernel and ``gamma``.

    ``kernel_evaluations`` counts the values computed, ``n (n + 1) / 2`` (the
    diagonal and above; the rest are copies), once for every fit that reads it
    (:meth:`rows`). The matrix and the ``gathers`` folds' gathers
    read at once must fit ``cache_size_mb`` (:func:`shared_kernel_mb`); a smaller
    budget is refused, as are features that are not finite or whose kernel
    values overflow (:func:`~esmo.solver.inputs.check_kernel_range`): checks
    the fits reading the gathers then need not repeat.
    """

    def __init__(
        self,
        X,
        kernel: str,
        gamma: float,
        *,
        cache_size_mb: float = 1024.0,
        n_jobs: int = 1,
        gathers: int = 1,
    ) -> None:
        n = X.shape[0]
        need = shared_kernel_mb(n, gathers)
        if need > cache_size_mb:
            folds = "one fold's gather" if gathers == 1 else f"{gathers} folds' gathers"
            raise ValueError(
                f"The shared kernel matrix of {n} points and {folds} need {need:.0f} MB, "
                f"more than cache_size_mb={cache_size_mb:g}; raise cache_size_mb to at least "
                f"{np.ceil(need):.0f}, or search on a subsample."
            )
        X = as_features(X, "X")  # the fits reading the gathers take X as checked here
        check_kernel_range(X, kernel, np.float32)
        self.X = X
        self.params = SolverParams(
            kernel=kernel, gamma=gamma, cache_size_mb=max(cache_size_mb, need), n_jobs=n_jobs
        )
        store = build_kernel_rows(X, [], self.params, incremental=False)
        with numba_threads(store.threads):
            _fill_every_row(store, n)
        self.matrix = store.data
        self.kernel_evaluations = int(store.clock[VALUES_COMPUTED])
        self.squared_norms, self.exp_table = store.sq_all, store.exp_table
        # the gathers' memory, taken here and passed from fold to fold: a search takes as
        # many buffers whichever folds overlap, so the next search finds them all kept
        self._gathers: queue.SimpleQueue[np.ndarray] = queue.SimpleQueue()
        for _ in range(gathers):
            self._gathers.put(self._new_gather())

    def prepared(self, points: np.ndarray, columns: np.ndarray) -> tuple[np.ndarray, ...] | None:
        """For RBF, what :class:`~esmo.solver.kernels.FeatureOrderRows` of the points ``points``
        (its rows) and ``columns`` would compute first: their squared norms and the exp table."""
        if self.params.kernel != "rbf":
            return None
        return self.squared_norms[points], self.squared_norms[columns], self.exp_table

    def rows(self, train: np.ndarray, held_out: np.ndarray, params: SolverParams) -> KernelRows:
        """The store a fit on the points ``train`` reads (tracking ``held_out`` if non-empty).

        ``params`` are the fit's (its ``C``, tolerance, shrinking); its kernel,
        ``gamma`` and storage must be this matrix's. Its rows are gathers of the
        matrix's (:func:`~esmo.solver.row_cache.gather_in_place`), so the fit computes
        none: its own count of kernel values stays 0. A row is gathered the first
        time a fit reads it: on w1a a C path's fits read a third of a fold's
        rows. The store holds no points of its own, so a run on it refuses
        ``final_predictions_at_eval``. The caller gives the store's memory back
        (:meth:`give_back`) once no fit reads it.
        """
        mine = self.params
        if (params.kernel, params.gamma, np.dtype(params.kernel_dtype)) != (
            mine.kernel,
            mine.gamma,
            np.dtype(np.float32),
        ):
            raise ValueError(
                f"This shared kernel holds kernel={mine.kernel!r}, gamma={mine.gamma!r} in float32; "
                f"the fit asks kernel={params.kernel!r}, gamma={params.gamma!r}, "
                f"kernel_dtype={np.dtype(params.kernel_dtype)}."
            )
        n, width = len(train), len(train) + len(held_out)
        if width > self.X.shape[0]:  # a gather's memory holds every point once at most
            raise ValueError(
                f"train and held_out name {width} points of the {self.X.shape[0]} this kernel "
                "holds: a point may be in one of them once; pass disjoint index sets."
            )
        # a store's own points would compute its missing rows; these are gathered, so the
        # template holds one point (the fold's points and its held-out ones transposed, with
        # their norms: 2.4 ms a fold on w1a), and a run on it computes no final predictions
        template = build_kernel_rows(self.X[train[:1]], [], params, incremental=False)
        columns = np.asarray(np.concatenate([train, held_out]), np.int64)
        row_memory.give_back(template.data)  # never filled: the gathers take its place
        try:
            memory = self._gathers.get_nowait()
        except queue.Empty:  # more folds at once than ``gathers``: one more buffer
            memory = self._new_gather()
        return template._replace(
            data=row_memory.on_buffer(memory, (n, width), np.float32),
            slot_of=np.full(n, -1, dtype=np.int64),
            owner=np.full(n, -1, dtype=np.int64),
            stamp=np.zeros(n, dtype=np.int64),
            clock=np.zeros_like(template.clock),
            resident=True,
            source=self.matrix,
            source_of=columns,
        )

    def give_back(self, rows: KernelRows) -> None:
        """The memory of a store from :meth:`rows`, for the next fold's: no fit reads it any more."""
        self._gathers.put(rows.data.base)

    def release(self) -> None:
        """The matrix's memory and the gathers' to :mod:`~esmo.solver.row_memory`, for the next
        search: no fit reads them any more."""
        row_memory.give_back(self.matrix)
        while not self._gathers.empty():
            row_memory.give_back(self._gathers.get_nowait())

    def _new_gather(self) -> np.ndarray:
        """Bytes for any fold's gather (at most every point as a row and as a column), on memory
        kept from an earlier store (:mod:`~esmo.solver.row_memory`): a gather's fresh pages took
        longer than its copying."""
        n = self.X.shape[0]
        return row_memory.take((n * n * np.dtype(np.float32).itemsize,), np.uint8).base
