"""The solver's numba decorator: an on-disk cache keyed on the source of the whole package.

numba's ``cache=True`` stamps each function's cache index with its own module's
source file only, so a function compiled together with callees from other
modules keeps their old machine code after those modules change (numba issue
#1833). :func:`jit` is ``numba.njit`` with a cache whose stamp is a SHA-256 of
every ``*.py`` file in this folder, and of the modules of the enclosing package
that they import (:func:`imported_sources`: a compiled function reads an imported
module-level number, such as a metric code from ``esmo/early_stopping.py``, as a
constant), read once at import: editing any of them invalidates every cached
function of the package, and an unchanged package loads from the cache as
before. The files go where numba puts them: ``NUMBA_CACHE_DIR`` if set, else
the ``__pycache__`` next to the module, else numba's user-wide cache folder.

Use ``@jit`` or ``@jit(inline="always")`` (any ``numba.njit`` option but
``cache``) in every module of this folder. The folder is found from this file,
so a copy of it in another package caches that package the same way.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numba

#: the folder whose sources key the cache: this module's package
PACKAGE_DIR = Path(__file__).resolve().parent
#: numba's threading layers in the order esmo prefers them (:func:`prefer_openmp`)
THREADING_LAYERS = ["omp", "tbb", "workqueue"]


def prefer_openmp() -> None:
    """OpenMP first for numba's parallel regions, unless the user chose a layer.

    numba takes TBB first wherever it can load it, and it can once a library
    that ships TBB is imported (scikit-learn-intelex does). The solver's
    parallel regions are short and follow each other closely; under TBB the
    same fits took 1.25x to 1.3x as long on 2 cores (MAGIC whole, 2026-11-29),
    under OpenMP, which numba takes otherwise. A layer set through numba's
    environment variables, or one numba has already launched, is left alone.
    """
    chosen = {"NUMBA_THREADING_LAYER", "NUMBA_THREADING_LAYER_PRIORITY"} & set(os.environ)
    if not chosen and str(numba.config.THREADING_LAYER).lower() == "default":
        numba.config.THREADING_LAYER_PRIORITY = list(THREADING_LAYERS)


prefer_openmp()


def source_digest(folder: Path, extra: Iterable[Path] = ()) -> str:
    """SHA-256 of the names and contents of every ``*.py`` file under *folder*, then of *extra*."""
    digest = hashlib.sha256()
    for path in [*sorted(folder.rglob("*.py")), *extra]:
        data = path.read_bytes()
        digest.update(Path(os.path.relpath(path, folder)).as_posix().encode() + b"\0")
        digest.update(len(data).to_bytes(8, "little") + data)
    return digest.hexdigest()


def imported_sources(folder: Path, package: str) -> list[Path]:
    """Files of the modules outside *folder* that its files import, in *package*'s top package.

    *package* is *folder*'s dotted name; imports are followed from module to module,
    and only the modules named are read (not their parent packages' ``__init__``).
    """
    folder = folder.resolve()
    top, root = package.split(".")[0], folder.parents[package.count(".")]
    found: list[Path] = []
    todo = sorted(folder.rglob("*.py"))
    while todo:
        path = todo.pop()
        for name in _imported_names(path, root):
            target = _module_file(root, name) if name.split(".")[0] == top else None
            if target is not None and not target.is_relative_to(folder) and target not in found:
                found.append(target)
                todo.append(target)
    return sorted(found)


def _imported_names(path: Path, root: Path) -> list[str]:
    """Dotted names *path* imports; ``from a import b`` gives ``a`` and ``a.b`` (b may be a module)."""
    names = []
    for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the importing module's package up
                here = path.parent.relative_to(root).parts
                base = ".".join([*here[: len(here) - node.level + 1], *base.split(".")]).strip(".")
            names += [base, *(f"{base}.{alias.name}" for alias in node.names)]
    return names


def _module_file(root: Path, name: str) -> Path | None:
    """The source file of module *name* under *root*, if it is a file there."""
    path = root.joinpath(*name.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate.resolve()
    return None


#: the modules outside this folder whose sources key the cache too
IMPORTED_SOURCES = imported_sources(PACKAGE_DIR, __package__ or PACKAGE_DIR.name)
#: the stamp every cache index of the package is saved with and checked against
SOURCE_DIGEST = source_digest(PACKAGE_DIR, IMPORTED_SOURCES)


def _package_cache_class(stamp: str) -> type | None:
    """numba's per-function cache with *stamp* in place of the module's source stamp.

    numba has no public way to choose what invalidates a cache, so this relies
    on ``numba.core.caching`` internals, unchanged from numba 0.58 to 0.68:
    ``_CacheLocator`` (the base of numba's own locators: ``ensure_cache_path``,
    ``get_suitable_cache_subpath``; a cache index is valid only while
    ``get_source_stamp()`` returns what it was saved with),
    ``CompileResultCacheImpl._locator_classes`` (the locators tried in order)
    and ``FunctionCache._impl_class``; :func:`jit` installs the cache as
    ``Dispatcher._cache``, as ``Dispatcher.enable_caching`` does. Returns None
    if any of these is missing, and :func:`jit` then compiles without a cache.
    """
    try:
        from numba.core import caching, config
        from numba.misc.appdirs import AppDirs

        base = caching._CacheLocator
        cache_base = caching.FunctionCache
        impl_base = caching.CompileResultCacheImpl
        if not (
            hasattr(base, "get_suitable_cache_subpath")
            and hasattr(base, "ensure_cache_path")
            and hasattr(impl_base, "_locator_classes")
            and hasattr(cache_base, "_impl_class")
        ):
            return None
    except (ImportError, AttributeError):
        return None

    class PackageLocator(base):
        """numba's locations (NUMBA_CACHE_DIR, in-tree, user-wide); the package digest as stamp."""

        def __init__(self, py_func, py_file, cache_path):
            self._py_file = py_file  # numba's cachability warning reads it
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = cache_path

        def get_cache_path(self):
            return self._cache_path

        def get_source_stamp(self):
            return stamp

        def get_disambiguator(self):
            return str(self._lineno)

        @classmethod
        def from_function(cls, py_func, py_file):
            if not os.path.exists(py_file):
                return None
            subpath = cls.get_suitable_cache_subpath(py_file)
            folders = [os.path.join(os.path.dirname(py_file), "__pycache__")]
            if config.CACHE_DIR:
                folders.insert(0, os.path.join(config.CACHE_DIR, subpath))
            user_wide = AppDirs(appname="numba", appauthor=False).user_cache_dir
            folders.append(os.path.join(user_wide, subpath))
            for folder in folders:
                locator = cls(py_func, py_file, folder)
                try:
                    locator.ensure_cache_path()
                except OSError:
                    continue
                return locator
            return None

    class PackageCacheImpl(impl_base):
        _locator_classes = [PackageLocator]

    class PackageFunctionCache(cache_base):
        _impl_class = PackageCacheImpl

    return PackageFunctionCache


_CACHE_CLASS = _package_cache_class(SOURCE_DIGEST)
if _CACHE_CLASS is None:
    warnings.warn(
        f"numba {numba.__version__}'s caching internals differ from 0.58-0.68: "
        "the esmo solver compiles without an on-disk cache",
        RuntimeWarning,
        stacklevel=2,
    )


def _enable_cache(dispatcher: Any) -> None:
    """Give *dispatcher* the package cache, or leave it uncached with a warning."""
    if not hasattr(dispatcher, "py_func"):
        return  # NUMBA_DISABLE_JIT: njit gave back the Python function
    reason = None
    if _CACHE_CLASS is None:
        reason = "see the warning at import"
    elif getattr(numba.config, "CACHE_LOCATOR_CLASSES", ""):
        # numba >= 0.62 would pick these locators instead of ours
        reason = "NUMBA_CACHE_LOCATOR_CLASSES is set"
    elif not hasattr(getattr(dispatcher, "_cache", None), "load_overload"):
        reason = "numba's Dispatcher has no _cache attribute"
    else:
        try:
            dispatcher._cache = _CACHE_CLASS(dispatcher.py_func)
            return
        except Exception as exc:  # numba raises RuntimeError when no folder is writable
            reason = f"{type(exc).__name__}: {exc}"
    if _CACHE_CLASS is not None:
        warnings.warn(
            f"{dispatcher.py_func.__qualname__} compiles without an on-disk cache ({reason})",
            RuntimeWarning,
            stacklevel=3,
        )


@contextlib.contextmanager
def numba_threads(n: int) -> Iterator[int]:
    """Numba's parallel regions on ``n`` threads (at most the machine's) within the block.

    The setting is numba's per calling thread, restored on leaving, so a caller
    on another thread, or a fit with its own ``n_jobs``, keeps its own.
    """
    previous = numba.get_num_threads()
    n = max(1, min(int(n), numba.config.NUMBA_NUM_THREADS))
    numba.set_num_threads(n)
    try:
        yield n
    finally:
        numba.set_num_threads(previous)


def jit(func: Callable | None = None, /, **options: Any) -> Any:
    """``numba.njit(**options)`` with the package-keyed on-disk cache.

    Use as ``@jit`` or ``@jit(inline="always")``; *options* are numba's, but
    ``cache``, which this decorator owns.
    """
    if "cache" in options:
        raise TypeError("jit always caches; do not pass cache=")
    if func is None:
        return functools.partial(jit, **options)
    dispatcher = numba.njit(**options)(func)
    _enable_cache(dispatcher)
    return dispatcher
