"""Primal-dual active-set steps: the dual's KKT equations on a guessed free set, solved at once.

SMO moves two alphas per iteration. Along a C path, where each fit starts
from the last one's solution, the start is already close: most points keep
their status (zero, free, at the bound C), yet at large ``C`` SMO still takes
tens of thousands of iterations to settle the free ones, each pair update
disturbing the others. Here the statuses are guessed instead (the last fit's)
and the free alphas solved for together: with the others fixed, the free
points' KKT equations and ``y'a = 0`` are one linear system,

    Q_FF d + b y_F = -G_F,    y_F' d = -y'a,

solved through a Cholesky factor of ``Q_FF``. Points the solution puts
outside the box go to their bound, bounded points whose gradient now
violates their bound become free (the deepest violations first, a share of
the free set per round), and the step repeats until no status changes: the
primal-dual active-set method (Hintermüller, Ito and Kunisch, 2002). The
factor is not rebuilt: a point joining the free set appends a row
(a triangular solve), a point leaving deletes one (Givens rotations), so a
change costs ``O(m^2)`` for ``m`` free points, and the factor carries over
from one ``C`` to the next, as ``Q_FF`` does not depend on ``C``.

A point whose row of ``Q`` is (numerically) a combination of the free ones'
(a duplicate of a free point, frequent in binary data) has no pivot: it stays
out of the factor, its alpha held where it is. For an exact duplicate of a
free point with the same label that costs nothing: its gradient is its
twin's. A twin of the opposite label belongs at a bound: when no other
status changes, a held point that violates goes to the bound its gradient
asks for (once per fit; sent there every round, twins traded places round
after round on w1a).

Exactness: the method may cycle or stall; a caller accepts its result only
when it reports :data:`CONVERGED`, which it does only after checking SMO's own
stopping rule (LIBSVM's maximal violating pair below ``tol``, on a gradient
updated from the same float32 kernel rows SMO reads) with every alpha in its
box. The result is then another ``tol``-accurate solution of the same dual,
as a warm-started SMO's is; otherwise the caller runs SMO. Rounds that would
cost more than :data:`WORK_LIMIT` allows hand the fit to SMO as well, so a
start far from the solution wastes a bounded amount of work.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from esmo.solver.compile import jit
from esmo.solver.result import SolverResult
from esmo.solver.rho import FREE, LOWER, UPPER, calculate_rho
from esmo.solver.row_cache import KernelRows, gather_in_place
from esmo.solver.shrinking import update_G_bar
from esmo.solver.state import SolverState, scaled_alphas, seeded_arrays

#: outcomes of :func:`solve_statuses`
CONVERGED, TOO_MANY_ROUNDS, TOO_MANY_FREE, NO_FREE_POINT, CHECK_FAILED, TOO_MUCH_WORK = range(6)
#: what :func:`append_point` did
APPENDED, DEPENDENT, FULL = 1, 0, -1
#: a pivot below this fraction of the point's diagonal marks its row as dependent
PIVOT_FLOOR = 1e-9
#: rounds of status changes before giving up (converging runs take about 3 to 8)
MAX_ROUNDS = 30
#: the most work a fit's rounds may take, in units of ``n^2`` multiply-adds (a round's step
#: costs ``n m``, a status change ``m^2``): about what SMO's first ``WORK_LIMIT n``
#: iterations cost. Past it SMO runs: on 4,800 points of a1a.t, C 3.5 times the last,
#: rounds that would not converge took 20 times SMO's time without the limit.
WORK_LIMIT = 10
#: ... but never less than this many multiply-adds (tens of milliseconds): on small sets
#: building the factor of most points once costs more than ``WORK_LIMIT n^2``
WORK_FLOOR = 1e8
#: a round frees at most ``max(FREED_AT_LEAST, m // FREED_SHARE)`` of the bounded points
#: that violate, the deepest violations first, for ``m`` free points: freed all at once,
#: many went back to a bound in the next round (on w1a's path 22,171 status changes where
#: 10,178 statuses differed from start to end); shallow violations often end with the deep
#: ones freed. A quarter took w1a's path from 0.28 s to 0.20 s, german.numer's 0.11 to
#: 0.09 s; a sixteenth handed more of german.numer's fits to SMO (35,208 iterations
#: in its path against 4,523) and cost 0.16 s.
FREED_AT_LEAST, FREED_SHARE = 16, 4
#: the most free points a factor holds (``8 MAX_FREE^2`` bytes); more and SMO runs instead
MAX_FREE = 4096


class Factor:
    """The Cholesky factor of ``Q_FF`` over the free points, kept across the fits of a path.

    The lower triangle of ``L[:m, :m]`` (nothing else of ``L`` is read) is
    the factor, ``L L' = Q_FF`` for the points ``members[:m]`` in that order; ``position[i]`` is point ``i``'s row or -1;
    ``held[i]`` marks a free point left out for want of a pivot.
    """

    def __init__(self, n: int, max_free: int) -> None:
        self.capacity = min(n, max_free)
        # never read above the diagonal or below row m: fresh pages are touched (and paid
        # for: up to 2 s per GB on a virtual machine) only as rows are written
        self.L = np.empty((self.capacity, self.capacity))
        self.members = np.full(self.capacity, -1, dtype=np.int64)
        self.position = np.full(n, -1, dtype=np.int64)
        self.held = np.zeros(n, dtype=np.bool_)
        self.size = np.zeros(1, dtype=np.int64)  # m, in an array the compiled steps update


class RowSource(NamedTuple):
    """Where the rounds find a kernel row: ``K[j]`` is in place when ``slot_of[j] >= 0``, else
    gathered from ``source`` (a search's matrix; ``source_of``: the points' indices there).

    The fields of the fit's store (:class:`~esmo.solver.row_cache.KernelRows`),
    whose row ``j`` lies in slot ``j``: a path's fits read a third of a fold's
    rows on w1a, and only those are gathered.
    """

    slot_of: np.ndarray
    owner: np.ndarray
    source: np.ndarray
    source_of: np.ndarray

    @classmethod
    def of(cls, rows: KernelRows) -> RowSource:
        return cls(rows.slot_of, rows.owner, rows.source, rows.source_of)

    @classmethod
    def in_place(cls, n: int) -> RowSource:
        """Every row of an ``n``-point matrix in place."""
        every = np.arange(n, dtype=np.int64)
        return cls(every, every.copy(), np.empty((0, 0), np.float32), np.empty(0, np.int64))


@jit
def ensure_row(K, src, j):
    """Row ``j`` of ``K`` in place, gathered from ``src.source`` the first time it is read.

    ``K`` is the store's whole width: the rounds run without early stopping, so
    its rows have no evaluation columns for a later read to miss.
    """
    if src.slot_of[j] < 0:
        gather_in_place(src.source, src.source_of, src.slot_of, src.owner, j, K[j])


def solve_scaled(
    factor: Factor,
    K: np.ndarray,
    y: np.ndarray,
    last: SolverState,
    ratio: float,
    C: float,
    tol: float,
    src: RowSource | None = None,
) -> tuple[SolverResult | None, int]:
    """The fit at ``C`` by active-set rounds from the ``last`` fit's final state scaled by
    ``ratio`` to ``C`` (alpha seeding, :func:`~esmo.solver.state.scaled_alphas`);
    ``(result, rounds)``.

    ``K`` holds the kernel rows of the fit's points (row ``i``: point ``i``,
    its first ``n`` columns the points in the same order), in place or gathered
    as ``src`` says (None: every row in place). ``result`` is None unless the
    rounds converged (see the module's docstring); ``last`` is never changed,
    so the caller can scale it again and run SMO from there. The result counts
    0 SMO iterations. One compiled call: a C path makes one per fit, where the
    dozen numpy calls of a scaled state and a result cost as much as the rounds
    of a fit at small ``C`` (on w1a's path, the Python around the rounds took a
    fifth of its time).
    """
    src = RowSource.in_place(len(y)) if src is None else src
    below = np.nextafter(C, 0.0)
    out = _scaled_fit(*_parts(factor), K, src, y, last.alpha, last.G, last.status, ratio, C,
                      below, tol, _budget(y))  # fmt: skip
    return _result(out)


def _parts(factor: Factor) -> tuple:
    return factor.L, factor.members, factor.position, factor.held, factor.size


def _budget(y: np.ndarray) -> float:
    return max(WORK_LIMIT * float(y.shape[0]) ** 2, WORK_FLOOR)


def _result(out: tuple) -> tuple[SolverResult | None, int]:
    """``(result, rounds)`` from what :func:`_fit` returns."""
    converged, rounds, rho, objective, arrays = out
    if not converged:
        return None, rounds
    state = SolverState(*arrays)
    return SolverResult(state.alpha, rho, 0, False, objective=objective, state=state), rounds


@jit(nogil=True)
def _scaled_fit(L, members, position, held, size, K, src, y, alpha, G, status, ratio, C, below,
                tol, budget):  # fmt: skip
    """:func:`_fit` from the state ``(alpha, G, status)`` scaled to ``C`` (left unchanged)."""
    n = y.shape[0]
    start, Q_times = scaled_alphas(alpha, G, status, ratio, C, below)
    arrays = seeded_arrays(start, np.full(n, C), -np.ones(n), Q_times)
    return _fit(L, members, position, held, size, K, src, y, arrays[0], arrays[1], arrays[2], C,
                tol, budget)  # fmt: skip


@jit(nogil=True)
def _fit(L, members, position, held, size, K, src, y, alpha, G, status, C, tol, budget):
    """The factor synced, then the rounds (``alpha``, ``G``, ``status`` updated in place);
    ``(converged, rounds, rho, objective, arrays)``, ``arrays`` the final state's
    (:class:`~esmo.solver.state.SolverState`'s fields, its statuses placed from the alphas)."""
    n = y.shape[0]
    outcome, rounds = CHECK_FAILED, 0
    if sync_factor(L, members, position, held, size, K, src, y, status, budget):
        outcome, rounds = solve_statuses(
            L, members, position, held, size, K, src, y, alpha, G, status, C, tol, MAX_ROUNDS,
            budget,
        )  # fmt: skip
    arrays = seeded_arrays(alpha, np.full(n, C), -np.ones(n), G + 1.0)  # one tuple type
    if outcome != CONVERGED:
        return False, rounds, 0.0, 0.0, arrays
    rho = calculate_rho(y, G, arrays[2])
    return True, rounds, rho, np.dot(alpha, G - 1.0) / 2.0, arrays


@jit(nogil=True)
def bounded_gradient(K, src, y, alpha, C):
    """``G_bar``, shrinking's gradient of the alphas at ``C`` alone, from the kernel rows ``K``.

    A state the rounds leave does not hold it; SMO would compute it afresh
    from the points (``n`` times the bounded points' kernel values: seconds at
    n = 4,800), where the rows are already in place. Each bounded point adds
    its row as shrinking does when a point reaches its bound (``update_G_bar``).
    """
    G_bar = np.zeros(y.shape[0])
    for j in range(y.shape[0]):
        if alpha[j] >= C:
            ensure_row(K, src, j)
            update_G_bar(G_bar, y, K[j], y[j], C)
    return G_bar


@jit(fastmath=True)
def append_point(L, members, position, size, K, y, k):
    """Append point ``k``'s row to the factor: :data:`APPENDED`, :data:`DEPENDENT` (no pivot) or :data:`FULL`."""
    m = size[0]
    if m == L.shape[0]:
        return FULL
    row = L[m]
    squares = 0.0
    for a in range(m):
        j = members[a]
        s = y[j] * y[k] * K[j, k]
        for c in range(a):
            s -= L[a, c] * row[c]
        row[a] = s / L[a, a]
        squares += row[a] * row[a]
    pivot = K[k, k] - squares
    if pivot <= PIVOT_FLOOR * K[k, k]:
        row[:m] = 0.0
        return DEPENDENT
    row[m] = np.sqrt(pivot)
    members[m], position[k] = k, m
    size[0] = m + 1
    return APPENDED


@jit
def delete_point(L, members, position, size, k):
    """Delete point ``k``'s row: the rows below move up, Givens rotations make them triangular again."""
    m, p = size[0], position[k]
    for r in range(p, m - 1):
        L[r, : r + 2] = L[r + 1, : r + 2]
        members[r] = members[r + 1]
        position[members[r]] = r
    for r in range(p, m - 1):  # row r holds one entry right of the diagonal, at r + 1
        a, b = L[r, r], L[r, r + 1]
        h = np.hypot(a, b)
        c, s = a / h, b / h
        for i in range(r, m - 1):
            u, v = L[i, r], L[i, r + 1]
            L[i, r], L[i, r + 1] = c * u + s * v, c * v - s * u
    L[m - 1, :m] = 0.0
    members[m - 1], position[k] = -1, -1
    size[0] = m - 1


@jit(fastmath=True)
def solve_factor(L, m, first, second):
    """``x1, x2`` with ``L L' x = rhs`` for two right-hand sides, in one pass over ``L`` each way.

    Both passes read rows of ``L`` (forward: a dot product per row; backward:
    the row times the new value taken off the rest), the contiguous direction.
    ``fastmath`` lets the dot products run in SIMD lanes; the solution is
    checked by the caller's KKT test, not trusted.
    """
    z1, z2 = first[:m].copy(), second[:m].copy()
    for i in range(m):
        s1, s2 = z1[i], z2[i]
        for c in range(i):
            s1 -= L[i, c] * z1[c]
            s2 -= L[i, c] * z2[c]
        z1[i], z2[i] = s1 / L[i, i], s2 / L[i, i]
    for i in range(m - 1, -1, -1):
        x1, x2 = z1[i] / L[i, i], z2[i] / L[i, i]
        z1[i], z2[i] = x1, x2
        for c in range(i):
            z1[c] -= L[i, c] * x1
            z2[c] -= L[i, c] * x2
    return z1, z2


@jit
def add_column(G, K, y, j, delta):
    """``G += Q[:, j] * delta``: point ``j``'s alpha moved by ``delta``."""
    if delta != 0.0:
        coef = y[j] * delta
        for i in range(G.shape[0]):
            G[i] += y[i] * K[j, i] * coef


@jit
def newton_step(L, members, m, K, y, alpha, G):
    """Solve the free points' KKT system and move them there; the multiplier ``b`` of ``y'a = 0``.

    ``d = -Q_FF^-1 (G_F + b y_F)``, ``b`` chosen so that ``y'(a + d) = 0``.
    """
    n = y.shape[0]
    y_F, G_F = np.empty(m), np.empty(m)
    for a in range(m):
        y_F[a], G_F[a] = y[members[a]], G[members[a]]
    u, w = solve_factor(L, m, y_F, G_F)
    residual = 0.0
    for i in range(n):
        residual += y[i] * alpha[i]
    b = (residual - np.dot(y_F, w)) / np.dot(y_F, u)
    coef = np.empty(m)
    for a in range(m):
        j = members[a]
        d = -w[a] - b * u[a]
        alpha[j] += d
        coef[a] = y[j] * d
    moves = np.zeros(n)
    whole = m - m % 4
    for a in range(0, whole, 4):  # four rows a pass: moves loaded and stored once, not four times
        r0, r1, r2, r3 = K[members[a]], K[members[a + 1]], K[members[a + 2]], K[members[a + 3]]
        c0, c1, c2, c3 = coef[a], coef[a + 1], coef[a + 2], coef[a + 3]
        for i in range(n):  # the same sums, added in the same order, as row after row
            moves[i] = (((moves[i] + r0[i] * c0) + r1[i] * c1) + r2[i] * c2) + r3[i] * c3
    for a in range(whole, m):
        row, c = K[members[a]], coef[a]
        for i in range(n):
            moves[i] += row[i] * c
    for i in range(n):
        G[i] += y[i] * moves[i]
    return b


@jit
def multiplier_from_bounds(y, G, status):
    """``b`` when no point is free: the middle of the interval the bounded points' KKT conditions allow."""
    low, high = -np.inf, np.inf
    for i in range(y.shape[0]):
        if status[i] == FREE:  # held points: no condition on b
            continue
        if (status[i] == LOWER) == (y[i] > 0):  # G_i + b y_i >= 0 at zero, <= 0 at C
            low = max(low, -y[i] * G[i])
        else:
            high = min(high, -y[i] * G[i])
    if np.isinf(low):
        return high
    if np.isinf(high):
        return low
    return 0.5 * (low + high)


@jit
def maximal_violation(y, alpha, G, C):
    """LIBSVM's stopping quantity: the largest ``-y_i G_i`` that may rise minus the smallest that may fall."""
    up, down = -np.inf, np.inf
    for i in range(y.shape[0]):
        v = -y[i] * G[i]
        if (alpha[i] < C) if y[i] > 0 else (alpha[i] > 0.0):
            up = max(up, v)
        if (alpha[i] > 0.0) if y[i] > 0 else (alpha[i] < C):
            down = min(down, v)
    return up - down


@jit
def change_statuses(L, members, position, held, size, K, src, y, alpha, G, status, C, b, tol,
                    budget):  # fmt: skip
    """Send free points outside the box to their bound, free the bounded ones that violate.

    Both are decided on the gradient the step left, before any point moves; of
    the violators, the deepest :data:`FREED_SHARE`-th of the free set (at least
    :data:`FREED_AT_LEAST`) go free, the rest wait for the next round.
    How many moved; -1 when the factor is full, -2 (no point freed) when
    appending the violators would cost more than ``budget``.
    """
    violators, depths = [], []
    for i in range(y.shape[0]):
        if status[i] != FREE:
            h = (G[i] + b * y[i]) * (1.0 if status[i] == LOWER else -1.0)
            if h < -0.5 * tol:  # this bound's KKT condition is violated: free the point
                violators.append(i)
                depths.append(h)
    most = max(FREED_AT_LEAST, size[0] // FREED_SHARE)
    if len(violators) > most:  # the deepest, in index order (ties: the lower index)
        deepest = np.sort(np.argsort(np.array(depths), kind="mergesort")[:most])
        violators = [violators[k] for k in deepest]
    changed = len(violators)
    for a in range(size[0] - 1, -1, -1):  # from the last row: fewer rows to rotate
        j = members[a]
        if alpha[j] <= 0.0 or alpha[j] >= C:
            move_to_bound(G, K, y, alpha, status, j, 0.0 if alpha[j] <= 0.0 else C)
            delete_point(L, members, position, size, j)
            changed += 1
    if float(len(violators)) * (size[0] + len(violators)) ** 2 > budget:
        return -2
    for i in violators:
        status[i] = FREE
        ensure_row(K, src, i)
        added = append_point(L, members, position, size, K, y, i)
        if added == FULL:
            return -1
        held[i] = added == DEPENDENT
    return changed


@jit
def send_held_to_bounds(held, flipped, K, y, alpha, G, status, C, b, tol):
    """Held points that violate go to the bound their gradient asks for, each once; how many went.

    Called when no other status changes: a twin of opposite label to a free
    point belongs at ``C``. Earlier, while the free set still moves, such
    moves made twins trade places round after round (w1a).
    """
    moved = []
    for i in range(y.shape[0]):
        if held[i] and not flipped[i]:
            h = G[i] + b * y[i]  # may rise below C if negative, fall above 0 if positive
            if h < -0.5 * tol and alpha[i] < C:
                moved.append(i)  # to C
            elif h > 0.5 * tol and alpha[i] > 0.0:
                moved.append(-1 - i)  # to 0, coded negative: decided before any moves
    for code in moved:
        i = code if code >= 0 else -1 - code
        held[i], flipped[i] = False, True
        move_to_bound(G, K, y, alpha, status, i, C if code >= 0 else 0.0)
    return len(moved)


@jit
def move_to_bound(G, K, y, alpha, status, j, bound):
    """Point ``j``'s alpha to ``bound`` (0 or C), its gradient's effect on ``G`` with it."""
    add_column(G, K, y, j, bound - alpha[j])
    alpha[j] = bound
    status[j] = LOWER if bound == 0.0 else UPPER


@jit(nogil=True)
def solve_statuses(
    L, members, position, held, size, K, src, y, alpha, G, status, C, tol, max_rounds, budget
):
    """Active-set rounds from the given statuses until none changes; ``(outcome, rounds)``.

    ``budget`` bounds the work (multiply-adds, counted as :data:`WORK_LIMIT` says).

    ``alpha`` (feasible), ``G`` (``Q a - 1``) and ``status`` are updated in place;
    the factor must hold the free points (:func:`sync_factor`).
    """
    n = y.shape[0]
    flipped = np.zeros(n, dtype=np.bool_)
    work = 0.0
    for rounds in range(1, max_rounds + 1):
        m = size[0]
        work += float(n) * m
        if m > 0:
            b = newton_step(L, members, m, K, y, alpha, G)
        else:
            residual = 0.0
            for i in range(y.shape[0]):
                residual += y[i] * alpha[i]
            if abs(residual) > 1e-12 * C * y.shape[0]:
                return NO_FREE_POINT, rounds
            b = multiplier_from_bounds(y, G, status)
        changed = change_statuses(
            L, members, position, held, size, K, src, y, alpha, G, status, C, b, tol, budget - work
        )
        if changed < 0:
            return TOO_MANY_FREE if changed == -1 else TOO_MUCH_WORK, rounds
        work += float(changed) * size[0] * size[0]
        if work > budget:
            return TOO_MUCH_WORK, rounds
        if changed == 0:
            if maximal_violation(y, alpha, G, C) < tol:
                return CONVERGED, rounds
            if send_held_to_bounds(held, flipped, K, y, alpha, G, status, C, b, tol) == 0:
                return CHECK_FAILED, rounds
    return TOO_MANY_ROUNDS, max_rounds


@jit(nogil=True)
def sync_factor(L, members, position, held, size, K, src, y, status, budget):
    """Make the factor hold exactly the free points: delete the others, append the new ones.

    False when they do not fit, or appending them would cost more than ``budget``.
    """
    for a in range(size[0] - 1, -1, -1):
        j = members[a]
        if status[j] != FREE:
            delete_point(L, members, position, size, j)
    new = 0
    for i in range(y.shape[0]):
        new += status[i] == FREE and position[i] < 0
    if float(new) * (size[0] + new) ** 2 > budget:
        return False
    for i in range(y.shape[0]):
        held[i] = False
        if status[i] == FREE and position[i] < 0:
            ensure_row(K, src, i)
            added = append_point(L, members, position, size, K, y, i)
            if added == FULL:
                return False
            held[i] = added == DEPENDENT
    return True
