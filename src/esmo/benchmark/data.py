"""The benchmark's datasets and one (dataset, seed) draw (docs/benchmark-protocol.md sec 1).

The registry: the thesis's eight LIBSVM sets, Adult as a9a (a1a + a1a.t
pooled) and w8a (w1a + w1a.t pooled), both digest-verified through
:func:`esmo.data.libsvm.load_pooled`; MAGIC and Bank from the UCI registry
(:mod:`esmo.data.uci`, Bank's categorical columns one-hot, learnt on the
training rows); at paper scale MNIST, one digit against the other nine
(``mnist-<digit>``), from the training pool (the official images, or the
offline 5k subset) and the official test set pooled.

One draw: a stratified train/test split that puts ``test_fraction`` of the
rows in the test part, each part capped at ``max_train`` / ``max_test`` rows
(one stratified draw, so a large dataset is subsampled and split at once);
then min-max scaling to [0, 1] with the training part's minima and maxima (a
column constant on the training part becomes 0 in both parts). Labels are
{-1, +1}. The draw depends only on the dataset and the seed.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.model_selection import train_test_split

from esmo.data import libsvm, mnist, uci
from esmo.data.download import DatasetVerificationError


@dataclass(frozen=True)
class BenchmarkDataset:
    """One dataset of the benchmark: where its rows come from and how many there are.

    ``source`` is ``libsvm`` (``parts``: registry files pooled in order), ``uci``
    (``parts``: the UCI registry name) or ``mnist`` (``parts``: the digit that
    becomes +1). ``n_samples`` and ``n_positive`` are the pooled dataset's (for
    MNIST the full 70,000 images; offline the pool is smaller). ``files`` are
    what :func:`load_raw` reads, relative to the workflow's directory.
    """

    name: str
    source: str
    parts: tuple[str, ...]
    n_samples: int
    n_positive: int
    files: tuple[str, ...]


def _libsvm(name: str, *parts: str) -> BenchmarkDataset:
    specs = [libsvm.get_spec(p) for p in parts or (name,)]
    parts = parts or (name,)
    n_pos = sum(s.class_counts[1] for s in specs)
    files = tuple(f"resources/libsvm/{p}" for p in parts)
    return BenchmarkDataset(name, "libsvm", parts, sum(s.n_samples for s in specs), n_pos, files)


def _uci(name: str) -> BenchmarkDataset:
    dataset = uci.get_dataset(name)
    (file,) = (uci.get_file(f) for f in dataset.files)  # MAGIC and Bank: one file each
    n_pos = dict(file.class_counts)[dataset.positive]
    return BenchmarkDataset(
        name, "uci", (name,), file.n_rows, n_pos, (f"resources/uci/{file.name}",)
    )


#: MNIST's images per digit, the 60,000 training and 10,000 test images together.
MNIST_DIGIT_COUNTS = (6903, 7877, 6990, 7141, 6824, 6313, 6876, 7293, 6825, 6958)
#: Where the MNIST pool (every image of the training pool and the test set) is kept.
MNIST_POOL = "results/benchmark/data/mnist.npz"

#: Every benchmark dataset by name, sec 1's registry (its sizes, its files, how it loads).
#:
#: :meta hide-value:
DATASETS: dict[str, BenchmarkDataset] = {
    d.name: d
    for d in (
        *(_libsvm(name) for name in libsvm.THESIS_DATASETS),
        _libsvm("a9a", "a1a", "a1a.t"),
        _libsvm("w8a", "w1a", "w1a.t"),
        _uci("magic04"),
        _uci("bank"),
        *(
            BenchmarkDataset(f"mnist-{d}", "mnist", (str(d),), 70000, count, (MNIST_POOL,))
            for d, count in enumerate(MNIST_DIGIT_COUNTS)
        ),
    )
}


def get_dataset(name: str) -> BenchmarkDataset:
    """The registry entry of ``name``, with a clear error for unknown names."""
    if name not in DATASETS:
        raise KeyError(f"unknown benchmark dataset {name!r}; known: {', '.join(DATASETS)}")
    return DATASETS[name]


def input_files(name: str) -> list[str]:
    """The files (relative to the workflow's directory) that :func:`load_raw` reads."""
    return list(get_dataset(name).files)


@dataclass(frozen=True)
class RawData:
    """A dataset as loaded: numeric columns, categorical columns (possibly none), labels."""

    numeric: np.ndarray
    categorical: np.ndarray
    y: np.ndarray


def mnist_pool(files: dict[str, Path]) -> dict[str, np.ndarray]:
    """Every image of MNIST's training pool and test set (``n x 784`` uint8) and its digit.

    ``files`` is :func:`esmo.data.mnist.fetch`'s; without the training images
    (offline) the training pool is the 5k subset (``offline_subset`` is True).
    """
    if "subset" in files:
        images, labels = mnist.read_subset(files["subset"])
    else:
        images = mnist.read_idx(files["train_images"]).reshape(-1, 784)
        labels = mnist.read_idx(files["train_labels"])
    test_images = mnist.read_idx(files["test_images"]).reshape(-1, 784)
    return {
        "images": np.vstack([images, test_images]),
        "labels": np.concatenate([labels, mnist.read_idx(files["test_labels"])]),
        "offline_subset": np.array("subset" in files),
    }


def write_mnist_pool(
    out: str | os.PathLike[str], *, base_urls: list[str], mirror: str | None, timeout: float
) -> bool:
    """Fetch MNIST (:func:`esmo.data.mnist.fetch`) and save :func:`mnist_pool` as ``out`` (npz);
    True when the training pool is the offline subset."""
    with tempfile.TemporaryDirectory() as tmp:
        pool = mnist_pool(mnist.fetch(tmp, base_urls=base_urls, mirror=mirror, timeout=timeout))
    np.savez_compressed(out, **pool)
    return bool(pool["offline_subset"])


def load_raw(name: str, paths: Sequence[str | os.PathLike[str]]) -> RawData:
    """Dataset ``name`` from its files (:func:`input_files`), verified against the registry."""
    spec = get_dataset(name)
    if spec.source == "libsvm":
        X, y = libsvm.load_pooled(list(paths), spec.parts)
        raw = RawData(X, np.empty((y.size, 0), dtype=str), y)
    elif spec.source == "uci":
        table = uci.load(spec.parts[0], Path(paths[0]).parent)
        raw = RawData(table.numeric, table.categorical, table.y)
    else:
        with np.load(paths[0]) as pool:
            images, labels = pool["images"], pool["labels"]
        y = np.where(labels == int(spec.parts[0]), 1, -1).astype(np.int8)
        return RawData(images.astype(np.float64), np.empty((y.size, 0), dtype=str), y)
    counts = (raw.y.size, int(np.sum(raw.y == 1)))
    if counts != (spec.n_samples, spec.n_positive):
        raise DatasetVerificationError(
            f"dataset {name!r} has (rows, positives) = {counts} instead of "
            f"{(spec.n_samples, spec.n_positive)}; fetch its files again"
        )
    return raw


def split_sizes(
    n: int, test_fraction: float, max_train: int | None, max_test: int | None
) -> tuple[int, int]:
    """Training and test rows of a draw from ``n`` rows: the split, each part capped."""
    n_test = math.ceil(test_fraction * n)  # scikit-learn's rounding of a float test_size
    n_train = n - n_test
    return (
        n_train if max_train is None else min(n_train, int(max_train)),
        n_test if max_test is None else min(n_test, int(max_test)),
    )


def smallest_training_class(
    name: str, test_fraction: float, max_train: int | None, max_test: int | None
) -> int:
    """A lower bound on the rows of the rarer class in a draw's training part (from the registry)."""
    spec = get_dataset(name)
    n_train, _ = split_sizes(spec.n_samples, test_fraction, max_train, max_test)
    rarer = min(spec.n_positive, spec.n_samples - spec.n_positive)
    return math.floor(n_train * rarer / spec.n_samples)


@dataclass(frozen=True)
class Split:
    """One draw: the rows of the training and test parts, and both parts scaled."""

    train_index: np.ndarray
    test_index: np.ndarray
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray


def scale_to_training(X_train: np.ndarray, X_test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Min-max scaling learnt on ``X_train`` for both parts; a constant training column -> 0."""
    constant = np.ptp(X_train, axis=0) == 0
    parts = [libsvm.minmax_normalise(part, fit=X_train) for part in (X_train, X_test)]
    for part in parts:
        part[:, constant] = 0.0
    return parts[0], parts[1]


def draw(
    raw: RawData,
    seed: int,
    *,
    test_fraction: float,
    max_train: int | None = None,
    max_test: int | None = None,
) -> Split:
    """One seed's stratified split of ``raw``, one-hot and scaled on its training part."""
    n = raw.y.size
    n_train, n_test = split_sizes(n, test_fraction, max_train, max_test)
    train, test = train_test_split(
        np.arange(n), train_size=n_train, test_size=n_test, stratify=raw.y,
        random_state=int(seed),
    )  # fmt: skip
    train, test = np.sort(train), np.sort(test)
    X_train, X_test = uci.one_hot(
        (raw.numeric[train], raw.categorical[train]), (raw.numeric[test], raw.categorical[test])
    )
    X_train, X_test = scale_to_training(X_train, X_test)
    return Split(train, test, X_train, raw.y[train], X_test, raw.y[test])


def write_split(
    name: str,
    paths: Sequence[str | os.PathLike[str]],
    seed: int,
    split: dict,
    out: str | os.PathLike[str],
) -> Split:
    """Draw dataset ``name``'s split for ``seed`` (``split``: ``test_fraction``, ``max_train``,
    ``max_test``) and save it as ``out`` (npz)."""
    part = draw(load_raw(name, paths), seed, **split)
    np.savez(out, **{key: getattr(part, key) for key in Split.__dataclass_fields__})
    return part


def load_split(path: str | os.PathLike[str]) -> Split:
    """A split saved by :func:`write_split`."""
    with np.load(path) as data:
        return Split(**{key: data[key] for key in Split.__dataclass_fields__})
