"""The benchmark scripts keep running: a broken import or signature there goes unnoticed otherwise.

``bench_pegasos.py --quick`` also checks, on every run, that numba's kernel Pegasos
ends with the same alphas as a plain NumPy loop over the same drawn indices.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_pegasos_benchmark_runs_and_numba_equals_the_numpy_loop():
    out = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "bench_pegasos.py"), "--quick"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert lines[0].split()[:3] == ["m", "T", "violations"]
    m, T, violations = (int(v) for v in lines[1].split()[:3])
    assert (m, T) == (1000, 20_000) and 0 < violations <= T
    assert lines[-1].startswith("sweep of 100 configurations / plain run:")


def test_probability_benchmark_runs_and_esmo_never_disagrees_with_predict():
    from conftest import require_mirror

    mirror = require_mirror()
    out = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "probabilities.py"), "--mirror", str(mirror),
         "--datasets", "fourclass", "diabetes"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    rows = [line.split() for line in out.stdout.splitlines()[1:3]]
    assert [r[0] for r in rows] == ["fourclass", "diabetes"]
    assert all(r[4] == "0" for r in rows)  # esmo's argmax always equals predict
    assert out.stdout.splitlines()[-1].startswith("mean log-loss ratio (esmo / SVC):")


def test_scale_benchmark_runs_and_esmo_meets_libsvm_dual_objective():
    from conftest import require_uci_mirror

    shared = require_uci_mirror().parent
    out = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "bench_scale.py"), "--shared", str(shared),
         "--datasets", "magic04", "--rows", "600", "--cells", "2", "--svc-cells", "2"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    (line,) = [s for s in out.stdout.splitlines() if s.strip().startswith("against svc (2 cells)")]
    sv_share, dual = line.split("within ")[1].split("%")[0], line.split("within ")[2].split()[0]
    # SVC (LIBSVM) is the oracle: the same support vectors, the dual objective to 1e-4
    assert float(sv_share) <= 0.5 and float(dual) <= 1e-4


def test_scale_benchmark_picks_a_grids_cells_by_index_as_the_grid_lists_them():
    sys.path.insert(0, str(REPO / "benchmarks"))
    import bench_scale

    grid = bench_scale.grid_cells(8, None)  # C-major: cell (i, j) is grid[8 i + j]
    picked = bench_scale.pick_cells(8, [(0, 7), (7, 0), (3, 5)])
    assert picked == [grid[7], grid[56], grid[29]]
    assert picked[0] == (-2.0, 1.0)  # the smallest C, the largest gamma: the box's corner
    with pytest.raises(SystemExit, match="indices 0 to 7"):
        bench_scale.pick_cells(8, [(0, 8)])
