"""The cross-validated C path (esmo.tuning.path) against separate fits of SMOClassifier."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.model_selection import KFold, StratifiedKFold

from esmo.early_stopping import EarlyStopping, EarlyStoppingSet
from esmo.estimators.smo_classifier import SMOClassifier
from esmo.solver import active_set, active_view, row_cache
from esmo.solver.kernels import FeatureOrderRows, feature_order_kernel_matrix, kernel_matrix
from esmo.solver.params import SolverParams
from esmo.solver.row_cache import ROWS_COMPUTED, build_kernel_rows, count_afresh, stored_sums
from esmo.solver.shared_kernel import SharedKernel, shared_kernel_mb
from esmo.solver.smo import run_smo
from esmo.tuning.path import HeldOutRows, fit_path, scaled_state

CS = 2.0 ** np.linspace(-3, 8, 10)
ES = EarlyStopping(3, 0.0, 5)


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(240, 5))
    X[X < -0.8] = 0.0  # zeros for the sparse case
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=240) > 0, "yes", "no")
    return X, y


def separate_fits(X, y, early_stopping, gamma=0.5, **params):
    """scikit-learn-style: one SMOClassifier per (C, fold), scored on the held-out fold."""
    folds = list(StratifiedKFold(5).split(X, y))
    scores, n_iter = np.empty((len(CS), 5)), np.empty((len(CS), 5), np.int64)
    es = {}
    if early_stopping is not None:
        es = dict(early_stopping=True, n_iter_no_change=ES.patience, es_tol=ES.tol,
                  validation_interval=ES.interval, es_evaluation="incremental")  # fmt: skip
    for c, C in enumerate(CS):
        for k, (train, held_out) in enumerate(folds):
            model = SMOClassifier(C=C, gamma=gamma, **es, **params)
            val = {"X_val": X[held_out], "y_val": y[held_out]} if es else {}
            model.fit(X[train], y[train], **val)
            scores[c, k], n_iter[c, k] = model.score(X[held_out], y[held_out]), model.n_iter_
    return scores, n_iter


@pytest.mark.parametrize("early_stopping", [None, ES], ids=["plain", "early_stopped"])
@pytest.mark.parametrize("shrinking", [True, False])
def test_the_cold_path_is_separate_fits(problem, early_stopping, shrinking):
    X, y = problem
    scores, n_iter = separate_fits(X, y, early_stopping, shrinking=shrinking)
    path = fit_path(X, y, CS, 0.5, warm_start=False, early_stopping=early_stopping,
                    shrinking=shrinking)  # fmt: skip
    np.testing.assert_array_equal(path.n_iter, n_iter)
    np.testing.assert_array_equal(path.scores, scores)
    assert path.stopped_early.any() == (early_stopping is not None)
    assert path.best_C == CS[np.argmax(scores.mean(axis=1))]


def test_the_cold_path_reads_its_gathered_rows_where_the_active_view_opens(problem, monkeypatch):
    """With the view open at any size (it opens here at gamma 0.05 and C >= 8), the path's
    fits take the view's rows out of their gathers, where separate fits compute them at the
    view's points: the same fits and scores."""
    monkeypatch.setattr(active_view, "VIEW_MIN_POINTS", 0)
    X, y = problem
    scores, n_iter = separate_fits(X, y, None, gamma=0.05)
    path = fit_path(X, y, CS, 0.05, warm_start=False)
    np.testing.assert_array_equal(path.n_iter, n_iter)
    np.testing.assert_array_equal(path.scores, scores)
    # one such fit: no row computed on the gather, the run of a store of its own
    signs, train = np.where(y == "yes", 1.0, -1.0), np.arange(40, 240)
    params = SolverParams(kernel="rbf", gamma=0.05, C=64.0)
    rows = SharedKernel(X, "rbf", 0.05).rows(train, train[:0], params)
    on_gather, _ = run_smo(X[train], signs[train], params, rows=rows)
    own, _ = run_smo(X[train], signs[train], params)
    assert rows.clock[ROWS_COMPUTED] == 0 and on_gather.n_iter == own.n_iter
    np.testing.assert_array_equal(on_gather.alpha, own.alpha)


