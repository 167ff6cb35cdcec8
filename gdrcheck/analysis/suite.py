"""The litmus files of a set of paths (``gdrcheck run``, ``refines``, ``diff``)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

LIBRARY_DIR = Path(__file__).resolve().parents[2] / "litmus"
"""The project's litmus library (the default suite of ``refines`` and ``diff``)."""


def litmus_files(paths: Iterable[str | Path]) -> list[str]:
    """The ``.litmus`` files of ``paths``: files as given, directories walked (sorted);
    normalised, without repeats."""
    out: list[str] = []
    for p in map(Path, paths):
        found = sorted(f for f in p.rglob("*.litmus") if f.is_file()) if p.is_dir() else [p]
        out.extend(os.path.normpath(f) for f in found)
    return list(dict.fromkeys(out))
