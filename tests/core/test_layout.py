"""The package layout docs/architecture.md draws: which package may import which.

Every ``import`` of every module under ``src/esmo`` (at the top or inside a
function) is read with ``ast``; an import that runs up the layers, or sideways
between two method packages or two companion papers, fails here with the file
and the line, before it becomes a cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"

#: Package -> layer; a module may import its own package and any lower layer.
LAYERS: dict[str, int] = {
    "esmo.early_stopping": 0,
    "esmo.solver": 1,
    "esmo.data": 1,
    "esmo.estimators": 2,
    # the search machinery (samplers, the halving engine, pruning) every method may use
    "esmo.tuning": 3,
    # the method packages: each paper's method, for any user, independent of each other
    "esmo.ensembles": 4,
    "esmo.mdl": 4,
    "esmo.hypergradient": 4,
    "esmo.nsvm": 4,
    "esmo.papers.common": 5,
    "esmo.papers.thesis": 6,
    "esmo.papers.mdl": 7,
    "esmo.papers.nsvm": 7,
    "esmo.papers.ensembles": 7,
    "esmo.papers.gradient": 7,
    # the budget benchmark: every method package and the shared reproduction code, no paper
    "esmo.benchmark": 7,
}


def package_of(module: str) -> str | None:
    """The entry of :data:`LAYERS` that holds ``module`` (None for ``esmo`` itself)."""
    matches = [p for p in LAYERS if module == p or module.startswith(p + ".")]
    return max(matches, key=len) if matches else None


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, text: str) -> list[tuple[int, str]]:
    """(line, module) of every esmo import in ``text``, the source of ``path``."""
    here = module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            names = [f"{base}.{a.name}" for a in node.names]
            found += [(node.lineno, n if package_of(n) else base) for n in names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
    return [(line, m) for line, m in found if m.split(".")[0] == "esmo"]


def violations(path: Path, text: str) -> list[str]:
    """Each import in ``text`` (the source of ``path``) of a package at its layer or above."""
    source = package_of(module_name(path))
    if source is None:
        return []  # esmo/__init__.py: lazy re-exports of the public names
    out = []
    for line, target in imports(path, text):
        dest = package_of(target)
        if dest is not None and dest != source and LAYERS[dest] >= LAYERS[source]:
            out.append(f"{path.relative_to(SRC)}:{line}: {source} imports {dest}")
    return out


def test_no_import_runs_up_or_sideways():
    found = [v for p in sorted((SRC / "esmo").rglob("*.py")) for v in violations(p, p.read_text())]
    assert found == []


def test_every_package_has_a_layer():
    """A new package must be placed in the picture (and in docs/architecture.md)."""
    packages = {module_name(p) for p in (SRC / "esmo").rglob("__init__.py")}
    packages -= {"esmo", "esmo.papers"}  # namespaces: their __init__ holds a docstring only
    assert {p for p in packages if package_of(p) is None} == set()


@pytest.mark.parametrize(
    ("source", "target"),
    [
        ("esmo/estimators/smo_classifier.py", "esmo.ensembles.estimator"),  # the old cycle
        ("esmo/nsvm/estimators.py", "esmo.papers.common.tables"),  # the old upward arrow
        ("esmo/papers/mdl/analysis.py", "esmo.papers.nsvm.analysis"),  # paper to paper
        ("esmo/mdl/search.py", "esmo.hypergradient.space"),  # method to method
    ],
)
def test_the_rule_reports_a_forbidden_import(source, target):
    path = SRC / source
    probe = path.read_text() + f"\n\ndef _probe():\n    import {target}\n"
    assert len(violations(path, probe)) == 1


def test_the_benchmark_imports_no_paper():
    """esmo.benchmark compares the papers' methods through the library (and may share
    esmo.papers.common), never through another paper's reproduction code."""
    found = [
        f"{path.relative_to(SRC)}:{line}: imports {target}"
        for path in sorted((SRC / "esmo" / "benchmark").rglob("*.py"))
        for line, target in imports(path, path.read_text())
        if target.startswith("esmo.papers.") and package_of(target) != "esmo.papers.common"
    ]
    assert found == []
