"""Kernel Pegasos in the thesis's random search: fold tables against separate fits, scores by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from esmo.early_stopping import EarlyStopping, EarlyStoppingSet
from esmo.papers.nsvm.e1_analysis import equal_budget, scores, search_outcomes, summary
from esmo.papers.nsvm.e1_runs import fold_table, pegasos_seed
from esmo.solver.pegasos import pegasos_decision, run_pegasos
from esmo.solver.smo import solve_smo


@pytest.fixture(scope="module")
def fold():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(260, 4))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=260) > 0, 1.0, -1.0)
    return X[:140], y[:140], X[140:200], y[140:200], X[200:], y[200:]


SVM = pd.DataFrame(
    {"config_id": [0, 1], "C": [2.0, 30.0], "gamma": [0.5, 0.2], "tol": [1e-3, 1e-2]}
)
ES = pd.DataFrame({"es_id": [0, 1, 2], "patience": [1, 3, 50], "es_tol": [0.0, 0.01, 0.0],
                   "interval": [5, 20, 100]})  # fmt: skip
KW = dict(epochs=3, seed=7, fold=2, rule="published")


def test_fold_rows_equal_separate_fits_and_count_their_kernel_evaluations(fold):
    X, y, Xv, yv, Xt, yt = fold
    m, n_val = len(y), len(yv)
    table = fold_table(fold, SVM, ES, **KW).set_index(["solver", "config_id", "es_id"])
    assert len(table) == 2 * 2 * 4
    for svm in SVM.itertuples():
        plain = solve_smo(X, y, kernel="rbf", C=svm.C, gamma=svm.gamma, tol=svm.tol)
        ref = table.loc[("smo", svm.config_id, -1)]
        assert ref.n_iter == plain.n_iter and ref.kernel_rows == plain.kernel_rows
        assert ref.kernel_evaluations == plain.kernel_rows * m
        kw = dict(lam=1 / (svm.C * m), n_steps=3 * m, gamma=svm.gamma,
                  random_state=pegasos_seed(7, 2, svm.config_id))  # fmt: skip
        full, _ = run_pegasos(X, y, **kw)
        ref = table.loc[("pegasos", svm.config_id, -1)]
        assert ref.n_iter == 3 * m and ref.kernel_evaluations == full.n_violations * m
        f = pegasos_decision(X, y, full.alpha, kw["lam"], 3 * m, Xt, svm.gamma, "rbf")
        assert ref.test_accuracy == np.mean(np.where(f >= 0, 1.0, -1.0) == yt)
        for es in ES.itertuples():
            config = EarlyStoppingSet.of([EarlyStopping(es.patience, es.es_tol, es.interval)])
            one, _ = run_pegasos(X, y, configs=config, X_val=Xv, y_val=yv, **kw)
            row = table.loc[("pegasos", svm.config_id, es.es_id)]
            assert row.n_iter == one.n_steps and row.stopped_early == one.stopped_early
            # the tracking run's rows carry the validation columns: they are a cost too
            assert row.kernel_evaluations == one.n_violations * (m + n_val)
            f = pegasos_decision(X, y, one.alpha, kw["lam"], one.n_steps, Xt, svm.gamma, "rbf")
            assert row.test_accuracy == np.mean(np.where(f >= 0, 1.0, -1.0) == yt)
    stopped = table[table["stopped_early"]]
    assert {"smo", "pegasos"} <= set(stopped.index.get_level_values("solver"))


def test_a_configurations_rows_do_not_depend_on_the_others(fold):
    both = fold_table(fold, SVM, ES, **KW)
    alone = fold_table(fold, SVM.iloc[[1]], ES, **KW)
    pd.testing.assert_frame_equal(both[both["config_id"] == 1].reset_index(drop=True), alone)


def test_bad_epochs_are_named(fold):
    with pytest.raises(ValueError, match="epochs must be positive"):
        fold_table(fold, SVM, ES, epochs=0, seed=0, fold=0, rule="published")


def _runs():
    """Two folds, two configurations; per fold SMO's reference picks config 1 (val 0.9)."""
    rows = []
    for f in (0, 1):
        for solver, es_id, cfg, val, test, cost in [
            ("smo", -1, 0, 0.8, 0.70, 100), ("smo", -1, 1, 0.9, 0.90, 300),
            ("smo", 0, 0, 0.8, 0.70, 50), ("smo", 0, 1, 0.85, 0.80, 100),
            ("pegasos", -1, 0, 0.7, 0.60, 400), ("pegasos", -1, 1, 0.9, 0.85, 400),
            ("pegasos", 0, 0, 0.9, 0.88, 20), ("pegasos", 0, 1, 0.6, 0.50, 30),
        ]:  # fmt: skip
            rows.append({"dataset": "d", "fold": f, "solver": solver, "config_id": cfg,
                         "es_id": es_id, "n_iter": 1, "kernel_evaluations": cost,
                         "val_accuracy": val, "test_accuracy": test})  # fmt: skip
    return pd.DataFrame(rows)


def test_scores_follow_the_thesis_formula_with_smo_without_early_stopping_as_reference():
    scored = scores(search_outcomes(_runs()), beta=0.9).set_index(["solver", "es_id"])
    cost_ref = 2 * (100 + 300)  # summed over configurations and folds
    expected = {  # (chosen test accuracy, cost) by hand
        ("smo", -1): (0.90, cost_ref),
        ("smo", 0): (0.80, 2 * 150),
        ("pegasos", -1): (0.85, 2 * 800),
        ("pegasos", 0): (0.88, 2 * 50),
    }
    for key, (acc, cost) in expected.items():
        row = scored.loc[key]
        assert row.test_accuracy_mean == pytest.approx(acc) and row.kernel_evaluations == cost
        assert row.score == pytest.approx(0.9 * acc + 0.1 * (1 - cost / cost_ref))
        assert row.score_ref == pytest.approx(0.9 * 0.90)
    assert scored.loc[("pegasos", 0), "win"] == 1.0 and scored.loc[("smo", 0), "win"] == 0.0
    searches = summary(scored.reset_index())
    table = searches.set_index("search")
    assert table.loc["pegasos RS+ES", "wins"] == 1 and table.loc["smo RS", "relative_cost"] == 1
    budgets = equal_budget(scored.reset_index(), searches).set_index(["budget", "solver"])
    # within SMO's RS+ES cost (300) Pegasos can afford only its early-stopped search
    assert budgets.loc[("smo RS+ES", "pegasos"), "es_id"] == 0
    assert budgets.loc[("smo RS+ES", "pegasos"), "test_accuracy_mean"] == pytest.approx(0.88)
    # within SMO's RS cost (800): SMO's best-validated search is its reference (0.9 > 0.85)
    assert budgets.loc[("smo RS", "smo"), "es_id"] == -1


def test_a_missing_reference_is_named():
    runs = _runs()
    with pytest.raises(ValueError, match="no SMO search without early stopping"):
        scores(search_outcomes(runs[~((runs["solver"] == "smo") & (runs["es_id"] == -1))]), 0.9)
