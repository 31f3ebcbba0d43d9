"""Saving a figure: every paper's figures written the same way, to every format asked for."""

from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure


def save_figure(fig: Figure, *paths: str | Path, dpi: int = 200) -> None:
    """Write ``fig`` to each path, in the format its suffix names (``.pdf``, ``.png``, ...)."""
    if not paths:
        raise ValueError("save_figure needs at least one path, e.g. 'fig.pdf', 'fig.png'")
    for path in map(Path, paths):
        if not path.suffix:
            raise ValueError(f"{path} has no suffix; name the format, e.g. {path}.pdf")
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=dpi, bbox_inches="tight")
