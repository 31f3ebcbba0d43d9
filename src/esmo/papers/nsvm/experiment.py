"""The NSVM paper's experiment pieces the workflow calls: splits, classifiers from config, one run's record.

A *split* (one dataset, one seed) is an npz with ``X_train, y_train, X_test,
y_test`` and ``tune``, the indices of the tuning rows inside the training set
(half per class). Final models train on all of ``X_train``; early stopping
trains on the rest and reads the tuning rows (docs/nsvm-protocol.md sec 7).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pandas as pd
import torch

from esmo.early_stopping import EarlyStopping
from esmo.estimators.pegasos_classifier import PegasosClassifier
from esmo.nsvm.estimators import TrainingDiverged, make_classifier
from esmo.nsvm.networks import mnist_cnn, ringnorm_mlp
from esmo.papers.common.tables import require_columns

#: network factory and input shape per dataset
NETWORKS: dict[str, tuple[Any, tuple[int, ...] | None]] = {
    "ringnorm": (ringnorm_mlp, None),
    "mnist": (mnist_cnn, (1, 28, 28)),
}
ALGORITHMS = ("nsvm1", "nsvm2", "nsvm3", "nsvm4")


def stratified_pick(y: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` indices, half from each class (sorted), drawn without replacement."""
    half = n // 2
    picks = []
    for label, count in ((-1.0, n - half), (1.0, half)):
        pool = np.flatnonzero(y == label)
        if count > pool.size:
            raise ValueError(f"asked for {count} rows of class {label:+g}, which has {pool.size}")
        picks.append(rng.choice(pool, count, replace=False))
    return np.sort(np.concatenate(picks))


def make_split(
    X: np.ndarray,
    y: np.ndarray,
    X_test: np.ndarray | None,
    y_test: np.ndarray | None,
    *,
    n_test: int,
    n_train: int | None,
    n_tune: int,
    standardise: bool,
    seed: int,
) -> dict[str, np.ndarray]:
    """Test rows (stratified ``n_test``, unless a test set is given), ``n_train`` training rows
    (stratified; None keeps all), ``n_tune`` tuning indices; features standardised on the
    training rows (sample std, ddof 1) if ``standardise``."""
    rng = np.random.default_rng(seed)
    if X_test is None:
        test = stratified_pick(y, n_test, rng)
        rest = np.setdiff1d(np.arange(len(y)), test)
        X_test, y_test = X[test], y[test]
        X, y = X[rest], y[rest]
    if n_train is not None and n_train < len(y):
        keep = stratified_pick(y, n_train, rng)
        X, y = X[keep], y[keep]
    order = rng.permutation(len(y))
    X, y = X[order], y[order]
    if standardise:
        mean, sd = X.mean(0), X.std(0, ddof=1)
        sd[sd == 0] = 1.0
        X, X_test = (X - mean) / sd, (X_test - mean) / sd
    tune = stratified_pick(y, n_tune, rng)
    return {"X_train": X, "y_train": y, "X_test": X_test, "y_test": y_test, "tune": tune}


def scaled_steps(steps: int, steps_scale: float) -> int:
    """A step count times ``steps_scale``: at least 2 (a batch algorithm's minimum)."""
    return max(2, round(steps * steps_scale))


def tuning_parts(split: dict[str, np.ndarray]) -> tuple[np.ndarray, ...]:
    """``(X, y, X_tune, y_tune)``: a split's training rows without its tuning rows, and those."""
    X, y, tune = split["X_train"], split["y_train"], split["tune"]  # an npz loads per access
    rest = np.setdiff1d(np.arange(len(y)), tune)
    return X[rest], y[rest], X[tune], y[tune]


def classifier(
    dataset: str, algorithm: str, settings: dict[str, Any], seed: int, steps_scale: float
):
    """The algorithm's classifier for ``dataset``: the paper's network, the config's settings,
    every step count multiplied by ``steps_scale`` (at least 1 step; 2 for batches)."""
    torch.set_num_threads(1)  # one core per job: the workflow runs jobs side by side
    network, shape = NETWORKS[dataset]
    params = dict(settings)
    for key in ("n_steps", "part2_steps"):
        if key in params:
            params[key] = scaled_steps(params[key], steps_scale)
    return make_classifier(
        algorithm, network=network, input_shape=shape, random_state=seed, **params
    )


