"""Kernel Pegasos: hand-computed steps, a literal transcription of Algorithm 1, the exact sweep, the estimator."""

from __future__ import annotations

import numpy as np
import pytest

from esmo.early_stopping import EarlyStopping, EarlyStoppingSet
from esmo.estimators.pegasos_classifier import PegasosClassifier
from esmo.solver.pegasos import draw_indices, pegasos_decision, run_pegasos, sweep_pegasos
from esmo.solver.tracking import BEST_ITER, TEST_ACCURACY, VAL_ACCURACY


def algorithm_1(X, y, lam, gamma, indices):
    """The paper's Algorithm 1 word for word: the sum over all j, divided by lam (t-1)."""
    m = len(y)
    alpha = np.zeros(m)
    alpha[indices[0]] = 1
    for t in range(2, len(indices) + 1):
        i = indices[t - 1]
        total = sum(alpha[j] * y[j] * np.exp(-gamma * np.sum((X[j] - X[i]) ** 2)) for j in range(m))
        if y[i] / (lam * (t - 1)) * total < 1:
            alpha[i] += 1
    return alpha


def test_hand_computed_steps_linear_kernel():
    # x = (1,0), (0,1), (1,1); y = +1, -1, +1; lam = 1/2; i = 0, 1, 2, 0.
    # t=1: alpha = e_0, S = (1, 0, 1).  t=2: y_1 S_1 = 0 < lam*1: alpha_1 = 1, S = (1, -1, 0).
    # t=3: y_2 S_2 = 0 < lam*2: alpha_2 = 1, S = (2, 0, 2).  t=4: y_0 S_0 = 2 >= lam*3 = 1.5: no step.
    # f = S / (lam T) = (2, 0, 2) / 2.
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = np.array([1.0, -1.0, 1.0])
    result, _ = run_pegasos(
        X, y, lam=0.5, n_steps=4, kernel="linear", indices=np.array([0, 1, 2, 0])
    )
    np.testing.assert_array_equal(result.alpha, [1, 1, 1])
    assert result.n_violations == 3 and result.n_steps == 4
    f = pegasos_decision(X, y, result.alpha, 0.5, 4, X, 1.0, "linear")
    np.testing.assert_allclose(f, [1.0, 0.0, 1.0])


def test_rbf_run_equals_a_literal_transcription_of_algorithm_1():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)
    indices = draw_indices(40, 300, 7)
    result, _ = run_pegasos(X, y, lam=0.01, n_steps=300, gamma=0.5, random_state=7)
    np.testing.assert_array_equal(result.alpha, algorithm_1(X, y, 0.01, 0.5, indices))


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 4))
    y = np.where(X[:, 0] + X[:, 1] ** 2 - 1 + 0.4 * rng.normal(size=500) > 0, 1.0, -1.0)
    return X[:300], y[:300], X[300:400], y[300:400], X[400:], y[400:]


def test_sweep_equals_separate_early_stopped_runs(problem):
    X, y, Xv, yv, Xt, yt = problem
    configs = [
        EarlyStopping(p, tol, interval=r, metric=metric, restore_best=rb)
        for p, tol, r, metric, rb in [
            (0, 0.0, 50, "accuracy", False),
            (3, 0.0, 50, "accuracy", True),
            (2, 0.01, 100, "accuracy", False),
            (5, 0.0, 30, "hinge", True),
            (1, 0.02, 70, "hinge", False),
            (50, 0.0, 100, "accuracy", False),  # never stops within T
        ]
    ]
    kw = {"lam": 1e-3, "n_steps": 3000, "gamma": 0.3, "random_state": 11}
    sweep = sweep_pegasos(X, y, Xv, yv, configs, X_test=Xt, y_test=yt, **kw)
    assert sweep.stopped_early.sum() >= 4 and not sweep.stopped_early[-1]
    for c, cfg in enumerate(configs):
        one, tr = run_pegasos(
            X, y, configs=EarlyStoppingSet.of([cfg]), X_val=Xv, y_val=yv, X_test=Xt, y_test=yt, **kw
        )
        assert one.n_steps == sweep.stop_iter[c]
        assert one.stopped_early == sweep.stopped_early[c]
        assert one.n_violations == sweep.stop_kernel_rows[c]  # one kernel row per violation
        if one.stopped_early:
            assert tr.out_acc[0, VAL_ACCURACY] == sweep.val_accuracy[c]
            assert tr.out_acc[0, TEST_ACCURACY] == sweep.test_accuracy[c]
            assert tr.out_iter[0, BEST_ITER] == sweep.best_iter[c]
        # the stopped run's model is the full run's at that step (the path is unchanged)
        prefix, _ = run_pegasos(
            X,
            y,
            indices=draw_indices(300, 3000, 11)[: one.n_steps],
            **{k: v for k, v in kw.items() if k != "n_steps" and k != "random_state"},
            n_steps=one.n_steps,
        )
        np.testing.assert_array_equal(one.alpha, prefix.alpha)
        # its recorded accuracies are those of fresh predictions of that model
        if one.stopped_early:
            f = pegasos_decision(X, y, one.alpha, 1e-3, one.n_steps, Xt, 0.3, "rbf")
            assert np.mean(np.where(f >= 0, 1.0, -1.0) == yt) == sweep.test_accuracy[c]


