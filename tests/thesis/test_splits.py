"""Stratified n-fold 60/20/20 splits and per-run arrays (protocol §2)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from esmo.papers.thesis.splits import (
    fold_arrays,
    fold_splits,
    load_fold,
    load_splits,
    n_runs,
    save_splits,
)


def _labels(n_neg: int, n_pos: int, seed: int = 0) -> np.ndarray:
    y = np.array([-1] * n_neg + [1] * n_pos, dtype=np.int8)
    return np.random.default_rng(seed).permutation(y)


def _check_partition(splits, y, n_folds):
    n = y.size
    for k in range(n_folds):
        tr, va, te = splits[f"train_{k}"], splits[f"val_{k}"], splits[f"test_{k}"]
        joined = np.concatenate([tr, va, te])
        assert joined.size == n and np.array_equal(np.sort(joined), np.arange(n))
        # The fold pattern of fig. 3.1: run k validates on the fold run k+1 tests on.
        np.testing.assert_array_equal(va, splits[f"test_{(k + 1) % n_folds}"])
    tests = np.concatenate([splits[f"test_{k}"] for k in range(n_folds)])
    assert np.array_equal(np.sort(tests), np.arange(n)), "each sample is tested exactly once"


def test_sixty_twenty_twenty_partition_and_stratification():
    y = _labels(555, 307)  # fourclass's class counts
    splits = fold_splits(y, 5, seed=0)
    assert n_runs(splits) == 5 and len(splits) == 15
    _check_partition(splits, y, 5)
    for k in range(5):
        tr, va, te = splits[f"train_{k}"], splits[f"val_{k}"], splits[f"test_{k}"]
        # 862 = 5 * 172 + 2: every fold holds 172 or 173 samples.
        assert {va.size, te.size} <= {172, 173} and tr.size == 862 - va.size - te.size
        for part, n_part_folds in ((tr, 3), (va, 1), (te, 1)):
            for label, count in ((-1, 555), (1, 307)):
                # Stratified: each fold holds floor or ceil of count / 5 of each class.
                expected = n_part_folds * count / 5
                assert abs(np.sum(y[part] == label) - expected) < n_part_folds


def test_deterministic_and_seed_dependent():
    y = _labels(100, 40)
    a, b = fold_splits(y, 5, seed=3), fold_splits(y, 5, seed=3)
    c = fold_splits(y, 5, seed=4)
    assert all(np.array_equal(a[key], b[key]) for key in a)
    assert any(not np.array_equal(a[key], c[key]) for key in a)


@settings(max_examples=40, deadline=None)
@given(
    n_neg=st.integers(5, 60),
    n_pos=st.integers(5, 60),
    n_folds=st.integers(3, 5),
    seed=st.integers(0, 2**31),
)
def test_partition_property(n_neg, n_pos, n_folds, seed):
    y = _labels(n_neg, n_pos, seed)
    splits = fold_splits(y, n_folds, seed=seed)
    _check_partition(splits, y, n_folds)
    for k in range(n_folds):
        te = splits[f"test_{k}"]
        for label, count in ((-1, n_neg), (1, n_pos)):
            assert abs(np.sum(y[te] == label) - count / n_folds) < 1


@pytest.mark.parametrize(
    ("y", "n_folds", "message"),
    [
        (np.array([-1, 1, 1, -1]), 5, "too small"),
        (np.array([-1] * 20 + [1] * 4), 5, "fewer than n_folds"),
        (np.ones(20), 5, "single class"),
        (np.array([-1, 1] * 10), 2, ">= 3"),
        (np.ones((4, 2)), 5, "1-D"),
    ],
)
def test_clear_errors(y, n_folds, message):
    with pytest.raises(ValueError, match=message):
        fold_splits(y, n_folds, seed=0)


def test_save_load_roundtrip(tmp_path):
    splits = fold_splits(_labels(30, 20), 5, seed=1)
    save_splits(tmp_path / "s.npz", splits)
    loaded = load_splits(tmp_path / "s.npz")
    assert loaded.keys() == splits.keys()
    assert all(np.array_equal(loaded[k], splits[k]) for k in splits)


def test_fold_arrays_dataset_mode_selects_rows():
    rng = np.random.default_rng(0)
    y = _labels(30, 20)
    X = rng.uniform(size=(50, 3))
    splits = fold_splits(y, 5, seed=0)
    X_tr, y_tr, X_val, y_val, X_te, y_te = fold_arrays(X, y, splits, 2)
    np.testing.assert_array_equal(X_tr, X[splits["train_2"]])
    np.testing.assert_array_equal(y_val, y[splits["val_2"]])
    np.testing.assert_array_equal(X_te, X[splits["test_2"]])
    assert y_tr.size + y_val.size + y_te.size == 50


def test_fold_arrays_train_mode_scales_on_training_part_only():
    rng = np.random.default_rng(1)
    y = _labels(40, 40)
    X = rng.normal(10.0, 5.0, size=(80, 3))
    splits = fold_splits(y, 5, seed=0)
    X_tr, _, X_val, _, X_te, _ = fold_arrays(X, y, splits, 0, normalise="train")
    raw_tr = X[splits["train_0"]]
    lo, hi = raw_tr.min(axis=0), raw_tr.max(axis=0)
    # Oracle: the formula with minima and maxima of the training rows only.
    np.testing.assert_allclose(X_tr, (raw_tr - lo) / (hi - lo))
    np.testing.assert_allclose(X_val, (X[splits["val_0"]] - lo) / (hi - lo))
    np.testing.assert_allclose(X_te, (X[splits["test_0"]] - lo) / (hi - lo))
    assert X_tr.min() == 0.0 and X_tr.max() == 1.0


def test_fold_arrays_errors():
    y = _labels(10, 10)
    splits = fold_splits(y, 5, seed=0)
    X = np.zeros((20, 2))
    with pytest.raises(ValueError, match="normalise must be one of"):
        fold_arrays(X, y, splits, 0, normalise="global")
    with pytest.raises(ValueError, match="out of range"):
        fold_arrays(X, y, splits, 5)
    with pytest.raises(ValueError, match="another dataset"):
        fold_arrays(X[:10], y[:10], splits, 0)


def test_load_fold_reads_what_fold_arrays_gives(tmp_path):
    rng = np.random.default_rng(3)
    X, y = rng.random((40, 3)), np.repeat([-1, 1], 20).astype(np.int8)
    np.savez(tmp_path / "data.npz", X=X, y=y)
    splits = fold_splits(y, 5, seed=1)
    save_splits(tmp_path / "splits.npz", splits)
    for normalise in ("dataset", "train"):
        ours = load_fold(tmp_path / "data.npz", tmp_path / "splits.npz", 2, normalise)
        for got, want in zip(ours, fold_arrays(X, y, splits, 2, normalise), strict=True):
            np.testing.assert_array_equal(got, want)
