"""Validation against other tools' published verdicts (herd7, Dartagnan).

The peer suites are not part of the project: this module reads them where they
lie, given their folders (``gdrcheck validate`` prints the comparison)::

    gdrcheck validate $GDRCHECK_PEERS/herd-x86 $GDRCHECK_PEERS/dat3m-ptx

The environment variable ``GDRCHECK_PEERS`` names the folder that holds the three
suites (:data:`PEER_SUITES`); :func:`peers_dir` is the one place that reads it (the
tests, ``gdrcheck validate`` without folders and bench/compare_engines.py use it).
docs/peer-differences.md says what the suites are and where they come from publicly.

A folder with ``herd7-verdicts.csv`` (``file,model,verdict``) is a herd7 suite;
one with ``*-expected.csv`` (``file,1|0``) is a Dartagnan suite, whose 1/0
(the condition holds / fails as written) is turned into a verdict on the
proposition with the test's quantifier (the suite's README table).
Differences that are understood are listed in :data:`KNOWN_DIFFERENCES`, each
written up in docs/peer-differences.md; any other difference fails.
"""

from __future__ import annotations

import csv
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.errors import InputError
from gdrcheck.litmus import load_litmus

PEERS_ENV = "GDRCHECK_PEERS"
"""The environment variable naming the folder of the peer suites."""

PEER_SUITES = ("herd-x86", "dat3m-ptx", "dat3m-ptx75")
"""The suites that folder holds: herd7's x86 verdicts, Dartagnan's PTX 6.0 and 7.5 tests."""


def peers_dir() -> Path | None:
    """The folder of the peer suites (``$GDRCHECK_PEERS``), or None when it is unset or
    empty."""
    value = os.environ.get(PEERS_ENV, "").strip()
    return Path(value) if value else None


def peer_suite(name: str) -> Path | None:
    """The folder of one peer suite (``$GDRCHECK_PEERS/NAME``), or None when the variable
    is unset or the folder is not there."""
    base = peers_dir()
    folder = None if base is None else base / name
    return folder if folder is not None and folder.is_dir() else None


KNOWN_DIFFERENCES: dict[str, str] = {}
"""Peer test path (relative to its suite) -> one-line reason; docs/peer-differences.md
has the axiom-level write-up."""


@dataclass
class Row:
    suite: str
    file: str
    model: str
    expected: str
    got: str
    time: float
    note: str = ""

    @property
    def agrees(self) -> bool:
        if self.expected == "NotRequired":
            return self.got in ("Allowed", "Forbidden")
        return self.expected == self.got


def dartagnan_verdict(quantifier: str, holds: bool) -> str:
    """Dartagnan's 1/0 as a verdict on the proposition (dat3m-ptx/README.md)."""
    if quantifier == "exists":
        return "Allowed" if holds else "Forbidden"
    if quantifier == "~exists":
        return "Forbidden" if holds else "Allowed"
    return "Required" if holds else "NotRequired"


def _run(suite: str, folder: Path, rel: str, model: str, expected: str | None,
         holds: bool | None, engine: str = "auto") -> Row:
    t0 = time.perf_counter()
    try:
        test = load_litmus(str(folder / rel))
        if expected is None:
            assert holds is not None
            expected = dartagnan_verdict(test.condition.quantifier, holds)
        res = check_test(test, model, options=CheckOptions(engine=engine))
        got: str = res.verdict
    except InputError as err:
        got, expected = "Error", expected or "?"
        return Row(suite, rel, model, expected, got, time.perf_counter() - t0, err.render())
    return Row(suite, rel, model, expected, got, time.perf_counter() - t0,
               KNOWN_DIFFERENCES.get(rel, ""))


def validate_folder(folder: Path, engine: str = "auto", model: str | None = None) -> list[Row]:
    """``model``: judge a Dartagnan suite under this model instead of its csv's."""
    rows: list[Row] = []
    herd = folder / "herd7-verdicts.csv"
    if herd.exists():
        with herd.open() as fh:
            for rec in csv.reader(fh):
                if len(rec) != 3 or rec[0] == "file":
                    continue
                rows.append(_run(folder.name, folder, rec[0], rec[1], rec[2], None, engine))
        return rows
    for exp in sorted(folder.glob("*-expected.csv")):
        stem = exp.name.split("-")[0]
        default = "ptx" if stem.startswith("PTX") else stem.lower()
        suite_model = {"PTXv7_5": "ptx75"}.get(stem, default)
        model_name = model or suite_model
        with exp.open() as fh:
            for rec in csv.reader(fh):
                if len(rec) != 2 or not rec[1].strip().isdigit():
                    continue
                rows.append(_run(folder.name, folder, rec[0], model_name, None,
                                 rec[1].strip() == "1", engine))
    if not rows:
        raise InputError(f"{folder}: no herd7-verdicts.csv or *-expected.csv found")
    return rows


def summarize(rows: Sequence[Row]) -> tuple[int, int, int]:
    """(agreeing, known differences, unexpected differences)."""
    agree = sum(1 for r in rows if r.agrees)
    known = sum(1 for r in rows if not r.agrees and r.file in KNOWN_DIFFERENCES)
    return agree, known, len(rows) - agree - known