def test_a_fold_store_gathers_the_rows_its_fits_read_when_first_read(problem):
    """No row is gathered up front; a run gathers each row it reads (all its columns),
    the shared matrix's values to the bit, and the rows it never reads stay out."""
    X, _ = problem
    signs = np.where(problem[1] == "yes", 1.0, -1.0)
    train = np.arange(40, 240)[::-1]
    params = SolverParams(kernel="rbf", gamma=0.5, C=0.5)
    shared = SharedKernel(X, "rbf", 0.5)
    rows = shared.rows(train, train[:0], params)
    assert (rows.slot_of < 0).all()
    result, _ = run_smo(X[train], signs[train], params, rows=rows)
    own, _ = run_smo(X[train], signs[train], params)
    np.testing.assert_array_equal(result.alpha, own.alpha)
    read = np.flatnonzero(rows.slot_of >= 0)
    assert 0 < len(read) < len(train) and rows.clock[ROWS_COMPUTED] == 0
    np.testing.assert_array_equal(rows.slot_of[read], read)  # row i in slot i
    np.testing.assert_array_equal(rows.data[read], shared.matrix[np.ix_(train[read], train)])
    # the rounds gather as they read: the bounded gradient reads every bounded point's row
    src = active_set.RowSource.of(rows)
    at_C = result.alpha >= params.C
    K = shared.matrix[np.ix_(train, train)]
    expected = active_set.bounded_gradient(K, active_set.RowSource.in_place(200), signs[train],
                                           result.alpha, params.C)  # fmt: skip
    got = active_set.bounded_gradient(rows.data, src, signs[train], result.alpha, params.C)
    np.testing.assert_array_equal(got, expected)
    assert (rows.slot_of[at_C] >= 0).all()


def test_sparse_points_give_the_dense_path(problem):
    X, y = problem
    dense = fit_path(X, y, CS, 0.5, warm_start=False)
    csr = fit_path(sp.csr_matrix(X), y, CS, 0.5, warm_start=False)
    np.testing.assert_array_equal(csr.n_iter, dense.n_iter)
    np.testing.assert_array_equal(csr.scores, dense.scores)


def test_warm_starts_reach_the_same_optimum_in_fewer_iterations(problem):
    X, y = problem
    cold = fit_path(X, y, CS, 0.5, warm_start=False)
    warm = fit_path(X, y, CS, 0.5, warm_start=True)
    # the first C starts cold either way; every later fit meets tol from another start
    np.testing.assert_array_equal(warm.n_iter[0], cold.n_iter[0])
    assert warm.n_iter[1:].sum() < cold.n_iter[1:].sum()
    # both are tol-accurate solutions of one dual: objectives agree far inside tol's reach
    np.testing.assert_allclose(warm.objective, cold.objective, rtol=1e-3)
    assert np.abs(warm.mean_scores - cold.mean_scores).max() <= 0.02


@pytest.mark.parametrize("early_stopping", [None, ES], ids=["plain", "early_stopped"])
def test_folds_on_two_threads_give_the_same_path(problem, early_stopping):
    """Each fold's fits read only its own gather: running folds side by side changes no number."""
    X, y = problem
    one = fit_path(X, y, CS, 0.5, early_stopping=early_stopping, n_jobs=1)
    two = fit_path(X, y, CS, 0.5, early_stopping=early_stopping, n_jobs=2)
    for name in ("scores", "n_iter", "rounds", "by_active_set", "objective", "stopped_early"):
        np.testing.assert_array_equal(getattr(two, name), getattr(one, name))
    assert two.kernel_evaluations == one.kernel_evaluations


