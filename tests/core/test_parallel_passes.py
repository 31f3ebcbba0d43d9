"""The passes over many active points run in ranges on threads: LIBSVM's choices all the same.

Oracle: LIBSVM's one-loop ``select_working_set`` and gradient update, written
here in plain Python over the active points in their order (``<=`` and ``>=``:
ties to the last visited), on values rich in ties, against the passes in 1 to
4 ranges. Whole runs in parts: against LIBSVM's pinned iteration counts in
``test_libsvm_iterations.py``, against the run on one thread in
``test_parallel_rows.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from esmo.solver.compile import numba_threads
from esmo.solver.rho import FREE, LOWER, UPPER
from esmo.solver.update import update_gradient_active
from esmo.solver.working_set import TAU, excluded_statuses, select_j_active


def in_up(y: float, status: int) -> bool:
    return status != (UPPER if y > 0 else LOWER)


def in_low(y: float, status: int) -> bool:
    return status != (LOWER if y > 0 else UPPER)


def loop_select_j(Gmax, QDi, Ki, y, G, QD, status, order):
    """LIBSVM's scan for ``j`` and ``-M(a)`` over the points of ``order`` in turn."""
    best, j, Gmax2 = np.inf, -1, -np.inf
    for t in order:
        if not in_low(y[t], status[t]):
            continue
        v = y[t] * G[t]
        Gmax2 = v if v >= Gmax2 else Gmax2
        grad_diff = Gmax + v
        if grad_diff > 0.0:
            quad = QDi + QD[t] - 2.0 * np.float64(Ki[t])
            obj = -(grad_diff * grad_diff) / (quad if quad > 0.0 else TAU)
            if obj <= best:
                best, j = obj, int(t)
    return j, Gmax2


def loop_update(G, y, Ki, Kj, ci, cj, status, order):
    """Every gradient moved, then LIBSVM's scan for the next ``i`` over ``order`` in turn."""
    G = G + y * (Ki.astype(np.float64) * ci + Kj.astype(np.float64) * cj)
    Gmax, i = -np.inf, -1
    for t in order:
        if in_up(y[t], status[t]) and -y[t] * G[t] >= Gmax:
            Gmax, i = -y[t] * G[t], int(t)
    return G, i, Gmax


def problem(seed: int):
    """A state rich in ties: few distinct gradients and kernel values, many active points."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 700))
    y = rng.choice([-1.0, 1.0], n)
    G = rng.choice([-1.5, -1.0, -0.5, 0.0, 0.25], n)
    Ki = rng.choice([0.0, 0.25, 0.5, 1.0], n).astype(np.float32)
    Kj = rng.choice([0.0, 0.5, 1.0], n).astype(np.float32)
    QD = np.ones(n)
    status = rng.choice([LOWER, FREE, UPPER], n).astype(np.int8)
    active = rng.permutation(n).astype(np.int64)
    n_active = int(rng.integers((n + 2) // 3, n + 1))  # many: the contiguous passes
    is_active = np.zeros(n, dtype=np.bool_)
    is_active[active[:n_active]] = True
    return y, G, Ki, Kj, QD, status, active, n_active, is_active


@pytest.mark.parametrize("seed", range(30))
def test_the_pair_from_passes_in_parts_is_libsvms(seed: int) -> None:
    y, G, Ki, Kj, QD, status, active, n_active, is_active = problem(seed)
    n = y.shape[0]
    order = active[:n_active]
    low_x, up_x = excluded_statuses(y)
    expected_G, expected_i, expected_Gmax = loop_update(G, y, Ki, Kj, 0.5, -0.25, status, order)
    Gmax = expected_Gmax if expected_i >= 0 else 1.0
    expected_j = loop_select_j(Gmax, 1.0, Ki, y, G, QD, status, order)
    with numba_threads(2):
        for parts in (1, 2, 3, 4):
            scratch, low_val = np.empty(n), np.empty(n)
            j = select_j_active(
                Gmax, 1.0, Ki, y, G, QD, status, low_x, scratch, low_val, active, n_active,
                is_active, parts,
            )  # fmt: skip
            assert j == expected_j, parts
            moved = G.copy()
            i, m = update_gradient_active(
                moved, y, Ki, Kj, 0.5, -0.25, status, up_x, scratch, active, n_active,
                is_active, False, parts,
            )  # fmt: skip
            np.testing.assert_array_equal(moved, expected_G)
            assert (i, m) == (expected_i, expected_Gmax), parts
