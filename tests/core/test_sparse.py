"""Sparse X (scipy CSR and CSC): kept sparse through the solver, the dense input's results to the bit.

The solver sums each dot product over the nonzero features in feature order for
dense rows and sparse rows alike (``esmo.solver.sparse``), so a fit on sparse X
must equal the fit on ``X.toarray()`` exactly: iterations, support vectors, dual
coefficients, intercepts. Decision values on sparse X are sums over the nonzero
features, on dense X a BLAS product: equal to the bit where the products are
exact (the binary LIBSVM files), else to rounding.
"""

from __future__ import annotations

import functools
import importlib.util
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import DATASETS, require_mirror
from scipy.linalg.blas import ddot
from scipy.stats import loguniform
from sklearn.datasets import load_digits, load_iris, load_svmlight_file

from esmo import (
    EarlyStopping,
    HyperbandSVM,
    MDLSearch,
    OptunaSearchSVM,
    RandomSearchSVM,
    SMOClassifier,
    SuccessiveHalvingSVM,
    SVMEnsembleClassifier,
    solve_smo,
    sweep_early_stopping,
)
from esmo.solver import sparse
from esmo.solver.kernels import kernel_diagonal, sparse_dots, squared_norms

#: The sparse variance repeats numpy 2's pairwise order of ``X.var()``; numpy 1.x (the
#: declared floor, 1.24) sums large arrays in another order, so there ``gamma='scale'``
#: agrees to the last bit or two, and the bit-for-bit fits take the dense fit's gamma.
NUMPY_2 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"

_SCRIPT = Path(__file__).resolve().parent / "data" / "make_libsvm_iterations.py"
_spec = importlib.util.spec_from_file_location("make_libsvm_iterations", _SCRIPT)
table = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(table)

FORMATS = {
    "csr_matrix": sp.csr_matrix,
    "csc_matrix": sp.csc_matrix,
    "csr_array": sp.csr_array,
    "csc_array": sp.csc_array,
}


def _random_sparse(seed: int, n: int, d: int, density: float) -> sp.csr_matrix:
    """Values over six decades, so that sums round differently in other orders."""
    rng = np.random.default_rng(seed)

    def values(k):
        return rng.standard_normal(k) * 10.0 ** rng.uniform(-3, 3, k)

    return sp.random(n, d, density=density, format="csr", random_state=seed, data_rvs=values)


def _with_zeros(X: np.ndarray, seed: int = 0) -> np.ndarray:
    """``X`` with about half of its entries set to 0 (a sparse matrix worth the name)."""
    return X * (np.random.default_rng(seed).random(X.shape) < 0.5)


