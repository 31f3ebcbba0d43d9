"""The release is named once: esmo.__version__, which the package metadata, the command,
CITATION.cff and the changelog must all give."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import metadata, version
from pathlib import Path

import yaml

import esmo

REPO = Path(__file__).resolve().parents[2]


def test_every_place_names_the_same_version():
    assert version("esmo") == esmo.__version__
    citation = yaml.safe_load((REPO / "CITATION.cff").read_text())
    assert str(citation["version"]) == esmo.__version__
    assert f"## {esmo.__version__} (" in (REPO / "CHANGELOG.md").read_text()


def test_the_command_reports_it():
    out = subprocess.run(
        [sys.executable, "-m", "esmo.cli", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == f"esmo {esmo.__version__}"


def test_the_licence_is_the_one_the_package_declares():
    assert (REPO / "LICENSE").read_text().startswith("MIT License")
    assert 'license = "MIT"' in (REPO / "pyproject.toml").read_text()
    assert metadata("esmo")["License-Expression"] == "MIT"
