"""The timed searches of experiments E3 and E4: RS and SH, each with and without early stopping.

The workflow scripts are thin: each calls one function here per dataset and
fold and writes the returned table. Everything that decides *what* is timed
lives in this module, so it is tested once:

- :func:`run_hpo_methods` runs random search (RS) and successive halving (SH),
  each with and without early stopping (ES), on one fold (E3 with j_high, E4
  with j_r; thesis sec 3.4, 4.3, 5.4).
- :func:`e3_scores` turns the per-fold tables into mean accuracies, summed
  seconds and scores against RS without ES (protocol §6).

The timing rules (what is timed, the warm-up fit) are :mod:`esmo.papers.thesis.timed_fits`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from esmo.early_stopping import J_HIGH, EarlyStopping
from esmo.estimators.smo_classifier import SMOClassifier
from esmo.papers.common.tables import require_columns
from esmo.papers.thesis.scoring import THESIS_BETA, random_search_outcome, score
from esmo.papers.thesis.timed_fits import timed_fit, total_iterations, warm_up_rows
from esmo.solver.params import SolverParams
from esmo.tuning.search import SearchResult, random_search, successive_halving

#: The HPO methods of E3/E4: the thesis's four, in its order, then the two early-stopped
#: ones under the thesis's cost model, ``fresh`` (every check recomputes the validation
#: predictions from the alphas, as the thesis's code does) where ``RS+ES`` and ``SH+ES``
#: track them as the library does by default (``es_evaluation="auto"``).
METHODS = ("RS", "RS+ES", "SH", "SH+ES", "RS+ES fresh", "SH+ES fresh")
#: The thesis's four methods.
THESIS_METHODS = METHODS[:4]
#: A method's early-stopping evaluation, by the suffix of its name.
_EVALUATION_SUFFIX = {" fresh": "fresh"}

#: The method whose summed seconds normalise every method's cost in E3/E4 (protocol §6).
REFERENCE_METHOD = "RS"

#: Columns of :func:`run_hpo_methods`'s table, one row per method.
HPO_COLUMNS = [
    "method",
    "search",
    "early_stopping",
    "config_id",
    "val_accuracy",
    "test_accuracy",
    "fit_seconds",
    "total_iterations",
    "es_overhead_seconds",
    "n_fits",
    "n_stopped_early",
]


_ES_KEYS = ("patience", "es_tol", "interval")
#: es_config's optional key: the stopping rule (esmo.early_stopping.RULES), default published
_RULE_KEY = "rule"
_CONFIG_COLUMNS = ("config_id", "C", "gamma", "tol")


def es_config_of(rule: EarlyStopping) -> dict[str, Any]:
    """``rule`` as an ``es_config`` mapping: ``patience``, ``es_tol``, ``interval``."""
    return dict(zip(_ES_KEYS, (rule.patience, rule.tol, rule.interval), strict=True))


def _check_es_config(es_config: Mapping[str, Any]) -> dict[str, Any]:
    """SMOClassifier's early-stopping parameters of ``es_config``, checked by the rules of every
    configuration (:func:`esmo.early_stopping.validate_configurations`)."""
    missing = [k for k in _ES_KEYS if k not in es_config]
    if missing:
        raise ValueError(
            f"es_config lacks {missing}; pass a mapping with keys {list(_ES_KEYS)}, e.g. "
            f"{es_config_of(J_HIGH)} for j_high"
        )
    es = EarlyStopping(
        patience=es_config["patience"],
        tol=es_config["es_tol"],
        interval=es_config["interval"],
        rule=es_config.get(_RULE_KEY, EarlyStopping.rule),
    )
    return {
        "early_stopping": True,
        "n_iter_no_change": es.patience,
        "es_tol": es.tol,
        "validation_interval": es.interval,
        "es_rule": es.rule,
    }


def _check_configs(svm_configs: pd.DataFrame) -> None:
    if not isinstance(svm_configs, pd.DataFrame):
        raise TypeError(f"svm_configs must be a pandas DataFrame, got {type(svm_configs).__name__}")
    require_columns(svm_configs, list(_CONFIG_COLUMNS), "svm_configs")
    if svm_configs["gamma"].isna().any():
        raise ValueError(
            "svm_configs has empty gamma values: E3/E4 use the RBF kernel; pass the RBF "
            "configurations (results/configs/svm_rbf.csv)"
        )


class _RecordingFit:
    """Wraps an estimator and keeps the arrays of its fit, to replay that fit without ES.

    It holds references, not copies: random search fits every candidate on the
    same training array; successive halving's subsamples are small.
    """

    def __init__(self, estimator: Any, row: pd.Series) -> None:
        self.estimator = estimator
        self.row = row
        self.X: Any = None
        self.y: Any = None

    def fit(self, X: Any, y: Any, **fit_params: Any) -> _RecordingFit:
        self.estimator.fit(X, y, **fit_params)
        self.X, self.y = X, y
        return self

    def predict(self, X: Any) -> np.ndarray:
        return self.estimator.predict(X)

    def __getattr__(self, name: str) -> Any:
        # fitted attributes (n_iter_, stopped_early_, ...) come from the wrapped estimator
        if name in {"estimator", "row", "X", "y"}:
            raise AttributeError(name)
        return getattr(self.estimator, name)


def _es_overhead_seconds(
    recorded: Sequence[_RecordingFit],
    trials: pd.DataFrame,
    make_plain: Callable[[pd.Series, int], Any],
) -> float:
    """Sum over ES fits of (ES fit seconds - seconds of the same T iterations without ES)."""
    if len(recorded) != len(trials):
        raise RuntimeError(
            f"{len(recorded)} recorded fits but {len(trials)} trials: the search must fit "
            "every estimator it builds exactly once"
        )
    total = 0.0
    for fit, es_seconds in zip(recorded, trials["fit_seconds"].to_numpy(float), strict=True):
        plain = make_plain(fit.row, total_iterations(fit.estimator))
        total += es_seconds - timed_fit(plain, fit.X, fit.y)
    return total


def run_hpo_methods(
    X_tr: Any,
    y_tr: Any,
    X_val: Any,
    y_val: Any,
    X_te: Any,
    y_te: Any,
    svm_configs: pd.DataFrame,
    es_config: Mapping[str, Any],
    *,
    methods: Sequence[str] = METHODS,
    max_iter: int = SolverParams.max_iter,
    shrinking: bool = SolverParams.shrinking,
    random_state: int | None,
    estimator: Callable[..., Any] = SMOClassifier,
) -> pd.DataFrame:
    """E3/E4 on one fold: RS and SH over ``svm_configs``, each with and without early stopping.

    Each configuration row (``config_id, C, gamma, tol``) becomes
    ``estimator(kernel='rbf', C=..., gamma=..., tol=..., max_iter=..., shrinking=...)``, plus
    ``early_stopping=True, n_iter_no_change=patience, es_tol=es_tol,
    validation_interval=interval, es_rule=rule`` (``rule`` optional, default
    published) for the ES methods, whose fits read the validation part; a
    method named ``... fresh`` adds ``es_evaluation="fresh"``. SH uses ``random_state`` for its subsamples, so SH and
    SH+ES train on the same subsamples.

    ``es_overhead_seconds`` isolates the time the ES checks cost (the
    validation objective and bias every r iterations). The SMO path does not
    depend on ES, so for every ES fit that ran T iterations, the same
    configuration is refit on the same data without ES and with
    ``max_iter = T``: the difference of the two wall-clock times is that fit's
    overhead; the column sums them (noise can make a single difference
    negative; the sum stays an unbiased estimate). The refits are not part of
    ``fit_seconds``. The column is 0 for the methods without ES.

    Before any timing, each variant (with and without ES) is fitted once on a
    few rows of each class, so numba's compilation is not timed.

    Returns one row per method with columns :data:`HPO_COLUMNS`.
    """
    unknown = [m for m in methods if m not in METHODS]
    if unknown or not methods:
        raise ValueError(f"unknown methods {unknown}; choose from {list(METHODS)}")
    _check_configs(svm_configs)
    es_params = _check_es_config(es_config)
    y_tr = np.asarray(y_tr)

    def params(row: pd.Series, limit: int) -> dict[str, Any]:
        return {
            "kernel": "rbf",
            "C": float(row["C"]),
            "gamma": float(row["gamma"]),
            "tol": float(row["tol"]),
            "max_iter": int(limit),
            "shrinking": shrinking,
        }

    def make_plain(row: pd.Series, limit: int = max_iter) -> Any:
        return estimator(**params(row, limit))

    recorded: list[_RecordingFit] = []

    def make_es(row: pd.Series, evaluation: str = "auto") -> _RecordingFit:
        es = {**es_params, "es_evaluation": evaluation}
        fit = _RecordingFit(estimator(**params(row, max_iter), **es), row)
        recorded.append(fit)
        return fit

    # warm-up: compile every variant (and the prediction path) before timing
    tiny = warm_up_rows(y_tr)
    first = svm_configs.iloc[0]
    X_tiny = X_tr[tiny]
    make_plain(first).fit(X_tiny, y_tr[tiny]).predict(X_tiny)
    parts = [_method_parts(m) for m in methods]
    for evaluation in dict.fromkeys(evaluation for _, uses_es, evaluation in parts if uses_es):
        make_es(first, evaluation).fit(X_tiny, y_tr[tiny], X_val=X_val, y_val=y_val).predict(X_tiny)
    recorded.clear()

    data = (X_tr, y_tr, X_val, y_val, X_te, y_te)
    rows = [
        _run_method(method, svm_configs, data, make_plain, make_es, recorded, random_state)
        for method in methods
    ]
    return pd.DataFrame(rows, columns=HPO_COLUMNS)


def _method_parts(method: str) -> tuple[str, bool, str]:
    """A method's search (RS or SH), whether it stops early, and its checks' evaluation."""
    evaluation = "auto"
    for suffix, name in _EVALUATION_SUFFIX.items():
        if method.endswith(suffix):
            method, evaluation = method.removesuffix(suffix), name
    return method.removesuffix("+ES"), method.endswith("+ES"), evaluation


def _run_method(
    method: str,
    svm_configs: pd.DataFrame,
    data: tuple[Any, ...],
    make_plain: Callable[..., Any],
    make_es: Callable[..., Any],
    recorded: list[_RecordingFit],
    random_state: int | None,
) -> dict[str, Any]:
    """One HPO method's search on the fold ``data``, as a row of :data:`HPO_COLUMNS`."""
    search, uses_es, evaluation = _method_parts(method)
    X_val, y_val = data[2], data[3]
    recorded.clear()
    kwargs: dict[str, Any] = {}
    if uses_es:
        kwargs["fit_params"] = {"X_val": X_val, "y_val": y_val}
    if search == "SH":
        kwargs["random_state"] = random_state

    def make(row: pd.Series) -> Any:
        return make_es(row, evaluation) if uses_es else make_plain(row)

    run = random_search if search == "RS" else successive_halving
    result: SearchResult = run(make, svm_configs, *data, **kwargs)
    overhead = _es_overhead_seconds(recorded, result.trials, make_plain) if uses_es else 0.0
    stopped = result.trials["stopped_early"]
    return {
        "method": method,
        "search": search,
        "early_stopping": uses_es,
        "config_id": result.config_id,
        "val_accuracy": result.val_accuracy,
        "test_accuracy": result.test_accuracy,
        "fit_seconds": result.fit_seconds,
        "total_iterations": result.total_iterations,
        "es_overhead_seconds": overhead,
        "n_fits": len(result.trials),
        "n_stopped_early": int(stopped.fillna(False).sum()),
    }


