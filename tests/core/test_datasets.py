"""The LIBSVM registry, fetching with verification by content, normalisation, blobs."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from conftest import MIRROR
from sklearn.datasets import load_svmlight_file

from esmo.data import download
from esmo.data import libsvm as datasets
from esmo.data.libsvm import (
    DatasetVerificationError,
    DownloadError,
    array_digest,
    fetch,
    load,
    map_labels,
    minmax_normalise,
    verify,
)
from esmo.papers.thesis.blobs import gaussian_blobs, n_samples

# skipped without the mirror, failed under CI (conftest.require_mirror)
needs_mirror = pytest.mark.usefixtures("libsvm_mirror")

# Rows, features and raw class counts as published in the mirror's SOURCES.md
# (independent of the registry, which was computed from the parsed files).
SOURCES_TABLE = {
    "a1a": (1605, 123, {-1: 1210, 1: 395}),
    "australian": (690, 14, {-1: 383, 1: 307}),
    "breast-cancer": (683, 10, {2: 444, 4: 239}),
    "diabetes": (768, 8, {-1: 268, 1: 500}),
    "fourclass": (862, 2, {-1: 555, 1: 307}),
    "german.numer": (1000, 24, {-1: 700, 1: 300}),
    "splice": (1000, 60, {-1: 483, 1: 517}),
    "w1a": (2477, 300, {-1: 2405, 1: 72}),
    "a1a.t": (30956, 123, {-1: 23510, 1: 7446}),
    "splice.t": (2175, 60, {-1: 1044, 1: 1131}),
    "w1a.t": (47272, 300, {-1: 45865, 1: 1407}),
}


def test_registry_matches_published_table():
    assert set(datasets.REGISTRY) == set(SOURCES_TABLE)
    for name, (rows, features, raw_counts) in SOURCES_TABLE.items():
        spec = datasets.REGISTRY[name]
        low, high = sorted(raw_counts)
        assert (spec.n_samples, spec.n_features) == (rows, features)
        assert spec.class_counts == (raw_counts[low], raw_counts[high])


def test_thesis_datasets_are_the_eight_the_thesis_config_runs():
    """The benchmarks' default list: the eight datasets the thesis's experiments read, not
    the gradient paper's test files that share the registry."""
    import yaml

    config = yaml.safe_load((Path(__file__).parents[2] / "config/config.yaml").read_text())
    used = {name for names in config["thesis"]["datasets"].values() for name in names}
    assert len(datasets.THESIS_DATASETS) == 8 and set(datasets.THESIS_DATASETS) == used


@needs_mirror
@pytest.mark.parametrize("name", sorted(SOURCES_TABLE))
def test_every_mirror_file_loads_and_verifies(name):
    X, y = load(MIRROR / name, name)
    verify(X, y, name)
    assert X.dtype == np.float64 and y.dtype == np.int8
    # Oracle: scikit-learn's own parse of the raw file, larger label -> +1.
    X_ref, labels = load_svmlight_file(str(MIRROR / name), n_features=X.shape[1], zero_based=False)
    np.testing.assert_array_equal(X, X_ref.toarray())
    np.testing.assert_array_equal(y == 1, labels == labels.max())


def test_map_labels_larger_is_positive_and_rejects_multiclass():
    np.testing.assert_array_equal(map_labels(np.array([2, 4, 4, 2])), [-1, 1, 1, -1])
    np.testing.assert_array_equal(map_labels(np.array([1.0, -1.0])), [1, -1])
    with pytest.raises(ValueError, match="exactly two distinct labels"):
        map_labels(np.array([1, 2, 3]))


def test_unknown_dataset_names_the_known_ones():
    with pytest.raises(KeyError, match="known datasets: a1a"):
        datasets.get_spec("iris")


@needs_mirror
def test_fetch_from_mirror_folder(tmp_path):
    dest = tmp_path / "resources" / "fourclass"
    assert fetch("fourclass", dest, mirror=MIRROR) == dest
    assert dest.read_bytes() == (MIRROR / "fourclass").read_bytes()
    assert os.listdir(dest.parent) == ["fourclass"]


@needs_mirror
def test_fetch_from_file_url_mirror(tmp_path):
    dest = tmp_path / "diabetes"
    url = MIRROR.resolve().as_uri()
    assert url.startswith("file://")
    assert fetch("diabetes", dest, mirror=url, retries=1) == dest
    assert dest.read_bytes() == (MIRROR / "diabetes").read_bytes()
    assert os.listdir(tmp_path) == ["diabetes"], "no temporary file left behind"


@needs_mirror
@pytest.mark.parametrize("name", ["breast-cancer", "fourclass"])  # CRLF and LF in the mirror
def test_line_endings_do_not_matter(tmp_path, name):
    """Verification is by content: CRLF files and LF files are the same dataset."""
    lf = (MIRROR / name).read_bytes().replace(b"\r\n", b"\n")
    crlf = lf.replace(b"\n", b"\r\n")
    assert b"\r" not in lf and crlf.count(b"\r\n") == lf.count(b"\n") > 600
    parsed = []
    for ending, text in (("lf", lf), ("crlf", crlf)):
        mirror = tmp_path / ending
        mirror.mkdir()
        (mirror / name).write_bytes(text)
        dest = fetch(name, tmp_path / f"out_{ending}" / name, mirror=mirror)
        assert dest.read_bytes() == text, "the file is kept as it came"
        parsed.append(load(dest, name))
    np.testing.assert_array_equal(parsed[0][0], parsed[1][0])
    np.testing.assert_array_equal(parsed[0][1], parsed[1][1])


