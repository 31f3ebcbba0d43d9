"""What one job of the ensembles paper computes: a repetition's split and one cell's fits.

A cell is one model on one repetition of one dataset: the ensemble at one tp
(optionally also its subbagging arm, fig 1) or the single SVM at one training
size. Cells of a repetition share its split (protocol sec 3: 10,000 random
training rows, the rest as test; fresh draws for the synthetic problems), and
the single SVM's rows are a nested prefix of the training rows, so the
comparison is paired. Seeds come from ``default_rng([seed, dataset, rep])``
for the split and ``[seed, dataset, cell, rep]`` for a model, ``cell`` named
without its search (:func:`seed_name`: a cell is shared by every experiment
that reads it, and a search variant pairs with the exhaustive cell), so
any job order or core count gives the same numbers (seconds aside).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from esmo.data import breiman, uci
from esmo.ensembles.estimator import SVMEnsembleClassifier
from esmo.ensembles.grid import SVMSettings, paper_grid
from esmo.ensembles.single_svm import tune_single_svm

#: Stable numeric ids, for seeds.
DATASET_IDS = {"magic04": 0, "bank": 1, "adult": 2, "twonorm": 3, "threenorm": 4, "ringnorm": 5}

#: Columns of a cell's table, one row per model.
CELL_COLUMNS = [
    "cell",
    "dataset",
    "rep",
    "method",
    "search",
    "sampling",
    "train_proportion",
    "n_parts",
    "n_train",
    "n_test",
    "accuracy",
    "cpu_seconds",
    "wall_seconds",
    "search_cpu_seconds",
    "n_fits",
    "n_iter",
    "kernel_evaluations",
    "search_n_iter",
    "search_kernel_evaluations",
    "max_iter_hits",
    "vote_ties",
    "params",
]


@dataclass(frozen=True)
class Split:
    """One repetition's preprocessed training and test rows."""

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray


def cell_id(text: str) -> int:
    """A stable integer for a cell's name (CRC-32), for its seed."""
    return zlib.crc32(text.encode())


def seed_name(cell: str) -> str:
    """The name a cell's seed comes from: its name with the search made exhaustive.

    A variant (``ens-halving-tp0.05``) then draws the same shares, folds and
    parts as the exhaustive cell of its repetition (``ens-exhaustive-tp0.05``),
    so sec 7 compares the searches paired; exhaustive cells keep their seeds.
    """
    kind, _, rest = cell.split("-", 2)
    return f"{kind}-exhaustive-{rest}"


def split_rows(
    dataset: str, rep: int, *, seed: int, n_rows: int, n_train: int
) -> tuple[np.ndarray, np.ndarray]:
    """Repetition ``rep``'s training and test row indices of a UCI table of ``n_rows`` rows
    (:func:`repetition_split`'s, before any preprocessing)."""
    if n_train >= n_rows:
        raise ValueError(f"n_train={n_train} leaves no test rows of {dataset!r} ({n_rows} rows)")
    perm = np.random.default_rng([seed, DATASET_IDS[dataset], rep]).permutation(n_rows)
    return perm[:n_train], perm[n_train:]


def cell_random_state(seed: int, dataset: str, cell: str, rep: int) -> int:
    """The ``random_state`` a cell's model gets: from ``[seed, dataset, cell, rep]``, the
    cell named by :func:`seed_name` (a search variant pairs with the exhaustive cell)."""
    entropy = [seed, DATASET_IDS[dataset], cell_id(seed_name(cell)), rep]
    return int(np.random.default_rng(entropy).integers(2**31 - 1))


def repetition_split(
    dataset: str,
    rep: int,
    *,
    seed: int,
    n_train: int,
    n_test: int,
    table: uci.Table | None = None,
    ringnorm_a: float = breiman.RINGNORM_SHIFT,
) -> Split:
    """Repetition ``rep``'s split: a random training part of a UCI table (the rest is test),
    encoded and standardised on the training rows, or fresh Breiman draws."""
    rng = np.random.default_rng([seed, DATASET_IDS[dataset], rep])
    if dataset in breiman.GENERATORS:
        extra = {"a": ringnorm_a} if dataset == "ringnorm" else {}
        X_train, y_train = breiman.GENERATORS[dataset](n_train, rng, **extra)
        X_test, y_test = breiman.GENERATORS[dataset](n_test, rng, **extra)
        return Split(X_train, y_train, X_test, y_test)
    if table is None:
        raise ValueError(f"{dataset!r} is a UCI dataset: pass its parsed table")
    train, test = split_rows(dataset, rep, seed=seed, n_rows=table.y.size, n_train=n_train)
    X_train, X_test = uci.preprocess(
        (table.numeric[train], table.categorical[train]),
        (table.numeric[test], table.categorical[test]),
    )
    return Split(X_train, table.y[train], X_test, table.y[test])


