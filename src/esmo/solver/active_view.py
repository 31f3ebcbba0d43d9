"""Shrinking's active points side by side: the passes of a long run over contiguous copies.

Late in a long run with shrinking, a few thousand active points lie scattered
among tens of thousands. Read through LIBSVM's order of them
(``SolverState.active``), each pass touches one cache line per active point in
each kernel row, and the rows in use (one per free vector, a few hundred MB)
are far out of the processor's caches: on Bank (n = 45,211) with 1,368 active
points an iteration took 33 us, 9 us with the same two rows hot. LIBSVM avoids
this by permuting its arrays and its cached rows so that the active points
come first (``swap_index``).

The view does the same on copies. :func:`refresh` gathers the active points'
``y``, ``QD``, gradient and statuses by position in that order, and
:func:`view_row` a kernel row's active columns the first time the loop reads
it (a row of ``n_active`` values, kept in a small store of its own). When
shrinking moves points, the stored rows follow the same moves instead of being
gathered again. The passes over the view are those of
:mod:`esmo.solver.working_set` and :mod:`esmo.solver.update` on the same
values in the same order, so the run is the same to the bit; only where the
values lie changes. While the view is open its gradient is the one the loop
updates: :func:`sync_gradient` writes it back before anything reads ``G``.

A row neither the view nor the row store holds is computed at the view's points
alone (:func:`view_row_computed`, LIBSVM's ``get_Q(i, active_size)``): the view
keeps its points' features transposed and their squared norms, and each value
is the sum the store would compute, so the row is the same to the bit at a
fraction of the cost (on Bank at C = 2^10, gamma = 2, about 10,000 of 45,211
points are active while the 9,600 free vectors' rows overflow the store). This
is for dense points stored in float32 and runs without early stopping, whose
checks read the whole rows; the others gather their rows from the store.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import types
from numba.extending import overload

from esmo.solver.compile import jit
from esmo.solver.kernels import sparse_dots
from esmo.solver.row_cache import ROWS_COMPUTED, VALUES_COMPUTED, kernel_values
from esmo.solver.update import update_gradient
from esmo.solver.working_set import select_j

#: Points below which the loop never opens the view: a row of fewer fits the
#: processor's caches, and the scattered reads cost no more than the copies
#: (read by :func:`esmo.solver.smo.drive` at each run, handed to the loop).
VIEW_MIN_POINTS = 8192
#: The view's rows may take this share of the row store's memory (they are short:
#: ``n_active`` values each).
VIEW_SHARE = 0.25
#: The view is open while fewer than OPEN_NUM / OPEN_DEN of the points are active
#: (:func:`opens`). Wider views were slower overall (2026-11-28): at 1/2 and 2/3,
#: Bank's fit at C = 2^10, gamma = 2 took 6-8 % less time, but MAGIC's short fits
#: 8-17 % more (rows computed at the view's points are computed again whole later).
OPEN_NUM, OPEN_DEN = 1, 3
#: Moves a refresh applies to the stored rows, at most, as a share of the active
#: points; more, and the rows are gathered again as they are read.
MOST_MOVES = 0.25


class ActiveView(NamedTuple):
    """The active points' values by position in LIBSVM's order, and their rows' active columns.

    ``points[k]`` is the point at position ``k`` (``count[0]`` of them),
    ``position[t]`` point ``t``'s position while it is in the view. ``data[s]``
    holds the active columns of point ``owner[s]``'s kernel row
    (``slot_of[t]``: its slot, -1 when none); slots are reused in turn. ``XT``
    and ``sq`` hold the points' features (transposed) and squared norms by
    position, for rows computed at the view's points (no rows when ``XT`` has
    no feature row).
    """

    y: np.ndarray
    QD: np.ndarray
    G: np.ndarray
    status: np.ndarray
    low_excluded: np.ndarray
    up_excluded: np.ndarray
    points: np.ndarray
    position: np.ndarray
    count: np.ndarray
    data: np.ndarray
    slot_of: np.ndarray
    owner: np.ndarray
    next_slot: np.ndarray
    XT: np.ndarray
    sq: np.ndarray


@jit
def new_view(n, width, slots, dtype, features=0):
    """An empty view of at most ``width`` points with ``slots`` rows (``features``: see ``XT``)."""
    return ActiveView(
        y=np.empty(width),
        QD=np.empty(width),
        G=np.empty(width),
        status=np.empty(width, dtype=np.int8),
        low_excluded=np.empty(width, dtype=np.int8),
        up_excluded=np.empty(width, dtype=np.int8),
        points=np.empty(width, dtype=np.int64),
        position=np.zeros(n if width else 0, dtype=np.int64),
        count=np.zeros(1, dtype=np.int64),
        data=np.empty((slots, width), dtype=dtype),
        slot_of=np.full(n if width else 0, -1, dtype=np.int64),
        owner=np.full(slots, -1, dtype=np.int64),
        next_slot=np.zeros(1, dtype=np.int64),
        XT=np.empty((features, width if features else 0)),
        sq=np.empty(width if features else 0),
    )


@jit
def view_for_run(n, rows, may_view):
    """The view a run may open: wide enough for any count of active points that opens it.

    Made once per run, so the loop never replaces it (a named tuple of arrays
    the loop may reassign costs reference counting in every iteration). Its
    rows take :data:`VIEW_SHARE` of the row store's memory, and never more rows
    than points; memory is reserved, not touched, until the view is read.
    Empty when ``may_view`` is false.
    """
    width = (OPEN_NUM * n - 1) // OPEN_DEN if may_view else 0  # the most that open it
    slots = max(2, min(width, int(VIEW_SHARE * rows.data.size) // max(width, 1)))
    features = computed_features(rows) if width else 0
    return new_view(n, width, slots if width else 0, rows.data.dtype, features)


@jit(inline="always")
def opens(n_active, n):
    """Whether the view is open with ``n_active`` of the ``n`` points active."""
    return OPEN_DEN * n_active < OPEN_NUM * n


def computed_features(rows):
    """The features the view keeps to compute rows at its points: 0 where it cannot (compiled only)."""
    raise NotImplementedError("computed_features runs in compiled code only")


@overload(computed_features)
def _computed_features_impl(rows):
    if not isinstance(rows.types[rows.fields.index("X_all")], types.Array):
        return lambda rows: 0  # sparse points: rows gathered from the store
    # a resident store (a search's gather of one kernel matrix) holds every row, so the view
    # never computes one: no features to gather at each refresh
    return lambda rows: 0 if rows.blas or rows.resident else rows.XT.shape[0]


@jit
def gather_features(view, rows):
    """The view's points' transposed features and squared norms, by position, after a refresh."""
    _gather_features(view, rows)


def _gather_features(view, rows):
    """:func:`gather_features` for the representation of ``rows`` (compiled only)."""
    raise NotImplementedError("_gather_features runs in compiled code only")


@overload(_gather_features)
def _gather_features_impl(view, rows):
    if not isinstance(rows.types[rows.fields.index("X_all")], types.Array):
        return lambda view, rows: None

    def dense(view, rows):
        points, count, XT = view.points, view.count[0], rows.XT
        for f in range(view.XT.shape[0]):
            for k in range(count):
                view.XT[f, k] = XT[f, points[k]]
        for k in range(count):
            view.sq[k] = rows.sq_all[points[k]]

    return dense


@jit
def refresh(view, y, QD, G, status, low_excluded, up_excluded, active, n_active):
    """Gather the active points' values, and move the stored rows' columns as the points moved.

    A point that moved takes its column from its old position; when some
    active point was not in the view, or too many moved, the rows are
    dropped (gathered again when read).
    """
    old, points, position = view.count[0], view.points, view.position
    moved_to = np.empty(n_active, dtype=np.int64)
    moved_from = np.empty(n_active, dtype=np.int64)
    moves = 0
    keep = True
    for k in range(n_active):
        t = active[k]
        if k < old and points[k] == t:
            continue
        at = position[t]
        if at >= old or points[at] != t or moves >= MOST_MOVES * n_active:
            keep = False
            break
        moved_to[moves], moved_from[moves] = k, at
        moves += 1
    if keep:
        move_columns(view, moved_to[:moves], moved_from[:moves])
    else:
        drop_rows(view)
    for k in range(n_active):
        t = active[k]
        points[k], position[t] = t, k
        view.y[k], view.QD[k], view.G[k] = y[t], QD[t], G[t]
        view.status[k] = status[t]
        view.low_excluded[k], view.up_excluded[k] = low_excluded[t], up_excluded[t]
    view.count[0] = n_active


@jit
def move_columns(view, moved_to, moved_from):
    """Every stored row's column ``moved_from[q]`` to ``moved_to[q]`` (read all, then write)."""
    values = np.empty(moved_to.shape[0], dtype=view.data.dtype)
    for s in range(view.owner.shape[0]):
        if view.owner[s] < 0:
            continue
        row = view.data[s]
        for q in range(moved_to.shape[0]):
            values[q] = row[moved_from[q]]
        for q in range(moved_to.shape[0]):
            row[moved_to[q]] = values[q]