# -- the pieces: each the dense computation's value, to the bit ---------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_dots_norms_diagonal_and_variance_equal_the_dense_ones(seed):
    n, d = 60 + 37 * seed, 5 + 23 * seed
    X = sparse.as_csr(_random_sparse(seed, n, d, (0.02, 0.1, 0.5)[seed % 3]))
    D = X.toarray()
    rows, by_feature = sparse.csr_points(X), sparse.feature_major([X])
    XT = np.ascontiguousarray(D.T)
    for i in range(0, n, 7):
        for start, stop in ((0, n), (n // 3, n), (n // 4, n // 2)):
            np.testing.assert_array_equal(
                sparse.csr_dots(rows, i, by_feature, start, stop),
                sparse_dots(D[i], XT, start, stop),
            )
    np.testing.assert_array_equal(squared_norms(X), squared_norms(D))
    np.testing.assert_array_equal(kernel_diagonal(X, "linear"), kernel_diagonal(D, "linear"))
    np.testing.assert_array_equal(kernel_diagonal(D, "linear"), [ddot(x, x) for x in D])
    if NUMPY_2:
        assert sparse.dense_variance(X) == D.var()
    else:
        assert sparse.dense_variance(X) == pytest.approx(D.var(), rel=5e-16, abs=0)


@pytest.mark.parametrize(
    "shape, density",
    [((1, 1), 1.0), ((3, 2), 0.0), ((97, 85), 0.001), ((400, 300), 0.04), ((7, 5000), 0.01)],
)
def test_variance_is_numpys_pairwise_sum_over_the_dense_layout(shape, density):
    """Over and under numpy's block of 128 values and its buffer of 8192, empty rows included."""
    X = sparse.as_csr(_random_sparse(sum(shape), *shape, density))
    assert sparse.dense_variance(X) == X.toarray().var()


def test_as_csr_leaves_the_callers_matrix_alone():
    """Duplicates, unsorted indices and explicit zeros are tidied in a copy."""
    data = np.array([1.5, 0.0, 2.0, 3.0, -1.0])
    indices = np.array([2, 0, 1, 1, 0])
    indptr = np.array([0, 3, 5])
    X = sp.csr_matrix((data, indices, indptr), shape=(2, 3))
    before = (X.data.copy(), X.indices.copy(), X.indptr.copy())
    canonical = sparse.as_csr(X)
    assert canonical.has_canonical_format and canonical.data.all()
    np.testing.assert_array_equal(canonical.toarray(), X.toarray())
    for kept, now in zip(before, (X.data, X.indices, X.indptr), strict=True):
        np.testing.assert_array_equal(kept, now)
    same = sparse.as_csr(canonical)
    assert same is canonical  # nothing to change: no copy


# -- the solver ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kernel, C, gamma", [("rbf", 8.0, 0.5), ("linear", 2.0, 1.0)])
@pytest.mark.parametrize("shrinking", [True, False])
def test_solver_and_sweep_on_sparse_points_equal_dense(kernel, C, gamma, shrinking):
    X, y = DATASETS["breast_cancer"]
    X = _with_zeros(X)
    S = sp.csr_matrix(X)
    params = dict(kernel=kernel, C=C, gamma=gamma, shrinking=shrinking)
    a, b = solve_smo(X[:400], y[:400], **params), solve_smo(S[:400], y[:400], **params)
    assert a.n_iter == b.n_iter and a.rho == b.rho
    np.testing.assert_array_equal(a.alpha, b.alpha)
    es = EarlyStopping(patience=3, tol=0.0, interval=5, restore_best=True)
    fits = [
        solve_smo(Z[:400], y[:400], early_stopping=es, X_val=V, y_val=y[400:], **params)
        for Z, V in ((X, X[400:]), (S, S[400:]), (S, X[400:]))  # dense X_val joins sparse X
    ]
    for other in fits[1:]:
        assert other.n_iter == fits[0].n_iter and other.rho == fits[0].rho
        np.testing.assert_array_equal(other.alpha, fits[0].alpha)
    configs = [EarlyStopping(patience=p, tol=1e-3, interval=r) for p in (1, 5) for r in (1, 7, 64)]
    dense, sparse_ = (
        sweep_early_stopping(
            Z[:300],
            y[:300],
            Z[300:450],
            y[300:450],
            configs,
            X_test=Z[450:],
            y_test=y[450:],
            **params,
        )  # fmt: skip
        for Z in (X, S)
    )
    assert dense.table.equals(sparse_.table) and dense.reference == sparse_.reference


def test_float64_storage_takes_the_sparse_sums_for_sparse_points():
    """The BLAS path is the dense points' only: sparse ones fit with float64 rows all the same."""
    X, y = DATASETS["synthetic"]
    X = _with_zeros(X)
    dense = solve_smo(X, y, C=4.0, gamma=0.5, kernel_dtype=np.float64)
    sparse_ = solve_smo(sp.csr_matrix(X), y, C=4.0, gamma=0.5, kernel_dtype=np.float64)
    np.testing.assert_allclose(sparse_.alpha, dense.alpha, rtol=1e-6, atol=1e-9)


# -- the estimator ------------------------------------------------------------------------------


def _assert_same_fit(dense: SMOClassifier, sparse_: SMOClassifier) -> None:
    """The model of a sparse fit is the dense fit's, to the bit."""
    np.testing.assert_array_equal(sparse_.n_iter_, dense.n_iter_)
    assert sparse_.gamma_ == dense.gamma_
    np.testing.assert_array_equal(sparse_.support_, dense.support_)
    np.testing.assert_array_equal(sparse_.n_support_, dense.n_support_)
    np.testing.assert_array_equal(sparse_.dual_coef_, dense.dual_coef_)
    np.testing.assert_array_equal(sparse_.intercept_, dense.intercept_)
    np.testing.assert_array_equal(sparse_.stopped_early_, dense.stopped_early_)
    assert sp.issparse(sparse_.support_vectors_)
    np.testing.assert_array_equal(sparse_.support_vectors_.toarray(), dense.support_vectors_)


FITS = {
    "rbf": dict(kernel="rbf", C=8.0),
    "rbf-no-shrinking": dict(kernel="rbf", C=8.0, shrinking=False),
    "linear": dict(kernel="linear", C=2.0),
    "linear-no-shrinking": dict(kernel="linear", C=2.0, shrinking=False),
    "early-stopped": dict(
        kernel="rbf", C=32.0, early_stopping=True, n_iter_no_change=3, random_state=0
    ),
}


@functools.cache
def _libsvm_file(name: str) -> tuple[sp.csr_matrix, np.ndarray]:
    X, y = load_svmlight_file(str(require_mirror() / name), n_features=table.N_FEATURES[name[:3]])
    return X, y


@pytest.mark.parametrize("fit", sorted(FITS))
@pytest.mark.parametrize("name", ["w1a", "a1a"])
def test_libsvm_files_fit_and_predict_as_dense_to_the_bit(name, fit):
    """Binary features: every product is exact, so the decision values agree to the bit too."""
    X, y = _libsvm_file(name)
    X_test, _ = _libsvm_file(f"{name}.t")
    X_test = X_test[:5000]
    dense = SMOClassifier(**FITS[fit]).fit(X.toarray(), y)
    expected = dense.decision_function(X_test.toarray())
    params = FITS[fit] if NUMPY_2 else {**FITS[fit], "gamma": dense.gamma_}
    for make in (sp.csr_matrix, sp.csc_array):
        model = SMOClassifier(**params).fit(make(X), y)
        _assert_same_fit(dense, model)
        np.testing.assert_array_equal(model.decision_function(make(X_test)), expected)
        np.testing.assert_array_equal(model.predict(X_test), dense.predict(X_test.toarray()))


@pytest.mark.parametrize("fit", sorted(FITS))
@pytest.mark.parametrize("name", sorted(DATASETS))
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_sklearn_datasets_fit_as_dense_to_the_bit(name, fit, fmt):
    """Real-valued features: the model to the bit, decision values to BLAS's rounding."""
    X, y = DATASETS[name]
    X = _with_zeros(X)
    dense = SMOClassifier(**FITS[fit]).fit(X, y)
    model = SMOClassifier(**FITS[fit]).fit(FORMATS[fmt](X), y)
    _assert_same_fit(dense, model)
    decision = model.decision_function(FORMATS[fmt](X))
    np.testing.assert_allclose(decision, dense.decision_function(X), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(np.sign(decision), np.sign(dense.decision_function(X)))
    if model.kernel == "linear":
        np.testing.assert_allclose(model.coef_, dense.coef_, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_multiclass_one_vs_one_on_sparse_equals_dense(kernel):
    iris_X, iris_y = load_iris(return_X_y=True)
    digits_X, digits_y = load_digits(return_X_y=True)
    keep = digits_y < 4
    for X, y in ((iris_X, iris_y), (digits_X[keep][:300] / 16.0, digits_y[keep][:300])):
        X = _with_zeros(X)
        dense = SMOClassifier(kernel=kernel, C=4.0).fit(X, y)
        model = SMOClassifier(kernel=kernel, C=4.0).fit(sp.csc_matrix(X), y)
        _assert_same_fit(dense, model)
        np.testing.assert_array_equal(model.predict(sp.csr_matrix(X)), dense.predict(X))
        np.testing.assert_allclose(
            model.decision_function(sp.csr_matrix(X)), dense.decision_function(X), atol=1e-12
        )


def test_validation_data_weights_and_probability_on_sparse():
    X, y = DATASETS["digits"]
    X = _with_zeros(X)
    S = sp.csr_matrix(X)
    weight = np.random.default_rng(0).choice(
        [0.0, 0.5, 1.0, 2.0], size=y.size, p=[0.1, 0.2, 0.5, 0.2]
    )
    params = dict(C=16.0, early_stopping=True, n_iter_no_change=2, validation_interval=3)
    dense = SMOClassifier(**params).fit(
        X[:160], y[:160], weight[:160], X_val=X[160:], y_val=y[160:]
    )
    model = SMOClassifier(**params).fit(
        S[:160], y[:160], weight[:160], X_val=S[160:], y_val=y[160:]
    )
    _assert_same_fit(dense, model)
    dense = SMOClassifier(C=4.0, probability=True, random_state=0).fit(X, y)
    model = SMOClassifier(C=4.0, probability=True, random_state=0).fit(S, y)
    _assert_same_fit(dense, model)
    np.testing.assert_allclose(model.probA_, dense.probA_, rtol=1e-10)
    np.testing.assert_allclose(model.predict_proba(S), dense.predict_proba(X), atol=1e-10)


def test_warm_starts_on_sparse_equal_dense():
    """A fit cut by max_iter continues exactly; a new C starts from the clipped alphas."""
    X, y = _libsvm_file("w1a")
    X = X[:1200]
    y = y[:1200]
    fits = []
    for Z in (X.toarray(), X):
        clf = SMOClassifier(C=32.0, gamma=0.5, max_iter=300, warm_start=True)
        with pytest.warns(Warning, match="max_iter"):
            clf.fit(Z, y)
        clf.set_params(max_iter=-1).fit(Z, y)
        whole = clf.n_iter_
        clf.set_params(C=4.0).fit(Z, y)
        fits.append((whole, clf))
    assert fits[0][0] == fits[1][0]
    _assert_same_fit(fits[0][1], fits[1][1])


PINNED = [
    {**row, "shrinking": shrinking}
    for shrinking in (False, True)
    for row in table.read_table(shrinking)
    if row["dataset"] in ("w1a", "a1a")
]


def _row_id(row: dict) -> str:
    shrinking = "-shrinking" if row["shrinking"] else ""
    return f"{row['dataset']}-{row['kernel']}-C{row['C']:g}-tol{row['tol']:g}{shrinking}"


@pytest.mark.parametrize("row", PINNED, ids=_row_id)
def test_svc_on_the_same_sparse_data_takes_the_pinned_iterations(row):
    """The pinned tables' oracle: LIBSVM's sparse build and esmo on CSR, both the pinned count."""
    X, y = table.load_scaled(require_mirror(), row["dataset"])
    S = sp.csr_matrix(X)
    given = {k: row[k] for k in ("kernel", "C", "gamma", "tol", "shrinking")}
    assert table.libsvm(S, y, **given).n_iter_[0] == row["n_iter"]
    assert table.esmo_fit(S, y, **given).n_iter_ == row["n_iter"]


# -- the searches built on SMOClassifier --------------------------------------------------------


def test_searches_accept_sparse_and_choose_as_on_dense(monkeypatch):
    """Each search, on sparse X (and a sparse holdout), chooses and predicts as on dense X,
    and never writes the points out."""
    X, y = DATASETS["breast_cancer"]
    X = _with_zeros(X)
    S = sp.csr_matrix(X)
    _refuse_writing_out(monkeypatch)
    space = {"C": [0.5, 8.0, 64.0], "gamma": [0.05, 0.5, 4.0]}
    searches = [
        RandomSearchSVM(param_distributions=space, n_iter=4, random_state=0),
        SuccessiveHalvingSVM(param_distributions=space, n_candidates=6, random_state=0),
        SuccessiveHalvingSVM(
            param_distributions=space, n_candidates=6, resource="n_iter", random_state=0
        ),
        HyperbandSVM(  # a finite grid smaller than its brackets fails on any input
            param_distributions={"C": loguniform(0.5, 64.0), "gamma": loguniform(0.05, 4.0)},
            max_resources=2000,
            random_state=0,
        ),
        MDLSearch(param_grid=space),
    ]
    if importlib.util.find_spec("optuna") is not None:  # the optuna extra
        searches.append(OptunaSearchSVM(param_distributions=space, n_trials=4, random_state=0))
    for search in searches:
        dense = search.fit(X, y)
        chosen, scores = dense.best_params_, dense.predict(X)
        fitted = search.fit(S, y)
        assert fitted.best_params_ == chosen, type(search).__name__
        np.testing.assert_array_equal(fitted.predict(S), scores)
        assert sp.issparse(fitted.best_estimator_.support_vectors_)
    holdout = dict(param_distributions=space, n_iter=4, early_stopping=True, random_state=0)
    dense = RandomSearchSVM(**holdout).fit(X[:400], y[:400], X_val=X[400:], y_val=y[400:])
    model = RandomSearchSVM(**holdout).fit(S[:400], y[:400], X_val=S[400:], y_val=y[400:])
    assert model.best_params_ == dense.best_params_
    np.testing.assert_array_equal(
        model.cv_results_["mean_test_score"], dense.cv_results_["mean_test_score"]
    )
    params = dict(n_subensembles=2, train_proportion=0.5, random_state=0)
    grid = dict(C_grid=[1.0, 16.0], gamma_grid=[0.1, 1.0])
    dense = SVMEnsembleClassifier(**params, **grid).fit(X, y)
    model = SVMEnsembleClassifier(**params, **grid).fit(S, y)
    np.testing.assert_array_equal(model.subensemble_params_, dense.subensemble_params_)
    np.testing.assert_array_equal(model.predict(S), dense.predict(X))


# -- sparse data too large to write out -----------------------------------------------------------


def _wide(n: int, d: int, per_row: int, seed: int = 0) -> sp.csr_matrix:
    rng = np.random.default_rng(seed)
    indices = np.concatenate([np.sort(rng.choice(d, per_row, replace=False)) for _ in range(n)])
    indptr = np.arange(n + 1) * per_row
    return sp.csr_matrix((rng.random(n * per_row), indices, indptr), shape=(n, d))


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_wide_sparse_data_fits_without_being_written_out(kernel):
    """400 x 2,000,000 (6.4 GB dense): fit, gamma='scale' and predictions in a few MB."""
    X = _wide(400, 2_000_000, 10)
    y = np.where(np.arange(400) % 3 == 0, 1, -1)
    y[X[:, :1_000_000].getnnz(axis=1) > 5] *= -1  # a label the features tell something about
    SMOClassifier(kernel=kernel, C=1.0).fit(X[:20], y[:20])  # compiled before measuring
    tracemalloc.start()
    try:
        model = SMOClassifier(kernel=kernel, C=1.0).fit(X, y)
        model.predict(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2**20
    assert model.n_iter_ > 0 and model.support_.size > 0


def _refuse_writing_out(monkeypatch) -> None:
    """Make every way to write a CSR or CSC matrix out densely raise."""

    def refused(self, *args, **kwargs):
        raise AssertionError("a sparse matrix was written out densely")

    for cls in (sp.csr_matrix, sp.csc_matrix, sp.csr_array, sp.csc_array):
        for name in ("toarray", "todense"):
            monkeypatch.setattr(cls, name, refused)


def test_ten_million_features_fit_and_predict_in_the_nonzeros_memory(monkeypatch):
    """200 x 10^7 (16 GB dense, 2,000 nonzeros): no dense copy, a few MB, in seconds.

    The feature-major points keep the used features only (``shared_features``):
    pointers for every one of 10^7 features would take 80 MB by themselves.
    """
    X = _wide(200, 10_000_000, 10, seed=1)
    y = np.where(X[:, :5_000_000].getnnz(axis=1) > 5, 1, -1)
    by_column = X.tocsc()  # its 10^7 column pointers (40 MB) are the caller's
    SMOClassifier(C=1.0).fit(X[:20], y[:20])  # compiled before measuring
    _refuse_writing_out(monkeypatch)
    tracemalloc.start()
    try:
        model = SMOClassifier(C=1.0, probability=True, random_state=0).fit(X, y)
        decision = model.decision_function(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # CSC input converts to CSR first (scipy < 1.16 allocates per column: 40 MB here),
    # then runs as above; never written out (the patch above refuses it)
    model.predict_proba(by_column)
    assert peak < 16 * 2**20
    assert model.n_iter_ > 0 and np.mean(np.sign(decision) == y) > 0.5


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_no_path_of_fit_or_predict_writes_sparse_points_out(monkeypatch, kernel):
    """Early stopping on sparse validation data, weights, probabilities, predictions."""
    X, y = DATASETS["breast_cancer"]
    S = sp.csr_matrix(_with_zeros(X))
    weight = np.linspace(0.5, 2.0, 400)
    _refuse_writing_out(monkeypatch)
    params = dict(kernel=kernel, C=4.0, early_stopping=True, probability=True, random_state=0)
    model = SMOClassifier(**params).fit(S[:400], y[:400], weight, X_val=S[400:], y_val=y[400:])
    model.predict(S.tocsc())
    model.predict_proba(S)
    with pytest.raises(AssertionError, match="written out"):  # the patch itself works
        S.toarray()


def test_features_no_training_point_uses_are_narrowed_away_exactly():
    """Zero columns between the features, and validation and test points using features the
    training points never do: the fit and the decision values are the dense ones, to the bit."""
    X, y = DATASETS["synthetic"]
    X = _with_zeros(X, seed=3)
    wide = np.zeros((300, 40))
    wide[:, [2, 5, 11, 12, 20, 21, 30, 33]] = X
    wide[200:, 37] = np.linspace(-1.0, 1.0, 100)  # only in X_val
    train, val = np.arange(200), np.arange(200, 300)
    es = dict(early_stopping=True, n_iter_no_change=2, validation_interval=1, random_state=0)
    for kernel in ("rbf", "linear"):
        fits = [
            SMOClassifier(kernel=kernel, C=8.0, **es).fit(
                Z[train], y[train], X_val=Z[val], y_val=y[val]
            )
            for Z in (wide, sp.csr_matrix(wide))
        ]
        _assert_same_fit(*fits)
        decision = fits[1].decision_function(sp.csr_matrix(wide[val]))
        np.testing.assert_allclose(decision, fits[0].decision_function(wide[val]), atol=1e-12)
        # with a point using every feature nothing is narrowed: the same sums, to the bit
        every = sp.csr_matrix(np.vstack([wide[val], np.full(40, 0.5)]))
        np.testing.assert_array_equal(fits[1].decision_function(every)[:-1], decision)


# -- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nan_or_infinity_among_stored_values_is_refused(bad):
    X, y = DATASETS["iris"]
    S = sp.csr_matrix(_with_zeros(X))
    S.data[3] = bad
    with pytest.raises(ValueError, match="NaN|infinity"):
        SMOClassifier().fit(S, y)
    with pytest.raises(ValueError, match="NaN or infinity"):
        solve_smo(S, y)
    model = SMOClassifier().fit(X, y)
    with pytest.raises(ValueError, match="NaN|infinity"):
        model.predict(S)


def test_other_formats_converted_by_the_estimator_refused_by_the_solver():
    X, y = DATASETS["iris"]
    X = _with_zeros(X)
    dense = SMOClassifier(C=2.0).fit(X, y)
    for fmt in ("coo", "lil", "dok", "bsr", "dia"):
        _assert_same_fit(dense, SMOClassifier(C=2.0).fit(sp.csr_matrix(X).asformat(fmt), y))
        with pytest.raises(TypeError, match=r"\.tocsr\(\)"):
            solve_smo(sp.csr_matrix(X).asformat(fmt), y)


def test_linear_kernel_overflow_on_sparse_is_refused():
    X, y = DATASETS["iris"]
    S = sp.csr_matrix(_with_zeros(X) * 1e200)
    with pytest.raises(ValueError, match="overflows float64"):
        SMOClassifier(kernel="linear").fit(S, y)
    with pytest.raises(ValueError, match="squared norms"):
        solve_smo(sp.csr_matrix(_with_zeros(X) * 1e20), y, kernel="linear")


def test_sparse_shapes_and_solvers_refused_clearly():
    X, y = DATASETS["iris"]
    S = sp.csr_matrix(_with_zeros(X))
    with pytest.raises(ValueError, match="X_val has 3 features"):
        es = EarlyStopping(patience=2, tol=0.0)
        solve_smo(S, y, early_stopping=es, X_val=S[:, :3], y_val=y)
    with pytest.raises(ValueError, match="solver='fan'"):
        SMOClassifier(solver="keerthi").fit(S, y)
    model = SMOClassifier().fit(S, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(S[:, :3])
