"""The gradient paper's datasets by role, the pooled loader, the per-seed draw, scaling and folds."""

from __future__ import annotations

import bz2

import numpy as np
import pytest
from conftest import MIRROR, require_uci_mirror
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import MinMaxScaler

from esmo.data import libsvm
from esmo.data.libsvm import DatasetVerificationError, ShapeCheckedSpec
from esmo.papers.gradient import data as gradient

needs_mirror = pytest.mark.usefixtures("libsvm_mirror")

# Oracles: docs/gradient-protocol.md sec 3 (Adult 32,561 x 123 with 7,841 >50K, as the
# UCI adult.data; Splice 3,175 x 60, 1,648 positive; Bank 45,211 rows, 5,289 "yes",
# 7 numeric + 44 categories; Magic04 19,020 x 10, 6,688 h; w1a 2,477 + 47,272 rows).
NOTE = {
    "adult": ((32561, 123), 7841),
    "splice": ((3175, 60), 1648),
    "w1a": ((49749, 300), 72 + 1407),
}
UCI_NOTE = {"bank": ((45211, 51), 5289), "magic04": ((19020, 10), 6688)}


@pytest.fixture(scope="module")
def resources(tmp_path_factory):
    """A resources/ folder as the workflow lays it out, linking the offline copies."""
    root = tmp_path_factory.mktemp("resources")
    (root / "libsvm").mkdir()
    for name in ("a1a", "a1a.t", "splice", "splice.t", "w1a", "w1a.t"):
        if (MIRROR / name).is_file():
            (root / "libsvm" / name).symlink_to(MIRROR / name)
    return root


@needs_mirror
@pytest.mark.parametrize("name", sorted(NOTE))
def test_pooled_libsvm_datasets_have_the_notes_counts(name, resources):
    X, y = gradient.load_dataset(name, resources)
    shape, n_pos = NOTE[name]
    assert X.shape == shape and int(np.sum(y == 1)) == n_pos and y.dtype == np.int8


@pytest.mark.parametrize("name", sorted(UCI_NOTE))
def test_uci_datasets_have_the_notes_counts(name, tmp_path):
    (tmp_path / "uci").symlink_to(require_uci_mirror().resolve())
    X, y = gradient.load_dataset(name, tmp_path)
    shape, n_pos = UCI_NOTE[name]
    assert X.shape == shape and int(np.sum(y == 1)) == n_pos
    assert np.sum(y == 1) < np.sum(y == -1), "+1 is the minority class"
    if name == "bank":  # one-hot: each categorical block sums to one per row
        assert np.array_equal(X[:, 7:].sum(axis=1), np.full(len(y), 9.0))


@needs_mirror
def test_pooled_adult_is_a1a_then_a1a_t(resources):
    X, y = gradient.load_dataset("adult", resources)
    X_test, y_test = libsvm.load(MIRROR / "a1a.t", "a1a.t")
    np.testing.assert_array_equal(X[1605:], X_test)
    np.testing.assert_array_equal(y[1605:], y_test)


def test_roles_resolve_to_the_notes_defaults_and_reject_others():
    assert gradient.resolve_role("ijcnn") == "bank"
    assert gradient.resolve_role("vehicle") == "magic04"
    assert gradient.resolve_role("ijcnn", {"ijcnn": "w1a"}) == "w1a"
    with pytest.raises(ValueError, match="cannot play the 'vehicle' role"):
        gradient.resolve_role("vehicle", {"vehicle": "bank"})
    with pytest.raises(KeyError, match="known: adult"):
        gradient.get_dataset("iris")


def test_training_draw_is_stratified_disjoint_and_seeded():
    y = np.r_[np.ones(100), -np.ones(900)].astype(np.int8)
    train, test = gradient.draw_training(y, 200, seed=3)
    assert len(train) == 200 and np.sum(y[train] == 1) == 20  # the 10 % of the pool
    assert np.array_equal(np.sort(np.r_[train, test]), np.arange(1000))
    again, _ = gradient.draw_training(y, 200, seed=3)
    other, _ = gradient.draw_training(y, 200, seed=4)
    assert np.array_equal(train, again) and not np.array_equal(train, other)
    with pytest.raises(ValueError, match="n_trg = 1000 must lie in"):
        gradient.draw_training(y, 1000, seed=0)


def test_minmax_uses_the_training_rows_and_zeroes_constant_columns():
    rng = np.random.default_rng(0)
    X_train = np.c_[rng.normal(size=(50, 3)), np.full(50, 7.0)]
    X_test = np.c_[rng.normal(size=(20, 3)), rng.normal(size=20)]
    A, B = gradient.scale_minmax(X_train, X_test)
    reference = MinMaxScaler().fit(X_train[:, :3])
    np.testing.assert_allclose(A[:, :3], reference.transform(X_train[:, :3]))
    np.testing.assert_allclose(B[:, :3], reference.transform(X_test[:, :3]))
    assert np.all(A[:, 3] == 0) and np.all(B[:, 3] == 0)


