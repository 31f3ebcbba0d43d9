"""Beyond the gradient-tuning paper: early-stopped and warm-started inner solves (note, section 7).

Two measurements on one training draw and its fixed folds:

- :func:`agreement_along_path`: the hypergradient from capped and early-stopped
  SMO solves against the exact one, at three points of the exact method's path
  (the start, mid-path, the optimum), from a cold start and warm-started from
  the path's previous point;
- :func:`inner_solve_runs`: whole tuning runs with each inner solve, their SMO
  iterations, CPU seconds, evaluations and test error, and the work each spent
  before its best point so far first scored the exact run's final test error;
  :func:`thesis_searches` adds the thesis's RS, RS+ES, SH and SH+ES on the same
  draw, and :func:`scores_against_exact` scores them all by the thesis's S.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from esmo.early_stopping import EarlyStopping
from esmo.hypergradient.inexact import gradient_agreement
from esmo.hypergradient.model import fit_svm
from esmo.hypergradient.objective import CrossValidationObjective, InnerSolve, warm_up
from esmo.hypergradient.search import GradientSearchCV
from esmo.hypergradient.space import Hyperparameters, Space
from esmo.papers.thesis.hpo import THESIS_METHODS, run_hpo_methods
from esmo.papers.thesis.scoring import score
from esmo.solver.params import SolverParams
from esmo.tuning.sampling import sample_svm_configs

Folds = Sequence[tuple[np.ndarray, np.ndarray]]


def path_points(history: Mapping[str, np.ndarray]) -> dict[str, tuple[int, int | None]]:
    """The start, mid-path and best evaluations of a run, each with the evaluation before it.

    Mid-path is the evaluation halfway between the start and the best one; the
    start has no predecessor.
    """
    best = int(np.argmin(history["f"]))
    middle = best // 2
    return {
        "start": (0, None),
        "mid_path": (middle, max(middle - 1, 0) if middle > 0 else None),
        "optimum": (best, best - 1 if best > 0 else None),
    }


def _points(history: Mapping[str, np.ndarray]) -> np.ndarray:
    return np.column_stack([history["log2_C"], history["log2_gamma"]])


def agreement_along_path(
    X: np.ndarray,
    y: np.ndarray,
    folds: Folds,
    *,
    iteration_budgets: Sequence[int],
    early_stopping: Sequence[EarlyStopping],
    tol: float = SolverParams.tol,
    max_fun: int = 30,
    shrinking: bool = SolverParams.shrinking,
) -> list[dict[str, Any]]:
    """:func:`~esmo.hypergradient.inexact.gradient_agreement` at three points of exact Grad's path."""
    warm_up()
    tuner = GradientSearchCV(
        cv=list(folds), tol=tol, max_fun=max_fun, refit=False, shrinking=shrinking
    ).fit(X, y)
    points = _points(tuner.history_)
    objective = CrossValidationObjective(
        X, y, folds, Space(("C", "gamma"), X.shape[1]), inner=InnerSolve(shrinking=shrinking)
    )
    rows = []
    for where, (at, before) in path_points(tuner.history_).items():
        starts = {"cold": None}
        if before is not None:
            starts["warm"] = points[before]
        for start, warm_from in starts.items():
            table = gradient_agreement(
                objective,
                points[at],
                iteration_budgets=iteration_budgets,
                early_stopping=early_stopping,
                warm_from=warm_from,
            )
            for k in range(len(table["solve"])):
                row = {name: column[k].item() for name, column in table.items()}
                rows.append(
                    {
                        "point": where,
                        "evaluation": at + 1,
                        "log2_C": points[at][0],
                        "log2_gamma": points[at][1],
                        "start": start,
                        **row,
                    }
                )
    return rows


def _test_error(
    X: np.ndarray,
    y: np.ndarray,
    X_test: np.ndarray,
    y_test: np.ndarray,
    h: Hyperparameters,
    tol: float,
    shrinking: bool,
) -> float:
    model = fit_svm(X, y, h, tol=tol, shrinking=shrinking)
    return float(np.mean(model.predict(X_test) != y_test))


