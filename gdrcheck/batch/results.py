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
import stat
import time
from pathlib import Path

from gdrcheck.batch.jobs import Record

RECORD_SCHEMAS = frozenset({"gdrcheck.check/2", "gdrcheck.run-error/1"})
"""The schemas of the lines of a results file."""

VERDICTS = frozenset({"Allowed", "Forbidden", "Required", "Undefined", "Unknown", "Error"})
"""The verdicts a line may have."""

LINE_START = b'{"key":"'
"""How every line of a results file starts (:meth:`ResultsFile.append` writes the key
first, without spaces): a torn last line is a prefix of a line, so it starts with this
(or is a prefix of it)."""

MAX_LINE = 256 * 1024 * 1024
"""The longest line read (a record with ``--states`` of a large test is megabytes); a
longer one is not a results file's."""


class NotResults(Exception):
    """The results file given is not one: refused before any work, never changed."""

    def __init__(self, path: Path, why: str, line: int | None = None) -> None:
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: {why}")
        self.message = f"{where}: {why}"


def check_results_path(path: Path) -> None:
    """Refuse a path that is neither a new file nor a regular file (a directory, a FIFO,
    a device: ``/dev/null`` would swallow the lines, ``/dev/zero`` be read without end, a
    FIFO block the run)."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return  # a new file (its directory is checked when it is created)
    except OSError as err:
        raise NotResults(path, f"cannot read it: {err.strerror or err}") from None
    if not stat.S_ISREG(mode):
        raise NotResults(path, f"not a regular file ({_kind(mode)}): the results file must "
                         "be a regular file or a new path")


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a plain file"


def parse_line(line: bytes) -> Record | None:
    """The record of one complete line, or None when it is not a line of a results file
    (a JSON object with a string ``key``, a known ``schema`` and ``verdict``, and ``key``
    equal to ``file::model``)."""
    try:
        rec = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(rec, dict):
        return None
    key, file, model = rec.get("key"), rec.get("file"), rec.get("model")
    if not (isinstance(key, str) and isinstance(file, str) and isinstance(model, str)
            and key == f"{file}::{model}"):
        return None
    schema, verdict = rec.get("schema"), rec.get("verdict")
    # a JSON object or list there is no verdict (and cannot be looked up in a set)
    if not (isinstance(schema, str) and isinstance(verdict, str)):
        return None
    if schema not in RECORD_SCHEMAS or verdict not in VERDICTS:
        return None
    if rec.get("verdict") == "Error" and rec.get("schema") != "gdrcheck.run-error/1":
        return None
    return rec


def _torn(last: bytes) -> bool:
    """Whether ``last`` (a last line without its newline) is a line cut short: it starts
    as every line does and is not JSON (a line cut before its closing brace never is)."""
    if not LINE_START.startswith(last[:len(LINE_START)]):
        return False
    try:
        json.loads(last)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return True
    return False


def read_results(path: Path, repair: bool = False) -> dict[str, Record]:
    """The records of the results file ``path`` by key (the last line of a key wins);
    none when it does not exist.

    A file that is not a results file is refused (:class:`NotResults`, nothing read
    further, nothing changed): not a regular file, a line that is not a record (not
    JSON, not an object, no key, an unknown schema or verdict, a key that is not
    ``file::model``), a line longer than :data:`MAX_LINE`. Only the last line may be
    cut short (a run killed in the middle of a write): with ``repair`` it is cut off,
    and a last line that is whole but lacks its newline gets one (a file edited by
    hand), so that the next line appended starts a line; without, both are read as
    they are (the torn line skipped)."""
    check_results_path(path)
    out: dict[str, Record] = {}
    try:
        f = path.open("rb")
    except FileNotFoundError:
        return out
    except OSError as err:
        raise NotResults(path, f"cannot read it: {err.strerror or err}") from None
    with f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):  # replaced since the check
            raise NotResults(path, "not a regular file")
        number = end = 0
        while line := f.readline(MAX_LINE + 1):
            number += 1
            if len(line) > MAX_LINE:
                raise NotResults(path, f"a line longer than {MAX_LINE} bytes: not a "
                                 "results file of gdrcheck run", number)
            if not line.endswith(b"\n"):  # the last line, without its newline
                if _torn(line):
                    if repair:
                        os.truncate(path, end)
                    break
                rec = parse_line(line)
                if rec is None:
                    raise NotResults(path, _not_a_line(line), number)
                if repair:
                    with path.open("ab") as tail:
                        tail.write(b"\n")
                out[rec["key"]] = rec
                break
            rec = parse_line(line)
            if rec is None:
                raise NotResults(path, _not_a_line(line), number)
            out[rec["key"]] = rec
            end += len(line)
    return out


def _not_a_line(line: bytes) -> str:
    return ("not a line of a results file of gdrcheck run (a JSON record with key, "
            "schema, file, model and verdict): refused, the file is left as it is; give "
            "-o a new file or a results file")


SYNC_EVERY = 1.0
"""Seconds between two fsyncs of the results file."""


class ResultsFile:
    """Appends one line per record: one ``os.write`` on an ``O_APPEND`` descriptor;
    fsync at most every :data:`SYNC_EVERY` seconds, and on close."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o644)
        if not stat.S_ISREG(os.fstat(self.fd).st_mode):  # replaced since it was read
            os.close(self.fd)
            raise NotResults(path, "not a regular file")
        os.set_blocking(self.fd, True)
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
