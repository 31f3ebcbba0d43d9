"""The UCI datasets of the ensembles paper: registry, fetching, verification, encoding.

MAGIC Gamma Telescope (``magic04.data``), Bank Marketing (``bank-full.csv``
from ``bank.zip``) and Adult (``adult.data`` and ``adult.test``, pooled), as
protocol sec 3 describes them. Like the LIBSVM files (:mod:`esmo.data.libsvm`)
a download is verified by content, not bytes: the parsed rows must have the
registry's row count, class counts and digest (SHA-256 of the parsed fields,
so line endings, quoting and spacing do not matter). A fetch goes through
:func:`esmo.data.download.fetch_verified`: it writes to a temporary file and
moves it into place only once verified.

``mirror`` is a folder (or base URL) holding the files under their names, the
extracted ``bank-full.csv`` included; without it the files come from the UCI
archive (``bank-full.csv`` is extracted from ``00222/bank.zip``).

Encoding (sec 3, done per repetition on the training rows only):
:func:`preprocess` one-hot encodes the categorical columns (categories learnt
on the training rows, an unseen one becomes all zeros) and z-scores every
column with the training rows' mean and std (a constant column becomes 0).
"""

from __future__ import annotations

import csv
import hashlib
import os
import urllib.parse
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from esmo.data import download
from esmo.data.download import DatasetVerificationError, DownloadError, is_url

#: The UCI archive's base URL.
UCI_BASE_URL = "https://archive.ics.uci.edu/ml/machine-learning-databases/"


@dataclass(frozen=True)
class UCIFile:
    """One file as parsed: where it lives in the archive, its layout and its expected content.

    ``archive_path`` is relative to the base URL; ``member`` names the file inside
    it when it is a zip. ``class_counts`` are the raw labels' counts (label order
    as given) and ``digest`` is :func:`rows_digest` of the parsed rows.
    """

    name: str
    archive_path: str
    n_rows: int
    n_fields: int
    class_counts: tuple[tuple[str, int], ...]
    digest: str
    sep: str = ","
    header: bool = False
    skip_lines: int = 0
    member: str | None = None


@dataclass(frozen=True)
class UCIDataset:
    """A dataset: its files (pooled in order), its columns and the label that becomes +1."""

    name: str
    files: tuple[str, ...]
    columns: tuple[str, ...]
    categorical: tuple[str, ...]
    positive: str


@dataclass(frozen=True)
class Table:
    """Parsed rows: numeric columns (float64), categorical ones (str) and labels in {-1, +1}."""

    numeric: np.ndarray
    categorical: np.ndarray
    y: np.ndarray
    numeric_names: tuple[str, ...]
    categorical_names: tuple[str, ...]


FILES: dict[str, UCIFile] = {
    f.name: f
    for f in (
        UCIFile(
            "magic04.data",
            "magic/magic04.data",
            19020,
            11,
            (("g", 12332), ("h", 6688)),
            "08a8b6755d431fcdb17b37bd2d2f4aab84d68639da51ce4e6cb3ec35d5b16d06",
        ),
        UCIFile(
            "bank-full.csv",
            "00222/bank.zip",
            45211,
            17,
            (("no", 39922), ("yes", 5289)),
            "e233ad63a369128dff21c5808a4ffae066296b7f70f6f7f50c3507ee2bfaa46e",
            sep=";",
            header=True,
            member="bank-full.csv",
        ),
        UCIFile(
            "adult.data",
            "adult/adult.data",
            32561,
            15,
            (("<=50K", 24720), (">50K", 7841)),
            "9e9e776cf615b69d88d89ad787ef6b6ed6fd990f83c8e071695c23dca353130c",
        ),
        UCIFile(
            "adult.test",
            "adult/adult.test",
            16281,
            15,
            (("<=50K.", 12435), (">50K.", 3846)),
            "b053ce6d809d5934000a28c7684fbd31fc7dba87a638c06ffce8ee7220f94061",
            skip_lines=1,
        ),
    )  # fmt: skip
}

_MAGIC = ("fLength fWidth fSize fConc fConc1 fAsym fM3Long fM3Trans fAlpha fDist class").split()
_BANK = (
    "age job marital education default balance housing loan contact day month duration "
    "campaign pdays previous poutcome y"
).split()
_ADULT = (
    "age workclass fnlwgt education education-num marital-status occupation relationship race "
    "sex capital-gain capital-loss hours-per-week native-country income"
).split()

