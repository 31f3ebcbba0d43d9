"""Every figure function runs on small synthetic tables and draws what it should."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.collections import PathCollection  # noqa: E402

from esmo.papers.common.figures import save_figure  # noqa: E402
from esmo.papers.thesis.figures import (  # noqa: E402
    configuration_labels,
    plot_best_per_beta,
    plot_pareto_fronts,
    plot_score_by_dimension,
    plot_selected_configurations,
    plot_win_histogram,
)
from esmo.papers.thesis.scoring import (  # noqa: E402
    best_per_beta,
    count_wins,
    scores_against_reference,
    select_configurations,
    top_configurations,
)

DATASETS = ["a1a", "australian", "breast-cancer", "diabetes", "fourclass", "splice"]
N_ES = 12


def _outcome(datasets, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for d in datasets:
        acc_ref, cost_ref = rng.uniform(0.7, 0.95), rng.uniform(1e5, 1e6)
        rows.append((d, -1, acc_ref, 0.01, cost_ref))
        for j in range(N_ES):
            rows.append(
                (d, j, acc_ref + rng.normal(0, 0.02), 0.01, cost_ref * rng.uniform(0.01, 1))
            )
    frame = pd.DataFrame(
        rows, columns=["dataset", "es_id", "test_accuracy_mean", "test_accuracy_std", "n_iter"]
    )
    frame["test_accuracy_mean"] = frame["test_accuracy_mean"].clip(0, 1)
    return frame.assign(kernel="rbf", metric="accuracy", n_folds=5)


@pytest.fixture(scope="module")
def outcome():
    return _outcome(DATASETS)


@pytest.fixture(scope="module")
def scores(outcome):
    return scores_against_reference(outcome, [0.0, 0.8, 0.95, 0.995, 1.0])


@pytest.fixture(scope="module")
def es_table():
    return pd.DataFrame(
        {
            "es_id": range(N_ES),
            "patience": np.arange(N_ES) * 100 + 1,
            "es_tol": np.geomspace(1e-5, 1, N_ES),
            "interval": 1,
        }
    )


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _n_points(ax):
    return sum(len(c.get_offsets()) for c in ax.collections if isinstance(c, PathCollection))


def test_pareto_fronts(outcome):
    fig = plot_pareto_fronts(outcome, kernel="rbf", metric="accuracy", datasets=DATASETS)
    assert len(fig.axes) == len(DATASETS)
    for ax in fig.axes:
        assert ax.get_yscale() == "log"
        assert _n_points(ax) == N_ES + 1  # every ES configuration and the reference
        dashed = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
        assert len(dashed) == 1
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert {"reference", "Pareto front"} <= set(labels)


def test_selected_configurations(outcome, scores, es_table):
    top = top_configurations(scores, 0.995, "rbf", "accuracy", n=5)
    selected = configuration_labels(es_table, top["es_id"].tolist())
    fig = plot_selected_configurations(
        outcome, selected, kernel="rbf", metric="accuracy", datasets=DATASETS[:4], ncols=2
    )
    assert len(fig.axes) == 4
    for ax in fig.axes:
        assert len(ax.containers) == 5  # one error bar per selected configuration
        assert _n_points(ax) == 1  # the reference
    j = select_configurations(
        scores, {"low": DATASETS[1:5], "high": ["a1a", "splice"]}, 0.995, "rbf", "accuracy"
    )
    named = configuration_labels(es_table, j["es_id"].tolist(), prefix=["j_low", "j_high"])
    assert list(named)[0].startswith("j_low: p=")


def test_score_by_dimension():
    dims = {f"blobs_d{d}": d for d in (2, 4, 8, 16)}
    scores = scores_against_reference(_outcome(list(dims), seed=1), [0.995])
    fig = plot_score_by_dimension(scores, {"j_low": 0, "j_high": 1, "j_avg": 0}, dims)
    (ax,) = fig.axes
    assert len(ax.get_lines()) == 3  # j_low and j_avg coincide: one curve
    assert ax.get_legend_handles_labels()[1] == ["reference", "j_low = j_avg", "j_high"]
    np.testing.assert_array_equal(ax.get_lines()[0].get_xdata(), [2, 4, 8, 16])
    with pytest.raises(ValueError, match="has scores on"):
        plot_score_by_dimension(scores, {"j": 99}, dims)


def test_best_per_beta(outcome, scores):
    best = best_per_beta(scores, [0.0, 0.8, 0.95, 0.995, 1.0], kernels=["rbf"])
    fig = plot_best_per_beta(outcome, best, kernel="rbf", metric="accuracy", datasets=DATASETS)
    assert len(fig.axes) == len(DATASETS)
    for ax in fig.axes:
        assert _n_points(ax) == 5 + 1
        # four sloped threshold lines and one vertical line for beta = 1
        assert len([ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]) == 5


def test_win_histogram(scores):
    wins = count_wins(scores, 0.995, "rbf", "accuracy")
    fig = plot_win_histogram(wins)
    (ax,) = fig.axes
    heights = [p.get_height() for p in ax.patches]
    assert len(heights) == 13 and sum(heights) == N_ES


def test_errors_name_the_problem(outcome):
    with pytest.raises(ValueError, match="no searches"):
        plot_pareto_fronts(outcome, kernel="linear", metric="accuracy", datasets=DATASETS)
    with pytest.raises(ValueError, match="no search on dataset"):
        plot_selected_configurations(
            outcome, {"x": 999}, kernel="rbf", metric="accuracy", datasets=DATASETS
        )


def test_save_figure_writes_pdf_and_png(outcome, tmp_path):
    fig = plot_pareto_fronts(outcome, kernel="rbf", metric="accuracy", datasets=DATASETS[:2])
    pdf, png = tmp_path / "sub" / "f.pdf", tmp_path / "sub" / "f.png"
    save_figure(fig, pdf, png)
    assert pdf.read_bytes().startswith(b"%PDF") and png.read_bytes().startswith(b"\x89PNG")
    with pytest.raises(ValueError, match="suffix"):
        save_figure(fig, tmp_path / "nosuffix")
