"""The solver's numba cache (esmo.solver.compile) never runs code compiled from old sources.

The end-to-end test builds two tiny packages, each a caller module and a callee
module: ``guarded`` decorates with a copy of ``esmo/solver/compile.py`` (so its
cache is keyed on its own folder, as the solver's is on ``esmo/solver``),
``plain`` with numba's ``cache=True``. Each run is a fresh interpreter.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numba

from esmo.solver import compile as solver_compile

CALLEE = """\
from {decorator_import}

@{decorator}
def value():
    return {value}
"""

CALLER = """\
from {decorator_import}
from {package}.callee import value

@{decorator}
def doubled():
    return 2 * value()
"""

DECORATORS = {
    "guarded": ("{package}.compile import jit", "jit"),
    "plain": ("numba import njit", "njit(cache=True)"),
}

# one fresh interpreter: call each package's caller, report its result and cache statistics
DRIVER = """\
import importlib, json, sys
out = {}
for package in sys.argv[1:]:
    doubled = importlib.import_module(package + ".caller").doubled
    result = doubled()
    stats = doubled.stats
    out[package] = {
        "result": result,
        "hits": sum(stats.cache_hits.values()),
        "misses": sum(stats.cache_misses.values()),
    }
print(json.dumps(out))
"""


def _write_callee(folder: Path, package: str, value: int) -> None:
    decorator_import, decorator = DECORATORS[package]
    text = CALLEE.format(
        decorator_import=decorator_import.format(package=package), decorator=decorator, value=value
    )
    (folder / package / "callee.py").write_text(text)


def _make_packages(root: Path) -> None:
    for package, (decorator_import, decorator) in DECORATORS.items():
        folder = root / package
        folder.mkdir()
        (folder / "__init__.py").write_text("")
        (folder / "caller.py").write_text(
            CALLER.format(
                decorator_import=decorator_import.format(package=package),
                decorator=decorator,
                package=package,
            )
        )
        _write_callee(root, package, 1)
    shutil.copy(solver_compile.__file__, root / "guarded" / "compile.py")


def _run(root: Path, cache_dir: Path, packages: tuple[str, ...] = ("guarded", "plain")) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(root)
    env["NUMBA_CACHE_DIR"] = str(cache_dir)
    # edits keep the file size and may fall in the same second: no stale .pyc either
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("NUMBA_DISABLE_JIT", None)
    env.pop("NUMBA_CACHE_LOCATOR_CLASSES", None)
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, *packages],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(done.stdout.splitlines()[-1])


def _index_files(cache_dir: Path, package: str) -> dict[str, tuple[int, bytes]]:
    return {
        path.name: (path.stat().st_mtime_ns, path.read_bytes())
        for path in cache_dir.rglob("*.nbi")
        if path.parent.name.startswith(package + "_")
    }


def test_edit_to_callee_module_invalidates_cached_caller(tmp_path):
    root, cache_dir = tmp_path / "src", tmp_path / "numba_cache"
    root.mkdir()
    _make_packages(root)

    first = _run(root, cache_dir)
    assert first["guarded"] == {"result": 2, "hits": 0, "misses": 1}
    assert first["plain"] == {"result": 2, "hits": 0, "misses": 1}
    # NUMBA_CACHE_DIR is respected: the index is there, nothing in the package folder
    index = _index_files(cache_dir, "guarded")
    assert any(name.startswith("caller.doubled-") for name in index)
    assert not (root / "guarded" / "__pycache__").exists()

    # unchanged sources: loaded from the cache, index files not rewritten
    second = _run(root, cache_dir)
    assert second["guarded"] == {"result": 2, "hits": 1, "misses": 0}
    assert _index_files(cache_dir, "guarded") == index

    # edit the callee only; the caller's module is untouched
    for package in DECORATORS:
        _write_callee(root, package, 5)
    third = _run(root, cache_dir)
    # the oracle: numba's cache=True loads the caller compiled with the old callee
    assert third["plain"] == {"result": 2, "hits": 1, "misses": 0}
    # the package-keyed cache recompiles and runs the new callee
    assert third["guarded"] == {"result": 10, "hits": 0, "misses": 1}

    fourth = _run(root, cache_dir)
    assert fourth["guarded"] == {"result": 10, "hits": 1, "misses": 0}


def test_solver_functions_use_the_package_cache():
    from esmo.solver import kernels, smo

    dispatchers = [
        obj
        for module in (kernels, smo)
        for obj in vars(module).values()
        if isinstance(obj, numba.core.registry.CPUDispatcher)
    ]
    assert dispatchers
    for dispatcher in dispatchers:
        assert isinstance(dispatcher._cache, solver_compile._CACHE_CLASS), dispatcher
        assert dispatcher.stats.cache_path is not None


def test_no_solver_module_uses_numba_cache_directly():
    # numba's own cache=True would be keyed on one module only
    for path in sorted(solver_compile.PACKAGE_DIR.glob("*.py")):
        if path.name != "compile.py":
            text = path.read_text()
            assert not re.search(r"cache\s*=\s*True", text), path.name


def test_digest_covers_every_module(tmp_path):
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text("x = 1\n")
    before = solver_compile.source_digest(tmp_path)
    (tmp_path / "b.py").write_text("x = 2\n")
    assert solver_compile.source_digest(tmp_path) != before
    (tmp_path / "c.py").write_text("y = 1\n")
    outside = solver_compile.source_digest(tmp_path / "a.py", [tmp_path / "c.py"])
    (tmp_path / "c.py").write_text("y = 2\n")
    assert solver_compile.source_digest(tmp_path / "a.py", [tmp_path / "c.py"]) != outside
    expected = solver_compile.source_digest(
        solver_compile.PACKAGE_DIR, solver_compile.IMPORTED_SOURCES
    )
    assert solver_compile.SOURCE_DIGEST == expected


# a caller that reads a module-level int from a module outside its folder, as the
# tracker reads the metric codes of esmo/early_stopping.py
CONSTANT_CALLER = """\
from {decorator_import}
from outer.constants import VALUE

