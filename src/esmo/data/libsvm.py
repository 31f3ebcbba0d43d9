"""The LIBSVM datasets of the thesis: registry, fetching, verification, normalisation.

Downloads are verified by content, not bytes (protocol §1): the official files
and their mirrors differ in line endings and trailing spaces, so a file is
accepted when its parsed arrays have the expected shape, class counts and
digest. A fetch goes through :func:`esmo.data.download.fetch_verified`: it
writes to a temporary file and moves it into place only after verification, so
a failed or corrupt download never looks like a valid output.
"""

from __future__ import annotations

import bz2
import hashlib
import os
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.datasets import load_svmlight_file
from sklearn.preprocessing import MinMaxScaler

from esmo.data import download
from esmo.data.download import DatasetVerificationError, DownloadError, is_url

#: The LIBSVM binary-classification data page, where the official files live.
DEFAULT_BASE_URL = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/"


@dataclass(frozen=True)
class DatasetSpec:
    """What a LIBSVM dataset must look like once parsed.

    ``class_counts`` are the counts of labels -1 and +1 after mapping, and
    ``digest`` is :func:`array_digest` of the parsed, unnormalised arrays.
    """

    name: str
    filename: str
    n_features: int
    n_samples: int
    class_counts: tuple[int, int]
    digest: str


#: The eight datasets of protocol §1 (training files, unscaled originals) and the test
#: files a1a.t, splice.t and w1a.t that the gradient paper pools with them.
#: Digests were computed once from the offline copies described in
#: ``../shared/datasets/libsvm/SOURCES.md``.
REGISTRY: dict[str, DatasetSpec] = {
    spec.name: spec
    for spec in (
        DatasetSpec(
            "a1a",
            "a1a",
            123,
            1605,
            (1210, 395),
            "f3640367a450ca29766f533ddbfad5b808b83a2cdd36f1857b0c82ce085e67b3",
        ),
        DatasetSpec(
            "australian",
            "australian",
            14,
            690,
            (383, 307),
            "0769d4b5cd792cf5e5227b5341ead84bc2ca408e4c2ce1e4c4f0783f57ab0787",
        ),
        DatasetSpec(
            "breast-cancer",
            "breast-cancer",
            10,
            683,
            (444, 239),
            "e14140ad595251e94165d455fc159f96c23e6f27c0b486cfaa644b3e65d8cf83",
        ),
        DatasetSpec(
            "diabetes",
            "diabetes",
            8,
            768,
            (268, 500),
            "9c556497cadb4554e85fd26388199827e43de001095da54b9408a04455cb646e",
        ),
        DatasetSpec(
            "fourclass",
            "fourclass",
            2,
            862,
            (555, 307),
            "837114e2f72e200eddb111f7583baaca8601600a77df70260ec36f7476a67673",
        ),
        DatasetSpec(
            "german.numer",
            "german.numer",
            24,
            1000,
            (700, 300),
            "d5f9c95def87b4210b349ca01c91f25777c7c322334a2177d3e553ff400389d6",
        ),
        DatasetSpec(
            "splice",
            "splice",
            60,
            1000,
            (483, 517),
            "53c055b77c1eae698b5a7848f2885e796d92baecf69cfe748b25a837c176bfe5",
        ),
        DatasetSpec(
            "w1a",
            "w1a",
            300,
            2477,
            (2405, 72),
            "15dab042ceb4249e4b1607e19cf974e91a659d16e95daf88b81b5e2a22cff5af",
        ),
        # The test files, pooled with their training files by the gradient paper (its note, sec 3).
        DatasetSpec(
            "a1a.t",
            "a1a.t",
            123,
            30956,
            (23510, 7446),
            "3ee4082c129fe89284d820228bac402977dc6df850bef8a0bf6819a1f7cad8d9",
        ),
        DatasetSpec(
            "splice.t",
            "splice.t",
            60,
            2175,
            (1044, 1131),
            "2c75b911477a76185f9cacff3a9924f44282cf3a3ebf57f5b689343e43265980",
        ),
        DatasetSpec(
            "w1a.t",
            "w1a.t",
            300,
            47272,
            (45865, 1407),
            "419e33ac4af6f9d6cfbab0bb39336bcedb8507958f60b371e8600eb785953aa6",
        ),
    )  # fmt: skip
}


