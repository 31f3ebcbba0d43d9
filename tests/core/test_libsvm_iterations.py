"""esmo takes LIBSVM's path: the pinned iteration counts of ``tests/core/data/libsvm_iterations*.csv``.

The tables hold ``SVC(shrinking=False)``'s (``libsvm_iterations.csv``) and
``SVC(shrinking=True)``'s (``libsvm_iterations_shrinking.csv``) iteration counts on the
offline LIBSVM datasets over a spread of configurations (both kernels, C from 2^-5 to
2^15, gamma from 2^-15 to 256, tol from 2^-8 to 0.5);
``tests/core/data/make_libsvm_iterations.py`` regenerates them and documents which
configurations are kept out, and why. Every row must match exactly, with the table's
``shrinking``: one iteration more or less means esmo left LIBSVM's path.
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from esmo import SMOClassifier
from esmo.solver import working_set

_SCRIPT = Path(__file__).resolve().parent / "data" / "make_libsvm_iterations.py"
_spec = importlib.util.spec_from_file_location("make_libsvm_iterations", _SCRIPT)
table = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(table)

TABLES = {shrinking: table.read_table(shrinking) for shrinking in table.TABLES}
ROWS = [{**row, "shrinking": shrinking} for shrinking, rows in TABLES.items() for row in rows]


def _row_id(row: dict) -> str:
    gamma = "" if row["gamma"] is None else f"-g{row['gamma']:g}"
    shrinking = "-shrinking" if row["shrinking"] else ""
    return f"{row['dataset']}-{row['kernel']}-C{row['C']:g}{gamma}-tol{row['tol']:g}{shrinking}"


@functools.cache
def _load(mirror: Path, name: str) -> tuple[np.ndarray, np.ndarray]:
    return table.load_scaled(mirror, name)


def _params(row: dict) -> dict:
    return {key: row[key] for key in ("kernel", "C", "gamma", "tol", "shrinking")}


@pytest.mark.parametrize("shrinking", sorted(TABLES))
def test_table_spans_kernels_datasets_and_parameter_ranges(shrinking):
    rows_of_table = [row for row in ROWS if row["shrinking"] == shrinking]
    assert 40 <= len(rows_of_table) <= 80
    keys = [tuple(_params(row).values()) + (row["dataset"],) for row in rows_of_table]
    assert len(set(keys)) == len(keys), "no configuration twice"
    assert {row["dataset"] for row in rows_of_table} == set(table.N_FEATURES)
    for kernel in ("rbf", "linear"):
        rows = [row for row in rows_of_table if row["kernel"] == kernel]
        assert len({row["dataset"] for row in rows}) == 8, kernel
        assert min(row["tol"] for row in rows) <= 2**-8 and max(row["tol"] for row in rows) >= 0.5
    rbf = [row for row in rows_of_table if row["kernel"] == "rbf"]
    assert min(row["C"] for row in rbf) <= 2**-5 and max(row["C"] for row in rbf) >= 2**15
    assert min(row["gamma"] for row in rbf) <= 2**-15 and max(row["gamma"] for row in rbf) >= 256
    assert all(row["gamma"] is None for row in rows_of_table if row["kernel"] == "linear")
    counts = [row["n_iter"] for row in rows_of_table]
    assert max(counts) > 20_000 and min(counts) < 100


def test_shrinking_takes_a_path_of_its_own_on_many_configurations():
    """The two tables pin different paths: shrinking changes the count of many long runs."""

    def key(row: dict) -> tuple:
        return row["dataset"], row["kernel"], row["C"], row["gamma"], row["tol"]

    without = {key(row): row["n_iter"] for row in TABLES[False]}
    differ = sum(without.get(key(row), row["n_iter"]) != row["n_iter"] for row in TABLES[True])
    assert differ >= 10


@pytest.mark.parametrize("row", ROWS, ids=_row_id)
def test_iterations_equal_libsvm_exactly(libsvm_mirror, row):
    X, y = _load(libsvm_mirror, row["dataset"])
    clf = table.esmo_fit(X, y, **_params(row))
    assert isinstance(clf, SMOClassifier) and not clf.max_iter_reached_
    assert clf.n_iter_ == row["n_iter"]


@pytest.mark.parametrize("row", ROWS, ids=_row_id)
def test_decision_values_and_support_vectors_equal_libsvm(libsvm_mirror, row):
    """Same path, same model: the same support vectors, decision values and predictions."""
    X, y = _load(libsvm_mirror, row["dataset"])
    svc = table.libsvm(X, y, **_params(row))
    # LIBSVM itself still takes the pinned path on this machine (else regenerate the table)
    assert svc.n_iter_[0] == row["n_iter"]
    clf = table.esmo_fit(X, y, **_params(row))
    np.testing.assert_array_equal(np.sort(clf.support_), np.sort(svc.support_))
    # rounding grows with sum |a_i y_i| (up to n C): 1e-12 of it is ~50x what the rows show
    atol = 1e-12 * (1.0 + np.abs(svc.dual_coef_).sum())
    f_ref = svc.decision_function(X)
    np.testing.assert_allclose(clf.decision_function(X), f_ref, rtol=0, atol=atol)
    np.testing.assert_array_equal(clf.predict(X), svc.predict(X))


@pytest.mark.parametrize("shrinking", [False, True])
@pytest.mark.parametrize(
    "config", table.BLAS_SENSITIVE, ids=lambda c: f"{c[0]}-{c[1]}-C{c[2]:g}-tol{c[4]:g}"
)
def test_iterations_equal_libsvm_where_the_blas_build_decides(libsvm_mirror, config, shrinking):
    """Where the count depends on the BLAS build, esmo must still take LIBSVM's, measured live."""
    name, kernel, C, gamma, tol = config
    X, y = _load(libsvm_mirror, name)
    params = {"kernel": kernel, "C": C, "gamma": gamma, "tol": tol, "shrinking": shrinking}
    assert table.esmo_fit(X, y, **params).n_iter_ == table.libsvm(X, y, **params).n_iter_[0]


@pytest.mark.parametrize("row", ROWS, ids=_row_id)
def test_iterations_equal_libsvm_with_the_passes_in_parts(libsvm_mirror, row, monkeypatch):
    """Two threads, the passes over many active points (every point without shrinking) in two
    ranges at any size: the same path.

    Dense points: the row store of sparse ones holds one thread, and so its passes.
    """
    monkeypatch.setattr(working_set, "PARALLEL_MIN_POINTS", 0)
    X, y = _load(libsvm_mirror, row["dataset"])
    X = X.toarray() if sp.issparse(X) else X
    clf = table.esmo_fit(X, y, **_params(row), n_jobs=2)
    assert clf.n_iter_ == row["n_iter"]
