"""Shared fixtures: small offline datasets (min-max scaled, labels in {-1, +1})."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import settings
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, make_classification
from sklearn.preprocessing import MinMaxScaler

from esmo.data.libsvm import REGISTRY

REPO = Path(__file__).resolve().parents[1]


def _signed(X: np.ndarray, y: np.ndarray, positive) -> tuple[np.ndarray, np.ndarray]:
    return MinMaxScaler().fit_transform(X), np.where(y == positive, 1.0, -1.0)


def _datasets() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    X, y = load_breast_cancer(return_X_y=True)
    iris_X, iris_y = load_iris(return_X_y=True)
    keep = iris_y > 0  # versicolor vs virginica: not linearly separable
    dig_X, dig_y = load_digits(return_X_y=True)
    pair = (dig_y == 3) | (dig_y == 8)
    syn_X, syn_y = make_classification(
        n_samples=300, n_features=8, n_informative=4, flip_y=0.1, random_state=0
    )
    return {
        "breast_cancer": _signed(X, y, 1),
        "iris": _signed(iris_X[keep], iris_y[keep], 2),
        "digits": _signed(dig_X[pair][:240], dig_y[pair][:240], 8),
        "synthetic": _signed(syn_X, syn_y, 1),
    }


DATASETS = _datasets()


@pytest.fixture(params=sorted(DATASETS))
def dataset(request) -> tuple[np.ndarray, np.ndarray]:
    return DATASETS[request.param]


MIRROR = Path(os.environ.get("ESMO_LIBSVM_MIRROR", REPO.parent / "shared" / "datasets" / "libsvm"))
MIRROR_FILES = tuple(REGISTRY)  # the LIBSVM files the tests read


def on_ci() -> bool:
    """True under continuous integration (``CI=true``, as ``.ci/run`` and CI services set)."""
    return os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}


# Under CI every property test draws the same examples on every run (derandomize): a run
# passes or fails on the code alone. Elsewhere each run explores new examples, as a fuzzer.
settings.register_profile("ci", derandomize=True)
if on_ci():
    settings.load_profile("ci")


def _require_folder(folder: Path, files: tuple[str, ...], what: str, place: str, env: str) -> Path:
    """``folder`` if it holds ``files``, or the current test stops: failed under CI, else skipped."""
    missing = [name for name in files if not (folder / name).is_file()]
    if missing:
        found = "not found" if len(missing) == len(files) else f"lacks {', '.join(missing)}"
        message = (
            f"{what} data mirror {folder} {found}; put the files in {place} "
            f"beside the checkout or set {env} to their folder"
        )
        if on_ci():
            pytest.fail(f"{message} (CI=true: the mirror is required)", pytrace=False)
        pytest.skip(message)
    return folder


def require_mirror() -> Path:
    """The LIBSVM mirror folder, or the current test stops: failed under CI, else skipped.

    The mirror is ``$ESMO_LIBSVM_MIRROR`` or ``<repo>/../shared/datasets/libsvm``. On a
    developer's machine without it the tests that read it are skipped; under CI a missing
    mirror fails them, so a misplaced checkout cannot pass with the LIBSVM tests unrun.
    """
    return _require_folder(
        MIRROR, MIRROR_FILES, "LIBSVM", "../shared/datasets/libsvm", "ESMO_LIBSVM_MIRROR"
    )


@pytest.fixture
def libsvm_mirror() -> Path:
    """Folder of the LIBSVM files (see :func:`require_mirror`: fails under CI if missing)."""
    return require_mirror()


UCI_MIRROR = Path(os.environ.get("ESMO_UCI_MIRROR", REPO.parent / "shared" / "datasets" / "uci"))
UCI_FILES = ("magic04.data", "bank-full.csv", "adult.data", "adult.test")


def require_uci_mirror() -> Path:
    """The UCI mirror folder (``$ESMO_UCI_MIRROR`` or ``../shared/datasets/uci``), as
    :func:`require_mirror`: failed under CI when a file is missing, else skipped."""
    return _require_folder(
        UCI_MIRROR, UCI_FILES, "UCI", "../shared/datasets/uci", "ESMO_UCI_MIRROR"
    )


@pytest.fixture
def uci_mirror() -> Path:
    """Folder of the UCI files (see :func:`require_uci_mirror`)."""
    return require_uci_mirror()


def paper_values_by_hand() -> pd.DataFrame:
    """A paper-values table of three rows, one with markup to escape, for the reproduction tests."""
    return pd.DataFrame(
        {
            "key": ["a.acc", "b.iters", "c.p"],
            "section": ["4.3", "A.1.2", "5.2 (table 5.1)"],
            "description": ["an accuracy", "iterations <raw>", "a patience"],
            "value": [97.27, 1000.0, 109.0],
            "unit": ["%", "iterations", "checks"],
        }
    )
