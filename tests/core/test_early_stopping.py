"""Early stopping (protocol section 5) and the exact sweep, against independent computations."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import DATASETS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.model_selection import train_test_split
from stopping_rules import replay_stop

from esmo.early_stopping import METRICS, RULES, EarlyStopping, EarlyStoppingSet
from esmo.solver.kernels import kernel_matrix
from esmo.solver.params import SolverParams
from esmo.solver.predictions import final_predictions
from esmo.solver.row_cache import build_kernel_rows, get_row
from esmo.solver.smo import decision_values, run_smo, solve_smo
from esmo.solver.sweep import sweep_early_stopping
from esmo.solver.tracking import EVALUATIONS, FRESH_FROM_INTERVAL, description_length

SVM = dict(kernel="rbf", C=50.0, gamma=2.0, tol=1e-3)


def _split(name="breast_cancer", seed=0):
    X, y = DATASETS[name]
    X_tr, X_rest, y_tr, y_rest = train_test_split(
        X, y, test_size=0.4, stratify=y, random_state=seed
    )
    X_val, X_te, y_val, y_te = train_test_split(
        X_rest, y_rest, test_size=0.5, stratify=y_rest, random_state=seed
    )
    return X_tr, y_tr, X_val, y_val, X_te, y_te


SPLIT = _split()
SPLIT_SYN = _split("synthetic", 1)


def _accuracy(f, y):
    return float(np.mean(np.where(f > 0, 1.0, -1.0) == y))


def _fit(cfg, split=SPLIT, dtype=np.float64, evaluation="auto", shrinking=False):
    """A separate early-stopped fit; also returns its tracking."""
    X_tr, y_tr, X_val, y_val, X_te, y_te = split
    return run_smo(
        X_tr,
        y_tr,
        SolverParams(kernel_dtype=dtype, shrinking=shrinking, **SVM),
        configs=EarlyStoppingSet.of([cfg]),
        X_val=X_val,
        y_val=y_val,
        X_test=X_te,
        y_test=y_te,
        evaluation=evaluation,
    )


def _trajectory(split, n_iter):
    """Validation accuracy and hinge after each iteration, from fresh fits truncated by max_iter."""
    X_tr, y_tr, X_val, y_val, *_ = split
    acc, hinge = [], []
    for m in range(1, n_iter + 1):
        res = solve_smo(X_tr, y_tr, max_iter=m, kernel_dtype=np.float64, **SVM)
        f = decision_values(X_tr, y_tr, res, X_val, "rbf", SVM["gamma"])
        acc.append(_accuracy(f, y_val))
        hinge.append(float(np.mean(np.maximum(0.0, 1.0 - y_val * f))))
    return np.array(acc), np.array(hinge)


def test_stop_iterations_follow_both_rules_written_out_plainly():
    """Oracle: the objective trajectory from separate truncated fits, fed to each rule as
    written in tests/stopping_rules.py (the published one after the thesis's own code)."""
    full = solve_smo(SPLIT[0], SPLIT[1], kernel_dtype=np.float64, **SVM)
    last = min(full.n_iter, 60)
    acc, hinge = _trajectory(SPLIT, last)
    settings = [
        (0, 0.0, 1, "accuracy"),
        (1, 0.0, 1, "accuracy"),
        (3, 0.0, 1, "accuracy"),
        (2, 0.01, 3, "accuracy"),
        (1, 0.0, 1, "hinge"),
        (4, 0.02, 2, "hinge"),
        (5, 1.0, 1, "accuracy"),  # never improves on the baseline
        (3, 0.0, 4, "accuracy"),
    ]
    stops = {rule: [] for rule in RULES}
    for rule in RULES:
        for patience, tol, interval, metric in settings:
            cfg = EarlyStopping(patience, tol, interval, metric, rule=rule)
            expected = replay_stop(
                lambda k, metric=metric: (acc if metric == "accuracy" else hinge)[k - 1],
                patience=patience,
                tol=tol,
                interval=interval,
                higher=metric == "accuracy",
                rule=rule,
                last=last,
            )
            stops[rule].append(expected)
            if expected is None:
                continue
            res, track = _fit(cfg)
            assert res.stopped_early and res.n_iter == expected == track.stop_iter[0]
    assert sum(s is not None for s in stops["published"]) >= 6
    assert sum(s is not None for s in stops["text"]) >= 5
    # the two rules differ: p = 0 never stops under the published one, and it stops earlier
    assert stops["published"][0] is None and stops["text"][0] is not None
    assert any(
        p is not None and t is not None and p < t
        for p, t in zip(stops["published"], stops["text"], strict=True)
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.builds(
            EarlyStopping,
            patience=st.integers(0, 40),
            tol=st.sampled_from([0.0, 1e-4, 1e-3, 0.01, 0.05]),
            # small ones, and ones that "auto" evaluates afresh
            interval=st.one_of(st.integers(1, 12), st.sampled_from([FRESH_FROM_INTERVAL, 300])),
            metric=st.sampled_from(METRICS),
            rule=st.sampled_from(RULES),
        ),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from(["bc", "syn"]),
    st.sampled_from(EVALUATIONS),
    st.booleans(),
)
def test_sweep_equals_separate_early_stopped_fits(configs, which, evaluation, shrinking):
    """For every evaluation mode: a fresh check depends on the alphas alone, an incremental
    one on the same path, so mixing them in one sweep changes no configuration's outcome.
    With shrinking too (on "syn" it sets points aside for most of the run): the alphas move
    alike, and a check of the description length rebuilds the gradient it reads."""
    split = SPLIT if which == "bc" else SPLIT_SYN
    X_tr, y_tr, X_val, y_val, X_te, y_te = split
    sweep = sweep_early_stopping(
        X_tr, y_tr, X_val, y_val, configs, X_test=X_te, y_test=y_te, evaluation=evaluation,
        shrinking=shrinking, **SVM,
    )  # fmt: skip
    assert list(sweep.table.index) == list(range(len(configs)))
    for cfg, row in zip(configs, sweep.table.itertuples(), strict=True):
        res, track = _fit(cfg, split, np.float32, evaluation, shrinking)
        assert row.stopped_early == res.stopped_early
        assert row.stop_iter == res.n_iter
        assert sweep.stop_kernel_rows[row.Index] == res.kernel_rows
        if res.stopped_early:
            assert row.val_accuracy == track.val_accuracy[0]
            assert row.test_accuracy == track.test_accuracy[0]
            assert row.best_iter == track.best_iter[0]
            assert row.best_val_accuracy == track.best_val_accuracy[0]
            assert row.best_test_accuracy == track.best_test_accuracy[0]
        else:
            assert row.val_accuracy == sweep.reference["val_accuracy"]
            assert row.stop_iter == sweep.reference["n_iter"]


@pytest.mark.parametrize("shrinking", [False, True])
@pytest.mark.parametrize("cache_size_mb", [200.0, 0.05])
def test_kernel_rows_at_each_stop_equal_a_separate_fits_count(cache_size_mb, shrinking):
    """The kernel cost a sweep records at a stop is the separate early-stopped fit's, also
    when a small cache evicts rows (0.05 MB holds about a third of them here), and a plain
    fit with every row resident computes each row it touches once. With shrinking and rows
    evicted, a fit that stopped early also computes the rows of the free vectors that its
    last gradient rebuild reads: those are the only rows it adds."""
    X_tr, y_tr, X_val, y_val, X_te, y_te = SPLIT
    configs = [EarlyStopping(p, tol, interval=r) for p, tol, r in [(1, 0.0, 1), (3, 0.0, 5),
               (5, 0.01, 2), (20, 0.0, 10), (10**9, 0.0, 1)]]  # fmt: skip
    kw = dict(SVM, cache_size_mb=cache_size_mb, shrinking=shrinking)
    sweep = sweep_early_stopping(X_tr, y_tr, X_val, y_val, configs, X_test=X_te, y_test=y_te, **kw)
    assert sweep.stopped_early[:-1].sum() >= 3 and not sweep.stopped_early[-1]
    for c, cfg in enumerate(configs):
        res, _ = run_smo(
            X_tr, y_tr, SolverParams(**kw), configs=EarlyStoppingSet.of([cfg]),
            X_val=X_val, y_val=y_val, X_test=X_te, y_test=y_te,
        )  # fmt: skip
        assert res.n_iter == sweep.stop_iter[c]
        rebuilt = res.kernel_rows - sweep.stop_kernel_rows[c]
        if shrinking and cache_size_mb < 1 and res.state.active_size < len(y_tr):
            assert 0 <= rebuilt <= np.count_nonzero((res.alpha > 0) & (res.alpha < SVM["C"]))
        else:
            assert rebuilt == 0
    assert sweep.stop_kernel_rows[-1] == sweep.reference["kernel_rows"]
    assert np.all(np.diff(sweep.stop_kernel_rows[np.argsort(sweep.stop_iter)]) >= 0)
    plain = solve_smo(X_tr, y_tr, **kw)
    if cache_size_mb == 200.0:  # resident: one computation per distinct row of a working pair
        assert plain.kernel_rows == sweep.reference["kernel_rows"] <= len(y_tr)
    else:  # evictions: rows computed again
        assert sweep.reference["kernel_rows"] > len(y_tr)


@pytest.mark.parametrize("shrinking", [False, True])
def test_sweep_accuracies_equal_fresh_predictions_of_the_stopped_models(shrinking):
    """float64 kernel storage: the tracked accuracies are those of the returned models
    (with shrinking on "syn", where points are set aside at most stops)."""
    X_tr, y_tr, X_val, y_val, X_te, y_te = SPLIT_SYN if shrinking else SPLIT
    svm = dict(SVM, kernel_dtype=np.float64, shrinking=shrinking)
    configs = [
        EarlyStopping(p, t, r, m)
        for p, t, r, m in [
            (2, 0.0, 1, "accuracy"),
            (5, 1e-3, 4, "hinge"),
            (0, 0.0, 7, "accuracy"),
            (10**6, 0.0, 1, "hinge"),
        ]
    ]
    sweep = sweep_early_stopping(X_tr, y_tr, X_val, y_val, configs, X_test=X_te, y_test=y_te, **svm)
    for cfg, row in zip(configs, sweep.table.itertuples(), strict=True):
        for restore in (False, True):
            es = EarlyStopping(
                cfg.patience, cfg.tol, cfg.interval, cfg.metric, restore_best=restore
            )
            res = solve_smo(
                X_tr,
                y_tr,
                early_stopping=es,
                X_val=X_val,
                y_val=y_val,
                **svm,
            )
            f_val = decision_values(X_tr, y_tr, res, X_val, "rbf", SVM["gamma"])
            f_te = decision_values(X_tr, y_tr, res, X_te, "rbf", SVM["gamma"])
            val, test = (
                (row.best_val_accuracy, row.best_test_accuracy)
                if restore
                else (row.val_accuracy, row.test_accuracy)
            )
            assert _accuracy(f_val, y_val) == val
            assert _accuracy(f_te, y_te) == test
    assert not sweep.table.stopped_early.iloc[-1]
    plain = solve_smo(X_tr, y_tr, **svm)
    assert sweep.reference["n_iter"] == plain.n_iter
    f_plain = decision_values(X_tr, y_tr, plain, X_val, "rbf", SVM["gamma"])
    assert sweep.reference["val_accuracy"] == _accuracy(f_plain, y_val)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("interval", [1, 5])
def test_patience_never_exhausted_equals_no_early_stopping(metric, interval):
    X_tr, y_tr, X_val, y_val, *_ = SPLIT
    plain = solve_smo(X_tr, y_tr, **SVM)
    es = EarlyStopping(10**9, 0.0, interval, metric, restore_best=True)
    res = solve_smo(X_tr, y_tr, early_stopping=es, X_val=X_val, y_val=y_val, **SVM)
    assert not res.stopped_early
    assert res.n_iter == plain.n_iter
    np.testing.assert_array_equal(res.alpha, plain.alpha)
    assert res.rho == plain.rho


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize(("patience", "interval"), [(2**63 - 1, 1), (2**62, 4), (3, 2**61)])
def test_huge_patience_and_interval_never_stop_and_never_overflow(patience, interval, rule):
    """A deadline beyond any iteration saturates instead of wrapping around."""
    X_tr, y_tr, X_val, y_val, *_ = SPLIT
    plain = solve_smo(X_tr, y_tr, **SVM)
    es = EarlyStopping(patience, 0.0, interval, rule=rule)
    res = solve_smo(X_tr, y_tr, early_stopping=es, X_val=X_val, y_val=y_val, **SVM)
    assert not res.stopped_early
    assert res.n_iter == plain.n_iter


def test_a_configurations_decision_values_do_not_depend_on_its_companions():
    """Bit for bit: the tracked sums of one configuration alone, and beside others whose
    checks fall on other iterations (and read the test points when it does not)."""
    X_tr, y_tr, X_val, y_val, X_te, y_te = SPLIT
    alone = EarlyStopping(10**9, 0.0, 7)
    companions = [EarlyStopping(3, 0.0, 1), EarlyStopping(10**9, 0.0, 5, "hinge", rule="text")]
    sums = []
    for configs in ([alone], [alone, *companions]):
        _, track = run_smo(
            X_tr,
            y_tr,
            SolverParams(**SVM),
            configs=EarlyStoppingSet.of(configs),
            X_val=X_val,
            y_val=y_val,
            X_test=X_te,
            y_test=y_te,
            evaluation="incremental",
        )
        sums.append(track.eval_sums)
    np.testing.assert_array_equal(sums[0], sums[1])


@pytest.mark.parametrize("shrinking", [False, True])
@pytest.mark.parametrize(("dtype", "atol"), [(np.float32, 1e-5), (np.float64, 1e-11)])
def test_incremental_decision_values_equal_a_fresh_computation_at_the_stop(dtype, atol, shrinking):
    split = SPLIT_SYN if shrinking else SPLIT
    X_tr, y_tr, X_val, y_val, X_te, y_te = split
    res, track = _fit(EarlyStopping(15, 0.0, 3, "hinge"), split, dtype, shrinking=shrinking)
    assert res.stopped_early
    fresh = decision_values(X_tr, y_tr, res, np.vstack([X_val, X_te]), "rbf", SVM["gamma"])
    scale = np.abs(res.alpha).sum()
    np.testing.assert_allclose(track.eval_sums - res.rho, fresh, rtol=0, atol=atol * scale)


@pytest.mark.parametrize("evaluation", ["incremental", "fresh"])
def test_the_description_length_at_each_check_reads_the_whole_gradient_when_shrinking(evaluation):
    """With points set aside, a check of ``mdl_logistic`` rebuilds their gradient: its value
    is the description length of the model at that iteration, from ``Qa + p`` computed afresh
    (a stale gradient of the points set aside would move it by far more than rounding)."""
    X_tr, y_tr, *_ = SPLIT_SYN
    svm = dict(SVM, shrinking=True, kernel_dtype=np.float64)
    seen = []
    rule = EarlyStopping(10**9, 0.0, 50, "mdl_logistic")
    companion = EarlyStopping(10**9, 0.0, 50, "accuracy")  # fresh checks pause for it
    configs = [rule, companion] if evaluation == "fresh" else [rule]
    X_val, y_val = SPLIT_SYN[2], SPLIT_SYN[3]
    run_smo(X_tr, y_tr, SolverParams(**svm), configs=EarlyStoppingSet.of(configs), X_val=X_val,
            y_val=y_val, evaluation=evaluation, callback=lambda info: seen.append(info))  # fmt: skip
    assert len(seen) > 10
    Q = (y_tr[:, None] * y_tr[None, :]) * kernel_matrix(X_tr, X_tr, "rbf", SVM["gamma"])
    shrunk = 0
    for info in seen[::3]:
        cut, _ = run_smo(X_tr, y_tr, SolverParams(max_iter=info.n_iter, **svm))
        shrunk += cut.state.active_size < len(y_tr)
        G = Q @ cut.alpha - 1.0
        dl = description_length(y_tr, G, -np.ones(len(y_tr)), cut.alpha, cut.rho)
        assert info.dl_per_point == pytest.approx(dl, rel=1e-9)
    assert shrunk >= 3


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
@pytest.mark.parametrize("restore", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_final_predictions_equal_a_blas_prediction(kernel, restore, dtype):
    """The reference predictions are the signs of fresh float64 decision values."""
    X_tr, y_tr, X_val, y_val, X_te, y_te = SPLIT
    X_tr = X_tr * (X_tr > 0.5)  # zeros, so the sparse path skips features
    res, track = run_smo(
        X_tr,
        y_tr,
        SolverParams(kernel=kernel, C=SVM["C"], gamma=SVM["gamma"], kernel_dtype=dtype),
        configs=EarlyStoppingSet.of([EarlyStopping(5, 0.0, 2, restore_best=restore)]),
        X_val=X_val,
        y_val=y_val,
        X_test=X_te,
        y_test=y_te,
        final_predictions_at_eval=True,
    )
    fresh = decision_values(X_tr, y_tr, res, np.vstack([X_val, X_te]), kernel, SVM["gamma"])
    assert np.abs(fresh).min() > 1e-9  # no sign is left to rounding
    np.testing.assert_array_equal(track.final_predictions, np.where(fresh > 0, 1.0, -1.0))


@pytest.mark.parametrize(
    ("kernel", "gamma", "C"),
    [
        ("rbf", 2.0**-7, 2.0**14),
        ("rbf", 2.0**-5, 2.0**14),
        ("linear", 1.0, 2.0**8),
        ("linear", 1.0, 2.0**10),
    ],
)
def test_predictions_from_stored_rows_equal_fresh_ones_near_the_boundary(kernel, gamma, C):
    """Signs summed from float32 rows are kept only where provably those of fresh values.

    Large C gives large coefficients, so float32 rounding moves the summed decision
    values by more than some points' distance to the boundary: those points must
    be recomputed afresh, and the result must equal an all-fresh computation.
    """
    X, y = DATASETS["synthetic"]
    X_tr, y_tr, X_ev = X[:180], y[:180], X[180:]
    res = solve_smo(X_tr, y_tr, kernel=kernel, C=C, gamma=gamma, tol=1e-3)
    sv = np.flatnonzero(res.alpha > 0)
    rows = build_kernel_rows(
        X_tr, [X_ev], SolverParams(kernel=kernel, gamma=gamma, cache_size_mb=64.0)
    )
    for i in sv:  # each support vector's row, as the solver leaves them in the store
        get_row(rows, i, rows.XT.shape[1])
    args = (rows, sv, res.alpha[sv] * y_tr[sv], 180, res.rho)
    stored, n_fresh = final_predictions(*args, True)
    fresh, n_all = final_predictions(*args, False)
    np.testing.assert_array_equal(stored, fresh)
    assert n_all == X_ev.shape[0]
    assert 0 < n_fresh < n_all  # some points near the boundary, and only those, recomputed


def test_restore_best_returns_the_best_checked_iterate():
    X_tr, y_tr, X_val, y_val, *_ = SPLIT
    es = EarlyStopping(8, 0.0, 2, "accuracy", restore_best=True)
    # float32 storage: its rows do not depend on which columns a row carries (float64
    # storage keeps BLAS products, whose last bits can change with the matrix shape)
    res, track = _fit(es, dtype=np.float32)
    assert res.stopped_early
    best = solve_smo(X_tr, y_tr, max_iter=int(track.best_iter[0]), **SVM)
    np.testing.assert_array_equal(res.alpha, best.alpha)
    assert res.rho == pytest.approx(best.rho, abs=1e-12)
    assert res.n_iter == track.stop_iter[0] > track.best_iter[0]


def test_equal_configurations_share_one_set_and_their_fits_stay_independent():
    """A fit of a shared set (and its cached tracker layout) equals one of a set built anew."""
    first = EarlyStopping(3, 0.0, 2, restore_best=True)
    second = EarlyStopping(3, 0.0, 2, restore_best=True)
    assert EarlyStoppingSet.of([first]) is EarlyStoppingSet.of([second])
    assert EarlyStoppingSet.of(
        [EarlyStopping(4, 0.0, 2, restore_best=True)]
    ) is not EarlyStoppingSet.of([first])
    table = pd.DataFrame(
        {"patience": [3], "es_tol": [0.0], "interval": [2], "restore_best": [True]}
    )
    X_tr, y_tr, X_val, y_val, X_te, y_te = SPLIT
    alone, alone_track = run_smo(
        X_tr,
        y_tr,
        SolverParams(kernel_dtype=np.float64, **SVM),
        configs=EarlyStoppingSet.of(table),  # a table's set is built anew every time
        X_val=X_val,
        y_val=y_val,
        X_test=X_te,
        y_test=y_te,
    )
    assert alone.stopped_early
    for cfg in (first, second, first):  # a run that wrote its state must not leak into the next
        res, track = _fit(cfg)
        np.testing.assert_array_equal(res.alpha, alone.alpha)
        assert (res.n_iter, res.rho) == (alone.n_iter, alone.rho)
        for name in ("stop_iter", "best_iter", "val_accuracy", "best_test_accuracy"):
            np.testing.assert_array_equal(getattr(track, name), getattr(alone_track, name))


def test_configs_as_dataframe_with_default_columns():
    X_tr, y_tr, X_val, y_val, *_ = SPLIT
    df = pd.DataFrame({"patience": [1, 3], "es_tol": [0.0, 0.01]})
    from_df = sweep_early_stopping(X_tr, y_tr, X_val, y_val, df, **SVM)
    from_objs = sweep_early_stopping(
        X_tr, y_tr, X_val, y_val, [EarlyStopping(1, 0.0), EarlyStopping(3, 0.01)], **SVM
    )
    pd.testing.assert_frame_equal(from_df.table, from_objs.table)
    assert from_df.table["test_accuracy"].isna().all()
    validated = EarlyStoppingSet.of(df)  # once per search, then reused
    assert EarlyStoppingSet.of(validated) is validated
    from_set = sweep_early_stopping(X_tr, y_tr, X_val, y_val, validated, **SVM)
    pd.testing.assert_frame_equal(from_set.table, from_objs.table)
    np.testing.assert_array_equal(from_set.stop_iter, from_objs.table["stop_iter"])
    with pytest.raises(ValueError, match="metric must be one of"):
        EarlyStoppingSet([1], [0.0], [1], [len(METRICS)])
    with pytest.raises(ValueError, match="interval .* must hold positive"):
        EarlyStoppingSet([1, 2], [0.0, 0.1], [1, 0], [0, 1])
    with pytest.raises(ValueError, match="one length"):
        EarlyStoppingSet([1, 2], [0.0], [1, 1], [0, 1])
    with pytest.raises(ValueError, match="es_tol"):
        sweep_early_stopping(X_tr, y_tr, X_val, y_val, pd.DataFrame({"patience": [1]}), **SVM)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"patience": -1, "tol": 0.0}, "patience"),
        ({"patience": 1.5, "tol": 0.0}, "patience"),
        ({"patience": 1, "tol": -0.1}, "tol"),
        ({"patience": 1, "tol": 0.0, "interval": 0}, "interval"),
        ({"patience": 1, "tol": 0.0, "metric": "f1"}, "metric"),
    ],
)
def test_early_stopping_rejects_bad_values(kwargs, message):
    with pytest.raises(ValueError, match=message):
        EarlyStopping(**kwargs)


