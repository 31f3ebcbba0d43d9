"""The gradient-tuning paper's smoothed validation error and F-measure as stopping objectives.

Oracle: the direct method's formulas (docs/gradient-protocol.md section 2) on fresh
float64 decision values of the model cut at each check, and the stopping rule
replayed on them.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DATASETS
from scipy.special import expit
from stopping_rules import replay_stop

from esmo import EarlyStopping, sweep_early_stopping
from esmo.early_stopping import EarlyStoppingSet
from esmo.solver.params import SolverParams
from esmo.solver.smo import decision_values, run_smo

X, Y = DATASETS["synthetic"]
X_TR, Y_TR, X_VAL, Y_VAL = X[:200], Y[:200], X[200:], Y[200:]
PARAMS = SolverParams(kernel="rbf", C=20.0, gamma=0.8, kernel_dtype=np.float64)
R = 3


def _smoothed(n_iter: int) -> tuple[float, float]:
    """(smoothed error, smoothed F) of the model after ``n_iter`` iterations, from scratch."""
    cut, _ = run_smo(X_TR, Y_TR, SolverParams(**{**PARAMS.__dict__, "max_iter": n_iter}))
    o = decision_values(X_TR, Y_TR, cut, X_VAL, "rbf", PARAMS.gamma)
    s = expit(10.0 / o.std() * Y_VAL * o)
    pos = Y_VAL > 0
    tp, fp = s[pos].sum(), (1.0 - s[~pos]).sum()
    return float(np.mean(1.0 - s)), float(2.0 * tp / (pos.sum() + tp + fp))


def test_the_objectives_at_each_check_equal_the_direct_methods_formulas():
    seen = []
    configs = EarlyStoppingSet.of(
        [EarlyStopping(10**9, 0.0, R, "smoothed_error"), EarlyStopping(10**9, 0.0, R, "f_measure")]
    )
    run_smo(
        X_TR,
        Y_TR,
        PARAMS,
        configs=configs,
        X_val=X_VAL,
        y_val=Y_VAL,
        callback=lambda info: seen.append(info) or len(seen) == 15,
    )
    assert len(seen) == 15
    for info in seen[1:]:  # the first check may have all outputs equal
        error, f = _smoothed(info.n_iter)
        assert info.val_smoothed_error == pytest.approx(error, rel=1e-9, abs=1e-12)
        assert info.val_f_measure == pytest.approx(f, rel=1e-9)


@pytest.mark.parametrize(
    ("metric", "patience", "es_tol"),
    [
        ("smoothed_error", 0, 0.0),  # never stops: the tracked run keeps the plain run's path
        ("smoothed_error", 1, 0.0),
        ("smoothed_error", 3, 1e-3),
        ("f_measure", 1, 0.0),
        ("f_measure", 2, 1e-3),
    ],
)
def test_the_stop_is_where_the_replayed_rule_stops(metric, patience, es_tol):
    """Error improves downwards, F upwards; the default (published) rule."""
    full, _ = run_smo(X_TR, Y_TR, PARAMS)
    upwards = metric == "f_measure"
    stop = replay_stop(
        lambda k: _smoothed(k)[1 if upwards else 0],
        patience=patience,
        tol=es_tol,
        interval=R,
        higher=upwards,
        rule="published",
        last=full.n_iter,
    )
    expected = full.n_iter if stop is None else stop
    es = EarlyStopping(patience, es_tol, R, metric)
    sweep = sweep_early_stopping(X_TR, Y_TR, X_VAL, Y_VAL, [es], **PARAMS.__dict__)
    assert sweep.stop_iter[0] == expected
    fit, _ = run_smo(
        X_TR, Y_TR, PARAMS, configs=EarlyStoppingSet.of([es]), X_val=X_VAL, y_val=Y_VAL
    )
    assert fit.n_iter == expected


def test_a_users_metric_drives_the_rule_exactly_in_sweeps_and_fits():
    """A plug-in objective (ROC AUC): the stop the replayed rule gives, in a sweep beside
    built-in configurations and in a separate fit alike."""
    from sklearn.metrics import roc_auc_score

    from esmo.early_stopping import Metric

    auc = Metric("auc", lambda f, y: roc_auc_score(y, f), higher_is_better=True)
    full, _ = run_smo(X_TR, Y_TR, PARAMS)

    def auc_at(k: int) -> float:
        cut, _ = run_smo(X_TR, Y_TR, SolverParams(**{**PARAMS.__dict__, "max_iter": k}))
        return roc_auc_score(Y_VAL, decision_values(X_TR, Y_TR, cut, X_VAL, "rbf", PARAMS.gamma))

    stop = replay_stop(
        auc_at, patience=2, tol=1e-3, interval=R, higher=True, rule="text", last=full.n_iter
    )
    expected = full.n_iter if stop is None else stop
    es = EarlyStopping(2, 1e-3, R, auc, rule="text")
    sweep = sweep_early_stopping(
        X_TR, Y_TR, X_VAL, Y_VAL, [EarlyStopping(5, 0.0, 1), es], **PARAMS.__dict__
    )
    fit, _ = run_smo(
        X_TR, Y_TR, PARAMS, configs=EarlyStoppingSet.of([es]), X_val=X_VAL, y_val=Y_VAL
    )
    assert sweep.stop_iter[1] == fit.n_iter == expected


def test_a_metric_that_is_not_one_is_refused():
    from esmo.early_stopping import Metric

    with pytest.raises(TypeError, match="function must be callable"):
        Metric("auc", 3, higher_is_better=True)
    with pytest.raises(ValueError, match="built-in metric's"):
        Metric("accuracy", lambda f, y: 0.0, higher_is_better=True)
    with pytest.raises(ValueError, match="or an esmo.early_stopping.Metric"):
        EarlyStopping(1, 0.0, 1, "auc")
