"""Under CI (``CI=true``) a missing LIBSVM mirror fails the tests that need it; elsewhere they skip."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import conftest
import pytest

TESTS = Path(__file__).resolve().parents[1]

# one test per way of asking for the mirror: the fixture (directly and through
# test_datasets' marker) and test_workflow's module-scoped run and direct check
NEEDS_MIRROR = [
    "core/test_datasets.py::test_fetch_from_mirror_folder",
    "core/test_libsvm_iterations.py::test_iterations_equal_libsvm_exactly",
    "workflow/test_workflow.py::test_rerun_has_nothing_to_do",
    "workflow/test_workflow.py::test_corrupt_mirror_file_leaves_no_output",
]


@pytest.mark.parametrize(
    ("value", "expected"),
    [("true", True), ("True", True), ("1", True), ("", False), ("false", False), ("0", False)],
)
def test_ci_is_read_from_the_environment(monkeypatch, value, expected):
    monkeypatch.setenv("CI", value)
    assert conftest.on_ci() is expected


def _outcome() -> tuple[str, str]:
    """How ``require_mirror`` ends the test: failed, skipped, or it returned the folder."""
    try:
        return "returned", str(conftest.require_mirror())
    except pytest.fail.Exception as exc:
        return "failed", str(exc)
    except pytest.skip.Exception as exc:
        return "skipped", str(exc)


def test_missing_mirror_fails_under_ci_and_skips_elsewhere(monkeypatch, tmp_path):
    monkeypatch.setattr(conftest, "MIRROR", tmp_path / "absent")
    monkeypatch.setenv("CI", "true")
    outcome, message = _outcome()
    assert outcome == "failed" and "not found" in message and "CI=true" in message
    monkeypatch.delenv("CI")
    outcome, message = _outcome()
    assert outcome == "skipped" and "set ESMO_LIBSVM_MIRROR" in message


def test_an_incomplete_mirror_is_missing(monkeypatch, tmp_path):
    (tmp_path / "fourclass").write_text("")
    monkeypatch.setattr(conftest, "MIRROR", tmp_path)
    monkeypatch.setenv("CI", "true")
    outcome, message = _outcome()
    assert (
        outcome == "failed" and "lacks a1a, australian, breast-cancer, diabetes, german" in message
    )
    for name in conftest.MIRROR_FILES:
        (tmp_path / name).write_text("")
    assert _outcome() == ("returned", str(tmp_path))


def _run_without_mirror(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "CI"}
    env["ESMO_LIBSVM_MIRROR"] = str(tmp_path / "absent")
    if ci is not None:
        env["CI"] = ci
    # -k keeps one row of the parametrised table test
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rfEs"]
    cmd += [
        *NEEDS_MIRROR,
        "-k",
        "not libsvm_iterations or (fourclass-rbf-C1-g16 and not shrinking)",
    ]
    return subprocess.run(cmd, cwd=TESTS, env=env, capture_output=True, text=True, check=False)


def test_the_suite_fails_under_ci_without_the_mirror(tmp_path):
    result = _run_without_mirror(tmp_path, ci="true")
    assert result.returncode == 1, result.stdout + result.stderr
    # the fixtures' failures are errors at setup, a test's own call a failure
    assert "1 failed" in result.stdout and "3 errors" in result.stdout, result.stdout
    assert "passed" not in result.stdout and "skipped" not in result.stdout, result.stdout
    assert result.stdout.count("CI=true: the mirror is required") >= 4


def test_the_suite_skips_outside_ci_without_the_mirror(tmp_path):
    result = _run_without_mirror(tmp_path, ci=None)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "4 skipped" in result.stdout and "error" not in result.stdout, result.stdout
    assert result.stdout.count("set ESMO_LIBSVM_MIRROR") >= 4
