"""The ``esmo`` command: the installed version (``esmo --version``), for citing a run."""

from __future__ import annotations

import argparse
import sys

import esmo


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="esmo",
        description="esmo: budget-aware SVM training and tuning. The workflow runs with "
        "`snakemake --cores N` in a clone; the library is `import esmo`.",
    )
    parser.add_argument("--version", action="version", version=f"esmo {esmo.__version__}")
    parser.parse_args(argv)
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
