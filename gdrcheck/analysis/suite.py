"""The litmus files of a set of paths (``gdrcheck run``, ``refines``, ``diff``)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from gdrcheck.litmus.library import LIBRARY_DIR, resolve

__all__ = ["LIBRARY_DIR", "litmus_files"]

# LIBRARY_DIR: the litmus library shipped with the package (the default suite of
# ``refines`` and ``diff``), gdrcheck.litmus.library's


def litmus_files(paths: Iterable[str | Path]) -> list[str]:
    """The ``.litmus`` files of ``paths``: files as given, directories walked (sorted);
    normalised, without repeats. ``lib:NAME`` names a file or directory of the shipped
    library (``lib:gin``; ``lib:`` is all of it)."""
    out: list[str] = []
    for p in map(resolve, paths):
        found = sorted(f for f in p.rglob("*.litmus") if f.is_file()) if p.is_dir() else [p]
        out.extend(os.path.normpath(f) for f in found)
    return list(dict.fromkeys(out))