def warm_up(settings: SVMSettings) -> None:
    """Compile (or load) the solver's code paths before any timed fit, with and without early stopping."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    settings.svm(1.0, 0.5).fit(X[:20], y[:20]).decision_function(X[20:])
    settings.svm(1.0, 0.5, early_stopping=True).fit(X[:20], y[:20], X_val=X[20:], y_val=y[20:])


def _cost_row(cost: dict, search_cost: dict, fits: dict) -> dict[str, Any]:
    return {
        "cpu_seconds": cost["cpu_seconds"],
        "wall_seconds": cost["wall_seconds"],
        "search_cpu_seconds": search_cost["cpu_seconds"],
        "n_fits": int(cost["n_fits"]),
        "n_iter": int(cost["n_iter"]),
        "kernel_evaluations": int(cost["kernel_evaluations"]),
        "search_n_iter": int(search_cost["n_iter"]),
        "search_kernel_evaluations": int(search_cost["kernel_evaluations"]),
        "max_iter_hits": int(np.sum(fits["max_iter_reached"])),
    }


def ensemble_cell(
    split: Split,
    *,
    train_proportion: float,
    n_subensembles: int,
    grid_step: int,
    search: str,
    settings: SVMSettings,
    random_state: int,
    grid_tie: str = "first",
    sh_min_samples: int = 20,
    arms: tuple[str, ...] = ("structured",),
    n_train: int | None = None,
    predict: bool = True,
) -> list[dict[str, Any]]:
    """Fit the ensemble (first arm) and refit its members for the other arms; one row per arm.

    ``n_train`` uses the first rows of the training part only (fig 2);
    ``predict=False`` skips the test predictions (the time-only figures).
    """
    grid = paper_grid(grid_step)
    X, y = split.X_train, split.y_train
    if n_train is not None:
        X, y = X[:n_train], y[:n_train]
    model = SVMEnsembleClassifier(
        n_subensembles=n_subensembles,
        train_proportion=train_proportion,
        C_grid=np.unique(grid[:, 0]),
        gamma_grid=np.unique(grid[:, 1]),
        sampling=arms[0],
        grid_search=search,
        grid_tie=grid_tie,
        es_patience=settings.es_patience,
        es_tol=settings.es_tol,
        es_interval=settings.es_interval,
        sh_min_samples=sh_min_samples,
        tol=settings.tol,
        max_iter=settings.max_iter,
        cache_size_mb=settings.cache_size_mb,
        shrinking=settings.shrinking,
        random_state=random_state,
    ).fit(X, y)
    rows = []
    for arm in arms:
        fitted = model if arm == arms[0] else model.with_sampling(X, y, arm)
        accuracy, ties = float("nan"), -1
        if predict:
            margin = fitted.decision_function(split.X_test)
            accuracy = float(np.mean(fitted.classes_[(margin > 0).astype(int)] == split.y_test))
            ties = int(np.sum(np.abs(margin) == 0.5))
        rows.append(
            {
                "method": "ensemble",
                "search": search,
                "sampling": arm,
                "train_proportion": train_proportion,
                "n_parts": fitted.n_parts_,
                "n_train": y.size,
                "n_test": split.y_test.size if predict else 0,
                "accuracy": accuracy,
                "vote_ties": ties,
                "params": ";".join(f"{C:g}/{g:g}" for C, g in fitted.subensemble_params_),
                **_cost_row(fitted.cost_, fitted.search_cost_, fitted.fits_),
            }
        )
    return rows


def single_svm_cell(
    split: Split,
    *,
    n_train: int,
    grid_step: int,
    n_folds: int,
    search: str,
    settings: SVMSettings,
    random_state: int,
    grid_tie: str = "first",
    predict: bool = True,
) -> list[dict[str, Any]]:
    """The single SVM on the first ``n_train`` training rows: K-fold search, refit, test accuracy."""
    X, y = split.X_train[:n_train], split.y_train[:n_train]
    tuned = tune_single_svm(
        X,
        y,
        paper_grid(grid_step),
        n_folds=n_folds,
        early_stopped=search == "early_stopped",
        grid_tie=grid_tie,
        settings=settings,
        random_state=random_state,
    )
    accuracy = float(tuned.model.score(split.X_test, split.y_test)) if predict else float("nan")
    fits = tuned.log.table()
    return [
        {
            "method": "svm",
            "search": search,
            "sampling": "",
            "train_proportion": float("nan"),
            "n_parts": 1,
            "n_train": y.size,
            "n_test": split.y_test.size if predict else 0,
            "accuracy": accuracy,
            "vote_ties": 0,
            "params": f"{tuned.C:g}/{tuned.gamma:g}",
            **_cost_row(tuned.log.totals(), tuned.log.totals("search"), fits),
        }
    ]