def e3_scores(per_fold: pd.DataFrame, beta: float = THESIS_BETA) -> pd.DataFrame:
    """Per dataset and method: mean/std test accuracy, summed seconds, score and win.

    ``per_fold`` stacks :func:`run_hpo_methods`'s tables with ``dataset`` and
    ``fold`` columns. Seconds (``fit_seconds``) are summed over folds and
    become the cost of the score; the reference cost and score are those of
    RS without early stopping on the same dataset, for all four methods
    (protocol §6), so RS's own row ties with itself (``win`` 0.5). The std is
    over folds with ``ddof=0``, as in ``esmo.papers.thesis.scoring``.

    Returns ``dataset, method, test_accuracy_mean, test_accuracy_std,
    val_accuracy_mean, seconds, total_iterations, es_overhead_seconds,
    n_folds, seconds_ref, score, score_ref, win``.
    """
    require_columns(
        per_fold, ["dataset", "fold", "method", "fit_seconds", "test_accuracy"], "per_fold"
    )
    if per_fold.duplicated(["dataset", "fold", "method"]).any():
        raise ValueError(
            "per_fold has several rows for one (dataset, fold, method); did you concatenate "
            "a fold's table twice?"
        )
    out = random_search_outcome(per_fold, cost="fit_seconds", by=["dataset", "method"])
    out = out.rename(columns={"fit_seconds": "seconds"})
    for column in ("total_iterations", "es_overhead_seconds"):
        if column in per_fold.columns:
            summed = per_fold.groupby(["dataset", "method"], sort=True)[column].sum()
            out[column] = summed.to_numpy()
    folds = per_fold.groupby("dataset")["fold"].nunique()
    uneven = out[out["n_folds"] != out["dataset"].map(folds)]
    if not uneven.empty:
        raise ValueError(
            f"methods ran on different numbers of folds, e.g. {uneven.iloc[0].to_dict()}; "
            "summed seconds are comparable only over the same folds: rerun the missing folds"
        )
    ref = out[out["method"] == REFERENCE_METHOD].set_index("dataset")
    lacking = sorted(set(out["dataset"]) - set(ref.index))
    if lacking:
        raise ValueError(
            f"no {REFERENCE_METHOD!r} rows for dataset(s) {lacking}: E3/E4 score every method "
            "against random search without early stopping, so run it too"
        )
    out["seconds_ref"] = out["dataset"].map(ref["seconds"])
    acc_ref = out["dataset"].map(ref["test_accuracy_mean"])
    out["score"] = score(out["test_accuracy_mean"], out["seconds"], out["seconds_ref"], beta)
    out["score_ref"] = score(acc_ref, out["seconds_ref"], out["seconds_ref"], beta)
    out["win"] = np.sign(out["score"] - out["score_ref"]) * 0.5 + 0.5
    order = {m: k for k, m in enumerate(METHODS)}
    out = out.sort_values(
        ["dataset", "method"], key=lambda s: s.map(order) if s.name == "method" else s
    )
    return out.reset_index(drop=True)
