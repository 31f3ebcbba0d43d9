"""RBF rows of integer features read from a table of exp values: the exp's values to the bit."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.svm import SVC

from esmo.estimators.smo_classifier import SMOClassifier
from esmo.solver.kernels import (
    MAX_TABLE_ENTRIES,
    exp_nonpositive,
    integer_distance_table,
    kernel_matrix,
    squared_norms,
)
from esmo.solver.params import SolverParams
from esmo.solver.row_cache import build_kernel_rows, compute_row

RNG = np.random.default_rng(7)
#: binary features, as a9a, w8a, a1a and w1a; and small integer counts
BINARY = (RNG.random((300, 40)) < 0.15).astype(np.float64)
COUNTS = RNG.integers(-3, 4, size=(300, 9)).astype(np.float64)
Y = np.where(BINARY[:, 0] + BINARY[:, 1] + RNG.random(300) > 0.9, 1.0, -1.0)


def _rows(X, X_eval, dtype: type, table: bool) -> np.ndarray:
    """Every row of the store, its evaluation columns too, with the table (and the float32
    columns, where the store keeps them) or with neither: the exp and float64 columns."""
    params = SolverParams(gamma=0.37, kernel_dtype=dtype)
    rows = build_kernel_rows(X, [X_eval], params)
    if not table:
        rows = rows._replace(exp_table=np.empty(0), XT32=np.empty((0, 0), np.float32))
    n, n_cols = X.shape[0], X.shape[0] + X_eval.shape[0]
    out = np.empty((n, n_cols), dtype=rows.data.dtype)
    for i in range(n):
        compute_row(rows, i, n_cols, out[i])
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("data", ["binary", "counts", "sparse binary"])
def test_the_table_gives_the_exponentials_values_to_the_bit(data, dtype):
    X = {"binary": BINARY, "counts": COUNTS, "sparse binary": sp.csr_matrix(BINARY)}[data]
    X_tr, X_ev = X[:200], X[200:]
    assert integer_distance_table([X_tr, X_ev], squared_norms(X), 0.37).size > 0
    with_table = _rows(X_tr, X_ev, dtype, table=True)
    np.testing.assert_array_equal(with_table, _rows(X_tr, X_ev, dtype, table=False))
    # and both are the RBF kernel (a BLAS product and libm's exp, a third computation)
    dense = X.toarray() if sp.issparse(X) else X
    expected = kernel_matrix(dense[:200], dense, "rbf", 0.37)
    np.testing.assert_allclose(with_table, expected.astype(dtype), rtol=1e-6, atol=1e-30)


@pytest.mark.parametrize(
    ("X", "dtype", "kept"),
    [
        (BINARY, np.float32, True),
        (COUNTS, np.float32, True),
        (BINARY, np.float64, False),  # float64 storage keeps its BLAS products
        (sp.csr_matrix(BINARY), np.float32, False),  # sparse points sum over their own arrays
        (BINARY * 0.5, np.float32, False),  # no table: not integers
    ],
    ids=["binary", "counts", "float64 storage", "sparse", "halves"],
)
def test_float32_columns_are_kept_for_dense_integer_features_summed_by_esmo(X, dtype, kept):
    rows = build_kernel_rows(X[:200], [X[200:]], SolverParams(gamma=0.37, kernel_dtype=dtype))
    assert rows.XT32.dtype == np.float32
    if kept:
        np.testing.assert_array_equal(rows.XT32, rows.XT)  # integers: exact in float32
    else:
        assert rows.XT32.size == 0


def test_the_table_holds_the_exponential_of_each_integer_distance():
    sq = squared_norms(COUNTS)
    table = integer_distance_table([COUNTS], sq, 0.37)
    assert table.size == 4 * int(sq.max()) + 1  # |x - z|^2 <= (|x| + |z|)^2
    s = np.arange(table.size)
    np.testing.assert_allclose(table, np.exp(-0.37 * s), rtol=1e-15)
    exact = np.empty(table.size)
    exp_nonpositive(-0.37 * s.astype(np.float64), exact)
    np.testing.assert_array_equal(table, exact)


@pytest.mark.parametrize(
    "X",
    [
        BINARY * 0.5,  # scaled: not integers
        np.where(BINARY > 0, 1.0 + 1e-12, 0.0),  # a last-bit away from an integer
        np.vstack([BINARY[:, :2], [[MAX_TABLE_ENTRIES // 8, 0.0]]]),  # distances past the table
    ],
    ids=["halves", "near integers", "too far"],
)
def test_no_table_where_a_distance_could_be_no_small_integer(X):
    assert integer_distance_table([X], squared_norms(X), 0.37).size == 0


@pytest.mark.parametrize("shrinking", [True, False])
def test_a_fit_on_binary_features_through_the_table_is_svcs_fit(shrinking):
    params = SolverParams(C=4.0, gamma=0.37)
    assert build_kernel_rows(BINARY, [], params).exp_table.size > 0  # the table's path
    ours = SMOClassifier(C=4.0, gamma=0.37, shrinking=shrinking).fit(BINARY, Y)
    svc = SVC(C=4.0, gamma=0.37, shrinking=shrinking).fit(BINARY, Y)
    assert np.sum(ours.n_iter_) == np.sum(svc.n_iter_) > 100
    np.testing.assert_array_equal(np.sort(ours.support_), np.sort(svc.support_))
    np.testing.assert_allclose(
        ours.decision_function(BINARY), svc.decision_function(BINARY), rtol=0, atol=1e-9
    )