REGISTRY: dict[str, UCIDataset] = {
    d.name: d
    for d in (
        UCIDataset("magic04", ("magic04.data",), tuple(_MAGIC), (), "h"),
        UCIDataset(
            "bank",
            ("bank-full.csv",),
            tuple(_BANK),
            (
                "job",
                "marital",
                "education",
                "default",
                "housing",
                "loan",
                "contact",
                "month",
                "poutcome",
            ),
            "yes",
        ),
        UCIDataset(
            "adult",
            ("adult.data", "adult.test"),
            tuple(_ADULT),
            (
                "workclass",
                "education",
                "marital-status",
                "occupation",
                "relationship",
                "race",
                "sex",
                "native-country",
            ),
            ">50K",
        ),
    )  # fmt: skip
}


def get_dataset(name: str) -> UCIDataset:
    """The registry entry of ``name``, with a clear error for unknown names."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(
            f"unknown UCI dataset {name!r}; known datasets: {', '.join(sorted(REGISTRY))}"
        ) from None


def get_file(name: str) -> UCIFile:
    """The registry entry of the file ``name``."""
    try:
        return FILES[name]
    except KeyError:
        raise KeyError(f"unknown UCI file {name!r}; known files: {', '.join(FILES)}") from None


def parse_rows(text: str, spec: UCIFile) -> list[list[str]]:
    """The file's data rows as stripped fields (blank lines, skipped lines and header dropped)."""
    lines = text.splitlines()[spec.skip_lines :]
    rows = [[f.strip() for f in row] for row in csv.reader(lines, delimiter=spec.sep)]
    rows = [row for row in rows if any(row)]
    return rows[1:] if spec.header else rows


def rows_digest(rows: list[list[str]]) -> str:
    """SHA-256 of the parsed fields (unit and record separators between them)."""
    h = hashlib.sha256()
    for row in rows:
        h.update(("\x1f".join(row) + "\x1e").encode())
    return h.hexdigest()


def verify_rows(rows: list[list[str]], spec: UCIFile) -> None:
    """Check parsed rows against the registry; the error lists every difference and the fix."""
    problems = []
    if len(rows) != spec.n_rows:
        problems.append(f"{len(rows)} rows instead of {spec.n_rows}")
    widths = {len(row) for row in rows}
    if widths != {spec.n_fields}:
        problems.append(f"rows of {sorted(widths)} fields instead of {spec.n_fields}")
    labels, counts = np.unique([row[-1] for row in rows], return_counts=True)
    found = tuple(zip(labels.tolist(), counts.tolist(), strict=True))
    if found != spec.class_counts:
        problems.append(f"class counts {dict(found)} instead of {dict(spec.class_counts)}")
    if not problems and rows_digest(rows) != spec.digest:
        problems.append(
            f"same rows and class counts but different values (digest {rows_digest(rows)[:12]}... "
            f"instead of {spec.digest[:12]}...)"
        )
    if problems:
        raise DatasetVerificationError(
            f"UCI file {spec.name!r} does not match the UCI original: {'; '.join(problems)}. "
            "The file is truncated, corrupted or a different version (for Bank, bank-full.csv "
            "of bank.zip, not bank-additional); fetch it again or point the mirror at a verified copy."
        )


def read_rows(path: str | os.PathLike[str], spec: UCIFile) -> list[list[str]]:
    """Parse a file (or, for a zip archive, its member) into rows."""
    path = Path(path)
    try:
        if spec.member is not None and zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                names = [n for n in archive.namelist() if n.rsplit("/", 1)[-1] == spec.member]
                if not names:
                    raise DatasetVerificationError(f"{path} holds no member {spec.member!r}")
                text = archive.read(names[0]).decode("utf-8")
        else:
            text = path.read_text(encoding="utf-8")
        return parse_rows(text, spec)
    except (UnicodeDecodeError, zipfile.BadZipFile, zlib.error, csv.Error) as exc:
        raise DatasetVerificationError(
            f"{path} is not the UCI file {spec.name!r} ({exc}); it is damaged: delete it and "
            "fetch it again."
        ) from exc


