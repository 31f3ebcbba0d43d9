"""The numba SMO solver against LIBSVM (scikit-learn's SVC, with and without shrinking) and invariants."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics.pairwise import linear_kernel, rbf_kernel
from sklearn.svm import SVC

from esmo.estimators.smo_classifier import SMOClassifier
from esmo.solver.kernels import kernel_matrix
from esmo.solver.smo import decision_values, solve_smo


def _libsvm_order(X, y):
    """Group samples by class, +1 first, as LIBSVM does internally (so ties break alike)."""
    order = np.argsort(-y, kind="stable")
    return X[order], y[order]


def _libsvm(X, y, kernel, C, gamma, tol, shrinking=False, **kw):
    """SVC whose internal labels equal ours: LIBSVM gives +1 to classes_[0], here our +1 (as -1)."""
    svc = SVC(kernel=kernel, C=C, gamma=gamma, tol=tol, shrinking=shrinking, cache_size=500, **kw)
    svc.fit(X, -y)
    return svc, -svc.decision_function(X)


def _sample_configs(rng, kernel, k):
    """Protocol section 3 ranges (log-uniform C, gamma, tol)."""
    lo_c, hi_c = (-5, 15) if kernel == "rbf" else (-3, 5)
    return [
        (2 ** rng.uniform(lo_c, hi_c), 2 ** rng.uniform(-15, 3), 2 ** rng.uniform(-8, -1))
        for _ in range(k)
    ]


def _compare(X, y, configs, kernel, shrinking=False):
    """Fraction of equal iteration counts; decision values of equal runs must agree.

    On LIBSVM's own datasets the pinned table (tests/core/test_libsvm_iterations.py)
    holds every count exactly; these small problems sample the protocol's ranges.
    """
    X, y = _libsvm_order(X, y)
    same = 0
    for C, gamma, tol in configs:
        ours = solve_smo(X, y, kernel=kernel, C=C, gamma=gamma, tol=tol, shrinking=shrinking)
        svc, f_ref = _libsvm(X, y, kernel, C, gamma, tol, shrinking)
        f = decision_values(X, y, ours, X, kernel, gamma)
        scale = max(1.0, np.abs(f_ref).max())
        if ours.n_iter == svc.n_iter_[0]:
            same += 1
            np.testing.assert_allclose(f, f_ref, rtol=0, atol=1e-4 * scale)
        # whatever the path, both meet the same KKT tolerance, so predictions agree
        assert np.mean((f > 0) == (f_ref > 0)) >= 0.98
    return same / len(configs)


@pytest.mark.parametrize("shrinking", [False, True])
@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_iterations_and_decisions_match_libsvm(dataset, kernel, shrinking):
    X, y = dataset
    rng = np.random.default_rng(42)
    assert _compare(X, y, _sample_configs(rng, kernel, 12), kernel, shrinking) == 1.0


def test_solution_is_feasible_and_meets_kkt_tolerance(dataset):
    """Independent float64 check: box, equality constraint and m(a) - M(a) < tol."""
    X, y = dataset
    C, gamma, tol = 5.0, 0.7, 1e-3
    res = solve_smo(X, y, C=C, gamma=gamma, tol=tol)
    a = res.alpha
    assert not res.max_iter_reached and res.n_iter > 0
    assert np.all(a >= 0) and np.all(a <= C)
    assert abs(np.dot(a, y)) <= 1e-9 * C * len(y)
    Q = y[:, None] * y[None, :] * rbf_kernel(X, gamma=gamma)
    G = Q @ a - 1
    up = ((y > 0) & (a < C)) | ((y < 0) & (a > 0))
    low = ((y > 0) & (a > 0)) | ((y < 0) & (a < C))
    violation = np.max(-y[up] * G[up]) - np.min(-y[low] * G[low])
    assert violation < tol + 1e-5  # float32 kernel storage, like LIBSVM
    assert res.objective == pytest.approx(0.5 * a @ Q @ a - a.sum(), rel=1e-5)


def test_float64_kernel_storage_converges_to_the_same_model():
    X, y = _datasets_breast()
    r32 = solve_smo(X, y, C=3.0, gamma=1.0)
    r64 = solve_smo(X, y, C=3.0, gamma=1.0, kernel_dtype=np.float64)
    f32 = decision_values(X, y, r32, X, "rbf", 1.0)
    f64 = decision_values(X, y, r64, X, "rbf", 1.0)
    np.testing.assert_allclose(f32, f64, atol=5e-3)


def test_max_iter_is_recorded_like_libsvm():
    X, y = _libsvm_order(*_datasets_breast())
    res = solve_smo(X, y, C=100.0, gamma=4.0, max_iter=7)
    svc, f_ref = _libsvm(X, y, "rbf", 100.0, 4.0, 1e-3, max_iter=7)
    assert res.n_iter == 7 == svc.n_iter_[0]
    assert res.max_iter_reached and not res.stopped_early
    np.testing.assert_allclose(decision_values(X, y, res, X, "rbf", 4.0), f_ref, atol=1e-5)


def test_duplicates_and_zero_curvature_use_tau_like_libsvm():
    """Duplicated points with opposite labels give a = 0 between them (tau); linear k(x, x) = 0 too."""
    rng = np.random.default_rng(1)
    X = rng.random((40, 3))
    y = np.where(X[:, 0] + 0.2 * rng.standard_normal(40) > 0.5, 1.0, -1.0)
    X = np.vstack([X, X[:10], np.zeros((2, 3))])
    y = np.concatenate([y, -y[:10], [1.0, -1.0]])
    X, y = _libsvm_order(X, y)
    for kernel in ("rbf", "linear"):
        res = solve_smo(X, y, kernel=kernel, C=10.0, gamma=3.0)
        svc, f_ref = _libsvm(X, y, kernel, 10.0, 3.0, 1e-3)
        assert np.isfinite(res.alpha).all() and not res.max_iter_reached
        assert res.n_iter == svc.n_iter_[0]
        np.testing.assert_allclose(decision_values(X, y, res, X, kernel, 3.0), f_ref, atol=1e-4)


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_kernel_matrix_matches_sklearn(kernel):
    rng = np.random.default_rng(0)
    A, B = rng.random((7, 4)), rng.random((5, 4))
    expected = rbf_kernel(A, B, gamma=0.3) if kernel == "rbf" else linear_kernel(A, B)
    np.testing.assert_allclose(kernel_matrix(A, B, kernel, 0.3), expected, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"C": 0.0}, "'C' parameter .* range \\(0.0, inf\\)"),
        ({"C": -1.0}, "'C' parameter"),
        ({"gamma": 0.0}, "'gamma' parameter"),
        ({"kernel": "poly"}, "'kernel' parameter .* a str among"),
        ({"tol": 0.0}, "'tol' parameter"),
        ({"max_iter": -2}, "'max_iter' parameter .* \\[-1, inf\\)"),
    ],
)
def test_bad_parameters_raise_clear_errors(kwargs, message):
    X, y = _datasets_breast()
    with pytest.raises(ValueError, match=message):
        solve_smo(X, y, **kwargs)


def test_bad_data_raise_clear_errors():
    X, y = _datasets_breast()
    with pytest.raises(ValueError, match="single class"):
        solve_smo(X, np.ones_like(y))
    X_nan = X.copy()
    X_nan[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity"):
        solve_smo(X_nan, y)
    with pytest.raises(ValueError, match="one label per row"):
        solve_smo(X, y[:-1])
    with pytest.raises(ValueError, match=r"\{-1, \+1\}"):
        solve_smo(X, (y > 0).astype(float))


def _datasets_breast():
    from conftest import DATASETS

    return DATASETS["breast_cancer"]


@pytest.mark.parametrize(
    ("kernel", "gamma"),
    [("linear", 0.8)] + [("rbf", g) for g in (2.0**-15, 0.8, 8.0, 300.0)],
)
def test_on_demand_rows_equal_the_blas_kernel_matrix(dataset, kernel, gamma):
    """Rows computed on a miss (sparse dot products and a vectorised exp in numba) round to
    the float32 values of BLAS and libm's exp, from kernel values near 1 to underflow. The
    squared norms are summed in feature order, as LIBSVM's ``dot(x, x)`` over a sparse row
    (and as sparse points must give them: ``esmo.solver.sparse``)."""
    from esmo.solver.params import SolverParams
    from esmo.solver.row_cache import build_kernel_rows, get_row

    X, _ = dataset
    X_all = np.concatenate([X, X[::3] * 0.5])  # training rows, then evaluation points
    rows = build_kernel_rows(X, [X[::3] * 0.5], SolverParams(kernel=kernel, gamma=gamma))
    assert rows.resident and not rows.blas
    n_cols = X_all.shape[0]
    got = np.stack([get_row(rows, i, n_cols).copy() for i in range(X.shape[0])])
    # the oracle: BLAS dot products and libm's exp through NumPy, rounded to float32
    expected = X @ X_all.T
    if kernel == "rbf":
        sq = np.zeros(X_all.shape[0])
        for t in range(X_all.shape[1]):  # feature by feature: each row's sum in feature order
            sq += X_all[:, t] * X_all[:, t]
        d2 = (sq[: len(X), None] + sq[None, :]) - 2.0 * expected
        expected = np.exp(-gamma * np.maximum(d2, 0.0))
    np.testing.assert_array_equal(got, expected.astype(np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("kernel", "gamma"), [("linear", 0.8), ("rbf", 0.8), ("rbf", 30.0)])
def test_fresh_sums_equal_a_blas_kernel_product(dataset, kernel, gamma, dtype):
    """A fresh check's decision values (numba, over the support vectors' nonzero features)
    equal NumPy's kernel matrix times the dual coefficients, and count m values per support
    vector; points with alpha = 0 add nothing. A second check reads the kept values: the
    same sums to the bit, no value computed."""
    from esmo.solver.params import SolverParams
    from esmo.solver.row_cache import build_kernel_rows, fresh_sums

    X, y = dataset
    X_eval = [X[::3] * 0.5, X[1::7]]
    rng = np.random.default_rng(3)
    alpha = np.where(rng.random(len(y)) < 0.3, rng.random(len(y)), 0.0)
    params = SolverParams(kernel=kernel, gamma=gamma, kernel_dtype=dtype)
    rows = build_kernel_rows(X, X_eval, params, fresh_checks=True)
    m = sum(b.shape[0] for b in X_eval)
    sums, n_values = fresh_sums(rows, alpha, y.astype(float), len(y), m)
    expected = kernel_matrix(np.concatenate(X_eval), X, kernel, gamma) @ (alpha * y)
    np.testing.assert_allclose(sums, expected, rtol=1e-12, atol=1e-12 * np.abs(alpha).sum())
    assert n_values == np.count_nonzero(alpha) * m
    again, n_again = fresh_sums(rows, alpha, y.astype(float), len(y), m)
    np.testing.assert_array_equal(again, sums)
    assert n_again == 0


@pytest.mark.parametrize("up_front", [True, False], ids=["gemm", "gemv"])
def test_float64_rows_do_not_depend_on_the_evaluation_columns(up_front):
    """BLAS rows (float64 storage) hold the same training columns, to the bit, whether or not
    evaluation columns ride along: tracking early stopping must not move SMO's path (a
    longer BLAS product rounded them otherwise under numpy 1.24's OpenBLAS)."""
    from esmo.solver.params import SolverParams
    from esmo.solver.row_cache import build_kernel_rows, get_row

    X, _ = _datasets_breast()
    X_eval = [X[::3] * 0.5, X[1::7]]
    n = X.shape[0]
    n_cols = n + sum(b.shape[0] for b in X_eval)
    budget = 8.0 * n * n_cols / 2**20
    params = SolverParams(gamma=0.7, kernel_dtype=np.float64, cache_size_mb=budget * 2)
    if not up_front:  # room for a few rows only: each is computed on demand
        params = SolverParams(gamma=0.7, kernel_dtype=np.float64, cache_size_mb=budget / 50)
    tracked = build_kernel_rows(X, X_eval, params)
    plain = build_kernel_rows(X, [], params)
    assert tracked.blas and tracked.resident == up_front
    for i in range(0, n, 5):
        with_eval = get_row(tracked, i, n_cols).copy()
        np.testing.assert_array_equal(with_eval[:n], get_row(plain, i, n).copy())
        expected = kernel_matrix(X[i : i + 1], np.concatenate(X_eval), "rbf", 0.7)[0]
        np.testing.assert_allclose(with_eval[n:], expected, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("nnz", [0, 1, 2, 3, 4, 5, 7, 8, 9, 13])
def test_sparse_dots_add_features_one_by_one_in_order(nnz):
    """Four features per pass, padded with zeros, give the sums of a plain loop that adds
    one feature's products at a time in feature order, to the bit, on any column range."""
    from esmo.solver.kernels import sparse_dots

    rng = np.random.default_rng(nnz)
    d, m = 16, 37
    XT = rng.normal(size=(d, m)) * 10.0 ** rng.integers(-8, 8, size=(d, 1))
    xi = np.zeros(d)
    xi[np.sort(rng.choice(d, nnz, replace=False))] = rng.normal(size=nnz)
    for start, stop in [(0, m), (5, 29), (36, 37)]:
        expected = np.zeros(stop - start)
        for t in np.flatnonzero(xi):
            expected = expected + XT[t, start:stop] * xi[t]
        got = sparse_dots(xi, XT, start, stop)
        np.testing.assert_array_equal(got, expected)
        assert not np.signbit(got[got == 0.0]).any()


def test_vectorised_exp_matches_libm():
    """exp_nonpositive against NumPy's (libm's) exp over the whole non-positive range."""
    from esmo.solver.kernels import exp_nonpositive

    rng = np.random.default_rng(3)
    x = np.concatenate(
        [
            -np.logspace(-300, np.log10(708.0), 200_000, base=10.0),
            -rng.uniform(0.0, 1.0, 100_000),
            [0.0, -0.0, -np.log(2.0) / 2, -708.0, -708.2, -708.5, -745.2, -1e300],
        ]
    )
    out = np.empty_like(x)
    exp_nonpositive(x, out)
    ref = np.exp(x)
    kept = x >= -708.0
    np.testing.assert_allclose(out[kept], ref[kept], rtol=5e-16, atol=0)
    assert (out[~kept] == 0.0).all()  # below exp(-708) ~ 3.3e-308, flushed to zero
    out32 = np.empty(x.shape, dtype=np.float32)
    exp_nonpositive(x, out32)
    np.testing.assert_array_equal(out32, ref.astype(np.float32))


@pytest.mark.parametrize("rows", [2, 3, 10])
def test_small_cache_walks_the_resident_path_exactly(rows):
    """Evicted rows are recomputed bit for bit, so the LRU cache never changes the path."""
    X, y = _libsvm_order(*_datasets_breast())
    full = solve_smo(X, y, C=20.0, gamma=2.0)
    tiny = solve_smo(X, y, C=20.0, gamma=2.0, cache_size_mb=rows * X.shape[0] * 4 / 2**20)
    assert (tiny.n_iter, tiny.rho) == (full.n_iter, full.rho)
    np.testing.assert_array_equal(tiny.alpha, full.alpha)


def test_a_cache_below_two_rows_is_refused_before_the_solve():
    """Two rows are the working pair's minimum: a smaller budget is an error naming the fix."""
    X, y = _libsvm_order(*_datasets_breast())
    two_rows = 2 * X.shape[0] * 4 / 2**20
    with pytest.raises(ValueError, match=r"cache_size_mb=.* set cache_size_mb to at least"):
        solve_smo(X, y, C=20.0, gamma=2.0, cache_size_mb=two_rows * 0.99)
    with pytest.raises(ValueError, match="two kernel rows") as refused:
        SMOClassifier(C=20.0, gamma=2.0, cache_size_mb=two_rows * 0.99).fit(X, y)
    advised = float(str(refused.value).rsplit("at least ", 1)[1].rstrip("."))
    assert advised >= two_rows  # the advice is enough: the fit then runs
    assert SMOClassifier(C=20.0, gamma=2.0, cache_size_mb=advised).fit(X, y).n_iter_ > 0


def test_fast_parameter_checks_agree_with_the_declared_constraints():
    """SolverParams' quick predicates give scikit-learn's verdict on every kind of value."""
    from sklearn.utils._param_validation import make_constraint

    from esmo.solver.params import FAST_CHECKS, SOLVER_CONSTRAINTS

    values = [
        0, 1, -1, -2, 5, 2**62, 0.0, 1e-300, 0.5, 1.0, -0.5, 3.0, np.inf, -np.inf, np.nan,
        np.float32(2.0), np.int64(7), np.int32(-1), True, False, None, "rbf", "linear",
        "poly", np.float32, np.float64, float, [1.0], "1.0",
    ]  # fmt: skip
    assert set(FAST_CHECKS) == set(SOLVER_CONSTRAINTS)
    for name, constraints in SOLVER_CONSTRAINTS.items():
        declared = [make_constraint(c) for c in constraints]
        for value in values:
            expected = any(c.is_satisfied_by(value) for c in declared)
            assert FAST_CHECKS[name](value) == expected, (name, value)
