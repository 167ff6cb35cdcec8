"""The litmus files of a set of paths (``gdrcheck run``, ``refines``, ``diff``)."""

from __future__ import annotations

import importlib.resources
import os
from collections.abc import Iterable
from pathlib import Path

LIBRARY_DIR = Path(str(importlib.resources.files("gdrcheck") / "library")).resolve()
"""The litmus library shipped with the package (the default suite of ``refines``
and ``diff``): package data ``gdrcheck/library``, found through
:mod:`importlib.resources`; in a checkout a link to the project's ``litmus/``."""


def litmus_files(paths: Iterable[str | Path]) -> list[str]:
    """The ``.litmus`` files of ``paths``: files as given, directories walked (sorted);
    normalised, without repeats."""
    out: list[str] = []
    for p in map(Path, paths):
        found = sorted(f for f in p.rglob("*.litmus") if f.is_file()) if p.is_dir() else [p]
        out.extend(os.path.normpath(f) for f in found)
    return list(dict.fromkeys(out))