def test_estimator_c_and_lam_agree_and_fit_an_easy_problem(problem):
    X, y, Xv, yv, Xt, yt = problem
    by_lam = PegasosClassifier(lam=1.0 / (10 * 300), gamma=0.3, n_steps=3000, random_state=0)
    by_c = PegasosClassifier(C=10, gamma=0.3, n_steps=3000, random_state=0)
    labels = np.where(y > 0, "b", "a")
    by_lam.fit(X, labels)
    by_c.fit(X, labels)
    np.testing.assert_array_equal(by_lam.alpha_, by_c.alpha_)
    assert by_c.score(Xt, np.where(yt > 0, "b", "a")) > 0.8
    # alpha counts the violations, each of which computed one row of the 300 points
    assert by_c.n_kernel_evaluations_ == by_c.alpha_.sum() * 300 > 0
    np.testing.assert_allclose(
        by_c.decision_function(Xt),
        pegasos_decision(X, y, by_c.alpha_, by_c.lam_, 3000, Xt, 0.3, "rbf"),
    )


def test_estimator_early_stopping_matches_the_sweep(problem):
    X, y, Xv, yv, Xt, yt = problem
    kw = {"lam": 1e-3, "n_steps": 3000, "gamma": 0.3, "random_state": 5}
    cfg = EarlyStopping(2, 0.0, interval=100)
    sweep = sweep_pegasos(X, y, Xv, yv, [cfg], X_test=Xt, y_test=yt, **kw)
    clf = PegasosClassifier(**kw, early_stopping=True, n_iter_no_change=2, validation_interval=100)
    clf.fit(X, y, X_val=Xv, y_val=yv)
    assert clf.n_steps_ == sweep.stop_iter[0] and clf.stopped_early_
    assert clf.score(Xt, yt) == sweep.test_accuracy[0]
    # the sweep's rows to the stop, each over the training and the validation points
    assert clf.n_kernel_evaluations_ == sweep.stop_kernel_rows[0] * (len(X) + len(Xv))


@pytest.mark.parametrize(
    "params, message",
    [
        ({"lam": 0.0}, "'lam' parameter"),
        ({"lam": -1e-4}, "'lam' parameter"),
        ({"n_steps": 0}, "'n_steps' parameter"),
        ({"lam": 1e-3, "C": 1.0}, "Give lam or C, not both"),
    ],
)
def test_bad_parameters_are_named(params, message):
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    with pytest.raises(ValueError, match=message):
        PegasosClassifier(**params).fit(X, [0, 0, 1, 1])


def test_run_pegasos_rejects_bad_lam_and_steps():
    X, y = np.zeros((2, 1)), np.array([1.0, -1.0])
    with pytest.raises(ValueError, match="lam must be a positive"):
        run_pegasos(X, y, lam=0.0, n_steps=5)
    with pytest.raises(ValueError, match="n_steps \\(T\\) must be an integer >= 1"):
        run_pegasos(X, y, lam=1e-3, n_steps=0)


def test_pegasos_classifier_passes_scikit_learns_estimator_checks():
    from sklearn.utils.estimator_checks import check_estimator

    results = check_estimator(PegasosClassifier(n_steps=200, gamma="scale"), on_fail=None)
    failed = [
        (r["check_name"], str(r["exception"])[:200]) for r in results if r["status"] == "failed"
    ]
    assert not failed


def test_features_whose_linear_kernel_overflows_are_refused():
    """Hypothesis's find (the split fuzz oracle): |x| ~ 1.34e154 made <x, x> infinite and the
    decision values -inf, silently. Pegasos now runs the estimators' one kernel check, and
    refuses a model whose decision values can overflow (a tiny lam scales them up)."""
    fit = PegasosClassifier(kernel="linear", lam=1.0, n_steps=1, random_state=0).fit
    with pytest.raises(ValueError, match="linear kernel <x, x> overflows.*scale the features"):
        fit(np.array([[1.5e154], [0.0]]), [0, 1])
    tiny_lam = PegasosClassifier(kernel="linear", lam=1e-10, n_steps=1, random_state=0)
    with pytest.raises(ValueError, match="decision values can overflow.*or raise lam"):
        tiny_lam.fit(np.array([[1e154], [0.0]]), [0, 1])