#: The thesis's eight datasets (protocol §1), in the registry's order: the registry without
#: the gradient paper's test files.
THESIS_DATASETS: tuple[str, ...] = tuple(name for name in REGISTRY if not name.endswith(".t"))


def get_spec(name: str) -> DatasetSpec:
    """The registry entry of ``name``, with a clear error for unknown names."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(
            f"unknown LIBSVM dataset {name!r}; known datasets: {', '.join(sorted(REGISTRY))}"
        ) from None


def array_digest(X: np.ndarray, y: np.ndarray) -> str:
    """SHA-256 of the shape, dense float64 ``X`` and int8 ``y``.

    Hashing the parsed arrays rather than the file makes the check independent
    of line endings, trailing spaces and number formatting.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.int8)
    h = hashlib.sha256()
    h.update(np.asarray(X.shape, dtype=np.int64).tobytes())
    h.update(X.tobytes())
    h.update(y.tobytes())
    return h.hexdigest()


def map_labels(labels: np.ndarray) -> np.ndarray:
    """Map two distinct labels to {-1, +1} as int8, the larger becoming +1."""
    labels = np.asarray(labels)
    classes = np.unique(labels)
    if classes.size != 2:
        raise ValueError(
            f"expected exactly two distinct labels for binary classification, found "
            f"{classes.size}: {classes[:10].tolist()}"
        )
    return np.where(labels == classes[1], 1, -1).astype(np.int8)


def _parse(
    path: str | os.PathLike[str], name: str, n_features: int
) -> tuple[np.ndarray, np.ndarray]:
    """Dense float64 ``X`` and the raw labels of a LIBSVM file; a parse error names the file."""
    try:
        X, labels = load_svmlight_file(
            os.fspath(path), n_features=n_features, zero_based=False, dtype=np.float64
        )
    except ValueError as exc:
        raise DatasetVerificationError(
            f"{path} is not a valid LIBSVM file for {name!r} ({n_features} features): {exc}"
        ) from exc
    return np.asarray(X.toarray(), dtype=np.float64), labels


def load(path: str | os.PathLike[str], name: str) -> tuple[np.ndarray, np.ndarray]:
    """Parse a LIBSVM file into dense float64 ``X`` and int8 ``y`` in {-1, +1}.

    The number of features comes from the registry, because some training files
    do not use the last features (a1a uses 1..119 of 123).
    """
    X, labels = _parse(path, name, get_spec(name).n_features)
    try:
        return X, map_labels(labels)
    except ValueError as exc:
        raise DatasetVerificationError(
            f"{path} is not the LIBSVM file for {name!r}: {exc}. It is truncated or damaged; "
            "delete it and fetch it again."
        ) from exc


def verify(X: np.ndarray, y: np.ndarray, name: str) -> None:
    """Check parsed arrays against the registry; the error lists every difference."""
    spec = get_spec(name)
    problems = []
    if X.shape != (spec.n_samples, spec.n_features):
        problems.append(
            f"shape {X.shape} instead of ({spec.n_samples}, {spec.n_features}) (rows, features)"
        )
    counts = (int(np.sum(y == -1)), int(np.sum(y == 1)))
    if counts != spec.class_counts:
        problems.append(f"class counts (-1, +1) = {counts} instead of {spec.class_counts}")
    if not problems and array_digest(X, y) != spec.digest:
        problems.append(
            "same shape and class counts but different values (digest "
            f"{array_digest(X, y)[:12]}... instead of {spec.digest[:12]}...)"
        )
    if problems:
        raise DatasetVerificationError(
            f"dataset {name!r} does not match the LIBSVM original: {'; '.join(problems)}. "
            "The file is truncated, corrupted or a different version; fetch it again."
        )


