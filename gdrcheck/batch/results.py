"""The results file of ``gdrcheck run``: one JSON line per finished job, appended with
one ``os.write`` on an ``O_APPEND`` descriptor, so that after the run is killed (even
``kill -9``: the kernel keeps what was written) it holds every finished job and at worst
a truncated last line. It is fsync'ed at most once a second (:data:`SYNC_EVERY`) and on
close, so that a crash of the machine loses at most the last second: an fsync per line
capped a run at about 100 jobs a second whatever the number of workers (measured on a
16-core machine, docs/performance.md)."""

from __future__ import annotations

import json
import os
import time
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


SYNC_EVERY = 1.0
"""Seconds between two fsyncs of the results file."""


class ResultsFile:
    """Appends one line per record: one ``os.write`` on an ``O_APPEND`` descriptor;
    fsync at most every :data:`SYNC_EVERY` seconds, and on close."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self.synced = time.monotonic()

    def append(self, rec: Record) -> None:
        data = (json.dumps(rec, separators=(",", ":")) + "\n").encode()
        written = os.write(self.fd, data)
        while written < len(data):  # a short write to a regular file: disk full, a signal
            written += os.write(self.fd, data[written:])
        now = time.monotonic()
        if now - self.synced >= SYNC_EVERY:
            os.fsync(self.fd)
            self.synced = now

    def close(self) -> None:
        os.fsync(self.fd)
        os.close(self.fd)
