"""The per-check hook, the wall-clock budget and Optuna pruning inside the solver."""

from __future__ import annotations

import numpy as np
import optuna
import pytest
from conftest import DATASETS
from sklearn.datasets import make_classification

from esmo import SMOClassifier
from esmo.solver.smo import FIRST_SEGMENT
from esmo.tuning.pruning import pruning_callback

X, Y = DATASETS["breast_cancer"]
X_TR, Y_TR, X_VAL, Y_VAL = X[:400], Y[:400], X[400:], Y[400:]
NEVER = 10**9  # a patience no run reaches: only the hook can stop the fit


def _es(**params) -> SMOClassifier:
    options = {"C": 50.0, "gamma": 2.0, **params}
    return SMOClassifier(early_stopping=True, n_iter_no_change=NEVER, **options)


def test_a_hook_that_never_stops_sees_every_check_and_changes_nothing():
    seen = []
    hooked = _es(validation_interval=7).fit(
        X_TR, Y_TR, X_val=X_VAL, y_val=Y_VAL, callback=lambda info: seen.append(info)
    )
    plain = SMOClassifier(C=50.0, gamma=2.0).fit(X_TR, Y_TR)
    assert hooked.n_iter_ == plain.n_iter_ and not hooked.stopped_by_callback_
    np.testing.assert_array_equal(hooked.dual_coef_, plain.dual_coef_)
    # the published rule's schedule: after iterations 1, r + 1, 2r + 1, ...
    assert [info.n_iter for info in seen] == list(range(1, plain.n_iter_ + 1, 7))
    # the solver had not converged at any check before its last iteration: its KKT gap was
    # at least tol; after that last one (a check here, as (n_iter - 1) % 7 == 0) it had
    assert plain.n_iter_ % 7 == 1 and seen[-1].gap < 1e-3
    assert all(info.gap >= 1e-3 for info in seen[:-1])


def test_pauses_leave_a_shrunk_run_on_its_path():
    """With shrinking (points set aside for most of this run), a pause at every check and
    the clock's segments change nothing: the state carries the active set across them."""
    X_syn, y_syn = DATASETS["synthetic"]
    kw = {"C": 100.0, "gamma": 1.0, "shrinking": True}
    plain = SMOClassifier(**kw).fit(X_syn, y_syn)
    seen = []
    hooked = _es(validation_interval=13, **kw).fit(
        X_syn, y_syn, X_val=X_syn[:40], y_val=y_syn[:40], callback=seen.append
    )
    timed = SMOClassifier(max_time=3600.0, **kw).fit(X_syn, y_syn)
    assert len(seen) > 100 and plain.n_iter_ > 3 * FIRST_SEGMENT
    for clf in (hooked, timed):
        assert clf.n_iter_ == plain.n_iter_
        np.testing.assert_array_equal(clf.dual_coef_, plain.dual_coef_)
        assert clf.intercept_[0] == plain.intercept_[0]


@pytest.mark.parametrize("check_number", [1, 5, 12])
def test_a_hook_stop_returns_the_model_at_that_iteration(check_number):
    """The objective it saw is the stopped model's accuracy, from fresh decision values."""
    seen = []

    def stop_at(info):
        seen.append(info)
        return len(seen) == check_number

    clf = _es(validation_interval=5).fit(X_TR, Y_TR, X_val=X_VAL, y_val=Y_VAL, callback=stop_at)
    at = 5 * (check_number - 1) + 1
    assert clf.stopped_by_callback_ and clf.n_iter_ == at
    cut = SMOClassifier(C=50.0, gamma=2.0, max_iter=at)
    with pytest.warns(Warning):
        cut.fit(X_TR, Y_TR)
    np.testing.assert_array_equal(clf.dual_coef_, cut.dual_coef_)
    assert seen[-1].val_accuracy == cut.score(X_VAL, Y_VAL)


def test_max_time_ends_a_fit_at_a_state_the_iteration_limit_reproduces():
    # noisy labels and a large C: tens of thousands of iterations, past the first segment
    X_big, y_big = make_classification(n_samples=1500, flip_y=0.3, random_state=0)
    timed = SMOClassifier(C=1000.0, gamma=0.02, tol=1e-6, max_time=1e-9).fit(X_big, y_big)
    full = SMOClassifier(C=1000.0, gamma=0.02, tol=1e-6).fit(X_big, y_big)
    assert full.n_iter_ > 4 * FIRST_SEGMENT
    assert timed.max_time_reached_ and 0 < timed.n_iter_ < full.n_iter_
    cut = SMOClassifier(C=1000.0, gamma=0.02, tol=1e-6, max_iter=timed.n_iter_)
    with pytest.warns(Warning):
        cut.fit(X_big, y_big)
    np.testing.assert_array_equal(timed.dual_coef_, cut.dual_coef_)
    ample = SMOClassifier(C=1000.0, gamma=0.02, tol=1e-6, max_time=3600.0).fit(X_big, y_big)
    assert not ample.max_time_reached_ and ample.n_iter_ == full.n_iter_
    np.testing.assert_array_equal(ample.dual_coef_, full.dual_coef_)


def test_optuna_prunes_inside_the_fit():
    """A trial whose checks fall below the study's median is stopped inside SMO."""
    study = optuna.create_study(
        direction="maximize",
        sampler=optuna.samplers.TPESampler(seed=0),
        pruner=optuna.pruners.MedianPruner(n_startup_trials=3, n_warmup_steps=0),
    )
    optuna.logging.set_verbosity(optuna.logging.WARNING)

    def objective(trial):
        clf = _es(validation_interval=20, C=trial.suggest_float("C", 1e-2, 1e3, log=True))
        clf.fit(X_TR, Y_TR, X_val=X_VAL, y_val=Y_VAL, callback=pruning_callback(trial))
        if clf.stopped_by_callback_:
            raise optuna.TrialPruned()
        return clf.score(X_VAL, Y_VAL)

    study.optimize(objective, n_trials=15)
    pruned = [t for t in study.trials if t.state == optuna.trial.TrialState.PRUNED]
    assert pruned, "the median pruner pruned no trial"
    for t in pruned:  # pruned at a check, with the values reported up to it
        last_step = max(t.intermediate_values)
        assert last_step % 20 == 1


def test_bad_hooks_are_refused():
    with pytest.raises(ValueError, match="set early_stopping=True"):
        SMOClassifier().fit(X_TR, Y_TR, callback=lambda info: False)
    with pytest.raises(TypeError, match="callback must be callable"):
        _es().fit(X_TR, Y_TR, X_val=X_VAL, y_val=Y_VAL, callback=3)
    with pytest.raises(TypeError, match="trial needs a report"):
        pruning_callback(object())
    with pytest.raises(ValueError, match="max_time is only supported by solver='fan'"):
        SMOClassifier(solver="keerthi", max_time=1.0).fit(X_TR, Y_TR)
