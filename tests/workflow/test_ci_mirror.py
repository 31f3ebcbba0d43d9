"""Under CI (``CI=true``) a missing LIBSVM mirror fails the tests that need it; elsewhere they
skip, and the run ends saying how many data and workflow tests did not run for want of it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
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
    assert "passed" not in result.stdout and " skipped" not in result.stdout, result.stdout
    assert result.stdout.count("CI=true: the mirror is required") >= 4
    assert (
        "2 data tests and 2 workflow tests did not run for want of the data mirror "
        "(failed: CI=true)" in result.stdout
    ), result.stdout


def test_the_suite_skips_outside_ci_without_the_mirror(tmp_path):
    result = _run_without_mirror(tmp_path, ci=None)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "4 skipped" in result.stdout and "error" not in result.stdout, result.stdout
    assert result.stdout.count("set ESMO_LIBSVM_MIRROR") >= 4
    assert (
        "2 data tests and 2 workflow tests did not run for want of the data mirror (skipped)"
        in result.stdout
    ), result.stdout


# A test folder of its own, with the project's conftest: two data tests and three workflow
# tests need a mirror (the three through one module-scoped fixture, as test_workflow's run).
TINY_TESTS = {
    "pytest.ini": """
        [pytest]
        markers =
            workflow: runs Snakemake
    """,
    "data/test_reads_files.py": """
        def test_reads_libsvm(libsvm_mirror):
            pass

        def test_reads_uci(uci_mirror):
            pass

        def test_needs_nothing():
            pass
    """,
    "workflow/test_runs.py": """
        import pytest
        from conftest import require_mirror, require_mnist_mirror

        pytestmark = pytest.mark.workflow

        @pytest.fixture(scope="module")
        def run():
            require_mirror()
            require_mnist_mirror()

        def test_one(run):
            pass

        def test_two(run):
            pass

        def test_three(run):
            pass
    """,
}


def _run_tiny_suite(tmp_path: Path, offline: Path, ci: str | None) -> str:
    root = tmp_path / "tests"
    for name, text in TINY_TESTS.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text).lstrip())
    shutil.copy(TESTS / "conftest.py", root / "conftest.py")
    env = {key: value for key, value in os.environ.items() if not key.startswith("ESMO_")}
    env.pop("CI", None)
    env["ESMO_OFFLINE"] = str(offline)
    if ci is not None:
        env["CI"] = ci
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rfEs", str(root)]
    result = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, check=False)
    return result.stdout + result.stderr


def test_the_run_ends_counting_the_tests_skipped_for_want_of_the_mirror(tmp_path):
    out = _run_tiny_suite(tmp_path, tmp_path / "absent", ci=None)
    lines = out.splitlines()
    # at the end: after pytest's short test summary, just before its last line
    short = next(i for i, line in enumerate(lines) if "short test summary info" in line)
    assert short < len(lines) - 3 and "- data mirror -" in lines[-3], out
    assert "1 passed, 5 skipped" in lines[-1]
    summary = lines[-2]
    assert summary.startswith(
        "2 data tests and 3 workflow tests did not run for want of the data mirror (skipped): "
        f"the offline copies belong in {tmp_path / 'absent'}"
    ), out
    assert "ESMO_OFFLINE moves it" in summary and "with CI=true they fail instead" in summary


def test_the_count_is_of_failures_under_ci_and_zero_with_the_mirror(tmp_path):
    out = _run_tiny_suite(tmp_path, tmp_path / "absent", ci="true")
    assert "5 errors" in out and "1 passed" in out, out
    assert (
        "2 data tests and 3 workflow tests did not run for want of the data mirror "
        "(failed: CI=true)" in out
    ), out
    offline = tmp_path / "datasets"
    files = {"libsvm": conftest.MIRROR_FILES, "uci": conftest.UCI_FILES}
    files["mnist"] = conftest.MNIST_FILES
    for subfolder, names in files.items():
        (offline / subfolder).mkdir(parents=True)
        for name in names:
            (offline / subfolder / name).write_bytes(b"")
    out = _run_tiny_suite(tmp_path, offline, ci="true")
    assert "6 passed" in out, out
    assert (
        "0 data tests and 0 workflow tests did not run for want of the data mirror (skipped)" in out
    ), out
    assert "failed: CI=true" not in out