def tune_learning_rate(
    dataset: str,
    algorithm: str,
    settings: dict[str, Any],
    split: dict[str, np.ndarray],
    grid: list[float],
    seed: int,
    steps_scale: float,
) -> pd.DataFrame:
    """The protocol's learning-rate choice for one algorithm on one split: train on the training
    rows without the tuning rows at each ``lr`` of ``grid``, score the tuning rows; the best
    accuracy wins, ties go to the smaller ``lr``, and a diverged fit scores NaN (never chosen)."""
    X, y, X_tune, y_tune = tuning_parts(split)
    rows = []
    for lr in sorted(float(v) for v in grid):
        clf = classifier(dataset, algorithm, {**settings, "lr": lr}, seed, steps_scale)
        try:
            accuracy = float(clf.fit(X, y).score(X_tune, y_tune))
        except TrainingDiverged:
            accuracy = np.nan
        rows.append({"method": algorithm, "lr": lr, "tune_accuracy": accuracy})
    table = pd.DataFrame(rows)
    if table["tune_accuracy"].isna().all():
        raise ValueError(
            f"every learning rate of {sorted(grid)} diverged for {algorithm} on {dataset}; "
            "add smaller values to nsvm.lr_tuning.grid."
        )
    table["chosen"] = table.index == table["tune_accuracy"].idxmax()  # first maximum: smaller lr
    return table


def chosen_learning_rates(table: pd.DataFrame) -> dict[str, float]:
    """Each algorithm's chosen ``lr`` from :func:`tune_learning_rate`'s tables."""
    chosen = table[table["chosen"]]
    return dict(zip(chosen["method"], chosen["lr"].astype(float), strict=True))


def with_tuned_learning_rates(
    settings: dict[str, dict[str, Any]], tuning: str | None
) -> dict[str, dict[str, Any]]:
    """Each algorithm's settings with its chosen ``lr`` from the table of
    :func:`tune_learning_rate` at path ``tuning`` (None: the settings as given)."""
    if tuning is None:
        return settings
    chosen = chosen_learning_rates(pd.read_csv(tuning))
    return {a: {**params, "lr": chosen.get(a, params["lr"])} for a, params in settings.items()}


def fit_record(clf, X, y, X_test, y_test) -> dict[str, Any]:
    """Fit ``clf`` and describe the run: test accuracy and errors, steps, theta updates, seconds."""
    clf.fit(X, y)
    t0 = time.perf_counter()
    pred = clf.predict(X_test)
    return {
        "lr": float(clf.lr),
        "n_train": int(len(y)),
        "n_test": int(len(y_test)),
        "test_accuracy": float(np.mean(pred == y_test)),
        "test_errors": int(np.sum(pred != y_test)),
        "n_steps": int(clf.n_steps_),
        "n_part1_steps": int(getattr(clf, "n_part1_steps_", 0)),
        "theta_updates": int(clf.n_theta_updates_),
        "violations": int(clf.n_violations_),
        "fit_seconds": float(clf.fit_seconds_),
        "fit_cpu_seconds": float(clf.fit_cpu_seconds_),
        "predict_seconds": time.perf_counter() - t0,
    }