def test_kernel_values_are_counted_once(problem):
    """The matrix of all n points once (its diagonal and above), and each fold's held-out
    values of the points that are a support vector at some C: the union of the separate
    fits' support vectors."""
    X, y = problem
    path = fit_path(X, y, CS, 0.5, warm_start=False)
    held_out_values = 0
    for train, held_out in StratifiedKFold(5).split(X, y):
        fits = [SMOClassifier(C=C, gamma=0.5).fit(X[train], y[train]) for C in CS]
        ever = np.unique(np.concatenate([model.support_ for model in fits]))
        assert 0 < len(ever) < len(train)  # some points never are: the count is not the block
        held_out_values += len(ever) * len(held_out)
    assert path.kernel_evaluations == 240 * 241 // 2 + held_out_values


def test_the_shared_matrix_is_the_kernel(problem):
    X, _ = problem
    shared = SharedKernel(X, "rbf", 0.5)
    d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2)
    np.testing.assert_allclose(shared.matrix, np.exp(-0.5 * d2), rtol=1e-6)
    assert shared.matrix.dtype == np.float32 and shared.kernel_evaluations == 240 * 241 // 2


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
@pytest.mark.parametrize("form", [np.asarray, sp.csr_matrix])
@pytest.mark.parametrize("binary", [False, True], ids=["real", "binary"])
def test_the_shared_matrix_is_every_row_computed_whole(problem, kernel, form, binary):
    """Half computed, half copied: to the bit the rows a fit's own store computes whole."""
    dense = (problem[0] > 0).astype(float) if binary else problem[0]
    assert_rows_computed_whole(form(dense), kernel, n_jobs=1)


def test_the_shared_matrix_is_every_row_computed_whole_on_two_threads():
    """Rows long enough to be filled in parts, which start at the diagonal."""
    X = np.random.default_rng(3).normal(size=(row_cache.PARALLEL_MIN_COLUMNS + 300, 3))
    assert_rows_computed_whole(X, "rbf", n_jobs=2)


def assert_rows_computed_whole(X, kernel: str, n_jobs: int) -> None:
    shared = SharedKernel(X, kernel, 0.5, n_jobs=n_jobs)
    store = build_kernel_rows(X, [], SolverParams(kernel=kernel, gamma=0.5), incremental=False)
    whole = np.empty_like(shared.matrix)
    for i in range(len(whole)):
        row_cache.compute_row(store, i, len(whole), whole[i])
    np.testing.assert_array_equal(shared.matrix.view(np.int32), whole.view(np.int32))


def test_a_warm_starts_validation_sums_are_read_from_the_gather(problem):
    """stored_sums against a float64 product over the shared matrix's own values."""
    X, _ = problem
    shared = SharedKernel(X, "rbf", 0.5)
    train, held_out = np.arange(40, 240)[::-1], np.arange(40)
    store = shared.rows(train, held_out, SolverParams(kernel="rbf", gamma=0.5))
    rng = np.random.default_rng(1)
    alpha = np.where(rng.random(200) < 0.3, rng.random(200), 0.0)
    y = np.where(rng.random(200) < 0.5, -1.0, 1.0)
    expected = (alpha * y) @ shared.matrix[np.ix_(train, held_out)].astype(np.float64)
    np.testing.assert_allclose(stored_sums(store, alpha, y, 200), expected, rtol=1e-12)


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
@pytest.mark.parametrize("form", [np.asarray, sp.csr_matrix])
@pytest.mark.parametrize("binary", [False, True], ids=["real", "binary"])
def test_held_out_values_are_the_sums_the_shared_matrix_rounds(problem, kernel, form, binary):
    """The scores' float64 values, rounded to float32, are the shared matrix's to the bit,
    whole or a few rows at a time (binary features: read from the exp table); they are the
    kernel (a BLAS product) up to the summation order."""
    dense = (problem[0] > 0).astype(float) if binary else problem[0]
    X = form(dense)
    train, held_out = np.arange(30, 240), np.arange(30)
    K = feature_order_kernel_matrix(X[train], X[held_out], kernel, 0.5)
    shared = SharedKernel(X, kernel, 0.5)
    np.testing.assert_array_equal(K.astype(np.float32), shared.matrix[np.ix_(train, held_out)])
    some = np.array([5, 0, 177])
    part = FeatureOrderRows(X[train], X[held_out], kernel, 0.5).rows(some)
    np.testing.assert_array_equal(
        part.astype(np.float32), shared.matrix[np.ix_(train[some], held_out)]
    )
    # the norms and exp table the shared kernel holds for all points give the same rows
    prepared = shared.prepared(train, held_out)
    assert (prepared is None) == (kernel == "linear")
    again = FeatureOrderRows(X[train], X[held_out], kernel, 0.5, prepared=prepared)
    np.testing.assert_array_equal(again.rows(some), part)
    if prepared is not None:  # the shared table, sized for all points, is the one read
        assert again.table is prepared[2]
        assert len(again.table) >= len(FeatureOrderRows(X[train], X[held_out], kernel, 0.5).table)
    np.testing.assert_allclose(
        K, kernel_matrix(dense[train], dense[held_out], kernel, 0.5), rtol=1e-13, atol=1e-15
    )