def source_location(
    name: str, *, mirror: str | os.PathLike[str] | None = None, base_url: str = DEFAULT_BASE_URL
) -> str:
    """Where ``name`` is fetched from: the mirror (folder or URL) if given, else ``base_url``."""
    filename = get_spec(name).filename
    root = os.fspath(mirror) if mirror is not None else base_url
    if is_url(root):
        return root.rstrip("/") + "/" + urllib.parse.quote(filename)
    return os.path.join(root, filename)


def fetch(
    name: str,
    dest: str | os.PathLike[str],
    *,
    mirror: str | os.PathLike[str] | None = None,
    base_url: str = DEFAULT_BASE_URL,
    retries: int = 3,
    timeout: float = 60.0,
) -> Path:
    """Fetch dataset ``name`` to ``dest`` and verify it by content.

    ``mirror`` is a local folder or a base URL holding the LIBSVM files under
    their official names; without it the file comes from ``base_url``. Network
    failures and corrupt transfers are retried ``retries`` times with
    exponential backoff. ``dest`` appears only once the file has been verified.
    """
    spec = get_spec(name)
    source = source_location(name, mirror=mirror, base_url=base_url)
    if not is_url(source) and not os.path.isfile(source):
        raise DownloadError(
            f"mirror folder {os.fspath(mirror)!r} has no file {spec.filename!r} "
            f"(looked for {source}); the mirror must hold the LIBSVM files under their "
            "official names."
        )
    return download.fetch_verified(
        source,
        dest,
        lambda tmp: verify(*load(tmp, name), name),
        retries=retries,
        timeout=timeout,
        hint=download.mirror_hint("the LIBSVM files", "../shared/datasets/libsvm"),
    )


