"""The benchmark's datasets and one (dataset, seed) draw (docs/benchmark-protocol.md sec 1)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import MIRROR, require_uci_mirror

from esmo.benchmark import data
from esmo.benchmark.data import RawData

needs_mirror = pytest.mark.usefixtures("libsvm_mirror")


def _raw(n: int = 400, positives: int = 100, seed: int = 0) -> RawData:
    """Numeric columns (one constant), one categorical column, labels {-1, +1}."""
    rng = np.random.default_rng(seed)
    numeric = np.column_stack([rng.normal(size=n), rng.uniform(-5, 5, size=n), np.full(n, 3.0)])
    categorical = rng.choice(["a", "b", "c"], size=(n, 1))
    y = np.full(n, -1, dtype=np.int8)
    y[rng.choice(n, positives, replace=False)] = 1
    return RawData(numeric, categorical, y)


def test_the_draw_depends_only_on_the_dataset_and_the_seed():
    raw = _raw()
    first = data.draw(raw, 3, test_fraction=0.3, max_train=200, max_test=50)
    again = data.draw(raw, 3, test_fraction=0.3, max_train=200, max_test=50)
    other = data.draw(raw, 4, test_fraction=0.3, max_train=200, max_test=50)
    for key in data.Split.__dataclass_fields__:
        np.testing.assert_array_equal(getattr(first, key), getattr(again, key))
    assert not np.array_equal(first.train_index, other.train_index)


@pytest.mark.parametrize(
    ("max_train", "max_test", "sizes"),
    [(None, None, (280, 120)), (200, 50, (200, 50)), (1000, 60, (280, 60))],
)
def test_the_draw_is_stratified_and_capped(max_train, max_test, sizes):
    raw = _raw()
    split = data.draw(raw, 0, test_fraction=0.3, max_train=max_train, max_test=max_test)
    assert (split.y_train.size, split.y_test.size) == sizes
    assert data.split_sizes(400, 0.3, max_train, max_test) == sizes
    assert not set(split.train_index) & set(split.test_index)
    for part, size in zip((split.y_train, split.y_test), sizes, strict=True):
        # the class shares of the whole (1/4 positive), to within one row
        assert abs(np.sum(part == 1) - size / 4) <= 1
    assert set(np.unique(split.y_train)) == {-1, 1} and split.y_train.dtype == np.int8


def test_scaling_and_encoding_are_learnt_on_the_training_rows_only():
    raw = _raw()
    split = data.draw(raw, 1, test_fraction=0.3)
    numeric_train = raw.numeric[split.train_index]
    low, high = numeric_train.min(axis=0), numeric_train.max(axis=0)
    # the two varying numeric columns: [0, 1] on the training rows, the same map on the test rows
    np.testing.assert_allclose(
        split.X_train[:, :2], (numeric_train[:, :2] - low[:2]) / (high - low)[:2]
    )
    expected_test = (raw.numeric[split.test_index, :2] - low[:2]) / (high - low)[:2]
    np.testing.assert_allclose(split.X_test[:, :2], expected_test)
    assert split.X_train[:, :2].min() == 0.0 and split.X_train[:, :2].max() == 1.0
    # a column constant on the training rows is 0 in both parts
    assert not split.X_train[:, 2].any() and not split.X_test[:, 2].any()
    # the test rows do not move the scaling: other test values, same training part
    moved = RawData(raw.numeric.copy(), raw.categorical, raw.y)
    moved.numeric[split.test_index] *= 100.0
    again = data.draw(moved, 1, test_fraction=0.3)
    np.testing.assert_array_equal(again.X_train, split.X_train)


def test_a_category_seen_only_in_the_test_part_is_all_zeros():
    raw = _raw()
    split = data.draw(raw, 2, test_fraction=0.3)
    categorical = raw.categorical.copy()
    categorical[split.test_index[0]] = "unseen"
    shown = data.draw(RawData(raw.numeric, categorical, raw.y), 2, test_fraction=0.3)
    assert shown.X_train.shape[1] == 3 + 3  # three numeric, the three training categories
    assert not shown.X_test[0, 3:].any() and shown.X_test[1, 3:].sum() == 1.0


def test_the_registry_names_the_protocols_datasets():
    eight = ["a1a", "australian", "breast-cancer", "diabetes", "fourclass", "german.numer"]
    eight += ["splice", "w1a"]
    assert list(data.DATASETS)[:12] == [*eight, "a9a", "w8a", "magic04", "bank"]
    assert (data.DATASETS["a9a"].n_samples, data.DATASETS["a9a"].n_positive) == (32561, 7841)
    assert (data.DATASETS["w8a"].n_samples, data.DATASETS["w8a"].n_positive) == (49749, 1479)
    assert data.input_files("a9a") == ["resources/libsvm/a1a", "resources/libsvm/a1a.t"]
    assert data.input_files("bank") == ["resources/uci/bank-full.csv"]
    assert data.input_files("mnist-3") == [data.MNIST_POOL]
    assert sum(data.MNIST_DIGIT_COUNTS) == 70000
    with pytest.raises(KeyError, match="unknown benchmark dataset 'iris'"):
        data.get_dataset("iris")


def test_the_smallest_training_class_is_a_lower_bound():
    # w1a: 2,477 rows, 72 positive; 70 % for training, capped at 500 rows
    bound = data.smallest_training_class("w1a", 0.3, 500, None)
    assert bound == int(500 * 72 / 2477)
    raw = RawData(
        np.zeros((2477, 1)), np.empty((2477, 0), dtype=str), np.r_[np.ones(72), -np.ones(2405)]
    )
    split = data.draw(raw, 0, test_fraction=0.3, max_train=500)
    assert np.sum(split.y_train == 1) >= bound


@needs_mirror
@pytest.mark.parametrize("name", ["fourclass", "w8a"])
def test_a_libsvm_draw_from_the_mirror(name, tmp_path):
    paths = [MIRROR / f.removeprefix("resources/libsvm/") for f in data.input_files(name)]
    out = tmp_path / "split.npz"
    split = data.write_split(
        name, paths, 0, {"test_fraction": 0.3, "max_train": 500, "max_test": 300}, out
    )
    loaded = data.load_split(out)
    np.testing.assert_array_equal(loaded.X_test, split.X_test)
    assert split.X_train.shape[0] == min(
        500, data.split_sizes(data.get_dataset(name).n_samples, 0.3, None, None)[0]
    )
    assert split.X_train.min() >= 0.0 and split.X_train.max() <= 1.0


def test_bank_is_one_hot_on_the_training_rows():
    folder = require_uci_mirror()
    raw = data.load_raw("bank", [folder / "bank-full.csv"])
    assert raw.y.size == 45211 and int(np.sum(raw.y == 1)) == 5289
    split = data.draw(raw, 0, test_fraction=0.3, max_train=1000, max_test=500)
    assert split.X_train.shape == (1000, 51)  # 7 numeric and 44 categories, all seen in 1,000 rows


def test_a_file_that_does_not_match_the_registry_is_refused(tmp_path):
    path = tmp_path / "fourclass"
    path.write_text("+1 1:0.5 2:0.5\n-1 1:0.1 2:0.2\n")
    with pytest.raises(Exception, match="fourclass"):
        data.load_raw("fourclass", [path])