def test_folds_are_sklearns_stratified_shuffled_folds():
    y = np.r_[np.ones(30), -np.ones(70)]
    folds = gradient.cv_folds(y, seed=5)
    expected = StratifiedKFold(5, shuffle=True, random_state=5).split(np.zeros((100, 1)), y)
    for (tr, va), (tr_ref, va_ref) in zip(folds, expected, strict=True):
        assert np.array_equal(tr, tr_ref) and np.array_equal(va, va_ref)
        assert np.sum(y[va] == 1) == 6


def test_subsample_is_fixed_by_seed_and_all_when_short():
    a = gradient.subsample_rows(100, 10, seed=1)
    assert len(np.unique(a)) == 10 and np.array_equal(a, gradient.subsample_rows(100, 10, seed=1))
    assert np.array_equal(gradient.subsample_rows(5, 10, seed=1), np.arange(5))
    assert np.array_equal(gradient.subsample_rows(5, None, seed=1), np.arange(5))


def _bz2_file(path, rows, labels):
    lines = [f"{lab} 1:{r:.1f} 2:{2 * r:.1f}" for r, lab in zip(rows, labels, strict=True)]
    path.write_bytes(bz2.compress(("\n".join(lines) + "\n").encode()))


def test_shape_checked_fetch_decompresses_and_checks(tmp_path, monkeypatch):
    spec = ShapeCheckedSpec("tiny", "multiclass/tiny.bz2", 2, 6, (1, 2, 3))
    monkeypatch.setitem(libsvm.SHAPE_CHECKED, "tiny", spec)
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    _bz2_file(mirror / "tiny.bz2", range(6), [1, 2, 3, 3, 2, 1])
    dest = libsvm.fetch_shape_checked("tiny", tmp_path / "out" / "tiny", mirror=mirror)
    X, labels = libsvm.load_raw(dest, spec)
    assert X.shape == (6, 2) and X[5, 1] == 10.0 and sorted(set(labels)) == [1, 2, 3]
    # a truncated file (5 rows) and a two-class file are rejected, leaving nothing behind
    _bz2_file(mirror / "tiny.bz2", range(5), [1, 2, 3, 3, 2])
    with pytest.raises(DatasetVerificationError, match=r"shape \(5, 2\) instead of \(6, 2\)"):
        libsvm.fetch_shape_checked("tiny", tmp_path / "bad" / "tiny", mirror=mirror)
    _bz2_file(mirror / "tiny.bz2", range(6), [1, 2, 2, 2, 2, 1])
    with pytest.raises(DatasetVerificationError, match=r"labels \(1, 2\) instead of \(1, 2, 3\)"):
        libsvm.fetch_shape_checked("tiny", tmp_path / "bad" / "tiny", mirror=mirror)
    (mirror / "tiny.bz2").write_bytes(b"not bzip2")
    with pytest.raises(DatasetVerificationError, match="not a valid bzip2 file"):
        libsvm.fetch_shape_checked("tiny", tmp_path / "bad" / "tiny", mirror=mirror)
    assert not (tmp_path / "bad" / "tiny").exists()


def test_cluster_only_datasets_relabel_the_positive_class(tmp_path, monkeypatch):
    """Vehicle: class 3 against the rest, the two files pooled in order."""
    small = {
        "vehicle.combined": ShapeCheckedSpec("vehicle.combined", "x", 2, 4, (1, 2, 3)),
        "vehicle.combined.t": ShapeCheckedSpec("vehicle.combined.t", "x", 2, 3, (1, 2, 3)),
    }
    for name, spec in small.items():
        monkeypatch.setitem(libsvm.SHAPE_CHECKED, name, spec)
    monkeypatch.setitem(
        gradient.DATASETS,
        "vehicle",
        gradient.GradientDataset("vehicle", "shape_checked", tuple(small), (7, 2), None, 3),
    )
    (tmp_path / "libsvm").mkdir()
    for name, labels in (("vehicle.combined", "1 2 3 3"), ("vehicle.combined.t", "3 2 1")):
        lines = [f"{lab} 1:{i}" for i, lab in enumerate(labels.split())]
        (tmp_path / "libsvm" / name).write_text("\n".join(lines) + "\n")
    X, y = gradient.load_dataset("vehicle", tmp_path)
    assert X.shape == (7, 2) and y.tolist() == [-1, -1, 1, 1, 1, -1, -1]