def minmax_normalise(X: np.ndarray, *, fit: np.ndarray | None = None) -> np.ndarray:
    """Min-max scale each feature to [0, 1], with minima and maxima taken from ``fit``.

    ``fit`` defaults to ``X`` itself (the thesis normalises over the whole
    dataset); the result is then clipped to [0, 1] to remove rounding excess.
    A feature constant in ``fit`` maps to 0, as scikit-learn's scaler does.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D array (samples x features), got shape {X.shape}")
    if fit is None:
        return np.clip(MinMaxScaler().fit_transform(X), 0.0, 1.0)
    return MinMaxScaler().fit(np.asarray(fit, dtype=np.float64)).transform(X)


def load_pooled(
    paths: Sequence[str | os.PathLike[str]], names: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """Parse, verify and concatenate registry files in order (e.g. a1a then a1a.t).

    The gradient paper pools each dataset's training and test files and draws
    its own training rows from the pool (its note, sec 3).
    """
    if len(paths) != len(names) or not names:
        raise ValueError(f"give one path per name (got {len(paths)} paths, {len(names)} names)")
    parts = []
    for path, name in zip(paths, names, strict=True):
        X, y = load(path, name)
        verify(X, y, name)
        parts.append((X, y))
    return np.vstack([X for X, _ in parts]), np.concatenate([y for _, y in parts])


#: The LIBSVM datasets page's root (the binary, multiclass, ... folders are below it).
LIBSVM_ROOT_URL = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/"


@dataclass(frozen=True)
class ShapeCheckedSpec:
    """A bzip2-compressed LIBSVM file checked by shape and label set only.

    No offline copy exists to take a digest from (the cluster-only IJCNN and
    SensIT Vehicle files of the gradient paper), so a download is accepted when
    it decompresses and parses to ``n_samples`` x ``n_features`` with exactly
    the raw ``labels``. ``url_path`` is relative to :data:`LIBSVM_ROOT_URL`; a
    mirror folder holds the compressed file under its base name.
    """

    name: str
    url_path: str
    n_features: int
    n_samples: int
    labels: tuple[int, ...]


#: Row counts as the LIBSVM page gives them (ijcnn1: 49,990 + 91,701; SensIT
#: Vehicle combined: 78,823 + 19,705).
SHAPE_CHECKED: dict[str, ShapeCheckedSpec] = {
    spec.name: spec
    for spec in (
        ShapeCheckedSpec("ijcnn1", "binary/ijcnn1.bz2", 22, 49990, (-1, 1)),
        ShapeCheckedSpec("ijcnn1.t", "binary/ijcnn1.t.bz2", 22, 91701, (-1, 1)),
        ShapeCheckedSpec(
            "vehicle.combined", "multiclass/vehicle/combined.bz2", 100, 78823, (1, 2, 3)
        ),
        ShapeCheckedSpec(
            "vehicle.combined.t", "multiclass/vehicle/combined.t.bz2", 100, 19705, (1, 2, 3)
        ),
    )  # fmt: skip
}


def get_shape_checked(name: str) -> ShapeCheckedSpec:
    """The entry of ``name`` in :data:`SHAPE_CHECKED`, with a clear error for unknown names."""
    try:
        return SHAPE_CHECKED[name]
    except KeyError:
        raise KeyError(
            f"unknown shape-checked LIBSVM file {name!r}; known: {', '.join(SHAPE_CHECKED)}"
        ) from None


def load_raw(path: str | os.PathLike[str], spec: ShapeCheckedSpec) -> tuple[np.ndarray, np.ndarray]:
    """Parse a (decompressed) shape-checked file: dense float64 ``X`` and its raw integer labels."""
    X, labels = _parse(path, spec.name, spec.n_features)
    return X, labels.astype(np.int64)


def verify_shape(X: np.ndarray, labels: np.ndarray, spec: ShapeCheckedSpec) -> None:
    """Check rows, features and the label set; the error lists every difference."""
    problems = []
    if X.shape != (spec.n_samples, spec.n_features):
        problems.append(f"shape {X.shape} instead of ({spec.n_samples}, {spec.n_features})")
    found = tuple(int(v) for v in np.unique(labels))
    if found != spec.labels:
        problems.append(f"labels {found} instead of {spec.labels}")
    if problems:
        raise DatasetVerificationError(
            f"{spec.name!r} does not look like the LIBSVM file {spec.url_path}: "
            f"{'; '.join(problems)}. The download is truncated or a different file; fetch it again."
        )


def shape_checked_location(
    name: str, *, mirror: str | os.PathLike[str] | None = None, base_url: str = LIBSVM_ROOT_URL
) -> str:
    """Where :data:`SHAPE_CHECKED` file ``name`` is fetched from: its compressed file under its
    path below ``base_url``, or under its base name in the mirror (folder or URL) if given."""
    spec = get_shape_checked(name)
    basename = spec.url_path.rsplit("/", 1)[-1]
    root = os.fspath(mirror) if mirror is not None else base_url
    if is_url(root):
        return root.rstrip("/") + "/" + (spec.url_path if mirror is None else basename)
    return os.path.join(root, basename)


def fetch_shape_checked(
    name: str,
    dest: str | os.PathLike[str],
    *,
    mirror: str | os.PathLike[str] | None = None,
    base_url: str = LIBSVM_ROOT_URL,
    retries: int = 3,
    timeout: float = 60.0,
) -> Path:
    """Fetch a :data:`SHAPE_CHECKED` file, decompress it to ``dest`` and check its shape.

    As :func:`fetch`, but verified by shape and labels only (say so wherever
    its results are reported: no digest could be taken offline).
    """
    spec = get_shape_checked(name)
    basename = spec.url_path.rsplit("/", 1)[-1]
    root = os.fspath(mirror) if mirror is not None else base_url
    source = shape_checked_location(name, mirror=mirror, base_url=base_url)
    if not is_url(source) and not os.path.isfile(source):
        raise DownloadError(
            f"mirror folder {root!r} has no file {basename!r} (looked for {source}); "
            "the mirror must hold the compressed LIBSVM files under their official names."
        )

    def check(tmp: Path) -> None:
        try:
            with bz2.open(tmp, "rb") as packed:
                data = packed.read()
        except (OSError, EOFError) as exc:
            raise DatasetVerificationError(f"{basename} is not a valid bzip2 file: {exc}") from exc
        tmp.write_bytes(data)
        verify_shape(*load_raw(tmp, spec), spec)

    return download.fetch_verified(
        source,
        dest,
        check,
        retries=retries,
        timeout=timeout,
        hint=download.mirror_hint(
            "the compressed LIBSVM files (ijcnn1.bz2, combined.bz2, ...)", "libsvm-bz2"
        ),
    )
