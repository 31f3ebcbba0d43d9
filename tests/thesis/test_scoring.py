"""Random-search aggregation, scores, wins and configuration selection on handmade tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from esmo.papers.thesis.scoring import (
    REFERENCE_ES_ID,
    SELECTION_COLUMNS,
    best_per_beta,
    by_kernel_and_metric,
    count_wins,
    random_search_outcome,
    random_search_per_fold,
    score,
    scores_against_reference,
    select_configurations,
    selected_configuration,
    selected_configurations,
    selection_table,
    top_configurations,
    wins_by_effective_patience,
    wins_per_beta,
)


def _job_rows(es_id, fold, rows, dataset="d", kernel="rbf", metric="accuracy"):
    """rows: (config_id, n_iter, max_iter_reached, val_accuracy, test_accuracy)."""
    return [
        {
            "dataset": dataset,
            "kernel": kernel,
            "metric": metric,
            "fold": fold,
            "config_id": c,
            "es_id": es_id,
            "n_iter": n,
            "stopped_early": es_id != REFERENCE_ES_ID,
            "max_iter_reached": m,
            "val_accuracy": v,
            "test_accuracy": t,
        }
        for c, n, m, v, t in rows
    ]


@pytest.fixture
def job_table() -> pd.DataFrame:
    rows = []
    # reference, fold 0: config 1 and 2 tie on validation -> config 1 (earlier)
    rows += _job_rows(
        -1, 0, [(0, 100, False, 0.5, 0.9), (1, 200, True, 0.8, 0.7), (2, 300, False, 0.8, 0.6)]
    )
    # reference, fold 1: config 2 best
    rows += _job_rows(
        -1, 1, [(0, 10, False, 0.25, 0.5), (1, 20, False, 0.5, 0.5), (2, 30, True, 0.75, 1.0)]
    )
    # ES 0, fold 0: config 0 best (early stopping changes the winner)
    rows += _job_rows(
        0, 0, [(0, 50, False, 0.9, 0.8), (1, 60, False, 0.1, 0.1), (2, 70, False, 0.9, 0.0)]
    )
    # ES 0, fold 1: all tie -> config 0
    rows += _job_rows(
        0, 1, [(0, 5, False, 0.5, 0.6), (1, 5, False, 0.5, 0.2), (2, 5, False, 0.5, 0.3)]
    )
    table = pd.DataFrame(rows)
    # shuffle so the result cannot depend on row order
    return table.sample(frac=1.0, random_state=0).reset_index(drop=True)


def test_per_fold_picks_best_validation_ties_to_earlier_and_sums_cost(job_table):
    out = random_search_per_fold(job_table).set_index(["es_id", "fold"])
    expected = {
        # (es_id, fold): (config_id, val, test, total n_iter, max_iter hits)
        (-1, 0): (1, 0.8, 0.7, 600, 1),
        (-1, 1): (2, 0.75, 1.0, 60, 1),
        (0, 0): (0, 0.9, 0.8, 180, 0),
        (0, 1): (0, 0.5, 0.6, 15, 0),
    }
    for key, (config, val, test, cost, hits) in expected.items():
        row = out.loc[key]
        assert row["config_id"] == config
        assert row["val_accuracy"] == val
        assert row["test_accuracy"] == test
        assert row["n_iter"] == cost
        assert row["n_max_iter"] == hits
        assert row["n_configs"] == 3


def test_outcome_mean_population_std_and_summed_cost(job_table):
    outcome = random_search_outcome(random_search_per_fold(job_table)).set_index("es_id")
    ref = outcome.loc[-1]
    assert ref["test_accuracy_mean"] == pytest.approx(0.85)
    assert ref["test_accuracy_std"] == pytest.approx(0.15)  # |0.7 - 1.0| / 2, ddof = 0
    assert ref["n_iter"] == 660
    assert ref["n_folds"] == 2
    assert ref["n_max_iter"] == 2
    assert outcome.loc[0, "test_accuracy_mean"] == pytest.approx(0.7)
    assert outcome.loc[0, "n_iter"] == 195


def test_outcome_accepts_other_cost_column(job_table):
    per_fold = random_search_per_fold(
        job_table.assign(seconds=job_table["n_iter"] / 100.0), cost="seconds"
    )
    outcome = random_search_outcome(per_fold, cost="seconds").set_index("es_id")
    assert outcome.loc[-1, "seconds"] == pytest.approx(6.6)


def test_per_fold_rejects_duplicates_percentages_and_missing_chunks(job_table):
    with pytest.raises(ValueError, match="duplicated"):
        random_search_per_fold(pd.concat([job_table, job_table.iloc[:1]]))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        random_search_per_fold(job_table.assign(test_accuracy=job_table["test_accuracy"] * 100))
    with pytest.raises(ValueError, match="incomplete"):
        random_search_per_fold(job_table.drop(job_table.index[job_table["es_id"] == 0][:1]))
    with pytest.raises(ValueError, match="lacks column"):
        random_search_per_fold(job_table.drop(columns="fold"))


def test_score_formula_known_values():
    # beta*acc + (1-beta)*(1 - cost/cost_ref)
    assert score(0.9, 50, 100, 0.8) == pytest.approx(0.8 * 0.9 + 0.2 * 0.5)
    assert score(0.9, 100, 100, 0.995) == pytest.approx(0.995 * 0.9)
    np.testing.assert_allclose(
        score(np.array([1.0, 0.0]), np.array([0.0, 200.0]), 100.0, 0.5), [1.0, -0.5]
    )
    with pytest.raises(ValueError, match="reference cost"):
        score(0.9, 1, 0, 0.5)
    with pytest.raises(ValueError, match="beta"):
        score(0.9, 1, 1, 1.5)


def _outcome(rows):
    """rows: (dataset, es_id, accuracy, cost)."""
    return pd.DataFrame(
        [
            {
                "dataset": d,
                "kernel": "rbf",
                "metric": "accuracy",
                "es_id": e,
                "test_accuracy_mean": a,
                "n_iter": c,
            }
            for d, e, a, c in rows
        ]
    )


def test_scores_and_wins_with_ties_half():
    outcome = _outcome(
        [
            ("d", -1, 0.8, 1000),
            ("d", 0, 0.8, 500),  # same accuracy, cheaper: win at beta < 1, tie at beta = 1
            ("d", 1, 0.8, 1000),  # identical to the reference: tie
            ("d", 2, 0.7, 100),  # much cheaper, less accurate
        ]
    )
    scores = scores_against_reference(outcome, [0.5, 0.995, 1.0]).set_index(["es_id", "beta"])
    assert scores.loc[(-1, 0.5), "score_ref"] == pytest.approx(0.4)
    assert scores.loc[(0, 0.5), "score"] == pytest.approx(0.5 * 0.8 + 0.5 * 0.5)
    assert scores.loc[(0, 0.5), "win"] == 1.0
    assert scores.loc[(0, 1.0), "win"] == 0.5
    assert scores.loc[(1, 0.995), "win"] == 0.5
    assert scores.loc[(-1, 0.995), "win"] == 0.5
    # es 2 at 0.5: 0.35 + 0.45 = 0.8 > 0.4; at 0.995: 0.6965 + 0.0045 < 0.796
    assert scores.loc[(2, 0.5), "win"] == 1.0
    assert scores.loc[(2, 0.995), "win"] == 0.0
    assert scores.loc[(2, 0.995), "n_iter_ref"] == 1000


def test_scores_need_a_reference():
    with pytest.raises(ValueError, match="no reference"):
        scores_against_reference(_outcome([("d", 0, 0.8, 10)]), [0.9])


@pytest.fixture
def es_table():
    return pd.DataFrame(
        {
            "es_id": [0, 1, 2, 3],
            "patience": [1356, 109, 5, 7],
            "es_tol": [0.65, 2.3e-4, 0.1, 0.2],
            "interval": [1, 1, 1, 1],
        }
    )


@pytest.fixture
def score_table():
    """Scores designed by hand: es 0 is best on low, es 1 on high, es 2 on average."""
    mean = {  # es_id -> score per dataset (ref scores are 0.5 everywhere)
        0: {"l1": 0.9, "l2": 0.9, "h1": 0.1, "h2": 0.1},  # low 0.9, high 0.1, avg 0.5
        1: {"l1": 0.2, "l2": 0.2, "h1": 0.9, "h2": 0.9},  # low 0.2, high 0.9, avg 0.55
        2: {"l1": 0.7, "l2": 0.7, "h1": 0.6, "h2": 0.6},  # low 0.7, high 0.6, avg 0.65
        3: {"l1": 0.7, "l2": 0.7, "h1": 0.6, "h2": 0.6},  # ties es 2 everywhere
    }
    rows = [
        {
            "dataset": d,
            "kernel": "rbf",
            "metric": "accuracy",
            "es_id": e,
            "beta": 0.995,
            "score": s,
            "score_ref": 0.5,
            "win": float(np.sign(s - 0.5) * 0.5 + 0.5),
        }
        for e, per in mean.items()
        for d, s in per.items()
    ]
    rows += [{**r, "es_id": -1, "score": 0.5, "win": 0.5} for r in rows if r["es_id"] == 0]
    return pd.DataFrame(rows)


GROUPS = {"low": ["l1", "l2"], "high": ["h1", "h2"], "avg": ["l1", "l2", "h1", "h2"]}


def test_select_low_high_avg(score_table, es_table):
    chosen = select_configurations(
        score_table, GROUPS, 0.995, "rbf", "accuracy", es_table=es_table
    ).set_index("group")
    assert chosen.loc["low", "es_id"] == 0
    assert chosen.loc["high", "es_id"] == 1
    assert chosen.loc["avg", "es_id"] == 2  # ties with es 3: the smaller id
    assert chosen.loc["avg", "mean_score"] == pytest.approx(0.65)
    assert chosen.loc["low", "patience"] == 1356
    assert chosen.loc["high", "es_tol"] == pytest.approx(2.3e-4)


def test_select_rejects_unknown_dataset_and_incomplete_configs(score_table):
    with pytest.raises(ValueError, match="absent"):
        select_configurations(score_table, {"x": ["nope"]}, 0.995, "rbf", "accuracy")
    partial = score_table.drop(score_table.index[(score_table["es_id"] == 1)][:1])
    with pytest.raises(ValueError, match="lack scores"):
        select_configurations(partial, GROUPS, 0.995, "rbf", "accuracy")
    with pytest.raises(ValueError, match="beta=0.5"):
        select_configurations(score_table, GROUPS, 0.5, "rbf", "accuracy")


def test_selection_table_has_one_layout_for_every_selection(score_table, es_table):
    """E1's j_low/j_high/j_avg and E4's j_r: the same columns, read back the same way."""
    two_metrics = pd.concat([score_table, score_table.assign(metric="hinge")], ignore_index=True)
    e1 = selection_table(two_metrics, GROUPS, 0.995, es_table, metrics=["accuracy", "hinge"])
    assert list(e1.columns) == SELECTION_COLUMNS
    assert e1[["metric", "group"]].values.tolist() == [
        [m, g] for m in ("accuracy", "hinge") for g in GROUPS
    ]
    expected = select_configurations(
        score_table, GROUPS, 0.995, "rbf", "accuracy", es_table=es_table
    )
    rbf = selected_configurations(e1, "rbf", "accuracy")
    pd.testing.assert_frame_equal(rbf.drop(columns=["kernel", "metric"]), expected)
    assert selected_configuration(e1, "high", metric="hinge")["es_id"] == 1

    j_r = selection_table(score_table, {"r": ["l1", "l2", "h1", "h2"]}, 0.995, es_table)
    assert list(j_r.columns) == SELECTION_COLUMNS and len(j_r) == 1
    assert selected_configuration(j_r, "r")["es_id"] == 2
    with pytest.raises(ValueError, match="no rows for kernel='linear'"):
        selected_configurations(j_r, "linear")
    with pytest.raises(ValueError, match="found 0"):
        selected_configuration(j_r, "low")
    with pytest.raises(ValueError, match="lacks column"):
        selected_configurations(j_r.drop(columns="metric"))
    with pytest.raises(ValueError, match="es_table lacks"):
        selection_table(score_table, GROUPS, 0.995, es_table.drop(columns="interval"))


def test_by_kernel_and_metric_stacks_in_order():
    table = by_kernel_and_metric(
        lambda k, m: pd.DataFrame({"x": [f"{k}-{m}"]}), ["linear", "rbf"], ["accuracy", "hinge"]
    )
    assert table["x"].tolist() == ["linear-accuracy", "linear-hinge", "rbf-accuracy", "rbf-hinge"]
    assert list(table.columns) == ["x", "kernel", "metric"]
    with pytest.raises(ValueError, match="no kernel"):
        by_kernel_and_metric(lambda k, m: pd.DataFrame(), [], ["accuracy"])


def test_top_configurations_and_best_per_beta(score_table, es_table):
    top = top_configurations(score_table, 0.995, "rbf", "accuracy", n=3)
    assert top["es_id"].tolist() == [2, 3, 1]
    best = best_per_beta(score_table, [0.995], kernels=["rbf"], es_table=es_table)
    assert best[["kernel", "es_id", "patience"]].values.tolist() == [["rbf", 2, 5]]


def test_count_wins_and_wins_per_beta(score_table):
    wins = count_wins(score_table, 0.995, "rbf", "accuracy").set_index("es_id")["wins"]
    assert wins.to_dict() == {0: 2.0, 1: 2.0, 2: 4.0, 3: 4.0}
    table = wins_per_beta(score_table, [0.995], groups=GROUPS)
    got = table.set_index(["selection", "evaluated_on"])["wins"]
    assert got[("low", "low")] == 2.0 and got[("low", "high")] == 0.0
    assert got[("high", "high")] == 2.0 and got[("high", "avg")] == 2.0
    assert got[("avg", "avg")] == 4.0
    assert len(table) == 9


def test_wins_per_beta_fixed_versus_reselected():
    # At beta = 1 only accuracy counts: es 1 (accurate, costly) is best; at 0.5 es 0 (cheap).
    outcome = _outcome(
        [(d, -1, 0.8, 1000) for d in ("a", "b")]
        + [(d, 0, 0.75, 10) for d in ("a", "b")]
        + [(d, 1, 0.85, 2000) for d in ("a", "b")]
    )
    scores = scores_against_reference(outcome, [0.5, 1.0])
    groups = {"all": ["a", "b"]}
    per_beta = wins_per_beta(scores, [0.5, 1.0], groups=groups).set_index("beta")
    assert per_beta["es_id"].to_dict() == {0.5: 0, 1.0: 1}
    assert per_beta["wins"].to_dict() == {0.5: 2.0, 1.0: 2.0}
    fixed = wins_per_beta(scores, [0.5, 1.0], groups=groups, selection_beta=1.0)
    assert fixed.set_index("beta")["es_id"].to_dict() == {0.5: 1, 1.0: 1}
    # es 1 at beta 0.5: 0.425 + 0.5 * (1 - 2) = -0.075 < 0.4 -> loses both
    assert fixed.set_index("beta")["wins"].to_dict() == {0.5: 0.0, 1.0: 2.0}


def test_wins_by_effective_patience_bins_p_times_r_by_decade():
    """Hand table: three configurations on two datasets, one of them with r = 100."""
    rows = [
        # es_id, dataset, win: 0 wins both, 1 ties once, 2 loses once
        (0, "a", 1.0), (0, "b", 1.0),
        (1, "a", 1.0), (1, "b", 0.5),
        (2, "a", 0.0), (2, "b", 1.0),
        (REFERENCE_ES_ID, "a", 0.5), (REFERENCE_ES_ID, "b", 0.5),
    ]  # fmt: skip
    scores = pd.DataFrame(
        [
            {"dataset": d, "kernel": "rbf", "metric": "accuracy", "es_id": e, "beta": 0.995,
             "score": 0.0, "win": w}
            for e, d, w in rows
        ]
    )  # fmt: skip
    es = pd.DataFrame({"es_id": [0, 1, 2], "patience": [20, 50, 3], "interval": [1, 1, 100]})
    table = wins_by_effective_patience({"t": (scores, es)}, 0.995).set_index("decade")
    # p * r = 20, 50 (decade 1) and 300 (decade 2)
    assert table.index.tolist() == [1, 2]
    assert table.loc[1, "n_configs"] == 2 and table.loc[1, "n_winning_everywhere"] == 1
    assert table.loc[1, "mean_wins"] == 1.75 and table.loc[1, "mean_ties"] == 0.5
    assert table.loc[2, "n_winning_everywhere"] == 0 and table.loc[2, "mean_wins"] == 1.0
    assert (table["n_datasets"] == 2).all()
    with pytest.raises(ValueError, match="lacks es_id"):
        wins_by_effective_patience({"t": (scores, es.iloc[:2])}, 0.995)
