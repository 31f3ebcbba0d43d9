"""Random search and successive halving on a fixed train/validation split (E3, E4).

Both drivers train candidates on the training part, compare them by accuracy on
the validation part and score only the chosen one on the test part (protocol
§2, §6). They work with any scikit-learn style classifier, built per
configuration by ``make_estimator(row)``; ``fit_params`` (for example the
validation arrays for early stopping) reach every ``fit``.

Successive halving follows the thesis's eq. 2.21-2.22 with samples as the
resource: for k candidates there are ``R = floor(log2 k) + 1`` rounds; round t
keeps ``k_t = floor(k / 2**t)`` candidates and trains each on
``N_t = floor(n_train / k_t)`` training samples, so the last round
(``k_t = 1``) trains one candidate on the whole training part. When k is not a
power of two the floor drops odd candidates early: k = 100 runs 100, 50, 25,
12, 6, 3 and 1 candidates on n/100, n/50, n/25, n/12, n/6, n/3 and n samples.

Why not scikit-learn's ``HalvingRandomSearchCV``: it can be given the fixed
split (``cv=[(train_idx, val_idx)]`` on the stacked arrays, ``refit=False``),
but it cannot reproduce eq. 2.21-2.22. It keeps ``ceil(n / factor)``
candidates (100, 50, 25, 13, 7, 4, 2: two left at the end), allocates
``min_resources * factor**t`` samples (a geometric series, not ``n_train /
k_t``, so the last round need not use the whole training part), subsamples
without stratification (so a round can miss a class), breaks score ties
towards later candidates, and neither exposes the per-fit ``n_iter_`` nor lets
the early-stopping validation part be kept out of the sliced ``fit`` params by
construction. The schedule below and the successive-halving loop both papers
share (:func:`esmo.tuning.halving.run_halving`) are short, and say exactly
what the thesis does.

Within a round all candidates see the same stratified subsample (as in
scikit-learn), so they differ only by configuration. Each subsample holds at
least two samples of every class (:func:`esmo.tuning.halving.stratified_rows`,
its ``"resample"`` draw).

Timing: ``fit_seconds`` sums ``time.perf_counter`` around each ``fit`` only;
predicting is not counted. JIT compilation is the caller's business: warm the
estimator up (one small fit) before timing a search.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from sklearn.metrics import accuracy_score
from sklearn.utils import check_random_state

from esmo.tuning.halving import MIN_PER_CLASS, HalvingRound, run_halving, stratified_rows

#: Columns of :attr:`SearchResult.trials`, one row per fit.
TRIAL_COLUMNS = [
    "round",
    "config_id",
    "n_samples",
    "val_accuracy",
    "fit_seconds",
    "n_iter",
    "stopped_early",
]


@dataclass
class SearchResult:
    """Outcome of one search on one fold.

    ``config_id`` is the chosen configuration, ``val_accuracy`` its validation
    accuracy in the round that chose it and ``test_accuracy`` its accuracy on
    the test part (NaN without test data). ``fit_seconds`` and
    ``total_iterations`` sum over every fit of the search (``total_iterations``
    is NaN unless every fitted estimator reports ``n_iter_``). ``trials`` has
    one row per fit, columns :data:`TRIAL_COLUMNS`.
    """

    config_id: Any
    val_accuracy: float
    test_accuracy: float
    fit_seconds: float
    total_iterations: float
    trials: pd.DataFrame


def successive_halving_schedule(
    n_candidates: int, n_train: int, *, min_samples: int = 2 * MIN_PER_CLASS
) -> list[HalvingRound]:
    """The rounds of eq. 2.21-2.22: ``floor(k / 2**t)`` candidates on ``floor(n / k_t)`` samples.

    ``floor(log2 k) + 1`` rounds, down to one candidate on all ``n_train``
    samples. ``min_samples`` is the smallest subsample the first round may use
    (default: two samples of each of two classes).
    """
    for name, value in (("n_candidates", n_candidates), ("n_train", n_train)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    k = int(n_candidates)  # bit_length = floor(log2 k) + 1, k >> t = floor(k / 2**t)
    rounds = [HalvingRound(k >> t, n_train // (k >> t)) for t in range(k.bit_length())]
    if rounds[0].budget < min_samples:
        raise ValueError(
            f"n_train={n_train} is too small for {n_candidates} candidates: the first round "
            f"would train on {rounds[0].budget} samples, fewer than {min_samples}; use "
            f"fewer candidates (at most {n_train // min_samples}) or more training data"
        )
    return rounds


def _config_ids(configs: pd.DataFrame) -> np.ndarray:
    """``config_id`` column if present, else the index; must be unique."""
    if not isinstance(configs, pd.DataFrame):
        raise TypeError(f"configs must be a pandas DataFrame, got {type(configs).__name__}")
    if configs.empty:
        raise ValueError("configs is empty: a search needs at least one configuration")
    ids = configs["config_id"] if "config_id" in configs.columns else configs.index.to_series()
    if not ids.is_unique:
        raise ValueError("config ids must be unique; fix the config_id column of configs")
    return ids.to_numpy()


def _check_xy(X: Any, y: Any, part: str) -> tuple[Any, np.ndarray]:
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y_{part} must be a 1-D label array, got shape {y.shape}")
    n_rows = X.shape[0] if hasattr(X, "shape") else len(X)
    if n_rows != y.size:
        raise ValueError(
            f"X_{part} has {n_rows} rows but y_{part} has {y.size} labels; pass one label per row"
        )
    if y.size == 0:
        raise ValueError(f"the {part} part is empty")
    return X, y


def _check_parts(X_train, y_train, X_val, y_val, X_test, y_test):
    X_train, y_train = _check_xy(X_train, y_train, "train")
    X_val, y_val = _check_xy(X_val, y_val, "val")
    if (X_test is None) != (y_test is None):
        raise ValueError("pass both X_test and y_test, or neither")
    if X_test is not None:
        X_test, y_test = _check_xy(X_test, y_test, "test")
    return X_train, y_train, X_val, y_val, X_test, y_test


def _rows(X: Any, idx: np.ndarray) -> Any:
    return X.iloc[idx] if hasattr(X, "iloc") else X[idx]


def _fit_and_validate(
    estimator: Any, X: Any, y: np.ndarray, X_val: Any, y_val: np.ndarray, fit_params: Mapping
) -> dict[str, Any]:
    """Fit (timed) and score on validation; the trial record without round and id."""
    start = time.perf_counter()
    estimator.fit(X, y, **fit_params)
    seconds = time.perf_counter() - start
    n_iter = getattr(estimator, "n_iter_", None)
    stopped = getattr(estimator, "stopped_early_", None)
    return {
        "n_samples": int(y.size),
        "val_accuracy": float(accuracy_score(y_val, estimator.predict(X_val))),
        "fit_seconds": seconds,
        # SVC reports one count per class pair; a binary problem has one.
        "n_iter": int(np.sum(n_iter)) if n_iter is not None else pd.NA,
        "stopped_early": bool(stopped) if stopped is not None else pd.NA,
    }


def _result(
    trials: list[dict[str, Any]],
    config_id: Any,
    val_accuracy: float,
    estimator: Any,
    X_test: Any,
    y_test: np.ndarray | None,
) -> SearchResult:
    table = pd.DataFrame(trials, columns=TRIAL_COLUMNS)
    table["n_iter"] = table["n_iter"].astype("Int64")
    table["stopped_early"] = table["stopped_early"].astype("boolean")
    if X_test is None:
        test_accuracy = float("nan")
    else:
        test_accuracy = float(accuracy_score(y_test, estimator.predict(X_test)))
    iters = table["n_iter"]
    return SearchResult(
        config_id=config_id,
        val_accuracy=float(val_accuracy),
        test_accuracy=test_accuracy,
        fit_seconds=float(table["fit_seconds"].sum()),
        total_iterations=float(iters.sum()) if iters.notna().all() else float("nan"),
        trials=table,
    )


def random_search(
    make_estimator: Callable[[pd.Series], Any],
    configs: pd.DataFrame,
    X_train: Any,
    y_train: Any,
    X_val: Any,
    y_val: Any,
    X_test: Any = None,
    y_test: Any = None,
    *,
    fit_params: Mapping[str, Any] | None = None,
) -> SearchResult:
    """Train every configuration on the training part and keep the best on validation.

    Ties in validation accuracy go to the earlier row of ``configs``. Only the
    chosen model is scored on the test part.
    """
    ids = _config_ids(configs)
    X_train, y_train, X_val, y_val, X_test, y_test = _check_parts(
        X_train, y_train, X_val, y_val, X_test, y_test
    )
    fit_params = dict(fit_params or {})
    trials: list[dict[str, Any]] = []
    best: tuple[float, Any, Any] | None = None  # (val accuracy, config id, fitted model)
    for position in range(len(configs)):
        estimator = make_estimator(configs.iloc[position])
        record = _fit_and_validate(estimator, X_train, y_train, X_val, y_val, fit_params)
        trials.append({"round": 0, "config_id": ids[position], **record})
        if best is None or record["val_accuracy"] > best[0]:  # strict: ties keep the earlier
            best = (record["val_accuracy"], ids[position], estimator)
    assert best is not None  # configs is not empty
    return _result(trials, best[1], best[0], best[2], X_test, y_test)


def successive_halving(
    make_estimator: Callable[[pd.Series], Any],
    configs: pd.DataFrame,
    X_train: Any,
    y_train: Any,
    X_val: Any,
    y_val: Any,
    X_test: Any = None,
    y_test: Any = None,
    *,
    random_state: int | np.random.RandomState | None,
    fit_params: Mapping[str, Any] | None = None,
) -> SearchResult:
    """Successive halving over the rows of ``configs`` (eq. 2.21-2.22, samples as resource).

    Round t trains the ``k_t`` best candidates of round t - 1 (by validation
    accuracy, ties to the earlier row of ``configs``) on one stratified random
    subsample of ``floor(n_train / k_t)`` training samples; the single
    candidate of the last round is trained on the whole training part, chosen,
    and scored on the test part. ``random_state`` fixes the subsamples.
    """
    ids = _config_ids(configs)
    X_train, y_train, X_val, y_val, X_test, y_test = _check_parts(
        X_train, y_train, X_val, y_val, X_test, y_test
    )
    classes, counts = np.unique(y_train, return_counts=True)
    if classes.size < 2 or counts.min() < MIN_PER_CLASS:
        found = dict(zip(classes.tolist(), counts.tolist(), strict=True))
        raise ValueError(
            f"successive halving needs at least {MIN_PER_CLASS} training samples of each of "
            f"two or more classes, got class counts {found}"
        )
    schedule = successive_halving_schedule(
        len(configs), y_train.size, min_samples=MIN_PER_CLASS * classes.size
    )
    rng = check_random_state(random_state)
    fit_params = dict(fit_params or {})
    last: dict[int, Any] = {}  # the last round's fitted model: one candidate, all samples

    def subsample(n_rows: int) -> tuple[Any, np.ndarray]:
        rows = stratified_rows(y_train, n_rows, rng, draw="resample")
        return _rows(X_train, rows), y_train[rows]

    def fit_and_score(t: int, position: int, part: tuple[Any, np.ndarray]) -> tuple[float, dict]:
        estimator = make_estimator(configs.iloc[position])
        record = _fit_and_validate(estimator, *part, X_val, y_val, fit_params)
        if t == len(schedule) - 1:
            last[position] = estimator
        return record["val_accuracy"], {"round": t, "config_id": ids[position], **record}

    run = run_halving(range(len(configs)), schedule, subsample, fit_and_score, tie="first")
    trials = [trial.cost for trial in run.trials]
    return _result(trials, ids[run.winner], run.score, last[run.winner], X_test, y_test)