def test_early_stopping_needs_validation_data():
    X_tr, y_tr, *_ = SPLIT
    with pytest.raises(ValueError, match="X_val"):
        solve_smo(X_tr, y_tr, early_stopping=EarlyStopping(1, 0.0), **SVM)


def test_table_with_interval_and_metric_gives_the_objects_sweep():
    """The column-wise table path reads interval and metric like EarlyStopping does."""
    X_tr, y_tr, X_val, y_val, X_te, y_te = SPLIT_SYN
    df = pd.DataFrame(
        {
            "patience": [0, 4, 2],
            "es_tol": [0.0, 0.02, 0.001],
            "interval": [1, 2, 3],
            "metric": ["accuracy", "hinge", "hinge"],
        }
    )
    objs = [EarlyStopping(int(p), t, int(r), m) for p, t, r, m in df.itertuples(index=False)]
    kw = dict(X_test=X_te, y_test=y_te, **SVM)
    from_df = sweep_early_stopping(X_tr, y_tr, X_val, y_val, df, **kw)
    from_objs = sweep_early_stopping(X_tr, y_tr, X_val, y_val, objs, **kw)
    pd.testing.assert_frame_equal(from_df.table, from_objs.table)


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        ("patience", -1, "patience"),
        ("patience", np.nan, "patience"),
        ("es_tol", -0.5, "es_tol"),
        ("es_tol", np.inf, "es_tol"),
        ("interval", 0, "interval"),
        ("metric", "f1", "metric"),
    ],
)
def test_table_rejects_bad_values(column, value, message):
    X_tr, y_tr, X_val, y_val, *_ = SPLIT
    df = pd.DataFrame({"patience": [1, 2], "es_tol": [0.0, 0.1], "interval": [1, 1]})
    df["metric"] = "accuracy"
    df[column] = df[column].astype(object)
    df.loc[1, column] = value
    with pytest.raises(ValueError, match=message):
        sweep_early_stopping(X_tr, y_tr, X_val, y_val, df, **SVM)