@jit
def drop_rows(view):
    """Forget every stored row."""
    for s in range(view.owner.shape[0]):
        if view.owner[s] >= 0:
            view.slot_of[view.owner[s]] = -1
            view.owner[s] = -1


@jit
def view_row(view, t, K, keep):
    """Point ``t``'s kernel row at the view's points, by position: stored, or gathered from ``K``.

    Slots are reused in turn, except that of point ``keep`` (the other point of
    the working pair, whose row the iteration still reads; -1 for none).
    """
    s = view.slot_of[t]
    if s >= 0:
        return view.data[s]
    row, points = view.data[take_slot(view, t, keep)], view.points
    for k in range(view.count[0]):
        row[k] = K[np.uint64(points[k])]  # unsigned: no test for a negative index
    return row


@jit
def view_row_computed(view, t, rows, keep):
    """:func:`view_row` for a run that reads no whole row: gathered from the store, else computed.

    A row the store lacks is computed at the view's points alone (counted in
    the store's clock), with the store's arithmetic value by value.
    """
    s = view.slot_of[t]
    if s >= 0:
        return view.data[s]
    stored = rows.slot_of[t]
    if stored >= 0:
        return view_row(view, t, rows.data[stored], keep)
    row = view.data[take_slot(view, t, keep)]
    count = view.count[0]
    rows.clock[ROWS_COMPUTED] += 1
    rows.clock[VALUES_COMPUTED] += count
    compute_at_view(view, rows, t, row[:count])
    return row


