"""The gradient-tuning paper's datasets, by role, and its per-seed training draw.

Keerthi, Sindhwani and Chapelle (NIPS 2006) tune on Adult, Splice, IJCNN and
Vehicle; `docs/gradient-protocol.md` sec 3 decides what plays
each role here. Adult and Splice are LIBSVM training + test files pooled
(digest-verified); the IJCNN role is Bank by default (UCI, one-hot), w1a +
w1a.t without the UCI files, or the real ijcnn1 on a cluster; the Vehicle role
is Magic04 by default or SensIT Vehicle (class 3 against the rest) on a
cluster. The cluster-only files are verified by shape and label set, not by
digest (:data:`esmo.data.libsvm.SHAPE_CHECKED`). Label +1 is the minority
class (Splice keeps its labels); F-measure and weighted error treat +1 as positive.

Each seed draws ``n_trg`` training rows stratified by class (the rest are
test rows), min-max scales with the training rows' minima and maxima (a
column constant on them becomes 0 everywhere) and fixes the stratified 5-fold
CV split that Grid, Grad and Grad-ARD share.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.preprocessing import OneHotEncoder

from esmo.data import libsvm, uci


@dataclass(frozen=True)
class GradientDataset:
    """A dataset as the paper's experiments use it: where it comes from and what it must look like.

    ``source`` is ``libsvm`` (digest-verified files ``files``, pooled in order),
    ``uci`` (the UCI registry entry ``files[0]``, categorical columns one-hot
    encoded) or ``shape_checked`` (:data:`esmo.data.libsvm.SHAPE_CHECKED`
    files; ``positive`` names the raw label that becomes +1, the others -1).
    ``shape`` and ``n_positive`` are the pooled result's (None: not known offline).
    """

    name: str
    source: str
    files: tuple[str, ...]
    shape: tuple[int, int]
    n_positive: int | None
    positive: int | None = None
    paper_dataset: str = ""


DATASETS: dict[str, GradientDataset] = {
    d.name: d
    for d in (
        GradientDataset(
            "adult", "libsvm", ("a1a", "a1a.t"), (32561, 123), 7841, paper_dataset="Adult"
        ),
        GradientDataset(
            "splice", "libsvm", ("splice", "splice.t"), (3175, 60), 1648, paper_dataset="Splice"
        ),
        GradientDataset("bank", "uci", ("bank",), (45211, 51), 5289, paper_dataset="IJCNN"),
        GradientDataset(
            "w1a", "libsvm", ("w1a", "w1a.t"), (49749, 300), 1479, paper_dataset="IJCNN"
        ),
        GradientDataset(
            "ijcnn1", "shape_checked", ("ijcnn1", "ijcnn1.t"), (141691, 22), None, 1, "IJCNN"
        ),
        GradientDataset("magic04", "uci", ("magic04",), (19020, 10), 6688, paper_dataset="Vehicle"),
        GradientDataset(
            "vehicle",
            "shape_checked",
            ("vehicle.combined", "vehicle.combined.t"),
            (98528, 100),
            None,
            3,
            "Vehicle",
        ),
        # the thesis's E1 datasets (not the paper's): the inexact-solve study scores the
        # gradient method beside the thesis's searches on them (docs/gradient-protocol.md sec 7)
        GradientDataset("australian", "libsvm", ("australian",), (690, 14), 307),
        GradientDataset("breast-cancer", "libsvm", ("breast-cancer",), (683, 10), 239),
        GradientDataset("diabetes", "libsvm", ("diabetes",), (768, 8), 500),
        GradientDataset("fourclass", "libsvm", ("fourclass",), (862, 2), 307),
    )  # fmt: skip
}

#: The datasets that can play each role of the paper (the first is the default).
ROLES: dict[str, tuple[str, ...]] = {
    "adult": ("adult",),
    "splice": ("splice",),
    "ijcnn": ("bank", "ijcnn1", "w1a"),
    "vehicle": ("magic04", "vehicle"),
}


def get_dataset(name: str) -> GradientDataset:
    """The entry of ``name``, with a clear error for unknown names."""
    try:
        return DATASETS[name]
    except KeyError:
        raise KeyError(
            f"unknown dataset {name!r} of the gradient paper; known: {', '.join(DATASETS)}"
        ) from None


def resolve_role(role: str, choices: dict[str, str] | None = None) -> str:
    """The dataset playing ``role``: ``choices[role]`` if given (e.g. ``{"ijcnn": "w1a"}``), else the default."""
    if role not in ROLES:
        raise KeyError(f"unknown role {role!r}; the roles are {', '.join(ROLES)}")
    name = (choices or {}).get(role, ROLES[role][0])
    if name not in ROLES[role]:
        raise ValueError(f"{name!r} cannot play the {role!r} role; choose one of {ROLES[role]}")
    return name


def input_files(name: str) -> list[str]:
    """The files (relative to the workflow's ``resources/``) that :func:`load_dataset` reads."""
    spec = get_dataset(name)
    if spec.source == "libsvm":
        return [f"libsvm/{f}" for f in spec.files]
    if spec.source == "uci":
        return [f"uci/{f}" for f in uci.get_dataset(spec.files[0]).files]
    return [f"libsvm/{f}" for f in spec.files]


def one_hot(table: uci.Table) -> np.ndarray:
    """Numeric columns, then each categorical column one-hot (categories sorted).

    Encoding the pooled rows rather than the training rows gives the same
    model inputs: a category absent from the training rows is a column
    constant (0) on them, which :func:`scale_minmax` sets to 0 everywhere.
    """
    if not table.categorical.shape[1]:
        return np.asarray(table.numeric, dtype=np.float64)
    encoded = OneHotEncoder(sparse_output=False, dtype=np.float64).fit_transform(table.categorical)
    return np.hstack([table.numeric, encoded])


def load_dataset(name: str, resources: str | os.PathLike[str]) -> tuple[np.ndarray, np.ndarray]:
    """The pooled, unscaled ``X`` (float64) and ``y`` in {-1, +1} (int8) of dataset ``name``.

    ``resources`` holds ``libsvm/`` and ``uci/`` with the downloaded files
    (:func:`input_files`). The result is checked against the registry's shape
    and positive count (:func:`verify_pooled`).
    """
    spec = get_dataset(name)
    root = Path(resources)
    if spec.source == "libsvm":
        X, y = libsvm.load_pooled([root / "libsvm" / f for f in spec.files], spec.files)
    elif spec.source == "uci":
        table = uci.load(spec.files[0], root / "uci")
        X, y = one_hot(table), table.y
    else:
        parts = []
        for file_name in spec.files:
            file_spec = libsvm.get_shape_checked(file_name)
            X_part, labels = libsvm.load_raw(root / "libsvm" / file_name, file_spec)
            libsvm.verify_shape(X_part, labels, file_spec)
            parts.append((X_part, np.where(labels == spec.positive, 1, -1).astype(np.int8)))
        X = np.vstack([p[0] for p in parts])
        y = np.concatenate([p[1] for p in parts])
    y = np.asarray(y, dtype=np.int8)
    verify_pooled(name, X, y)
    return X, y


def verify_pooled(name: str, X: np.ndarray, y: np.ndarray) -> None:
    """Check the pooled shape and, where known, the number of +1 labels."""
    spec = get_dataset(name)
    problems = []
    if X.shape != spec.shape:
        problems.append(f"shape {X.shape} instead of {spec.shape}")
    n_pos = int(np.sum(y == 1))
    if spec.n_positive is not None and n_pos != spec.n_positive:
        problems.append(f"{n_pos} positive rows instead of {spec.n_positive}")
    if problems:
        raise libsvm.DatasetVerificationError(
            f"pooled dataset {name!r} is wrong: {'; '.join(problems)}; fetch its files again"
        )


def draw_training(y: np.ndarray, n_trg: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Sorted indices of ``n_trg`` training rows drawn stratified by class, and of the rest (test)."""
    y = np.asarray(y)
    if not 10 <= n_trg < y.size:
        raise ValueError(
            f"n_trg = {n_trg} must lie in [10, {y.size}) for this dataset of {y.size} rows "
            "(the rows not drawn are the test set)"
        )
    train, test = train_test_split(
        np.arange(y.size), train_size=int(n_trg), stratify=y, random_state=int(seed)
    )
    return np.sort(train), np.sort(test)


def scale_minmax(X_train: np.ndarray, X_test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Min-max scale both parts with the training rows' ranges; a constant training column -> 0.

    Test values may fall outside [0, 1] (they are not clipped).
    """
    low = X_train.min(axis=0)
    span = X_train.max(axis=0) - low
    constant = span == 0
    span = np.where(constant, 1.0, span)
    out = []
    for part in (X_train, X_test):
        scaled = (part - low) / span
        scaled[:, constant] = 0.0
        out.append(scaled)
    return out[0], out[1]


def cv_folds(
    y_train: np.ndarray, seed: int, n_folds: int = 5
) -> list[tuple[np.ndarray, np.ndarray]]:
    """``StratifiedKFold(n_folds, shuffle=True, random_state=seed)``'s (train, validation) pairs."""
    skf = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=int(seed))
    return [(tr, va) for tr, va in skf.split(np.zeros((len(y_train), 1)), y_train)]


@dataclass(frozen=True)
class Problem:
    """One seed's data: scaled training and test rows, the CV folds, and where they came from."""

    dataset: str
    n_trg: int
    seed: int
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    folds: list[tuple[np.ndarray, np.ndarray]]


def make_problem(
    dataset: str, X: np.ndarray, y: np.ndarray, n_trg: int, seed: int, n_folds: int = 5
) -> Problem:
    """Draw, scale and fold one seed's problem (docs/gradient-protocol.md sec 2 "Protocol", sec 4 "CV folds")."""
    train, test = draw_training(y, n_trg, seed)
    X_train, X_test = scale_minmax(X[train], X[test])
    return Problem(
        dataset, int(n_trg), int(seed), X_train, y[train], X_test, y[test],
        cv_folds(y[train], seed, n_folds),
    )  # fmt: skip


def load_problem(
    path: str | os.PathLike[str], dataset: str, n_trg: int, seed: int, n_folds: int = 5
) -> Problem:
    """:func:`make_problem` of a prepared dataset file (``X`` pooled and unscaled, ``y``)."""
    with np.load(path) as data:
        X, y = data["X"], data["y"]
    return make_problem(dataset, X, y, n_trg, seed, n_folds)


def subsample_rows(n_test: int, rows: int | None, seed: int) -> np.ndarray:
    """Sorted indices of a fixed random subsample of ``rows`` test rows (all when None or too few)."""
    if rows is None or rows >= n_test:
        return np.arange(n_test)
    return np.sort(np.random.default_rng(seed).choice(n_test, size=int(rows), replace=False))
