"""The litmus files the page may load: the shipped library (``litmus/``) and the
``*.litmus`` files under the ``-I`` directories, listed once when the server starts.
A request names a file by its key in that list; nothing is read by a path built from
a request, so no path can reach outside these directories."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gdrcheck.analysis.suite import LIBRARY_DIR


@dataclass(frozen=True)
class Entry:
    key: str
    """``gin/01-MP+put+strongsig.litmus``; ``-I NAME/...`` for an -I directory."""
    group: str
    name: str
    path: Path


class Library:
    def __init__(self, include_dirs: Sequence[str | Path] = (),
                 shipped: Path | None = LIBRARY_DIR) -> None:
        roots: list[tuple[str, Path]] = []
        if shipped is not None and shipped.is_dir():
            roots.append(("", shipped))
        roots.extend((f"-I {Path(d).name}/", Path(d)) for d in include_dirs)
        self.entries: dict[str, Entry] = {}
        for prefix, root in roots:
            base = root.resolve()
            for p in sorted(base.rglob("*.litmus")):
                real = p.resolve()
                if not real.is_file() or not real.is_relative_to(base):
                    continue  # a link that leads outside the directory
                rel = real.relative_to(base)
                key = prefix + rel.as_posix()
                group = prefix + (rel.parent.as_posix() if rel.parent.parts else ".")
                self.entries.setdefault(key, Entry(key, group, rel.stem, real))

    def listing(self) -> list[dict[str, str]]:
        return [{"id": e.key, "group": e.group, "name": e.name}
                for e in self.entries.values()]

    def text(self, key: str) -> str | None:
        """The text of the listed file ``key``; None for a key not in the list."""
        e = self.entries.get(key)
        if e is None:
            return None
        return e.path.read_text(encoding="utf-8", errors="replace")