def _corrupt_mirror(tmp_path: Path, name: str, transform) -> Path:
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / name).write_bytes(transform((MIRROR / name).read_bytes()))
    return mirror


@needs_mirror
@pytest.mark.parametrize(
    ("transform", "message"),
    [
        (lambda b: b[: len(b) // 2].rsplit(b"\n", 1)[0] + b"\n", "shape"),  # truncated at a row
        (lambda b: b[: len(b) // 2], "fourclass"),  # truncated mid-row
        (lambda b: b.replace(b"1:", b"1:9", 1), "digest"),  # one value altered
        (lambda b: b.replace(b"+1", b"-1", 5), "class counts"),  # labels flipped
    ],
)
def test_corrupt_file_is_rejected_and_not_left_behind(tmp_path, transform, message):
    mirror = _corrupt_mirror(tmp_path, "fourclass", transform)
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(DatasetVerificationError, match=message):
        fetch("fourclass", out / "fourclass", mirror=mirror)
    assert os.listdir(out) == [], "a rejected download must leave no file behind"


def test_missing_file_in_mirror_folder(tmp_path):
    with pytest.raises(DownloadError, match="has no file 'w1a'"):
        fetch("w1a", tmp_path / "w1a", mirror=tmp_path)


@needs_mirror
def test_transient_failure_is_retried(tmp_path, monkeypatch):
    real = download._download
    failures = iter([True, False])

    def flaky(url, target, timeout):
        if next(failures):
            raise TimeoutError("read timed out")
        real(url, target, timeout)

    monkeypatch.setattr(download, "_download", flaky)
    monkeypatch.setattr(download.time, "sleep", lambda s: None)
    fetch("fourclass", tmp_path / "fourclass", mirror=MIRROR.resolve().as_uri(), retries=2)
    assert (tmp_path / "fourclass").is_file()


def test_digest_depends_on_values_shape_and_labels():
    X = np.arange(6.0).reshape(3, 2)
    y = np.array([-1, 1, 1], dtype=np.int8)
    base = array_digest(X, y)
    assert array_digest(X.copy(), y.copy()) == base
    assert array_digest(X.reshape(2, 3), y) != base
    assert array_digest(X + 1e-12, y) != base
    assert array_digest(X, -y) != base


def test_minmax_normalise_range_constant_feature_and_formula():
    rng = np.random.default_rng(0)
    X = rng.normal(5.0, 3.0, size=(50, 4))
    X[:, 2] = 7.5  # constant feature
    Z = minmax_normalise(X)
    assert Z.min() >= 0.0 and Z.max() <= 1.0
    np.testing.assert_array_equal(Z[:, 2], 0.0)
    for j in (0, 1, 3):  # oracle: the textbook formula
        col = X[:, j]
        np.testing.assert_allclose(Z[:, j], (col - col.min()) / (col.max() - col.min()))
        assert Z[:, j].min() == 0.0 and Z[:, j].max() == 1.0


def test_minmax_normalise_with_separate_fit_part():
    fit = np.array([[0.0], [10.0]])
    np.testing.assert_allclose(minmax_normalise(np.array([[5.0], [20.0]]), fit=fit), [[0.5], [2.0]])
    with pytest.raises(ValueError, match="2-D"):
        minmax_normalise(np.ones(3))


@pytest.mark.parametrize("d", [2, 8, 64])
def test_blobs_shape_classes_and_moments(d):
    X, y = gaussian_blobs(d, sample_factor=200, seed=1)
    assert X.shape == (200 * d, d) and X.dtype == np.float64 and y.dtype == np.int8
    assert np.sum(y == -1) == np.sum(y == 1) == 100 * d
    s = 2.0 * np.sqrt(d)
    n_class = 100 * d
    # Oracle: the generating distribution; 5 standard errors of the mean.
    se = s / np.sqrt(n_class)
    assert np.all(np.abs(X[y == -1].mean(axis=0) - 0.0) < 5 * se)
    assert np.all(np.abs(X[y == 1].mean(axis=0) - 4.0) < 5 * se)
    # Standard error of a normal sample's std is about s / sqrt(2 N).
    values = X[y == 1] - 4.0
    assert abs(np.sqrt(np.mean(values**2)) - s) < 5 * s / np.sqrt(2 * values.size)


def test_blobs_thesis_sizes_minimum_and_determinism():
    assert n_samples(2) == 20 and n_samples(128) == 1280  # n = 10 d
    assert n_samples(2, min_samples=101) == 102  # even, so classes are equal
    X1, y1 = gaussian_blobs(4, seed=[7, 4])
    X2, _ = gaussian_blobs(4, seed=[7, 4])
    X3, _ = gaussian_blobs(4, seed=[8, 4])
    np.testing.assert_array_equal(X1, X2)
    assert not np.array_equal(X1, X3)
    assert y1.shape == (40,)
    with pytest.raises(ValueError, match="positive integer"):
        gaussian_blobs(0, seed=0)
