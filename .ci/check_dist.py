"""Check the release artefacts' contents: python .ci/check_dist.py DIST_DIR.

DIST_DIR holds one wheel and one sdist (``python -m build``). Both must carry
every file of the package under ``src/esmo`` (its modules and its data: any
non-Python file there, such as ``py.typed``, must be shipped) and nothing
machine-made (numba's caches ``*.nbi``/``*.nbc``, bytecode, ``__pycache__``);
the wheel's metadata must name ``esmo.__version__`` and the MIT licence, with the
licence file; the sdist must hold what a rebuild and a citation need.
Prints one line per artefact; exits non-zero, naming every problem, otherwise.
"""

from __future__ import annotations

import re
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "esmo"
MACHINE_MADE = re.compile(r"(^|/)__pycache__/|\.(nbi|nbc|pyc|pyo)$")
SDIST_FILES = ("pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md", "CITATION.cff")


def package_files() -> set[str]:
    """The package's files as ``esmo/...`` paths, what a build may not leave out."""
    return {
        "esmo/" + path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_file() and not MACHINE_MADE.search(path.relative_to(PACKAGE).as_posix())
    }


def version() -> str:
    text = (PACKAGE / "__init__.py").read_text()
    return re.search(r'^__version__ = "([^"]+)"', text, re.MULTILINE).group(1)


def check_wheel(path: Path) -> list[str]:
    with zipfile.ZipFile(path) as wheel:
        names = wheel.namelist()
        (meta_name,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        meta = Parser().parsestr(wheel.read(meta_name).decode())
    problems = [f"machine-made file {n}" for n in names if MACHINE_MADE.search(n)]
    shipped = {n for n in names if n.startswith("esmo/")}
    problems += [f"missing {n}" for n in sorted(package_files() - shipped)]
    problems += [f"not in src/esmo: {n}" for n in sorted(shipped - package_files())]
    if meta["Version"] != version():
        problems.append(f"metadata version {meta['Version']}, esmo.__version__ {version()}")
    if meta["License-Expression"] != "MIT":
        problems.append(f"License-Expression {meta['License-Expression']!r}, not MIT")
    if not any(n.endswith(".dist-info/licenses/LICENSE") for n in names):
        problems.append("no LICENSE in the wheel's dist-info")
    print(f"{path.name}: {len(names)} files, {len(shipped)} of the package")
    return [f"{path.name}: {p}" for p in problems]


def check_sdist(path: Path) -> list[str]:
    with tarfile.open(path) as sdist:
        names = [m.name.split("/", 1)[1] for m in sdist.getmembers() if m.isfile()]
    problems = [f"machine-made file {n}" for n in names if MACHINE_MADE.search(n)]
    shipped = {n.removeprefix("src/") for n in names if n.startswith("src/esmo/")}
    problems += [f"missing src/{n}" for n in sorted(package_files() - shipped)]
    problems += [f"missing {n}" for n in SDIST_FILES if n not in names]
    print(f"{path.name}: {len(names)} files, {len(shipped)} of the package")
    return [f"{path.name}: {p}" for p in problems]


def main(dist: Path) -> int:
    (wheel,), (sdist,) = sorted(dist.glob("*.whl")), sorted(dist.glob("*.tar.gz"))
    problems = check_wheel(wheel) + check_sdist(sdist)
    for problem in problems:
        print(f"check_dist: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