def test_the_shared_matrix_refuses_points_that_are_not_finite(problem):
    """Its fits take the points as checked, so the matrix checks them before any value."""
    X = problem[0].copy()
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="X contains NaN or infinity; impute or drop"):
        SharedKernel(X, "rbf", 0.5)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"Cs": [1.0, 0.5]}, "strictly ascending"),
        ({"Cs": [1.0, 1.0]}, "strictly ascending"),
        ({"Cs": [0.0, 1.0]}, "positive and finite"),
        ({"Cs": [1.0, np.inf]}, "positive and finite"),
        ({"Cs": []}, "non-empty"),
        ({"n_jobs": 0}, "n_jobs=0"),
        ({"cache_size_mb": 0.1}, "raise cache_size_mb to at least 1"),
    ],
)
def test_bad_input_is_refused_naming_the_fix(problem, kwargs, message):
    X, y = problem
    args = {"Cs": CS} | kwargs
    with pytest.raises(ValueError, match=message):
        fit_path(X, y, args.pop("Cs"), 0.5, **args)


def test_a_fold_without_one_class_is_refused(problem):
    X, y = problem
    order = np.argsort(y, kind="stable")  # one class first: unshuffled KFold leaves it out
    with pytest.raises(ValueError, match="Fold 0's training part holds one class"):
        fit_path(X[order], y[order], CS, 0.5, cv=KFold(2))


def test_the_memory_rule(problem):
    assert shared_kernel_mb(1024) == 8.0  # the float32 matrix and one fold's gather
    assert shared_kernel_mb(1024, gathers=2) == 12.0  # two folds side by side
    X, y = problem  # 240 points: 0.22 MB a matrix, 0.44 MB with one gather, 0.66 MB with two
    fit_path(X, y, CS[:2], 0.5, cache_size_mb=0.5, n_jobs=1)
    with pytest.raises(ValueError, match="2 folds' gathers need 1 MB.*at least 1"):
        fit_path(X, y, CS[:2], 0.5, cache_size_mb=0.5, n_jobs=2)


