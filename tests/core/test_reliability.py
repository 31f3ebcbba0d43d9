"""Reliability: safe archive extraction, and malformed input meets a clear error.

The workflow-level promises (an interrupted run resumed, any --cores, a corrupt
download removed) are tested on the reduced run in ``test_workflow.py``.
"""

from __future__ import annotations

import stat
import zipfile

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from malformed import ANY_DATA, DATA_WORDS, PARAMETER, SETTINGS, moderate, verdict

from esmo import EarlyStopping, SMOClassifier, solve_smo, sweep_early_stopping
from esmo.data.archive import UnsafeArchiveError, extract_zip


def _zip(path, members: dict[str, bytes], symlink: str | None = None):
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        if symlink:
            info = zipfile.ZipInfo(symlink)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, "/etc/passwd")
    return path


def test_zip_extracts_into_the_target(tmp_path):
    archive = _zip(tmp_path / "bank.zip", {"bank/bank-full.csv": b"a;b\n1;2\n", "readme": b"x"})
    files = extract_zip(archive, tmp_path / "out")
    assert sorted(p.relative_to(tmp_path / "out").as_posix() for p in files) == [
        "bank/bank-full.csv",
        "readme",
    ]
    assert (tmp_path / "out" / "bank" / "bank-full.csv").read_bytes() == b"a;b\n1;2\n"


@pytest.mark.parametrize(
    "evil",
    ["../escape.txt", "bank/../../escape.txt", "/tmp/esmo-absolute.txt", "..\\escape.txt"],
)
def test_zip_entries_outside_the_target_are_refused_before_writing(tmp_path, evil):
    archive = _zip(tmp_path / "evil.zip", {"bank/ok.csv": b"1", evil: b"owned"})
    target = tmp_path / "deep" / "out"
    with pytest.raises(UnsafeArchiveError, match="refusing to extract"):
        extract_zip(archive, target)
    assert not target.exists()
    assert (
        not (tmp_path / "escape.txt").exists() and not (tmp_path / "deep" / "escape.txt").exists()
    )
    assert not (tmp_path / "deep").exists()  # checked before any folder is made


def test_zip_symlinks_are_refused(tmp_path):
    archive = _zip(tmp_path / "link.zip", {"a.csv": b"1"}, symlink="bank/passwd")
    with pytest.raises(UnsafeArchiveError, match="symbolic link"):
        extract_zip(archive, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_zip_bomb_is_refused_by_size(tmp_path):
    archive = tmp_path / "bomb.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("zeros", b"\0" * 10_000_000)
    assert archive.stat().st_size < 100_000
    with pytest.raises(UnsafeArchiveError, match="above max_bytes"):
        extract_zip(archive, tmp_path / "out", max_bytes=1_000_000)
    assert not (tmp_path / "out").exists()


def test_corrupt_zip_member_leaves_the_old_target_untouched(tmp_path):
    archive = _zip(tmp_path / "bank.zip", {"a.csv": b"first," * 1000, "b.csv": b"second" * 1000})
    data = bytearray(archive.read_bytes())
    start = data.index(b"second")  # stored uncompressed: flip a byte of b.csv's data
    data[start] ^= 0xFF
    archive.write_bytes(bytes(data))
    target = tmp_path / "out"
    target.mkdir()
    (target / "kept").write_text("previous extraction")
    with pytest.raises(zipfile.BadZipFile):
        extract_zip(archive, target)
    assert [p.name for p in target.iterdir()] == ["kept"]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


# -- malformed input: a clear error, never a hang or a crash --------------------


@SETTINGS
@given(data=ANY_DATA, C=PARAMETER, gamma=PARAMETER, kernel=st.sampled_from(["rbf", "linear"]))
def test_smo_classifier_malformed_input(data, C, gamma, kernel):
    X, y, well_formed = data

    def fit():
        # max_iter bounds the huge-C cases (LIBSVM's own limit, 10^7, is 16 s here)
        clf = SMOClassifier(kernel=kernel, C=C, gamma=gamma, max_iter=5000).fit(X, y)
        return clf.decision_function(X)

    verdict(fit, well_formed and moderate(C, gamma), ("C", "gamma", *DATA_WORDS))


@SETTINGS
@given(data=ANY_DATA, C=PARAMETER, patience=st.integers(-2, 5), tol=PARAMETER)
def test_smo_classifier_early_stopping_malformed_input(data, C, patience, tol):
    X, y, well_formed = data

    def fit():
        clf = SMOClassifier(
            C=C, max_iter=5000, early_stopping=True, n_iter_no_change=patience, es_tol=tol
        )
        return clf.fit(X, y, X_val=X, y_val=y).decision_function(X)

    promised = well_formed and moderate(C) and 0 <= tol <= 1 and patience >= 0
    verdict(fit, promised, ("C", "n_iter_no_change", "es_tol", *DATA_WORDS))


@SETTINGS
@given(data=ANY_DATA, C=PARAMETER, gamma=PARAMETER)
def test_solve_smo_and_sweep_malformed_input(data, C, gamma):
    X, y, well_formed = data
    signs = np.where(y == y.min(initial=0), -1.0, 1.0) if y.size else y

    def solve():
        return solve_smo(X, signs, C=C, gamma=gamma, max_iter=5000).alpha

    def sweep():
        result = sweep_early_stopping(
            X, signs, X, signs, [EarlyStopping(2, 0.0)], C=C, gamma=gamma, max_iter=5000
        )
        return result.stop_iter

    names = ("C", "gamma", *DATA_WORDS)
    verdict(solve, well_formed and moderate(C, gamma), names)
    verdict(sweep, well_formed and moderate(C, gamma), names)


def test_huge_values_name_the_fix():
    X = np.random.default_rng(0).random((20, 2)) * 1e200
    y = np.repeat([0, 1], 10)
    with pytest.raises(ValueError, match="scale the features"):
        SMOClassifier().fit(X, y)  # gamma='scale' from an overflowing variance
    with pytest.raises(ValueError, match="linear kernel .* overflows"):
        SMOClassifier(kernel="linear", gamma=1.0).fit(X, y)  # NaN bias before the check


def test_features_whose_kernel_values_overflow_the_rows_are_refused():
    """Hypothesis's find: |x| = 1.8e19 makes the linear kernel's float32 rows infinite, rho NaN."""
    X = np.array([[1.84467438e19], [1.84467438e19]])
    with pytest.raises(ValueError, match="scale the features"):
        SMOClassifier(kernel="linear", C=1e-300).fit(X, np.array([0, 1]))
    # scaled as the message says, they fit to finite decision values
    clf = SMOClassifier(kernel="linear", C=1e-300)
    assert np.all(np.isfinite(clf.fit(X / 1e10, np.array([0, 1])).decision_function(X / 1e10)))
