"""Early stopping on the logistic description length (MDL paper, its note's section 7).

Oracles: the description length recomputed from fresh float64 decision values
of the model cut at each check, and the state machine replayed in Python.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DATASETS
from scipy.special import logsumexp
from stopping_rules import replay_stop

from esmo import EarlyStopping, SMOClassifier, sweep_early_stopping
from esmo.early_stopping import RULES
from esmo.solver.kernels import kernel_matrix
from esmo.solver.params import SolverParams
from esmo.solver.smo import run_smo

X, Y = DATASETS["breast_cancer"]
# SMOClassifier's internal signs (+1 for classes_[0] = -1) and its order (that class
# first): the oracle runs the solver on the very problem the estimator solves
_BY_CLASS = np.argsort(Y, kind="stable")
X, Y = X[_BY_CLASS], Y[_BY_CLASS]
Y_INTERNAL = -Y
SVM = {"kernel": "rbf", "C": 30.0, "gamma": 1.0}
R = 4


def _dl_per_point(n_iter: int) -> float:
    """DL_h / n of the model after ``n_iter`` iterations, from fresh decision values."""
    cut, _ = run_smo(X, Y_INTERNAL, SolverParams(max_iter=n_iter, **SVM))
    sv = cut.alpha > 0
    f = kernel_matrix(X, X[sv], "rbf", SVM["gamma"]) @ (cut.alpha[sv] * Y_INTERNAL[sv]) - cut.rho
    n = len(Y)
    nats = sum(logsumexp([0.0, -m]) for m in Y_INTERNAL * f)
    return (0.5 * sv.sum() * np.log2(n) + nats / np.log(2.0)) / n


def test_the_description_length_at_each_check_equals_a_fresh_computation():
    seen = []
    clf = SMOClassifier(
        **SVM,
        early_stopping=True,
        es_metric="mdl_logistic",
        n_iter_no_change=10**9,
        validation_interval=R * 10,
    )
    clf.fit(X, Y, callback=lambda info: seen.append(info) or len(seen) == 6)
    assert np.isnan(seen[0].val_accuracy)  # no validation data was used
    for info in seen:  # the gradient holds float32 kernel values, the fresh values float64
        assert info.dl_per_point == pytest.approx(_dl_per_point(info.n_iter), rel=1e-6)


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize(("patience", "es_tol"), [(0, 0.0), (2, 0.0), (3, 0.002), (1, 0.02)])
def test_the_stop_is_where_the_replayed_state_machine_stops(patience, es_tol, rule):
    """DL_best starts at +inf; an improvement is DL_best - DL > es_tol (bits per point)."""
    plain = SMOClassifier(**SVM).fit(X, Y)
    stop = replay_stop(
        _dl_per_point,
        patience=patience,
        tol=es_tol,
        interval=R,
        higher=False,
        rule=rule,
        last=plain.n_iter_,
    )
    expected = plain.n_iter_ if stop is None else stop
    es = EarlyStopping(patience, es_tol, R, "mdl_logistic", rule=rule)
    clf = SMOClassifier(
        **SVM,
        early_stopping=True,
        es_metric="mdl_logistic",
        n_iter_no_change=patience,
        es_tol=es_tol,
        validation_interval=R,
        es_rule=rule,
    ).fit(X, Y)
    assert clf.n_iter_ == expected
    assert clf.stopped_early_ == (expected < plain.n_iter_)
    sweep = sweep_early_stopping(X, Y_INTERNAL, None, None, [es], **SVM)
    assert sweep.stop_iter[0] == expected and np.isnan(sweep.val_accuracy[0])


def test_a_validation_free_metric_uses_all_the_training_data():
    """No split is made: the fit sees every point, and X_val given anyway is refused as unused."""
    clf = SMOClassifier(**SVM, early_stopping=True, es_metric="mdl_logistic", n_iter_no_change=5)
    clf.fit(X, Y)
    assert clf.support_.max() >= int(0.8 * len(Y))  # points past an 80 % split are there
    with pytest.warns(UserWarning, match="ignored: no validation objective"):
        clf.fit(X, Y, X_val=X[:10], y_val=Y[:10])


def test_the_stopping_comparison_rows_are_separate_fits_and_fresh_accuracies():
    """Item 3(c)'s table: each MDL row is the fit that rule stops on train+validation,
    scored on the test part from fresh decision values; the reference rows are plain fits."""
    import pandas as pd

    from esmo.papers.mdl.stopping import stopping_outcomes, stopping_summary
    from esmo.solver.smo import decision_values, solve_smo

    Xs, Ys = DATASETS["synthetic"]
    parts = Xs[:150], Ys[:150], Xs[150:220], Ys[150:220], Xs[220:], Ys[220:]
    configs = pd.DataFrame({"config_id": [3, 8], "C": [5.0, 40.0], "gamma": [0.5, 2.0],
                            "tol": [1e-3, 1e-3]})  # fmt: skip
    rules = [EarlyStopping(p, t, r, "mdl_logistic") for p, t, r in [(1, 0.0, 1), (5, 1e-3, 4)]]
    accuracy_rule = EarlyStopping(3, 0.0, 2)
    table = stopping_outcomes(*parts, configs, accuracy_rule, rules)
    X_tr, y_tr, X_val, y_val, X_te, y_te = parts
    X_tv, y_tv = np.vstack([X_tr, X_val]), np.concatenate([y_tr, y_val])
    for c in configs.itertuples():
        kw = dict(kernel="rbf", C=c.C, gamma=c.gamma, tol=c.tol)
        for method, X, y, rule in [("converged", X_tr, y_tr, None),
                                   ("accuracy_es", X_tr, y_tr, accuracy_rule),
                                   ("converged_trval", X_tv, y_tv, None),
                                   *[("mdl_es", X_tv, y_tv, r) for r in rules]]:  # fmt: skip
            fit = solve_smo(X, y, early_stopping=rule, X_val=X_val, y_val=y_val, **kw)
            f = decision_values(X, y, fit, X_te, "rbf", c.gamma)
            match = table[(table.config_id == c.config_id) & (table.method == method)]
            if rule is not None and method == "mdl_es":
                match = match[(match.patience == rule.patience) & (match.interval == rule.interval)]
            assert match.n_iter.item() == fit.n_iter
            assert match.test_accuracy.item() == np.mean(np.where(f > 0, 1.0, -1.0) == y_te)
    table.insert(0, "fold", 0)
    table.insert(0, "dataset", "syn")
    summary = stopping_summary(table).set_index(["method", "patience"])
    assert summary.loc[("converged", np.nan), "iter_share"].item() == 1.0
    mdl = table[(table.method == "mdl_es") & (table.patience == 1)].n_iter.to_numpy()
    ref = table[table.method == "converged_trval"].n_iter.to_numpy()
    assert summary.loc[("mdl_es", 1), "iter_share"].item() == pytest.approx(np.mean(mdl / ref))
