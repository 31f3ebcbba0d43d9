"""Beyond the gradient-tuning paper: inexact inner solves along a path, whole runs, and the thesis's score."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import StratifiedKFold

from esmo.early_stopping import EarlyStopping
from esmo.papers.gradient.inexact import (
    agreement_along_path,
    inner_solve_runs,
    path_points,
    scores_against_exact,
)
from esmo.papers.gradient.inexact_analysis import inexact_claims


def draw(n: int = 90, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(2 * n, 3))
    y = np.where(X[:, 0] + 0.4 * X[:, 1] + 0.25 * rng.normal(size=2 * n) > 0.7, 1.0, -1.0)
    folds = list(StratifiedKFold(3, shuffle=True, random_state=seed).split(X[:n], y[:n]))
    return X[:n], y[:n], X[n:], y[n:], folds


def test_path_points_are_the_start_the_best_and_halfway():
    history = {"f": np.array([0.5, 0.4, 0.3, 0.2, 0.25, 0.1, 0.3])}
    assert path_points(history) == {"start": (0, None), "mid_path": (2, 1), "optimum": (5, 4)}


def test_agreement_along_the_path_compares_cold_and_warm_solves_at_three_points():
    X, y, _, _, folds = draw()
    rule = EarlyStopping(patience=10**6, tol=0.0, interval=5, metric="smoothed_error")
    rows = agreement_along_path(
        X, y, folds, iteration_budgets=[3, 10**6], early_stopping=[rule], max_fun=6
    )
    assert {(row["point"], row["start"]) for row in rows} == {
        ("start", "cold"),
        ("mid_path", "cold"),
        ("mid_path", "warm"),
        ("optimum", "cold"),
        ("optimum", "warm"),
    }
    by_solve = {}
    for row in rows:
        by_solve.setdefault(row["solve"], []).append(row)
    # a cap above what SMO needs leaves the reference's iterate: the same gradient, cold or warm
    assert all(r["iteration_share"] == 1.0 for r in by_solve["iterations<=1000000"])
    assert all(r["relative_error"] == 0.0 for r in by_solve["iterations<=1000000"])
    assert all(r["iteration_share"] < 1.0 for r in by_solve["iterations<=3"])
    # a rule that never fires runs to convergence; its kernel rows carry the validation
    # columns, so its path may part from the reference's by rounding, not in direction
    never_fires = [r for r in rows if r["solve"].startswith("early_stopped")]
    assert all(r["cosine"] > 0.99 for r in never_fires)


def test_runs_report_when_each_reaches_the_exact_runs_test_error():
    X, y, X_test, y_test, folds = draw()
    variants = {
        "exact": {},
        "early_stopped": {
            "inner": "early_stopped",
            "inner_early_stopping": EarlyStopping(
                patience=3, tol=0.0, interval=5, metric="smoothed_error"
            ),
        },
    }
    runs, paths = inner_solve_runs(X, y, X_test, y_test, folds, variants, max_fun=8)
    exact = runs[0]
    assert exact["test_error"] == exact["exact_test_error"]
    assert 1 <= exact["reached_at"] <= exact["nf"]
    assert exact["iterations_to_reach"] <= exact["smo_iterations"]
    for run in runs:
        steps = [p for p in paths if p["variant"] == run["variant"]]
        assert len(steps) == run["nf"]
        assert steps[-1]["smo_iterations"] == run["smo_iterations"]
        assert np.all(np.diff([p["smo_iterations"] for p in steps]) > 0)
    with pytest.raises(ValueError, match="start with 'exact'"):
        inner_solve_runs(X, y, X_test, y_test, folds, {"other": {}})


def test_scores_follow_the_thesis_formula_with_the_exact_run_as_reference():
    runs = [
        {"variant": "exact", "test_error": 0.1, "smo_iterations": 1000, "seconds": 2.0},
        {"variant": "cheap", "test_error": 0.12, "smo_iterations": 250, "seconds": 0.5},
    ]
    scored = scores_against_exact(runs, beta=0.9)
    assert scored[0]["score"] == pytest.approx(0.9 * 0.9)
    assert scored[1]["score"] == pytest.approx(0.9 * 0.88 + 0.1 * 0.75)
    assert scored[1]["score_seconds"] == pytest.approx(0.9 * 0.88 + 0.1 * 0.75)


def test_savings_are_per_draw_shares_of_the_exact_run_averaged_over_draws():
    import pandas as pd

    from esmo.papers.gradient.inexact_analysis import savings

    runs = pd.DataFrame(
        [
            # draw 0: the early-stopped run does half the iterations, reaches at a quarter
            ("d", 100, 0, "exact", 10, 1000, 4.0, 0.10, 800, 2.0),
            ("d", 100, 0, "es", 8, 500, 1.0, 0.11, 200, 0.5),
            # draw 1: a quarter of the iterations, never reaches
            ("d", 100, 1, "exact", 12, 2000, 8.0, 0.20, 1000, 6.0),
            ("d", 100, 1, "es", 9, 500, 4.0, 0.25, None, None),
        ],
        columns=["dataset", "n_trg", "seed", "variant", "nf", "smo_iterations", "seconds",
                 "test_error", "iterations_to_reach", "seconds_to_reach"],
    )  # fmt: skip
    table = savings(runs).set_index("variant")
    assert table.loc["exact", "iteration_share"] == 1.0
    assert table.loc["es", "iteration_share"] == pytest.approx((0.5 + 0.25) / 2)
    assert table.loc["es", "seconds_share"] == pytest.approx((0.25 + 0.5) / 2)
    assert table.loc["es", "test_error_change"] == pytest.approx((1.0 + 5.0) / 2)
    assert table.loc["es", "reached"] == 1
    assert table.loc["es", "iterations_to_reach_share"] == pytest.approx(0.25)


def test_variants_from_config_get_the_rule_only_when_early_stopped():
    from esmo.papers.gradient.inexact import variant_settings

    settings = variant_settings(
        [
            {"name": "exact", "inner": "exact", "warm_start": False},
            {"name": "es_warm", "inner": "early_stopped", "warm_start": True},
        ],
        {"patience": 3, "tol": 0.0, "interval": 50},
    )
    assert settings["exact"] == {"inner": "exact", "warm_start": False}
    rule = settings["es_warm"]["inner_early_stopping"]
    assert (rule.patience, rule.interval, rule.metric) == (3, 50, "smoothed_error")


def test_the_step_beyond_is_judged_on_the_worst_draw_and_the_mean_shares():
    def row(point, start, solve, share, cosine):
        return {"point": point, "start": start, "solve": solve,
                "iteration_share_mean": share, "cosine_min": cosine}  # fmt: skip

    # rule A keeps the direction everywhere at 0.4 of the iterations; rule B reverses it once
    agreement = pd.DataFrame(
        [row(p, "cold", "early_stopped A", 0.4, 0.95) for p in ("start", "optimum")]
        + [row("start", "cold", "early_stopped B", 0.2, 0.99),
           row("optimum", "cold", "early_stopped B", 0.3, -1.0),
           row("start", "warm", "early_stopped B", 0.1, -1.0),  # warm rows do not count
           row("start", "cold", "iterations<=50", 0.1, 1.0)]  # nor budgets
    )  # fmt: skip
    savings_table = pd.DataFrame(
        {"dataset": ["a", "a", "b", "b"], "n_trg": 500, "iteration_share": [0.5, 0.9, 0.4, 0.7],
         "variant": ["exact_warm", "early_stopped", "exact_warm", "early_stopped"]}
    )  # fmt: skip
    claims = inexact_claims(agreement, savings_table).set_index("claim")
    assert claims.loc["beyond.early_stopped_direction", "verdict"] == "holds"
    assert (
        "early_stopped B: worst cosine -1.00"
        in claims.loc["beyond.early_stopped_direction", "measure"]
    )
    assert claims.loc["beyond.warm_start_saves_more", "verdict"] == "holds"  # 0.45 < 0.8
    # rule A at 0.6 of the iterations is not "several times fewer"; early stopping saving more
    agreement.loc[agreement["solve"] == "early_stopped A", "iteration_share_mean"] = 0.6
    savings_table["iteration_share"] = [0.9, 0.5, 0.7, 0.4]
    claims = inexact_claims(agreement, savings_table).set_index("claim")["verdict"]
    assert (claims == "does not hold").all()
    # a study without early-stopped rows or variants: not measured
    none = inexact_claims(agreement[agreement["start"] == "warm"], savings_table.iloc[:0])
    assert (none["verdict"] == "not measured").all()