@pytest.mark.parametrize("shrinking", [False, True])
def test_restore_best_keeps_the_best_iterate_of_every_configuration(shrinking):
    """Each configuration's best iterate equals a fresh fit truncated at its best iteration."""
    X_tr, y_tr, X_val, y_val, *_ = SPLIT_SYN if shrinking else SPLIT
    svm = dict(SVM, shrinking=shrinking)
    configs = [
        EarlyStopping(p, 0.0, r, metric, restore_best=keep)
        for p, r, metric, keep in [
            (8, 2, "accuracy", True),
            (3, 1, "hinge", True),
            (5, 3, "accuracy", False),
            (20, 1, "accuracy", True),
        ]
    ]
    result = sweep_early_stopping(X_tr, y_tr, X_val, y_val, configs, **svm)
    kept = [k for k, c in enumerate(configs) if c.restore_best]
    assert result.best_alpha.shape == (len(kept), X_tr.shape[0])
    assert len(set(result.best_iter[kept].tolist())) > 1  # distinct best iterates
    for row, k in enumerate(kept):
        truncated = solve_smo(X_tr, y_tr, max_iter=int(result.best_iter[k]), **svm)
        np.testing.assert_array_equal(result.best_alpha[row], truncated.alpha)


@pytest.mark.parametrize("shrinking", [False, True])
@pytest.mark.parametrize("metric", ["accuracy", "hinge"])
def test_fresh_checks_read_the_decision_values_of_the_model_at_that_iteration(metric, shrinking):
    """evaluation='fresh' (the thesis's cost model): each check's accuracy is that of
    the model cut there, from decision values computed from scratch, to the bit."""
    X_tr, y_tr, X_val, y_val, *_ = SPLIT_SYN if shrinking else SPLIT
    svm = dict(SVM, shrinking=shrinking)
    seen = []
    run_smo(
        X_tr,
        y_tr,
        SolverParams(**svm),
        configs=EarlyStoppingSet.of([EarlyStopping(10**9, 0.0, 90 if shrinking else 9, metric)]),
        X_val=X_val,
        y_val=y_val,
        evaluation="fresh",
        callback=lambda info: seen.append(info) or len(seen) == 12,
    )
    for info in seen:
        cut = solve_smo(X_tr, y_tr, max_iter=info.n_iter, **svm)
        f = decision_values(X_tr, y_tr, cut, X_val, "rbf", SVM["gamma"])
        assert info.val_accuracy == _accuracy(f, y_val)
        if metric == "hinge":
            assert info.val_hinge == pytest.approx(np.mean(np.maximum(1 - y_val * f, 0)), 1e-12)