def test_a_warm_starts_carried_sums_are_the_sums_of_its_alphas(problem):
    """Under early stopping the path scales the last fit's tracked held-out sums
    (``eval_sums``) instead of summing its alphas afresh: the run is the same, and its sums
    end within rounding of a float64 product over the gather's own values."""
    X, y = problem
    signs = np.where(y == "yes", 1.0, -1.0)
    train, held_out = np.arange(40, 240), np.arange(40)
    params = SolverParams(kernel="rbf", gamma=0.5, C=1.0)
    shared = SharedKernel(X, "rbf", 0.5)
    rows = shared.rows(train, held_out, params)
    never = EarlyStoppingSet.of([EarlyStopping(10**9, 0.0, 5)])
    run = dict(configs=never, X_val=X[held_out], y_val=signs[held_out], evaluation="incremental")
    first, tracking = run_smo(X[train], signs[train], params, rows=rows, **run)
    bigger, ratio = replace(params, C=4.0), 4.0
    fits = [
        run_smo(X[train], signs[train], bigger, rows=count_afresh(rows), eval_sums=sums,
                state=scaled_state(first.state, signs[train], ratio, 4.0), **run)
        for sums in (ratio * tracking.eval_sums, None)
    ]  # fmt: skip
    (carried, carried_tracking), (summed, summed_tracking) = fits
    assert carried.n_iter == summed.n_iter > 0
    np.testing.assert_array_equal(carried.alpha, summed.alpha)
    # the gather's values are the matrix's; a row no fit read is never gathered: stale memory
    K = shared.matrix[np.ix_(train, held_out)].astype(np.float64)
    expected = (carried.alpha * signs[train]) @ K
    bound = 1e-12 * (carried.alpha @ np.abs(K))  # relative to the sum of |terms|
    for sums in (carried_tracking.eval_sums, summed_tracking.eval_sums):
        assert np.all(np.abs(sums - expected) <= bound)
    with pytest.raises(ValueError, match="eval_sums holds"):
        run_smo(X[train], signs[train], bigger, rows=count_afresh(rows), eval_sums=np.zeros(39),
                state=scaled_state(first.state, signs[train], ratio, 4.0), **run)  # fmt: skip


def test_gathered_rows_refuse_final_predictions(problem):
    """A gathered store holds no points to predict from: refused before the run, naming the fix."""
    X, y = problem
    signs = np.where(y == "yes", 1.0, -1.0)
    train, held_out = np.arange(40, 240), np.arange(40)
    params = SolverParams(kernel="rbf", gamma=0.5, C=1.0)
    rows = SharedKernel(X, "rbf", 0.5).rows(train, held_out, params)
    never = EarlyStoppingSet.of([EarlyStopping(10**9, 0.0, 5)])
    with pytest.raises(ValueError, match="final_predictions_at_eval=False"):
        run_smo(X[train], signs[train], params, rows=rows, configs=never, X_val=X[held_out],
                y_val=signs[held_out], evaluation="incremental", final_predictions_at_eval=True)  # fmt: skip
    assert rows.clock[ROWS_COMPUTED] == 0 and (rows.slot_of < 0).all()  # no row was read


def test_a_warm_starts_decision_values_are_the_ones_summed_afresh(problem):
    """From the last fit's values times the ratio of the C, plus the rows whose coefficient
    moved otherwise: the values a fresh sum over every support vector gives, to rounding."""
    X, labels = problem
    y = np.where(labels == "yes", 1.0, -1.0)
    train, held_out = np.arange(40, 240), np.arange(40)
    grouping = np.argsort(-y[train], kind="stable")
    X_fit, y_fit = X[train][grouping], y[train][grouping]
    warm = HeldOutRows(X_fit, grouping, X[held_out], "rbf", 0.5)
    rng = np.random.default_rng(5)
    Cs = 2.0 ** np.linspace(-3, 6, 12)
    status = rng.integers(0, 3, len(train))  # 0 zero, 1 free, 2 at C: some change each step
    for c, C in enumerate(Cs):
        status = np.where(rng.random(len(train)) < 0.1, rng.integers(0, 3, len(train)), status)
        alpha = np.select([status == 1, status == 2], [C * rng.random(len(train)), C], 0.0)
        rho = rng.normal()
        fresh = HeldOutRows(X_fit, grouping, X[held_out], "rbf", 0.5)
        expected = fresh.accuracy(alpha, y_fit, rho, y[held_out])
        got = warm.accuracy(alpha, y_fit, rho, y[held_out], C / Cs[c - 1] if c else 0.0)
        np.testing.assert_allclose(warm.sums, fresh.sums, rtol=0, atol=1e-12 * C * len(train))
        assert got == expected
