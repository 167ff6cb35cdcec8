"""The litmus library shipped with the package, and its ``lib:`` names.

A test path ``lib:gin/01-MP+put+strongsig.litmus`` (or a directory ``lib:gin``, or
``lib:`` alone for the whole library) names a file of the shipped library: package data
``gdrcheck/library``, found through :mod:`importlib.resources` (in a checkout a link to
the project's ``litmus/``), so that the same name works from a checkout, a wheel and any
directory. :func:`resolve` is the one place that turns a ``lib:`` name into a path; every
reader of test paths (``load_litmus``, ``analysis.suite.litmus_files``, the pytest
plugin) calls it.
"""

from __future__ import annotations

import fnmatch
import importlib.resources
from pathlib import Path

from gdrcheck.errors import LitmusError

LIB_PREFIX = "lib:"
"""The prefix of a name in the shipped library."""

LIBRARY_DIR = Path(str(importlib.resources.files("gdrcheck") / "library")).resolve()
"""The shipped litmus library (``gdrcheck/library``; in a checkout, ``litmus/``)."""


def is_library_name(path: str | Path) -> bool:
    """Whether ``path`` is written ``lib:...``."""
    return isinstance(path, str) and path.startswith(LIB_PREFIX)


def resolve(path: str | Path) -> Path:
    """The file or directory ``path`` names: a ``lib:REL`` name is ``REL`` inside the
    shipped library (``lib:`` alone: the library); any other path is returned as is.
    A ``lib:`` name that leaves the library or names nothing in it is a
    :class:`LitmusError` that lists where to look (``gdrcheck library``)."""
    if not is_library_name(path):
        return Path(path)
    name = str(path)
    rel = name[len(LIB_PREFIX):].strip("/")
    target = (LIBRARY_DIR / rel).resolve() if rel else LIBRARY_DIR
    if target != LIBRARY_DIR and LIBRARY_DIR not in target.parents:
        raise LitmusError(f"{name!r} is outside the shipped litmus library", name)
    if not target.exists():
        hint = _near(rel)
        raise LitmusError(f"no test {rel!r} in the shipped litmus library ({LIBRARY_DIR})"
                          f"{hint}; 'gdrcheck library' lists its tests", name)
    return target


def _near(rel: str) -> str:
    """`` (did you mean lib:X?)`` when one library file ends like ``rel``."""
    stem = Path(rel).name
    if not stem:
        return ""
    hits = [p for p in library_tests() if p.endswith("/" + stem) or p.endswith("/" + stem
                                                                               + ".litmus")]
    return f" (did you mean {LIB_PREFIX}{hits[0]}?)" if len(hits) == 1 else ""


def library_tests(pattern: str | None = None) -> list[str]:
    """The shipped tests, as paths relative to the library (``gin/01-...litmus``),
    sorted; with ``pattern``, those whose relative path matches it as a shell pattern
    (``gin/*``, ``*strongsig*``) or contains it as a plain substring."""
    if not LIBRARY_DIR.is_dir():
        return []
    names = sorted(p.relative_to(LIBRARY_DIR).as_posix()
                   for p in LIBRARY_DIR.rglob("*.litmus") if p.is_file())
    if pattern is None:
        return names
    pat = pattern.removeprefix(LIB_PREFIX)
    if any(c in pat for c in "*?["):
        return [n for n in names if fnmatch.fnmatchcase(n, pat)
                or fnmatch.fnmatchcase(n, pat + "*")]
    return [n for n in names if pat in n]
