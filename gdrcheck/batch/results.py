"""The results file of ``gdrcheck run``: one JSON line per finished job, appended with
one ``os.write`` on an ``O_APPEND`` descriptor and fsync'ed, so that after a crash it
holds every finished job and at worst a truncated last line."""

from __future__ import annotations

import json
import os
from pathlib import Path

from gdrcheck.batch.jobs import Record


def read_results(path: Path, repair: bool = False) -> dict[str, Record]:
    """The records of a results file by key (the last line of a key wins). Lines that
    are not JSON objects with a key are ignored; with ``repair``, a truncated last line
    (no newline at the end) is cut off the file."""
    if not path.exists():
        return {}
    data = path.read_bytes()
    if repair and data and not data.endswith(b"\n"):
        cut = data.rfind(b"\n") + 1
        os.truncate(path, cut)
        data = data[:cut]
    out: dict[str, Record] = {}
    for line in data.splitlines():
        try:
            rec = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue
        if isinstance(rec, dict) and isinstance(rec.get("key"), str):
            out[rec["key"]] = rec
    return out


class ResultsFile:
    """Appends one line per record: one ``os.write`` on an ``O_APPEND`` descriptor,
    then fsync."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def append(self, rec: Record) -> None:
        data = (json.dumps(rec, separators=(",", ":")) + "\n").encode()
        written = os.write(self.fd, data)
        while written < len(data):  # a short write to a regular file: disk full, a signal
            written += os.write(self.fd, data[written:])
        os.fsync(self.fd)

    def close(self) -> None:
        os.close(self.fd)