def compute_at_view(view, rows, t, out):
    """Point ``t``'s kernel values at the view's points into ``out`` (compiled only)."""
    raise NotImplementedError("compute_at_view runs in compiled code only")


@overload(compute_at_view)
def _compute_at_view_impl(view, rows, t, out):
    if not isinstance(rows.types[rows.fields.index("X_all")], types.Array):
        return lambda view, rows, t, out: None  # never called: computed_features gives 0

    def dense(view, rows, t, out):
        # esmo.solver.row_cache.fill_columns's steps, on the view's columns
        dots = sparse_dots(rows.X_all[t], view.XT, 0, out.shape[0])
        kernel_values(rows, dots, rows.sq_all[t], view.sq, 0, out)

    return dense


@jit(inline="always")
def take_slot(view, t, keep):
    """The next slot in turn for point ``t``'s row (never ``keep``'s), its old row forgotten."""
    slots = view.owner.shape[0]
    s = view.next_slot[0]
    if keep >= 0 and view.owner[s] == keep:
        s = (s + 1) % slots
    view.next_slot[0] = (s + 1) % slots
    if view.owner[s] >= 0:
        view.slot_of[view.owner[s]] = -1
    view.owner[s], view.slot_of[t] = t, s
    return s


@jit
def sync_gradient(view, G):
    """Write the view's gradient back to ``G``, for a step that reads the whole gradient."""
    points = view.points
    for k in range(view.count[0]):
        G[points[k]] = view.G[k]


@jit
def reload_gradient(view, G):
    """Read the view's gradient from ``G``, after a step that moved it there."""
    points = view.points
    for k in range(view.count[0]):
        view.G[k] = G[points[k]]


@jit
def select_j_view(Gmax, QDi, Ki_view, view, scratch, low_val):
    """:func:`esmo.solver.working_set.select_j` over the view's points: ``(j, -M(a))``, ``j`` -1 if none."""
    c = view.count[0]
    k, low_max = select_j(
        Gmax, QDi, Ki_view[:c], view.y[:c], view.G[:c], view.QD[:c], view.status[:c],
        view.low_excluded[:c], scratch, low_val,
    )  # fmt: skip
    return (view.points[k] if k >= 0 else -1), low_max


@jit
def update_gradient_view(view, Ki_view, Kj_view, ci, cj, scratch):
    """:func:`esmo.solver.update.update_gradient` over the view's points: ``(next i, m(a))``."""
    c = view.count[0]
    k, Gmax = update_gradient(
        view.G[:c], view.y[:c], Ki_view[:c], Kj_view[:c], ci, cj, view.status[:c],
        view.up_excluded[:c], scratch,
    )  # fmt: skip
    return (view.points[k] if k >= 0 else -1), Gmax