def part1_early_stopping(
    dataset: str,
    settings: dict[str, Any],
    data: tuple[np.ndarray, ...],
    configs: list[EarlyStopping],
    seed: int,
    steps_scale: float,
    max_factor: float,
    full: Any,
) -> pd.DataFrame:
    """NSVM-4 with Part I stopped on the validation alignment by each configuration and then
    Part II run as early-stopped Pegasos by the same configuration (docs/nsvm-protocol.md sec 7),
    against ``full``, the same NSVM-4 fitted with both parts to the end (the early-stopping
    job's tracked run); one row per configuration in the early-stopping table's columns
    (method ``nsvm4_part1``), with Part II's stop beside Part I's (``part2_stop_step``).

    ``data`` is ``(X, y, X_val, y_val, X_test, y_test)``; each part may run to ``max_factor``
    times its paper T (scaled by ``steps_scale``). Each configuration is its own fit: Part II
    trains on the stopped network's features, which no single run can give. Part II is
    Pegasos rather than SMO: the protocol allows either, and Pegasos keeps the row's model the
    paper's NSVM-4 (no bias), stopped by the rule the ``nsvm4`` rows read. Test accuracy is
    the model at both stops; ``test_accuracy_at_end`` stays ``full``'s, as in the ``nsvm4``
    rows. Seconds count Part I and Part II's sweep as taken linear in its steps (the ``nsvm4``
    rows' convention).
    """
    X, y, X_val, y_val, X_test, y_test = data
    scale = steps_scale * max_factor
    if full.n_part1_steps_ != scaled_steps(settings["n_steps"], scale):
        raise ValueError(
            f"full must be NSVM-4 fitted with Part I to the end ({full.n_part1_steps_} steps "
            f"of {scaled_steps(settings['n_steps'], scale)}); fit it without part1_early_stopping."
        )
    at_end = float(full.score(X_test, y_test))
    part2_max = scaled_steps(settings["part2_steps"], scale)
    rows = []
    for config in configs:
        clf = classifier(dataset, "nsvm4", settings, seed, scale)
        clf.set_params(part1_early_stopping=config, early_stopping=config)
        clf.fit(X, y, X_val, y_val)
        rows.append(
            {
                "method": "nsvm4_part1",
                "patience": config.patience,
                "es_tol": config.tol,
                "interval": config.interval,
                "paper_steps": scaled_steps(settings["n_steps"], steps_scale),
                "max_steps": full.n_part1_steps_,
                "stop_step": clf.n_part1_steps_,
                "stopped_early": clf.part1_stopped_early_,
                "part2_paper_steps": scaled_steps(settings["part2_steps"], steps_scale),
                "part2_max_steps": part2_max,
                "part2_stop_step": clf.n_steps_,
                "part2_stopped_early": clf.stopped_early_,
                "val_accuracy": float(clf.score(X_val, y_val)),
                "test_accuracy": float(clf.score(X_test, y_test)),
                "test_accuracy_at_end": at_end,
                "seconds_at_stop": clf.part1_seconds_
                + clf.n_steps_ / part2_max * clf.part2_sweep_seconds_,
                "seconds_at_end": full.part1_seconds_ + full.part2_sweep_seconds_,
            }
        )
    return pd.DataFrame(rows)


def early_stopping_configs(patience: list[int], es_tol: list[float], interval: int) -> list:
    """Every (patience, es_tol) pair at one check interval, on validation accuracy."""
    return [
        EarlyStopping(int(p), float(t), interval=int(interval)) for p in patience for t in es_tol
    ]


def plain_pegasos_gamma(n_features: int) -> float:
    """The RBF width of kernel Pegasos without a network in the early-stopping study: 1/d."""
    return 1.0 / n_features


#: a fit the retrain runs: (algorithm, steps, Part II steps or None)
FitKey = tuple[str, int, int | None]

#: the early-stopping table's columns the retrain reads
RETRAIN_INPUT = ["method", "patience", "es_tol", "stop_step", "paper_steps"]


def _step_count(value: Any, what: str) -> int:
    """A stop step from the early-stopping table: a whole number >= 1, else the fix."""
    if pd.isna(value) or float(value) < 1 or float(value) != int(value):
        raise ValueError(
            f"{what} must be a whole number of steps >= 1, got {value!r}: this is not the "
            "early-stopping job's table; rerun rule nsvm_early_stopping for it."
        )
    return int(value)


def _retrain_keys(row: Any, part1_steps: int) -> tuple[FitKey, FitKey]:
    """One early-stopping row's retrain and its paper-T comparison as fits (``part1_steps``:
    NSVM-4's Part I at the paper's T, which the ``nsvm4`` rows, stopping Part II, keep)."""
    where = f"{row.method} (patience {row.patience}, es_tol {row.es_tol})"
    stop = _step_count(row.stop_step, f"stop_step of {where}")
    paper = _step_count(row.paper_steps, f"paper_steps of {where}")
    if row.method == "nsvm4":
        return ("nsvm4", part1_steps, stop), ("nsvm4", part1_steps, paper)
    if row.method == "nsvm4_part1":
        part2 = _step_count(getattr(row, "part2_stop_step", None), f"part2_stop_step of {where}")
        part2_paper = _step_count(
            getattr(row, "part2_paper_steps", None), f"part2_paper_steps of {where}"
        )
        return ("nsvm4", stop, part2), ("nsvm4", paper, part2_paper)
    if row.method in (*ALGORITHMS, "pegasos"):
        return (row.method, stop, None), (row.method, paper, None)
    raise ValueError(
        f"unknown method {row.method!r} in the early-stopping table; the retrain knows "
        f"{[*ALGORITHMS, 'nsvm4_part1', 'pegasos']}."
    )


