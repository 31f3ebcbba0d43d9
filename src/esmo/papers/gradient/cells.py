"""What one job of the gradient-tuning paper computes: one cell's tuning run and its test scores.

A cell is (dataset, n_trg, seed, method) on one seed's problem
(:func:`esmo.papers.gradient.data.make_problem`: stratified draw, min-max on the
training rows, the fixed 5-fold CV split shared by every method). Methods
(`docs/gradient-protocol.md` sec 2, 4, 5):

- ``grid``: the 15 x 15 grid scored by the pooled 5-fold CV error (tables 1, 2, fig 1);
- ``grad``: L-BFGS on the smoothed CV error from C = gamma = 1 (tables 1, 2, fig 1's path);
- ``grad_scaled``: Grad from a data-scaled start, gamma = 1 / (d var X) (beyond the
  paper: the test of whether a stall comes from the paper's start on a plateau);
- ``grad_plain_smo``: Grad with appendix A's plain NumPy SMO (beyond the paper: what
  share of the tuning time an unoptimised SMO takes, claim 7's cause);
- ``grad_ard``: one gamma per feature, from Grad's optimum (table 1);
- ``f_direct`` / ``f_bias``: the smoothed F-measure, theta_0 = 0 or tuned (the F experiment);
- ``wer{1..4}_{bias,direct}``: table 3's four weighted-error methods, theta_0 tuned or 0;
- ``fig1_test``: the test error at every grid point on a fixed test subsample (fig 1);
- ``restart{k}``: Grad from a random point of the box (fig 1, claim 6).

Each returns one row (:data:`ROW_COLUMNS`) and a detail table (the grid, the
optimiser's history or the test-error grid). Seeds come from the cell alone,
so any job order or core count gives the same numbers (seconds aside). Cost:
``cpu_seconds`` is the tuning (every CV fit, validation output, solve and
gradient piece), split into ``smo_seconds``, ``solve_seconds`` and
``rest_seconds``; the final retrain and test prediction are ``refit_seconds``.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from sklearn.metrics import accuracy_score, f1_score

from esmo.estimators.base import resolve_gamma
from esmo.hypergradient import GradientSearchCV, best_grid_cell, fit_svm, grid_search_cv
from esmo.hypergradient.objective import warm_up
from esmo.papers.gradient.data import Problem, get_dataset, subsample_rows

#: Table 3's methods (docs/gradient-protocol.md sec 4): what each tunes besides gamma (and theta_0 in the top half).
WEIGHTED_METHODS: dict[int, dict[str, Any]] = {
    1: {"tune": ("C", "gamma")},
    2: {"tune": ("C", "gamma"), "fixed_ratio": True},
    3: {"tune": ("C_pos", "C_neg", "gamma")},
    4: {"tune": ("C_pos", "C_neg", "m_pos", "m_neg", "gamma")},
}

#: Columns of a cell's row (percentages for the error rates, as the paper prints them).
ROW_COLUMNS = [
    "dataset",
    "paper_dataset",
    "n_trg",
    "seed",
    "method",
    "nf",
    "cpu_seconds",
    "smo_seconds",
    "solve_seconds",
    "rest_seconds",
    "smo_iterations",
    "iteration_limit_hits",
    "refit_seconds",
    "stopped",
    "termination",
    "objective",
    "cv_error",
    "cv_f_measure",
    "cv_weighted_error",
    "test_error",
    "test_f_measure",
    "test_weighted_error",
    "n_test",
    "log2_C",
    "log2_gamma",
    "theta0",
    "log2_C_pos",
    "log2_C_neg",
    "log2_m_pos",
    "log2_m_neg",
    "n_hyperparameters",
    "start_log2_C",
    "start_log2_gamma",
]

_WEIGHTED = re.compile(r"wer([1-4])_(bias|direct)")
_RESTART = re.compile(r"restart([0-9]+)")


def method_names(restarts: int = 0) -> list[str]:
    """Every method a cell can run (``restart{k}`` for k < ``restarts``)."""
    weighted = [f"wer{m}_{s}" for m in WEIGHTED_METHODS for s in ("bias", "direct")]
    restart = [f"restart{k}" for k in range(restarts)]
    return [
        "grid",
        "grad",
        "grad_scaled",
        "grad_plain_smo",
        "grad_ard",
        "f_direct",
        "f_bias",
        *weighted,
        "fig1_test",
        *restart,
    ]


def grid_axes(grid: Mapping[str, Mapping[str, float]]) -> tuple[np.ndarray, np.ndarray]:
    """log2 C and log2 gamma values: ``linspace(start, stop, num)`` per axis (docs/gradient-protocol.md sec 4)."""
    axes = [
        np.linspace(grid[k]["start"], grid[k]["stop"], int(grid[k]["num"]))
        for k in ("log2_C", "log2_gamma")
    ]
    return axes[0], axes[1]


def hard_measures(y: np.ndarray, pred: np.ndarray, negative_cost: float) -> dict[str, float]:
    """Error rate (%), F-measure of +1 and weighted error rate (%) of hard predictions.

    ``wer = (n_+ - tp + lambda fp) / (n_+ + lambda n_-)`` is the error with weight
    1 on positives and lambda on negatives (docs/gradient-protocol.md sec 2);
    ``F = 2tp / (n_+ + tp + fp)`` is F1.
    """
    weights = np.where(np.asarray(y) == 1, 1.0, float(negative_cost))
    return {
        "error": 100.0 * (1.0 - accuracy_score(y, pred)),
        "f_measure": float(f1_score(y, pred, pos_label=1, zero_division=0.0)),
        "weighted_error": 100.0 * (1.0 - accuracy_score(y, pred, sample_weight=weights)),
    }


def _log2(value: Any) -> float:
    if value is None:
        return math.nan
    value = np.asarray(value, dtype=float)
    return float(np.mean(np.log2(value)))


def _base_row(problem: Problem, method: str) -> dict[str, Any]:
    row = dict.fromkeys(ROW_COLUMNS, math.nan)
    row.update(
        dataset=problem.dataset,
        paper_dataset=get_dataset(problem.dataset).paper_dataset,
        n_trg=problem.n_trg,
        seed=problem.seed,
        method=method,
        stopped=False,
        termination="",
        iteration_limit_hits=0,
        n_test=len(problem.y_test),
    )
    return row


def _test_scores(model: Any, problem: Problem, negative_cost: float) -> dict[str, float]:
    """Hard test measures of the refit model (its ``predict`` applies theta_0)."""
    measures = hard_measures(problem.y_test, model.predict(problem.X_test), negative_cost)
    return {f"test_{k}": v for k, v in measures.items()}


def _tuner(settings: Mapping[str, Any], problem: Problem, **kwargs: Any) -> GradientSearchCV:
    tuner = settings["tuner"]
    smo = settings["smo"]
    options = {
        "cv": problem.folds,
        "max_fun": tuner["max_fun"],
        "min_iter": tuner["min_iter"],
        "rtol": tuner["rtol"],
        "sharpness": tuner["sharpness"],
        "tol": smo["tol"],
        "max_iter": smo["max_iter"],
        "shrinking": smo["shrinking"],
        "random_state": problem.seed,
    }
    options.update(kwargs)
    return GradientSearchCV(**options)


def _run_tuner(
    tuner: GradientSearchCV, problem: Problem, method: str, negative_cost: float
) -> tuple[dict[str, Any], pd.DataFrame]:
    """Fit (tuning + refit), then one row of cost, CV and test measures and the history."""
    tuner.fit(problem.X_train, problem.y_train)
    cost = tuner.cost_
    history = pd.DataFrame(tuner.history_)
    row = _base_row(problem, method)
    params = tuner.best_params_
    gamma = np.asarray(params["gamma"], dtype=float)
    row.update(
        nf=int(tuner.n_evaluations_),
        cpu_seconds=float(cost["seconds"]),
        smo_seconds=float(cost["smo_seconds"]),
        solve_seconds=float(cost["solve_seconds"]),
        rest_seconds=float(cost["seconds"] - cost["smo_seconds"] - cost["solve_seconds"]),
        smo_iterations=int(cost["smo_iterations"]),
        iteration_limit_hits=int(history["iteration_limit_hits"].sum()),
        termination=str(tuner.termination_),
        objective=float(tuner.best_score_),
        cv_error=100.0 * float(tuner.cv_scores_["error"]),
        cv_f_measure=float(tuner.cv_scores_["f_measure"]),
        cv_weighted_error=100.0 * float(tuner.cv_scores_["weighted_error"]),
        log2_C=_log2(params.get("C")),
        log2_gamma=_log2(gamma),
        theta0=float(params.get("theta0", 0.0)),
        log2_C_pos=_log2(params.get("C_pos")),
        log2_C_neg=_log2(params.get("C_neg")),
        log2_m_pos=_log2(params.get("m_pos")),
        log2_m_neg=_log2(params.get("m_neg")),
        n_hyperparameters=int(gamma.size + len(tuner.tune) - 1 + (tuner.sigmoid == "bias")),
    )
    start = time.process_time()
    row.update(_test_scores(tuner, problem, negative_cost))
    row["refit_seconds"] = tuner.refit_seconds_ + time.process_time() - start
    history.insert(0, "method", method)
    return row, history


def grid_cell(
    problem: Problem, settings: Mapping[str, Any], *, time_limit_s: float | None = None
) -> tuple[dict[str, Any], pd.DataFrame]:
    """Grid: every (log2 C, log2 gamma) point's pooled 5-fold CV error; retrain at the best.

    The grid runs one log2 C row at a time so that ``time_limit_s`` (the
    cluster's ``grid_time_limit_h``) can stop it between rows; a stopped run is
    marked ``stopped`` and reports no test error (like the paper's Vehicle 16000).
    """
    log2_C, log2_gamma = grid_axes(settings["grid"])
    smo = settings["smo"]
    sharpness = settings["tuner"]["sharpness"]
    parts = []
    stopped = False
    for c in log2_C:
        if time_limit_s is not None and parts and pd.concat(parts)["seconds"].sum() > time_limit_s:
            stopped = True
            break
        parts.append(
            pd.DataFrame(grid_search_cv(
                problem.X_train, problem.y_train, problem.folds, np.array([c]), log2_gamma,
                tol=smo["tol"], max_iter=smo["max_iter"], sharpness=sharpness,
                shrinking=smo["shrinking"],
            ))
        )  # fmt: skip
    table = pd.concat(parts, ignore_index=True)
    row = _base_row(problem, "grid")
    seconds = float(table["seconds"].sum())
    smo_seconds = float(table["smo_seconds"].sum())
    row.update(
        nf=len(table),
        cpu_seconds=seconds,
        smo_seconds=smo_seconds,
        solve_seconds=0.0,
        rest_seconds=seconds - smo_seconds,
        smo_iterations=int(table["smo_iterations"].sum()),
        stopped=stopped,
        termination="time limit" if stopped else "grid done",
    )
    if not stopped:
        best = best_grid_cell(table)
        row.update(
            cv_error=100.0 * float(best["cv_error"]),
            objective=float(best["smoothed_error"]),
            log2_C=float(best["log2_C"]),
            log2_gamma=float(best["log2_gamma"]),
            theta0=0.0,
            n_hyperparameters=2,
        )
        start = time.process_time()
        model = fit_svm(
            problem.X_train,
            problem.y_train,
            {"C": 2.0 ** row["log2_C"], "gamma": 2.0 ** row["log2_gamma"]},
            tol=smo["tol"],
            max_iter=smo["max_iter"],
            shrinking=smo["shrinking"],
        )
        row.update(_test_scores(model, problem, settings["negative_cost"]))
        row["refit_seconds"] = time.process_time() - start
    detail = table.copy()
    detail.insert(0, "method", "grid")
    return row, detail


def grad_cell(
    problem: Problem, settings: Mapping[str, Any], variant: str = "grad"
) -> tuple[dict[str, Any], pd.DataFrame]:
    """Grad: the smoothed CV error (direct method) over log2 C, log2 gamma from C = gamma = 1.

    Two variants beyond the paper run the same tuning otherwise (issue 34's tested causes):

    - ``grad_scaled`` starts at gamma = 1 / (d var X) (scikit-learn's 'scale'). At
      gamma = 1 the RBF kernel of many one-hot or wide features is nearly the
      identity and the smoothed CV error sits on a plateau where the gradient
      barely moves; started where the kernel sees the data's scale, a stall
      that came from the start point does not recur;
    - ``grad_plain_smo`` solves every fold with appendix A's plain NumPy SMO
      (``GradientSearchCV(solver='fan_plain')``): the same path, only SMO's seconds
      grow, so its share of the tuning time is what an unoptimised solver's would be.
    """
    options: dict[str, Any] = {"objective": "error", "sigmoid": "direct", "kernel": "rbf"}
    gamma0 = 1.0
    if variant == "grad_scaled":
        gamma0 = resolve_gamma("scale", problem.X_train)
        options["start"] = {"C": 1.0, "gamma": gamma0}
    elif variant == "grad_plain_smo":
        options["solver"] = "fan_plain"
    elif variant != "grad":
        raise ValueError(f"unknown Grad variant {variant!r}: grad, grad_scaled or grad_plain_smo")
    tuner = _tuner(settings, problem, **options)
    row, history = _run_tuner(tuner, problem, variant, settings["negative_cost"])
    row.update(start_log2_C=0.0, start_log2_gamma=math.log2(gamma0))
    return row, history


def grad_ard_cell(
    problem: Problem, settings: Mapping[str, Any], grad_row: Mapping[str, Any]
) -> tuple[dict[str, Any], pd.DataFrame]:
    """Grad-ARD: one gamma per feature, from Grad's optimum (every gamma_t = gamma*), maxfun 50.

    Its cost is the extra cost over Grad (table 1's "extra cpu").
    """
    if not math.isfinite(grad_row["log2_C"]) or not math.isfinite(grad_row["log2_gamma"]):
        raise ValueError("Grad's row holds no optimum (log2_C, log2_gamma); rerun its cell")
    d = problem.X_train.shape[1]
    start = {"C": 2.0 ** grad_row["log2_C"], "gamma": np.full(d, 2.0 ** grad_row["log2_gamma"])}
    tuner = _tuner(
        settings, problem, objective="error", sigmoid="direct", kernel="ard", start=start,
        max_fun=settings["ard"]["max_fun"],
    )  # fmt: skip
    row, history = _run_tuner(tuner, problem, "grad_ard", settings["negative_cost"])
    row.update(start_log2_C=grad_row["log2_C"], start_log2_gamma=grad_row["log2_gamma"])
    return row, history


def f_measure_cell(
    problem: Problem, settings: Mapping[str, Any], *, tune_threshold: bool
) -> tuple[dict[str, Any], pd.DataFrame]:
    """The F experiment: minimise the smoothed -F, theta_0 = 0 (direct) or tuned (bias)."""
    sigmoid = "bias" if tune_threshold else "direct"
    tuner = _tuner(settings, problem, objective="f_measure", sigmoid=sigmoid, kernel="rbf")
    return _run_tuner(tuner, problem, f"f_{sigmoid}", settings["negative_cost"])


def weighted_error_cell(
    problem: Problem, settings: Mapping[str, Any], method: int, *, tune_threshold: bool
) -> tuple[dict[str, Any], pd.DataFrame]:
    """Table 3: the smoothed weighted error (lambda = ``negative_cost``) with method 1-4.

    Method 2 fixes ``C_- = lambda C_+`` through ``class_weight``; gamma is tuned
    by all four; the top half (``tune_threshold``) tunes theta_0 too.
    """
    spec = WEIGHTED_METHODS[method]
    lam = settings["negative_cost"]
    sigmoid = "bias" if tune_threshold else "direct"
    tuner = _tuner(
        settings, problem, objective="weighted_error", sigmoid=sigmoid, kernel="rbf",
        tune=spec["tune"], negative_cost=lam,
        class_weight={1: 1.0, -1: lam} if spec.get("fixed_ratio") else None,
    )  # fmt: skip
    return _run_tuner(tuner, problem, f"wer{method}_{sigmoid}", lam)


def restart_start(problem: Problem, settings: Mapping[str, Any], k: int) -> dict[str, float]:
    """Restart k's start: uniform in the grid's box, from ``default_rng([seed, k])``."""
    log2_C, log2_gamma = grid_axes(settings["grid"])
    rng = np.random.default_rng([problem.seed, k])
    return {
        "log2_C": float(rng.uniform(log2_C.min(), log2_C.max())),
        "log2_gamma": float(rng.uniform(log2_gamma.min(), log2_gamma.max())),
    }


def restart_cell(
    problem: Problem, settings: Mapping[str, Any], k: int
) -> tuple[dict[str, Any], pd.DataFrame]:
    """Grad from restart k's random start (claim 6: no local-minimum trouble for C, gamma)."""
    start = restart_start(problem, settings, k)
    tuner = _tuner(
        settings, problem, objective="error", sigmoid="direct", kernel="rbf",
        start={"C": 2.0 ** start["log2_C"], "gamma": 2.0 ** start["log2_gamma"]},
    )  # fmt: skip
    row, history = _run_tuner(tuner, problem, f"restart{k}", settings["negative_cost"])
    row.update(start_log2_C=start["log2_C"], start_log2_gamma=start["log2_gamma"])
    return row, history


def fig1_test_cell(
    problem: Problem, settings: Mapping[str, Any]
) -> tuple[dict[str, Any], pd.DataFrame]:
    """Fig 1's test-error surface: retrain on all n_trg rows at every grid point.

    Scored on a fixed random subsample of ``contour_test_rows`` test rows
    (``default_rng(seed)``; None: all), the same for every point.
    """
    log2_C, log2_gamma = grid_axes(settings["grid"])
    smo = settings["smo"]
    rows = subsample_rows(len(problem.y_test), settings["contour_test_rows"], problem.seed)
    X_test, y_test = problem.X_test[rows], problem.y_test[rows]
    records = []
    start = time.process_time()
    for c in log2_C:
        for g in log2_gamma:
            model = fit_svm(
                problem.X_train, problem.y_train, {"C": 2.0**c, "gamma": 2.0**g},
                tol=smo["tol"], max_iter=smo["max_iter"], shrinking=smo["shrinking"],
            )  # fmt: skip
            error = hard_measures(y_test, model.predict(X_test), 1.0)["error"]
            records.append({"log2_C": float(c), "log2_gamma": float(g), "test_error": error})
    row = _base_row(problem, "fig1_test")
    row.update(nf=len(records), refit_seconds=time.process_time() - start, n_test=len(rows))
    detail = pd.DataFrame(records)
    detail.insert(0, "method", "fig1_test")
    return row, detail


def run_cell(
    problem: Problem,
    method: str,
    settings: Mapping[str, Any],
    *,
    grad_row: Mapping[str, Any] | None = None,
    time_limit_s: float | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Dispatch one cell by its method name; the row as a one-row table, and the detail table.

    The compiled solver is loaded first (:func:`esmo.hypergradient.objective.warm_up`),
    so no cell's cpu includes it.
    """
    warm_up()
    if method == "grid":
        row, detail = grid_cell(problem, settings, time_limit_s=time_limit_s)
    elif method in ("grad", "grad_scaled", "grad_plain_smo"):
        row, detail = grad_cell(problem, settings, method)
    elif method == "grad_ard":
        if grad_row is None:
            raise ValueError("grad_ard starts from Grad's optimum: pass grad_row (Grad's cell row)")
        row, detail = grad_ard_cell(problem, settings, grad_row)
    elif method in ("f_direct", "f_bias"):
        row, detail = f_measure_cell(problem, settings, tune_threshold=method == "f_bias")
    elif match := _WEIGHTED.fullmatch(method):
        row, detail = weighted_error_cell(
            problem, settings, int(match[1]), tune_threshold=match[2] == "bias"
        )
    elif method == "fig1_test":
        row, detail = fig1_test_cell(problem, settings)
    elif match := _RESTART.fullmatch(method):
        row, detail = restart_cell(problem, settings, int(match[1]))
    else:
        raise ValueError(f"unknown method {method!r}; known: {', '.join(method_names(3))}, ...")
    return pd.DataFrame([row], columns=ROW_COLUMNS), detail
