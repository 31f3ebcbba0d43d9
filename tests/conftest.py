"""Shared fixtures: small offline datasets (min-max scaled, labels in {-1, +1})."""

from __future__ import annotations

import os
import re
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


#: The offline copies, laid out like ``<repo>/../shared/datasets`` (libsvm/, uci/, mnist/):
#: ``$ESMO_OFFLINE``, the folder the workflow's offline switch (config key ``offline``) reads.
OFFLINE = Path(os.environ.get("ESMO_OFFLINE", REPO.parent / "shared" / "datasets"))
#: Each source's folder: its subfolder of OFFLINE, or its own variable (as a mirror key set
#: explicitly wins over the workflow's switch).
MIRROR = Path(os.environ.get("ESMO_LIBSVM_MIRROR", OFFLINE / "libsvm"))
MIRROR_FILES = tuple(REGISTRY)  # the LIBSVM files the tests read
UCI_MIRROR = Path(os.environ.get("ESMO_UCI_MIRROR", OFFLINE / "uci"))
UCI_FILES = ("magic04.data", "bank-full.csv", "adult.data", "adult.test")
MNIST_MIRROR = Path(os.environ.get("ESMO_MNIST_MIRROR", OFFLINE / "mnist"))
MNIST_FILES = ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz", "mnist_5k.csv.gz")
#: What every stop for want of a mirror says (``_require_folder``), counted at the end of the
#: run (``pytest_terminal_summary``).
WANT_OF_MIRROR = "data mirror"
CI_REQUIRED = "CI=true: the mirror is required"


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
            f"{what} {WANT_OF_MIRROR} {folder} {found}; put the files in {place} "
            f"beside the checkout or set {env} to their folder (or ESMO_OFFLINE to a folder "
            "laid out like ../shared/datasets)"
        )
        if on_ci():
            pytest.fail(f"{message} ({CI_REQUIRED})", pytrace=False)
        pytest.skip(message)
    return folder


def require_mirror() -> Path:
    """The LIBSVM mirror folder, or the current test stops: failed under CI, else skipped.

    The mirror is ``$ESMO_LIBSVM_MIRROR``, else ``$ESMO_OFFLINE/libsvm``, else
    ``<repo>/../shared/datasets/libsvm``. On a developer's machine without it the tests that
    read it are skipped (the run's summary counts them); under CI a missing mirror fails
    them, so a misplaced checkout cannot pass with the LIBSVM tests unrun.
    """
    return _require_folder(
        MIRROR, MIRROR_FILES, "LIBSVM", "../shared/datasets/libsvm", "ESMO_LIBSVM_MIRROR"
    )


@pytest.fixture
def libsvm_mirror() -> Path:
    """Folder of the LIBSVM files (see :func:`require_mirror`: fails under CI if missing)."""
    return require_mirror()


def require_uci_mirror() -> Path:
    """The UCI mirror folder (``$ESMO_UCI_MIRROR``, ``$ESMO_OFFLINE/uci`` or
    ``../shared/datasets/uci``), as :func:`require_mirror`: failed under CI when a file is
    missing, else skipped."""
    return _require_folder(
        UCI_MIRROR, UCI_FILES, "UCI", "../shared/datasets/uci", "ESMO_UCI_MIRROR"
    )


@pytest.fixture
def uci_mirror() -> Path:
    """Folder of the UCI files (see :func:`require_uci_mirror`)."""
    return require_uci_mirror()


def require_mnist_mirror() -> Path:
    """The MNIST mirror folder (``$ESMO_MNIST_MIRROR``, ``$ESMO_OFFLINE/mnist`` or
    ``../shared/datasets/mnist``: the test files and the 5k subset), as :func:`require_mirror`."""
    return _require_folder(
        MNIST_MIRROR, MNIST_FILES, "MNIST", "../shared/datasets/mnist", "ESMO_MNIST_MIRROR"
    )


def offline_config() -> dict:
    """The workflow's offline switch at OFFLINE, and a source's own mirror where its
    variable points it elsewhere (the tests' one setting for every download)."""
    config: dict = {"offline": str(OFFLINE.resolve())}
    own = {
        ("datasets",): (MIRROR, "libsvm"),
        ("ensembles", "uci"): (UCI_MIRROR, "uci"),
        ("nsvm", "mnist"): (MNIST_MIRROR, "mnist"),
    }
    for path, (folder, subfolder) in own.items():
        if folder.resolve() != (OFFLINE / subfolder).resolve():
            node = config
            for part in path:
                node = node.setdefault(part, {})
            node["mirror"] = str(folder.resolve())
    return config


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """At the end of the run, how many data and workflow tests did not run for want of a
    data mirror: skipped, or failed under CI (``_require_folder``). The outermost wrapper:
    after pytest's short test summary, just before its last line."""
    yield
    counts: dict[tuple[str, str], set[str]] = {}
    for outcome in ("skipped", "failed", "error"):
        for report in terminalreporter.stats.get(outcome, []):
            if not _for_want_of_mirror(report):
                continue
            keywords = getattr(report, "keywords", {})
            workflow = "workflow" in keywords or "/workflow/" in f"/{report.nodeid}"
            kind = "workflow" if workflow else "data"
            how = "skipped" if outcome == "skipped" else "failed"
            counts.setdefault((how, kind), set()).add(report.nodeid)
    n = {key: len(nodeids) for key, nodeids in counts.items()}
    terminalreporter.write_sep("-", "data mirror")
    for how in ("skipped", "failed"):
        data, workflow = n.get((how, "data"), 0), n.get((how, "workflow"), 0)
        if how == "failed" and not data + workflow:
            continue
        line = (
            f"{data} data test{'s' * (data != 1)} and {workflow} workflow "
            f"test{'s' * (workflow != 1)} did not run for want of the data mirror "
            f"({'skipped' if how == 'skipped' else 'failed: CI=true'})"
        )
        if data + workflow and how == "skipped":
            line += (
                f": the offline copies belong in {OFFLINE} (laid out like ../shared/datasets; "
                "ESMO_OFFLINE moves it, ESMO_LIBSVM_MIRROR, ESMO_UCI_MIRROR or ESMO_MNIST_MIRROR "
                "one source); with CI=true they fail instead"
            )
        terminalreporter.write_line(line)


def _for_want_of_mirror(report) -> bool:
    """Whether ``report`` is of a test stopped by ``_require_folder``: its skip reason, or
    under CI its whole failure message (``pytrace=False``), is the one that function gives."""
    longrepr = report.longrepr
    if isinstance(longrepr, tuple):  # a skip: (file, line, reason)
        return re.match(rf"Skipped: \w+ {WANT_OF_MIRROR} ", str(longrepr[-1])) is not None
    text = str(longrepr or "")
    return re.fullmatch(rf"\w+ {WANT_OF_MIRROR} .*\({CI_REQUIRED}\)", text, re.S) is not None


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
