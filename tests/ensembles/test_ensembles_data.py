"""Breiman's generators against their Bayes rates; the UCI registry against the files' documented counts."""

from __future__ import annotations

import shutil
import zipfile

import numpy as np
import pytest
from scipy.stats import norm

from esmo.data import breiman, uci
from esmo.data.libsvm import DatasetVerificationError, DownloadError


@pytest.mark.parametrize(
    "name, bayes",
    # Twonorm: Phi(a sqrt(d)) = Phi(2) in closed form; the others: protocol sec 3 (Monte Carlo)
    [("twonorm", norm.cdf(2.0)), ("threenorm", 0.8953), ("ringnorm", 0.9849)],
)
def test_generators_have_their_bayes_accuracy(name, bayes):
    X, y = breiman.GENERATORS[name](200_001, np.random.default_rng(1))
    assert X.shape == (200_001, 20) and (y == -1).sum() == 100_000 and (y == 1).sum() == 100_001
    accuracy = np.mean((breiman.bayes_decision(name, X) > 0) == (y > 0))
    assert accuracy == pytest.approx(bayes, abs=4 * np.sqrt(bayes * (1 - bayes) / y.size))


def test_generators_class_statistics():
    rng = np.random.default_rng(2)
    a = 2 / np.sqrt(20)
    X, y = breiman.twonorm(100_000, rng)
    np.testing.assert_allclose(X[y > 0].mean(axis=0), a, atol=0.03)
    np.testing.assert_allclose(X[y < 0].mean(axis=0), -a, atol=0.03)
    X, y = breiman.ringnorm(100_000, rng)
    np.testing.assert_allclose(X[y > 0].var(axis=0), 4.0, rtol=0.05)
    np.testing.assert_allclose(X[y < 0].mean(axis=0), 1 / np.sqrt(20), atol=0.03)
    X, y = breiman.threenorm(100_000, rng)
    alt = np.where(np.arange(20) % 2 == 0, a, -a)
    np.testing.assert_allclose(X[y < 0].mean(axis=0), alt, atol=0.03)
    np.testing.assert_allclose(X[y > 0].mean(axis=0), 0.0, atol=0.03)  # the two modes cancel
    first, second = (
        breiman.twonorm(10, np.random.default_rng(5)),
        breiman.twonorm(10, np.random.default_rng(5)),
    )
    np.testing.assert_array_equal(first[0], second[0])


# rows and class counts documented in ../shared/datasets/uci/SOURCES.md and the protocol (sec 3)
DOCUMENTED = {
    "magic04": (19020, 10, 0, 6688),
    "bank": (45211, 7, 9, 5289),
    "adult": (48842, 6, 8, 11687),
}


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_uci_files_parse_to_their_documented_counts(name, uci_mirror):
    rows, n_numeric, n_categorical, positives = DOCUMENTED[name]
    table = uci.load(name, uci_mirror)
    assert table.numeric.shape == (rows, n_numeric)
    assert table.categorical.shape == (rows, n_categorical)
    assert int((table.y == 1).sum()) == positives and table.y.dtype == np.int8
    if name == "adult":
        assert "?" in set(table.categorical[:, 0])  # "?" kept as a category
    if name == "bank":
        assert "duration" in table.numeric_names
        X, _ = uci.preprocess(
            (table.numeric, table.categorical), (table.numeric, table.categorical)
        )
        assert X.shape[1] == 51  # 7 numeric + 44 one-hot columns


def test_preprocess_learns_on_training_rows_only():
    num_train = np.array([[1.0, 5.0], [3.0, 5.0], [5.0, 5.0]])
    cat_train = np.array([["a"], ["b"], ["a"]])
    num_test = np.array([[3.0, 7.0]])
    cat_test = np.array([["z"]])  # unseen category
    X_train, X_test = uci.preprocess((num_train, cat_train), (num_test, cat_test))
    np.testing.assert_allclose(X_train.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(X_train.std(axis=0), [1.0, 0.0, 1.0, 1.0])  # constant column -> 0
    # z-scores of the test row with the training means and stds; "z" is all-zero one-hot
    share_a, std_a = 2 / 3, np.sqrt(2 / 9)
    np.testing.assert_allclose(X_test[0], [0.0, 2.0, -share_a / std_a, -(1 / 3) / std_a])


def test_fetch_from_mirror_folder_and_zip_archive(uci_mirror, tmp_path):
    out = uci.fetch("magic04.data", tmp_path / "a" / "magic04.data", mirror=uci_mirror)
    assert out.read_bytes() == (uci_mirror / "magic04.data").read_bytes()
    # the archive layout: 00222/bank.zip holding bank/bank-full.csv, through a file:// base URL
    archive = tmp_path / "site" / "00222" / "bank.zip"
    archive.parent.mkdir(parents=True)
    with zipfile.ZipFile(archive, "w") as z:
        z.write(uci_mirror / "bank-full.csv", "bank/bank-full.csv")
    dest = tmp_path / "b" / "bank-full.csv"
    uci.fetch("bank-full.csv", dest, base_url=(tmp_path / "site").as_uri() + "/", retries=1)
    rows = uci.read_rows(dest, uci.get_file("bank-full.csv"))
    assert rows == uci.read_rows(uci_mirror / "bank-full.csv", uci.get_file("bank-full.csv"))


def test_a_file_whose_counts_differ_is_refused_and_nothing_is_written(uci_mirror, tmp_path):
    bad = tmp_path / "mirror"
    bad.mkdir()
    lines = (uci_mirror / "magic04.data").read_text().splitlines(keepends=True)
    (bad / "magic04.data").write_text("".join(lines[:-1]))  # one h row lost
    dest = tmp_path / "out" / "magic04.data"
    with pytest.raises(
        DatasetVerificationError, match=r"19019 rows instead of 19020.*fetch it again"
    ):
        uci.fetch("magic04.data", dest, mirror=bad)
    assert not dest.exists() and list(dest.parent.iterdir()) == []
    shutil.copy(uci_mirror / "adult.test", bad / "adult.data")  # the wrong file
    with pytest.raises(DatasetVerificationError, match="class counts"):
        uci.fetch("adult.data", tmp_path / "out" / "adult.data", mirror=bad)
    with pytest.raises(DownloadError, match="has no file 'bank-full.csv'"):
        uci.fetch("bank-full.csv", tmp_path / "out" / "bank-full.csv", mirror=bad)
