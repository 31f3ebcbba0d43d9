"""Kernel rows filled and passes run by several threads (SolverParams.n_jobs): the same run to the bit."""

from __future__ import annotations

import ctypes.util
import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification

from esmo.early_stopping import EarlyStopping, EarlyStoppingSet
from esmo.estimators.smo_classifier import SMOClassifier
from esmo.solver import working_set
from esmo.solver.compile import numba_threads
from esmo.solver.params import SolverParams
from esmo.solver.row_cache import PARALLEL_MIN_COLUMNS, build_kernel_rows, compute_row
from esmo.solver.smo import run_smo

# more training columns than PARALLEL_MIN_COLUMNS, so the threads fill every row; a
# small cache (about 450 rows), so rows are evicted and computed again
N = PARALLEL_MIN_COLUMNS + 600
X, Y = make_classification(n_samples=N + 400, n_features=12, n_informative=6, random_state=3)
Y = np.where(Y == 1, 1.0, -1.0)
X_tr, y_tr, X_val, y_val = X[:N], Y[:N], X[N:], Y[N:]


def _run(n_jobs: int, kernel: str, shrinking: bool, sparse: bool, tracked: bool):
    params = SolverParams(
        kernel=kernel, C=2.0, gamma=0.05, cache_size_mb=8.0, shrinking=shrinking, n_jobs=n_jobs
    )
    data = sp.csr_matrix(np.where(np.abs(X_tr) < 0.5, 0.0, X_tr)) if sparse else X_tr
    if not tracked:
        return run_smo(data, y_tr, params)
    val = sp.csr_matrix(np.where(np.abs(X_val) < 0.5, 0.0, X_val)) if sparse else X_val
    configs = EarlyStoppingSet.of([EarlyStopping(patience=50, tol=0.0, interval=3)])
    return run_smo(data, y_tr, params, configs=configs, X_val=val, y_val=y_val)


@pytest.mark.parametrize(
    ("kernel", "shrinking", "sparse", "tracked"),
    [
        ("rbf", True, False, False),
        ("rbf", True, False, True),
        ("rbf", False, False, True),
        ("rbf", True, True, True),
        ("linear", True, False, False),
    ],
)
def test_two_threads_give_the_one_thread_run_to_the_bit(
    kernel, shrinking, sparse, tracked, monkeypatch
):
    # the passes over many active points in parts too, at this size
    monkeypatch.setattr(working_set, "PARALLEL_MIN_POINTS", 0)
    one, track_one = _run(1, kernel, shrinking, sparse, tracked)
    two, track_two = _run(2, kernel, shrinking, sparse, tracked)
    assert one.n_iter == two.n_iter and one.kernel_rows == two.kernel_rows
    assert one.kernel_rows > 500  # hundreds of rows, each filled by the threads
    np.testing.assert_array_equal(one.alpha, two.alpha)
    assert one.rho == two.rho and one.objective == two.objective
    if tracked:
        assert track_one.stop_iter[0] == track_two.stop_iter[0]
        assert track_one.val_accuracy[0] == track_two.val_accuracy[0]


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_a_row_filled_in_parts_equals_the_row_filled_at_once(kernel):
    """compute_row itself, on 1, 2 and 3 threads (3 parts of unequal length)."""
    params = SolverParams(kernel=kernel, gamma=0.05, n_jobs=3)
    rows = build_kernel_rows(X_tr, [X_val], params)
    assert rows.threads == 3
    n_cols = N + len(y_val)
    for i in (0, 17, N - 1):
        filled = {}
        for threads in (1, 2, 3):
            row = np.empty(n_cols, dtype=np.float32)
            with numba_threads(threads):
                compute_row(rows._replace(threads=threads), i, n_cols, row)
            filled[threads] = row
        np.testing.assert_array_equal(filled[1], filled[2])
        np.testing.assert_array_equal(filled[1], filled[3])
    # sparse points are filled by one thread (numba's parallel loops take arrays)
    sparse_rows = build_kernel_rows(sp.csr_matrix(X_tr), [sp.csr_matrix(X_val)], params)
    assert sparse_rows.threads == 1


def test_the_estimator_takes_scikit_learns_n_jobs():
    X_small, y_small = X[:N], Y[:N]
    base = SMOClassifier(C=2.0, gamma=0.05, cache_size_mb=8.0).fit(X_small, y_small)
    every = SMOClassifier(C=2.0, gamma=0.05, cache_size_mb=8.0, n_jobs=-1).fit(X_small, y_small)
    np.testing.assert_array_equal(base.dual_coef_, every.dual_coef_)
    np.testing.assert_array_equal(base.decision_function(X_val), every.decision_function(X_val))
    with pytest.raises(ValueError, match="n_jobs=0 names no thread; use None or 1"):
        SMOClassifier(n_jobs=0).fit(X_small[:40], y_small[:40])
    with pytest.raises(ValueError, match="n_jobs"):
        SolverParams(n_jobs=0)


def test_numba_threads_restores_the_callers_setting():
    before = numba.get_num_threads()
    with numba_threads(1) as n:
        assert n == 1 and numba.get_num_threads() == 1
    assert numba.get_num_threads() == before
    with numba_threads(10_000) as n:  # capped at the machine's threads
        assert n == numba.config.NUMBA_NUM_THREADS


_LAUNCH = """
import sys, numba, numpy as np
{preload}
from esmo.solver.params import SolverParams
from esmo.solver.smo import run_smo
X = np.random.default_rng(0).normal(size=(60, 3))
run_smo(X, np.where(X[:, 0] > 0, 1.0, -1.0), SolverParams(n_jobs=2))  # launches the layer
print(numba.threading_layer())
"""


def _layer_launched(env_update: dict, preload: str = "") -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_THREADING_LAYER")}
    env.update(env_update)
    code = _LAUNCH.format(preload=preload)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()[-1]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="numba's OpenMP layer: Linux")
def test_the_solver_launches_openmp_unless_the_user_chose_a_layer():
    """numba would take TBB first once a library has loaded it (scikit-learn-intelex does);
    the solver's short regions run slower there, so esmo puts OpenMP first."""
    assert _layer_launched({}) == "omp"
    assert _layer_launched({"NUMBA_THREADING_LAYER": "workqueue"}) == "workqueue"
    tbb = ctypes.util.find_library("tbb")
    if tbb is None:
        tbb = next(iter(Path(sys.prefix).glob("lib/libtbb.so*")), None)
    if tbb is not None:  # TBB loadable: numba's own priority would take it
        preload = f"import ctypes; ctypes.CDLL({str(tbb)!r}, mode=ctypes.RTLD_GLOBAL)"
        assert _layer_launched({}, preload) == "omp"
        assert _layer_launched({"NUMBA_THREADING_LAYER": "tbb"}, preload) == "tbb"