def inner_solve_runs(
    X: np.ndarray,
    y: np.ndarray,
    X_test: np.ndarray,
    y_test: np.ndarray,
    folds: Folds,
    variants: Mapping[str, Mapping[str, Any]],
    *,
    tol: float = SolverParams.tol,
    max_fun: int = 30,
    shrinking: bool = SolverParams.shrinking,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Tune with each inner solve (``variants``: name -> GradientSearchCV settings, ``exact`` first).

    Returns the runs (one row per variant) and their paths (one row per
    evaluation: cumulative SMO iterations and CPU seconds, and the test error
    of the best point so far, refit on all of ``X``; refits are not counted).
    A run *reaches* the exact run's final test error ``e`` at the first
    evaluation whose best point so far scores within one binomial standard
    error of it, ``e + sqrt(e (1 - e) / n_test)``: closer than the test set
    can tell apart.
    """
    if next(iter(variants), None) != "exact":
        raise ValueError(
            "variants must start with 'exact', the run the others are measured against."
        )
    warm_up()  # the first run timed must not pay for loading the compiled solver
    space = Space(("C", "gamma"), X.shape[1])
    runs, paths, cache = [], [], {}
    exact_error = None
    for name, settings in variants.items():
        tuner = GradientSearchCV(
            cv=list(folds), tol=tol, max_fun=max_fun, refit=False, shrinking=shrinking, **settings
        )
        tuner.fit(X, y)
        history = tuner.history_
        points = _points(history)
        best_so_far = np.minimum.accumulate(history["f"])
        errors = []
        for k in range(len(history["f"])):
            best = int(np.flatnonzero(history["f"][: k + 1] == best_so_far[k])[0])
            key = tuple(points[best])
            if key not in cache:
                h = space.decode(points[best])
                cache[key] = _test_error(X, y, X_test, y_test, h, tol, shrinking)
            errors.append(cache[key])
        if exact_error is None:
            exact_error = errors[-1]
            within = exact_error + np.sqrt(exact_error * (1.0 - exact_error) / len(y_test))
        reached = [k for k, error in enumerate(errors) if error <= within]
        iterations = np.cumsum(history["smo_iterations"])
        seconds = np.cumsum(history["seconds"])
        first = reached[0] if reached else None
        runs.append(
            {
                "variant": name,
                "nf": tuner.n_evaluations_,
                "termination": tuner.termination_,
                "smo_iterations": tuner.cost_["smo_iterations"],
                "smo_seconds": tuner.cost_["smo_seconds"],
                "seconds": tuner.cost_["seconds"],
                "log2_C": points[tuner.best_index_][0],
                "log2_gamma": points[tuner.best_index_][1],
                "cv_error": tuner.cv_scores_["error"],
                "test_error": errors[-1],
                "exact_test_error": exact_error,
                "reach_threshold": within,
                "reached_at": None if first is None else first + 1,
                "iterations_to_reach": None if first is None else int(iterations[first]),
                "seconds_to_reach": None if first is None else float(seconds[first]),
            }
        )
        paths += [
            {
                "variant": name,
                "evaluation": k + 1,
                "f": history["f"][k],
                "log2_C": points[k][0],
                "log2_gamma": points[k][1],
                "smo_iterations": int(iterations[k]),
                "seconds": float(seconds[k]),
                "best_test_error": errors[k],
            }
            for k in range(len(errors))
        ]
    return runs, paths


def thesis_searches(
    X: np.ndarray,
    y: np.ndarray,
    X_test: np.ndarray,
    y_test: np.ndarray,
    folds: Folds,
    *,
    n_configs: int,
    space: Mapping[str, Sequence[float]],
    es_config: Mapping[str, Any],
    seed: int,
    shrinking: bool = SolverParams.shrinking,
) -> list[dict[str, Any]]:
    """The thesis's RS, RS+ES, SH and SH+ES on the same draw, for the score S against Grad.

    The searches need one training/validation split: the draw's first fold
    (its training part trains, its validation part selects and early-stops);
    ``n_configs`` RBF configurations are sampled from the thesis's ``space``
    with ``seed`` (:func:`esmo.tuning.sampling.sample_svm_configs`). The chosen
    model is scored on the same test rows as the gradient runs.
    """
    train, val = folds[0]
    configs = sample_svm_configs("rbf", n_configs, seed, space)
    table = run_hpo_methods(
        X[train],
        y[train],
        X[val],
        y[val],
        X_test,
        y_test,
        configs,
        es_config,
        methods=THESIS_METHODS,
        shrinking=shrinking,
        random_state=seed,
    )
    return [
        {
            "variant": row["method"],
            "nf": int(row["n_fits"]),
            "smo_iterations": int(row["total_iterations"]),
            "seconds": float(row["fit_seconds"]),
            "test_error": 1.0 - float(row["test_accuracy"]),
        }
        for _, row in table.iterrows()
    ]


def scores_against_exact(
    runs: Sequence[Mapping[str, Any]], beta: float = 0.995
) -> list[dict[str, Any]]:
    """The thesis's score ``S = beta acc + (1 - beta)(1 - cost / cost_ref)`` of every run.

    ``cost_ref`` is the exact gradient run's (the first row's) SMO iterations,
    or its CPU seconds for ``score_seconds``; ``acc`` is the test accuracy.
    """
    reference = runs[0]
    return [
        {
            **run,
            "score": float(
                score(
                    1.0 - run["test_error"],
                    run["smo_iterations"],
                    reference["smo_iterations"],
                    beta,
                )
            ),
            "score_seconds": float(
                score(1.0 - run["test_error"], run["seconds"], reference["seconds"], beta)
            ),
        }
        for run in runs
    ]


def variant_settings(
    variants: Sequence[Mapping[str, Any]], early_stopping: Mapping[str, Any]
) -> dict[str, dict[str, Any]]:
    """The config's variants (``name``, ``inner``, ``warm_start``) as GradientSearchCV settings.

    ``early_stopping`` (patience, tol, interval, metric) is the rule of every
    ``early_stopped`` variant.
    """
    rule = EarlyStopping(
        patience=int(early_stopping["patience"]),
        tol=float(early_stopping["tol"]),
        interval=int(early_stopping["interval"]),
        metric=str(early_stopping.get("metric", "smoothed_error")),
    )
    out = {}
    for spec in variants:
        settings: dict[str, Any] = {"inner": spec["inner"], "warm_start": bool(spec["warm_start"])}
        if spec["inner"] == "early_stopped":
            settings["inner_early_stopping"] = rule
        out[str(spec["name"])] = settings
    return out