def source_location(
    name: str, *, mirror: str | os.PathLike[str] | None = None, base_url: str = UCI_BASE_URL
) -> str:
    """Where file ``name`` comes from: the mirror (folder or URL) under its name, else the archive."""
    spec = get_file(name)
    if mirror is None:
        return base_url.rstrip("/") + "/" + spec.archive_path
    root = os.fspath(mirror)
    if is_url(root):
        return root.rstrip("/") + "/" + urllib.parse.quote(spec.name)
    return os.path.join(root, spec.name)


def fetch(
    name: str,
    dest: str | os.PathLike[str],
    *,
    mirror: str | os.PathLike[str] | None = None,
    base_url: str = UCI_BASE_URL,
    retries: int = 3,
    timeout: float = 60.0,
) -> Path:
    """Fetch UCI file ``name`` to ``dest`` (extracted from its zip if need be), verified by content."""
    spec = get_file(name)
    source = source_location(name, mirror=mirror, base_url=base_url)
    if not is_url(source) and not os.path.isfile(source):
        raise DownloadError(
            f"mirror folder {os.fspath(mirror)!r} has no file {spec.name!r} (looked for "
            f"{source}); the mirror must hold the UCI files under their names."
        )

    def check(tmp: Path) -> None:
        rows = read_rows(tmp, spec)
        verify_rows(rows, spec)
        if spec.member is not None and zipfile.is_zipfile(tmp):  # keep the member only
            with open(tmp, "w", encoding="utf-8", newline="") as out:
                writer = csv.writer(out, delimiter=spec.sep, lineterminator="\n")
                writer.writerows([_header(spec)] + rows if spec.header else rows)

    return download.fetch_verified(
        source,
        dest,
        check,
        retries=retries,
        timeout=timeout,
        hint=download.mirror_hint("the UCI files", "../shared/datasets/uci"),
    )


def _header(spec: UCIFile) -> list[str]:
    """The column names of a file with a header (only Bank's has one)."""
    return list(REGISTRY["bank"].columns)


def load(name: str, folder: str | os.PathLike[str]) -> Table:
    """Parse, verify and pool dataset ``name``'s files from ``folder`` into a :class:`Table`.

    Labels: the dataset's ``positive`` label (Adult's test labels lose their
    final ".") becomes +1, the other -1. Adult keeps "?" as a category.
    """
    dataset = get_dataset(name)
    rows: list[list[str]] = []
    for file_name in dataset.files:
        spec = get_file(file_name)
        file_rows = read_rows(Path(folder) / file_name, spec)
        verify_rows(file_rows, spec)
        rows.extend(file_rows)
    fields = np.array(rows, dtype=str)
    labels = np.char.rstrip(fields[:, -1], ".")
    y = np.where(labels == dataset.positive, 1, -1).astype(np.int8)
    features = dataset.columns[:-1]
    cat = [i for i, c in enumerate(features) if c in dataset.categorical]
    num = [i for i, c in enumerate(features) if c not in dataset.categorical]
    return Table(
        numeric=fields[:, num].astype(np.float64),
        categorical=fields[:, cat],
        y=y,
        numeric_names=tuple(features[i] for i in num),
        categorical_names=tuple(features[i] for i in cat),
    )


def one_hot(
    train: tuple[np.ndarray, np.ndarray], test: tuple[np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Numeric columns, then the categorical ones one-hot, categories learnt on ``train``.

    Each part is (numeric, categorical). Categories unseen in training become
    all zeros. The values are not scaled (:func:`preprocess` z-scores them).
    """
    if not train[1].shape[1]:
        return np.asarray(train[0], np.float64), np.asarray(test[0], np.float64)
    encoder = OneHotEncoder(handle_unknown="ignore", sparse_output=False, dtype=np.float64)
    encoder.fit(train[1])
    return (
        np.hstack([train[0], encoder.transform(train[1])]),
        np.hstack([test[0], encoder.transform(test[1])]),
    )


def preprocess(
    train: tuple[np.ndarray, np.ndarray], test: tuple[np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """One-hot encode (:func:`one_hot`) then z-score, both learnt on ``train``; each part is
    (numeric, categorical).

    Categories unseen in training become all zeros; a column constant in
    training becomes 0 (its std is taken as 1, as scikit-learn does).
    """
    X_train, X_test = one_hot(train, test)
    scaler = StandardScaler().fit(X_train)
    return scaler.transform(X_train), scaler.transform(X_test)
