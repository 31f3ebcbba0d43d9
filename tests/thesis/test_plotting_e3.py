"""Figures of E3, E4, appendix A and the illustrations draw what they should."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.collections import PathCollection  # noqa: E402
from matplotlib.contour import ContourSet  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402
from sklearn.datasets import make_blobs  # noqa: E402
from sklearn.svm import SVC  # noqa: E402

from esmo.papers.common.figures import save_figure  # noqa: E402
from esmo.papers.thesis.figures import (  # noqa: E402
    plot_decision_boundaries,
    plot_hpo_methods,
    plot_solver_comparison,
    plot_successive_halving,
    plot_validation_curves,
)
from esmo.papers.thesis.hpo import e3_scores  # noqa: E402
from esmo.tuning.search import successive_halving  # noqa: E402

METHODS = ["RS", "RS+ES", "SH", "SH+ES"]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _bars(ax) -> list[Rectangle]:
    return [p for p in ax.patches if isinstance(p, Rectangle)]


@pytest.fixture
def e3_table() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = [
        {
            "dataset": dataset,
            "fold": fold,
            "method": method,
            "test_accuracy": rng.uniform(0.7, 0.98),
            "fit_seconds": rng.uniform(1, 10),
        }
        for dataset in ("w1a", "german.numer")
        for fold in range(5)
        for method in METHODS
    ]
    return e3_scores(pd.DataFrame(rows), beta=0.995)


def test_plot_hpo_methods_three_panels_of_four_bars(e3_table):
    fig = plot_hpo_methods(e3_table, dataset="w1a")
    assert len(fig.axes) == 3
    rows = e3_table[e3_table["dataset"] == "w1a"].set_index("method").loc[METHODS]
    accuracy, seconds, score = (_bars(ax) for ax in fig.axes)
    assert [b.get_height() for b in accuracy] == pytest.approx(rows["test_accuracy_mean"] * 100)
    assert [b.get_height() for b in seconds] == pytest.approx(rows["seconds"])
    assert [b.get_height() for b in score] == pytest.approx(rows["score"])
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == METHODS
    # the reference line sits at RS's score
    (ref,) = fig.axes[2].get_lines()
    assert ref.get_ydata()[0] == pytest.approx(rows.loc["RS", "score"])
    with pytest.raises(ValueError, match="no rows for dataset"):
        plot_hpo_methods(e3_table, dataset="a1a")


def test_plot_solver_comparison_points_and_means():
    rng = np.random.default_rng(1)
    runs = pd.DataFrame(
        [
            {
                "solver": solver,
                "fold": fold,
                "n_iter": int(base * rng.uniform(0.8, 1.2)),
                "seconds": base * 1e-4 * rng.uniform(0.8, 1.2),
                "test_accuracy": rng.uniform(0.9, 0.98),
            }
            for solver, base in [
                ("keerthi", 1e5),
                ("fan_plain", 1e4),
                ("fan", 1e4),
                ("libsvm", 5e3),
            ]
            for fold in range(5)
        ]
    )
    fig = plot_solver_comparison(runs)
    assert len(fig.axes) == 3
    iters_ax, seconds_ax, acc_ax = fig.axes
    assert iters_ax.get_yscale() == "log" and acc_ax.get_yscale() == "linear"
    ticks = [t.get_text() for t in iters_ax.get_xticklabels()]
    assert ticks == [
        "Keerthi\n(LIBSVM rule)",
        "Fan\n(plain)",
        "Fan\n(optimised)",
        "LIBSVM\n(no shrinking)",
    ]
    for ax, column, factor in ((iters_ax, "n_iter", 1), (acc_ax, "test_accuracy", 100)):
        collections = [c for c in ax.collections if isinstance(c, PathCollection)]
        points = sum(len(c.get_offsets()) for c in collections[:-1])
        assert points == len(runs)  # one dot per run
        means = collections[-1].get_offsets()[:, 1]
        expected = runs.groupby("solver")[column].mean()[["keerthi", "fan_plain", "fan", "libsvm"]]
        assert np.asarray(means) == pytest.approx(expected.to_numpy() * factor)


def test_plot_validation_curves_log_x_one_line_per_configuration():
    curves = pd.concat(
        [
            pd.DataFrame(
                {
                    "config": name,
                    "n_iter": [1, 10, 100, 400],
                    "val_accuracy": [0.5, 0.6 + shift, 0.7 + shift, 0.72 + shift],
                    "converged": [False, False, False, True],
                }
            )
            for name, shift in (("C=1, γ=0.1", 0.0), ("C=100, γ=10", 0.1))
        ]
    )
    fig = plot_validation_curves(curves)
    (ax,) = fig.axes
    assert ax.get_xscale() == "log"
    lines = ax.get_lines()
    assert len(lines) == 2
    assert lines[1].get_ydata()[-1] == pytest.approx(82.0)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["C=1, γ=0.1", "C=100, γ=10"]
    assert len(ax.collections) == 2  # a convergence ring per curve


def test_plot_decision_boundaries_one_panel_per_model_boundary_at_zero(tmp_path):
    X, y = make_blobs(n_samples=80, centers=2, n_features=2, cluster_std=2.0, random_state=0)
    y = np.where(y == 1, 1, -1)
    models = {
        f"γ = {g:g}": SVC(kernel="rbf", C=1.0, gamma=g).fit(X, y).decision_function
        for g in (0.01, 1.0, 30.0)
    }
    fig = plot_decision_boundaries(X, y, models, resolution=60)
    assert [ax.get_title() for ax in fig.axes] == list(models)
    for ax in fig.axes:
        scatters = [c for c in ax.collections if isinstance(c, PathCollection)]
        assert sum(len(c.get_offsets()) for c in scatters) == len(y)
        levels = [list(c.levels) for c in ax.collections if isinstance(c, ContourSet)]
        assert [0.0] in levels  # the boundary is the zero level of the decision function
    save_figure(fig, tmp_path / "fig_2_3.png")
    assert (tmp_path / "fig_2_3.png").stat().st_size > 0
    with pytest.raises(ValueError, match="two features"):
        plot_decision_boundaries(np.zeros((5, 3)), np.ones(5), models)
    with pytest.raises(TypeError, match="not callable"):
        plot_decision_boundaries(X, y, {"bad": 3})


def test_plot_successive_halving_lines_follow_each_configuration():
    X, y = make_blobs(n_samples=160, centers=2, n_features=2, cluster_std=3.0, random_state=2)
    rng = np.random.default_rng(0)
    configs = pd.DataFrame({"config_id": range(8), "C": 2.0 ** rng.uniform(-5, 5, 8)})
    result = successive_halving(
        lambda row: SVC(kernel="linear", C=row["C"]),
        configs,
        X[:100],
        y[:100],
        X[100:],
        y[100:],
        random_state=0,
    )
    fig = plot_successive_halving(result.trials)
    (ax,) = fig.axes
    lines = ax.get_lines()
    assert len(lines) == 8  # k = 8 configurations, one line each
    lengths = sorted(len(line.get_xdata()) for line in lines)
    assert lengths == [1, 1, 1, 1, 2, 2, 3, 4]  # dropped after rounds 0, 0, 0, 0, 1, 1, 2
    chosen = max(lines, key=lambda line: line.get_linewidth())
    assert list(chosen.get_xdata()) == [0, 1, 2, 3]
    assert ax.get_legend().get_texts()[0].get_text() == f"chosen (config {result.config_id})"
