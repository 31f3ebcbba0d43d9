"""Issue 16(c): the MDL description length as a validation-free early-stopping rule in SMO.

On one E1 dataset and run, over the thesis's sampled RBF configurations, each
SVM is trained four ways (docs/mdl-protocol.md section 7):

- ``converged``: SMO to convergence on the training part (60 %);
- ``accuracy_es``: stopped on validation accuracy by the thesis's selected rule
  (E1's j_high), on the same 60 %;
- ``converged_trval``: SMO to convergence on training and validation (80 %);
- ``mdl_es``: stopped on the logistic description length of the training set
  (``es_metric='mdl_logistic'``), on the same 80 %, for each rule of a small
  (patience, es_tol, interval) grid: one solver run gives all of them exactly
  (the one-run sweep), with the test accuracy of each stopped model.

Beside the outcomes, the cost of tracking: time per iteration of a fit that
never stops on each objective against a plain fit, the fastest of ``repeats``
interleaved timings.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import pandas as pd

from esmo.early_stopping import EarlyStopping
from esmo.solver.params import SolverParams
from esmo.solver.smo import decision_values, solve_smo
from esmo.solver.sweep import sweep_early_stopping

OUTCOME_COLUMNS = [
    "config_id", "method", "patience", "es_tol", "interval", "n_train", "n_iter",
    "stopped_early", "test_accuracy",
]  # fmt: skip
TIMING_COLUMNS = ["config_id", "interval", "n_iter", "us_per_iter_plain", "overhead_accuracy",
                  "overhead_mdl"]  # fmt: skip

#: A patience no run exhausts: the rule is evaluated at every check but never stops.
NEVER = 10**9


def _test_accuracy(X, y, result, X_test, y_test, params: SolverParams) -> float:
    f = decision_values(X, y, result, X_test, params.kernel, params.gamma)
    return float(np.mean(np.where(f > 0, 1.0, -1.0) == y_test))


def _row(config_id, method, rule, n_train, n_iter, stopped, accuracy) -> dict:
    patience, es_tol, interval = (
        (rule.patience, rule.tol, rule.interval) if rule else (np.nan, np.nan, np.nan)
    )
    return dict(zip(OUTCOME_COLUMNS, [config_id, method, patience, es_tol, interval,
                                       n_train, n_iter, stopped, accuracy], strict=True))  # fmt: skip


def stopping_outcomes(
    X_train: np.ndarray,
    y_train: np.ndarray,
    X_val: np.ndarray,
    y_val: np.ndarray,
    X_test: np.ndarray,
    y_test: np.ndarray,
    configs: pd.DataFrame,
    accuracy_rule: EarlyStopping,
    mdl_rules: Sequence[EarlyStopping],
    *,
    max_iter: int = SolverParams.max_iter,
    shrinking: bool = SolverParams.shrinking,
) -> pd.DataFrame:
    """One row per configuration and method (see the module's docstring): stop and test accuracy.

    The ``mdl_es`` rows come from one sweep on train+validation whose only
    evaluation points are the test part: the description length reads no
    validation data, so the sweep's "validation" accuracy at each stop is the
    stopped model's test accuracy.
    """
    X_trval, y_trval = np.vstack([X_train, X_val]), np.concatenate([y_train, y_val])
    rows = []
    for c in configs.itertuples(index=False):
        params = SolverParams(
            kernel="rbf", C=c.C, gamma=c.gamma, tol=c.tol, max_iter=max_iter, shrinking=shrinking
        )
        names = ("kernel", "C", "gamma", "tol", "max_iter", "shrinking")
        kw = {name: getattr(params, name) for name in names}
        for method, X, y, rule in (
            ("converged", X_train, y_train, None),
            ("accuracy_es", X_train, y_train, accuracy_rule),
            ("converged_trval", X_trval, y_trval, None),
        ):
            result = solve_smo(X, y, early_stopping=rule, X_val=X_val, y_val=y_val, **kw)
            accuracy = _test_accuracy(X, y, result, X_test, y_test, params)
            rows.append(
                _row(
                    c.config_id, method, rule, len(y), result.n_iter, result.stopped_early, accuracy
                )  # fmt: skip
            )
        sweep = sweep_early_stopping(X_trval, y_trval, X_test, y_test, list(mdl_rules), **kw)
        for k, rule in enumerate(mdl_rules):
            rows.append(
                _row(
                    c.config_id,
                    "mdl_es",
                    rule,
                    len(y_trval),
                    int(sweep.stop_iter[k]),
                    bool(sweep.stopped_early[k]),
                    float(sweep.val_accuracy[k]),
                )  # fmt: skip
            )
    return pd.DataFrame(rows, columns=OUTCOME_COLUMNS)


def tracking_overhead(
    X_train: np.ndarray,
    y_train: np.ndarray,
    X_val: np.ndarray,
    y_val: np.ndarray,
    configs: pd.DataFrame,
    *,
    intervals: Sequence[int] = (1, 10),
    max_iter: int = SolverParams.max_iter,
    shrinking: bool = SolverParams.shrinking,
    repeats: int = 3,
) -> pd.DataFrame:
    """Time per iteration of never-stopping early stopping on each objective, against none.

    One row per configuration and check interval. All the fits take the same
    path; each is timed ``repeats`` times, interleaved, and the fastest kept (a
    shared machine's noise only adds).
    """
    rows = []
    for c in configs.itertuples(index=False):
        kw = dict(
            kernel="rbf", C=c.C, gamma=c.gamma, tol=c.tol, max_iter=max_iter, shrinking=shrinking
        )
        runs = {"plain": lambda kw=kw: solve_smo(X_train, y_train, **kw)}
        for r in intervals:
            for metric in ("accuracy", "mdl_logistic"):
                rule = EarlyStopping(NEVER, 0.0, r, metric)
                runs[metric, r] = lambda rule=rule, kw=kw: solve_smo(
                    X_train, y_train, early_stopping=rule, X_val=X_val, y_val=y_val, **kw
                )
        best = dict.fromkeys(runs, np.inf)
        for _ in range(repeats):
            for name, run in runs.items():
                start = time.perf_counter()
                result = run()
                best[name] = min(best[name], time.perf_counter() - start)
        plain = best["plain"]
        for r in intervals:
            rows.append(
                [c.config_id, r, result.n_iter, 1e6 * plain / max(result.n_iter, 1),
                 best["accuracy", r] / plain - 1, best["mdl_logistic", r] / plain - 1]
            )  # fmt: skip
    return pd.DataFrame(rows, columns=TIMING_COLUMNS)


def stopping_summary(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Per dataset, method and MDL rule: mean stop iteration, its share of the converged
    fit's on the same data, how often the rule stopped, mean test accuracy and its change
    from that converged fit."""
    reference = {"accuracy_es": "converged", "mdl_es": "converged_trval"}
    keys = ["dataset", "fold", "config_id"]
    rows = []
    group = ["dataset", "method", "patience", "es_tol", "interval"]
    for (dataset, method, p, t, r), part in outcomes.groupby(group, dropna=False, sort=True):
        base = outcomes[outcomes.method == reference.get(method, method)].set_index(keys)
        aligned = base.loc[part.set_index(keys).index]
        rows.append(
            {
                "dataset": dataset, "method": method, "patience": p, "es_tol": t,
                "interval": r, "n_train": int(part.n_train.iloc[0]),
                "mean_n_iter": part.n_iter.mean(),
                "iter_share": float(np.mean(part.n_iter.to_numpy()
                                            / np.maximum(aligned.n_iter.to_numpy(), 1))),
                "stopped_share": part.stopped_early.mean(),
                "test_accuracy": part.test_accuracy.mean(),
                "accuracy_change": float(np.mean(part.test_accuracy.to_numpy()
                                                 - aligned.test_accuracy.to_numpy())),
            }
        )  # fmt: skip
    return pd.DataFrame(rows)
