"""Stratified 5-fold 60/20/20 splits (thesis fig. 3.1, protocol §2).

In run k, fold k is the test part, fold (k + 1) mod n_folds the validation
part and the remaining folds the training part. The splits are computed once
per dataset and stored, so every downstream job reads the same indices.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import numpy as np
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import MinMaxScaler

#: Accepted values of ``normalise`` in :func:`fold_arrays`.
NORMALISE_MODES = ("dataset", "train")


def fold_splits(y: np.ndarray, n_folds: int = 5, *, seed: int) -> dict[str, np.ndarray]:
    """Index arrays ``train_k``, ``val_k``, ``test_k`` for every run k in 0..n_folds-1.

    The folds come from ``StratifiedKFold(n_folds, shuffle=True,
    random_state=seed)``; indices within each part are sorted.
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be a 1-D label array, got shape {y.shape}")
    if isinstance(n_folds, bool) or not isinstance(n_folds, int | np.integer) or n_folds < 3:
        raise ValueError(
            f"n_folds must be an integer >= 3 (one fold each for test and validation, "
            f"the rest for training), got {n_folds!r}"
        )
    if y.size < n_folds:
        raise ValueError(
            f"cannot split {y.size} samples into {n_folds} folds; the dataset is too small"
        )
    classes, counts = np.unique(y, return_counts=True)
    if classes.size < 2:
        raise ValueError(f"y holds a single class ({classes.tolist()}); a split needs two")
    if counts.min() < n_folds:
        smallest = classes[np.argmin(counts)]
        raise ValueError(
            f"class {smallest!r} has {counts.min()} members, fewer than n_folds={n_folds}, so "
            "some folds would miss it; use fewer folds or a larger dataset"
        )
    skf = StratifiedKFold(n_splits=int(n_folds), shuffle=True, random_state=seed)
    folds = [test for _, test in skf.split(np.zeros((y.size, 1)), y)]
    splits: dict[str, np.ndarray] = {}
    for k in range(n_folds):
        val = (k + 1) % n_folds
        train = [folds[j] for j in range(n_folds) if j not in (k, val)]
        splits[f"train_{k}"] = np.sort(np.concatenate(train))
        splits[f"val_{k}"] = np.sort(folds[val])
        splits[f"test_{k}"] = np.sort(folds[k])
    return splits


def n_runs(splits: Mapping[str, np.ndarray]) -> int:
    """Number of runs (folds) held in ``splits``."""
    return sum(1 for key in splits if key.startswith("test_"))


def save_splits(path: str | os.PathLike[str], splits: Mapping[str, np.ndarray]) -> None:
    """Write the index arrays to a compressed ``.npz`` file."""
    np.savez_compressed(
        path, **{key: np.asarray(idx, dtype=np.int64) for key, idx in splits.items()}
    )


def load_splits(path: str | os.PathLike[str]) -> dict[str, np.ndarray]:
    """Read index arrays written by :func:`save_splits`."""
    with np.load(path) as data:
        return {key: data[key] for key in data.files}


def fold_arrays(
    X: np.ndarray,
    y: np.ndarray,
    splits: Mapping[str, np.ndarray],
    k: int,
    normalise: str = "dataset",
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Training, validation and test arrays of run ``k``.

    With ``normalise='dataset'`` ``X`` is taken as already normalised over the
    whole dataset (the thesis); with ``normalise='train'`` a min-max scaler is
    fitted on the training part and applied to all three parts, so no
    information from validation or test leaks into the scaling.
    """
    if normalise not in NORMALISE_MODES:
        raise ValueError(f"normalise must be one of {NORMALISE_MODES}, got {normalise!r}")
    runs = n_runs(splits)
    if not 0 <= k < runs:
        raise ValueError(f"run k={k} out of range; the splits hold runs 0..{runs - 1}")
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} labels")
    train, val, test = splits[f"train_{k}"], splits[f"val_{k}"], splits[f"test_{k}"]
    if max(train.max(), val.max(), test.max()) >= X.shape[0]:
        raise ValueError(
            f"the splits index beyond the {X.shape[0]} rows of X; they belong to another dataset"
        )
    X_tr, X_val, X_te = X[train], X[val], X[test]
    if normalise == "train":
        scaler = MinMaxScaler().fit(X_tr)
        X_tr, X_val, X_te = (
            np.clip(scaler.transform(X_tr), 0.0, 1.0),
            scaler.transform(X_val),
            scaler.transform(X_te),
        )
    return X_tr, y[train], X_val, y[val], X_te, y[test]


def load_fold(
    data_path: str | os.PathLike[str],
    splits_path: str | os.PathLike[str],
    k: int,
    normalise: str = "dataset",
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Run ``k``'s arrays read from a prepared dataset file and its splits file.

    What every training and timing job starts with, so they all read one run
    the same way (see :func:`fold_arrays`).
    """
    with np.load(data_path) as data:
        X, y = data["X"], data["y"]
    return fold_arrays(X, y, load_splits(splits_path), k, normalise)