@{decorator}
def doubled():
    return 2 * VALUE
"""


def test_edit_to_a_constant_imported_from_outside_the_folder_invalidates_cached_caller(tmp_path):
    """numba compiles the constant into the caller: the module it comes from keys the cache too."""
    root, cache_dir = tmp_path / "src", tmp_path / "numba_cache"
    outer = root / "outer"
    outer.mkdir(parents=True)
    (outer / "__init__.py").write_text("")
    (outer / "constants.py").write_text("VALUE = 1\n")
    for package, (decorator_import, decorator) in DECORATORS.items():
        (outer / package).mkdir()
        (outer / package / "__init__.py").write_text("")
        (outer / package / "caller.py").write_text(
            CONSTANT_CALLER.format(
                decorator_import=decorator_import.format(package=f"outer.{package}"),
                decorator=decorator,
            )
        )
    shutil.copy(solver_compile.__file__, outer / "guarded" / "compile.py")
    packages = ("outer.guarded", "outer.plain")

    first = _run(root, cache_dir, packages)
    assert first["outer.guarded"] == first["outer.plain"] == {"result": 2, "hits": 0, "misses": 1}
    (outer / "constants.py").write_text("VALUE = 5\n")
    second = _run(root, cache_dir, packages)
    # the oracle: numba's cache=True runs the caller compiled with the old constant
    assert second["outer.plain"] == {"result": 2, "hits": 1, "misses": 0}
    assert second["outer.guarded"] == {"result": 10, "hits": 0, "misses": 1}


def test_imported_sources_follow_every_import_form_within_the_top_package(tmp_path):
    """Absolute, ``from package import module``, relative, and onwards from a found module;
    modules inside the folder and outside the top package are not listed."""
    top = tmp_path / "top"
    for folder in (top, top / "sub", top / "sub" / "inner"):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "__init__.py").write_text("")
    modules = {
        "top/a.py": "import top.b\n",
        "top/b.py": "",
        "top/c.py": "from . import d\n",
        "top/d.py": "",
        "top/e.py": "",
        "top/unused.py": "",
        "top/sub/inner/one.py": (
            "import os\nimport numpy\nfrom top.a import x\nfrom top import c\n"
            "from ...e import y\nfrom . import two\n"
        ),
        "top/sub/inner/two.py": "",
    }
    for name, text in modules.items():
        (tmp_path / name).write_text(text)
    found = solver_compile.imported_sources(top / "sub" / "inner", "top.sub.inner")
    names = [path.relative_to(tmp_path.resolve()).as_posix() for path in found]
    assert names == ["top/__init__.py", "top/a.py", "top/b.py", "top/c.py", "top/d.py", "top/e.py"]