def _reused_runs(
    runs: pd.DataFrame | None, settings: dict[str, dict[str, Any]], n_train: int
) -> dict[FitKey, float]:
    """The test accuracy of nsvm_train's runs (full training set, paper's T) by fit, refusing a
    table trained with other learning rates or on another training set."""
    if runs is None:
        return {}
    done = {}
    for run in runs.itertuples(index=False):
        if run.lr != settings[run.method]["lr"] or run.n_train != n_train:
            raise ValueError(
                f"runs' {run.method} trained with lr={run.lr:g} on {run.n_train} rows, the "
                f"retrain's with lr={settings[run.method]['lr']:g} on {n_train}: pass the "
                "nsvm_train runs of this split and these settings, or None to fit instead."
            )
        if run.method == "nsvm4":
            done["nsvm4", int(run.n_part1_steps), int(run.n_steps)] = float(run.test_accuracy)
        else:
            done[run.method, int(run.n_steps), None] = float(run.test_accuracy)
    return done


def _fit_accuracy(
    key: FitKey,
    dataset: str,
    settings: dict[str, dict[str, Any]],
    split: dict[str, np.ndarray],
    seed: int,
    steps_scale: float,
    lam: float,
) -> float:
    """Test accuracy of ``key``'s fit on the whole training set (as nsvm_train and the
    early-stopping job's plain Pegasos build it), its step counts set exactly."""
    algorithm, steps, part2 = key
    X, y, X_test, y_test = (split[k] for k in ("X_train", "y_train", "X_test", "y_test"))
    if algorithm == "pegasos":
        gamma = plain_pegasos_gamma(X.shape[1])
        clf = PegasosClassifier(lam=lam, gamma=gamma, n_steps=steps, random_state=seed)
        return float(clf.fit(X, y).score(X_test, y_test))
    clf = classifier(dataset, algorithm, settings[algorithm], seed, steps_scale)
    clf.set_params(n_steps=steps, **({} if part2 is None else {"part2_steps": part2}))
    return fit_record(clf, X, y, X_test, y_test)["test_accuracy"]


def retrain_at_stops(
    dataset: str,
    settings: dict[str, dict[str, Any]],
    split: dict[str, np.ndarray],
    stops: pd.DataFrame,
    seed: int,
    steps_scale: float,
    lam: float,
    runs: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The protocol's final retrain (note, sec 7): each early-stopping row's stop fixes T, and
    the same algorithm trains on the whole training set (tuning rows included) for T steps.

    ``stops`` is the early-stopping job's table of one split; one row out per row in, with
    ``test_accuracy_retrained`` and ``test_accuracy_at_paper_steps`` (the same retrain at the
    row's ``paper_steps``, the fixed-T model the retrain competes with). NSVM-4 rows stop
    Part II (Part I at the paper's T); ``nsvm4_part1`` rows stop both parts and retrain with
    both stops. The steps are the stop's as they are, not rescaled to the larger training set
    (Pegasos's paper T, epochs x m, is the tuning run's m). Configurations share stops: each
    distinct fit runs once. ``runs``, nsvm_train's table of this split, gives the fits at the
    paper's T without fitting again (``retrained_from`` 'nsvm_train'); the rest are fitted.
    """
    require_columns(stops, RETRAIN_INPUT, "stops")
    part1_steps = scaled_steps(settings["nsvm4"]["n_steps"], steps_scale)
    done = _reused_runs(runs, settings, len(split["y_train"]))
    source = dict.fromkeys(done, "nsvm_train")
    rows = []
    for row in stops.itertuples(index=False):
        keys = _retrain_keys(row, part1_steps)
        for key in keys:
            if key not in done:
                done[key] = _fit_accuracy(key, dataset, settings, split, seed, steps_scale, lam)
                source[key] = "fit"
        retrain, paper = keys
        rows.append(
            {
                "dataset": dataset,
                "seed": seed,
                "method": row.method,
                "patience": row.patience,
                "es_tol": row.es_tol,
                # as nsvm_train's records count them: NSVM-4's steps are Part II's
                "retrain_steps": retrain[1] if retrain[2] is None else retrain[2],
                "retrain_part1_steps": np.nan if retrain[2] is None else retrain[1],
                "test_accuracy_retrained": done[retrain],
                "retrained_from": source[retrain],
                "test_accuracy_at_paper_steps": done[paper],
            }
        )
    return pd.DataFrame(rows)