def _fresh_values(support_sets, m, n_slots):
    """Kernel values fresh checks compute: ``m`` per support vector not yet kept, kept while
    ``n_slots`` last, in check order then index order (an independent count)."""
    kept, values = set(), 0
    for sv in support_sets:
        for k in sv:
            if k not in kept:
                values += m
                if len(kept) < n_slots:
                    kept.add(k)
    return values


@pytest.mark.parametrize(
    ("evaluation", "eval_slots"),
    [("incremental", 0), ("fresh", 0), ("fresh", 3), ("fresh", None)],
    ids=["incremental", "fresh-uncached", "fresh-3-kept", "fresh-all-kept"],
)
def test_kernel_evaluations_count_row_columns_and_fresh_checks(evaluation, eval_slots):
    """The kernel values a run reports, counted independently: a plain fit's rows span the n
    training columns; incremental tracking adds the m evaluation columns to every row; a fresh
    check computes m values per support vector of the model cut at that check, except those
    it kept from an earlier check (as many as the budget the rows leave holds)."""
    X_tr, y_tr, X_val, y_val, X_te, y_te = SPLIT
    n, m = len(y_tr), len(y_val) + len(y_te)
    svm = dict(SVM, kernel_dtype=np.float32)
    if eval_slots is not None:  # resident float32 rows, and room for eval_slots float64 columns
        width = n + m if evaluation == "incremental" else n  # fresh checks: rows without them
        svm["cache_size_mb"] = (4 * n * width + 8 * m * eval_slots + 4) / 2**20
    plain, _ = run_smo(X_tr, y_tr, SolverParams(**svm))
    assert plain.kernel_evaluations == plain.kernel_rows * n
    checks = []
    res, _ = run_smo(
        X_tr, y_tr, SolverParams(**svm),
        configs=EarlyStoppingSet.of([EarlyStopping(10**9, 0.0, 7)]),
        X_val=X_val, y_val=y_val, X_test=X_te, y_test=y_te, evaluation=evaluation,
        callback=lambda info: checks.append(info.n_iter),
    )  # fmt: skip
    assert res.n_iter == plain.n_iter and res.kernel_rows == plain.kernel_rows
    assert checks == list(range(1, plain.n_iter + 1, 7))
    if evaluation == "incremental":
        assert res.kernel_evaluations == res.kernel_rows * (n + m)
    else:
        support = [np.flatnonzero(solve_smo(X_tr, y_tr, max_iter=t, **SVM).alpha) for t in checks]
        n_slots = n if eval_slots is None else eval_slots
        fresh = _fresh_values(support, m, n_slots)
        assert res.kernel_evaluations == plain.kernel_evaluations + fresh
        if eval_slots is None:  # each support vector's values computed once
            assert fresh == m * len(set(np.concatenate(support).tolist()))


def test_an_unknown_evaluation_is_refused():
    X_tr, y_tr, X_val, y_val, *_ = SPLIT
    with pytest.raises(ValueError, match="evaluation must be one of"):
        solve_smo(
            X_tr,
            y_tr,
            early_stopping=EarlyStopping(1, 0.0),
            X_val=X_val,
            y_val=y_val,
            evaluation="lazy",
            **SVM,
        )
