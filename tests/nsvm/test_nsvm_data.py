"""The NSVM paper's data and tables: Ringnorm's distribution, MNIST from the offline copy, splits."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from conftest import require_mnist_mirror

from esmo.data.breiman import ringnorm_delve
from esmo.data.mnist import FILES, SUBSET, fetch, load_zero_one
from esmo.papers.nsvm.analysis import accuracy_table, reproduction_values


def test_ringnorm_follows_breimans_definition():
    X, y = ringnorm_delve(40_000, 20, random_state=0)
    assert X.shape == (40_000, 20) and (y == 1).sum() == (y == -1).sum() == 20_000
    inner, outer = X[y == 1], X[y == -1]
    a = 2 / math.sqrt(20)
    # class 2: N(a 1, I); class 1: N(0, 4 I); standard errors about 0.007 (means), 0.03 (var 4)
    np.testing.assert_allclose(inner.mean(0), a, atol=0.04)
    np.testing.assert_allclose(inner.var(0), 1.0, atol=0.05)
    np.testing.assert_allclose(outer.mean(0), 0.0, atol=0.08)
    np.testing.assert_allclose(outer.var(0), 4.0, atol=0.2)
    again, _ = ringnorm_delve(40_000, 20, random_state=0)
    np.testing.assert_array_equal(X, again)


def test_ringnorm_rejects_bad_sizes():
    with pytest.raises(ValueError, match="n must be an integer >= 2"):
        ringnorm_delve(1)
    with pytest.raises(ValueError, match="d must be a positive integer"):
        ringnorm_delve(10, 0)


def test_offline_mnist_zeros_and_ones(tmp_path):
    mirror = require_mnist_mirror()
    files = fetch(tmp_path, base_urls=[], mirror=mirror)
    assert "subset" in files and "train_images" not in files
    data = load_zero_one(files)
    # SOURCES.md: the test set holds 980 zeros and 1,135 ones; the subset 500 of each digit
    assert (data["y_test"] == -1).sum() == 980 and (data["y_test"] == 1).sum() == 1135
    assert (data["y"] == -1).sum() == 500 and (data["y"] == 1).sum() == 500
    assert data["X"].shape == (1000, 784) and bool(data["offline_subset"])
    # (x/255 - 0.1307)/0.3081: a black pixel maps to -0.1307/0.3081
    assert data["X"].min() == pytest.approx(-0.1307 / 0.3081)


def test_a_corrupt_mirror_file_is_rejected(tmp_path):
    mirror = require_mnist_mirror()
    bad = tmp_path / "mirror"
    bad.mkdir()
    for name in (FILES["test_images"], SUBSET):
        (bad / name).write_bytes((mirror / name).read_bytes())
    (bad / FILES["test_labels"]).write_bytes((mirror / FILES["test_labels"]).read_bytes()[:-10])
    with pytest.raises(ValueError, match="not the official"):
        fetch(tmp_path / "out", base_urls=[], mirror=bad)


def test_accuracy_table_and_reproduction_values():
    runs = pd.DataFrame(
        {
            "dataset": ["ringnorm"] * 3 + ["mnist"],
            "method": ["nsvm1"] * 3 + ["nsvm3"],
            "seed": [0, 1, 2, 0],
            "test_accuracy": [0.97, 0.98, 0.99, 1 - 3 / 2115],
            "test_errors": [22, 15, 7, 3],
            "n_test": [740, 740, 740, 2115],
            "n_train": [6660] * 3 + [1000],
            "n_steps": [80000] * 3 + [9500],
        }
    )
    table = accuracy_table(runs).set_index(["dataset", "method"])
    ring = table.loc[("ringnorm", "nsvm1")]
    assert ring["test_accuracy_mean"] == pytest.approx(98.0)
    assert ring["test_accuracy_sd"] == pytest.approx(1.0)  # ddof = 1
    assert ring["paper_test_accuracy"] == 98.1
    values = reproduction_values(table.reset_index())
    assert values["ringnorm.nsvm1.test_accuracy"] == pytest.approx(98.0)
    assert values["mnist.nsvm3.test_errors"] == 3.0
    # the rows each dataset trained on, set beside the paper's (12,665 MNIST images)
    assert values["ringnorm.n_train"] == 6660 and values["mnist.n_train"] == 1000
