"""Validation against herd7's and Dartagnan's published verdicts.

The peer suites live outside the project, in the folder that the environment variable
GDRCHECK_PEERS names (docs/peer-differences.md says what they are and where they come
from); they are read in place, never copied. Where they are absent the tests skip,
saying why.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gdrcheck.analysis.validate import (
    KNOWN_DIFFERENCES,
    peer_suite,
    summarize,
    validate_folder,
)


def _folder(name: str) -> Path:
    folder = peer_suite(name)
    if folder is None:
        pytest.skip(f"peer suite {name} is not present (GDRCHECK_PEERS names the folder of "
                    "the peer suites: docs/peer-differences.md)")
    return folder


@pytest.mark.parametrize("engine", ["smt", "explicit"])
def test_herd_x86_agrees_with_herd7(engine: str) -> None:
    rows = validate_folder(_folder("herd-x86"), engine)
    assert len(rows) >= 200
    assert {r.model for r in rows} == {"x86tso", "sc"}
    bad = [(r.file, r.model, r.expected, r.got) for r in rows if not r.agrees]
    assert not bad, bad


@pytest.mark.parametrize("engine", [
    "smt", pytest.param("explicit", marks=pytest.mark.slow)])  # explicit: 80 s of 104 tests
def test_dat3m_ptx_agrees_with_dartagnan(engine: str) -> None:
    rows = validate_folder(_folder("dat3m-ptx"), engine)
    assert len(rows) == 104
    agree, known, unexpected = summarize(rows)
    assert unexpected == 0, [(r.file, r.expected, r.got) for r in rows
                             if not r.agrees and r.file not in KNOWN_DIFFERENCES]
    # a documented difference that disappeared must be removed from the list
    differing = {r.file for r in rows if not r.agrees}
    assert differing == set(KNOWN_DIFFERENCES) & {r.file for r in rows}
    assert agree + known == 104


@pytest.mark.parametrize("engine", ["smt", "explicit"])
def test_dat3m_ptx75_agrees_with_dartagnan(engine: str) -> None:
    """The 81 mixed-proxy tests of Dartagnan's PTX 7.5 suite, under ptx75."""
    rows = validate_folder(_folder("dat3m-ptx75"), engine)
    assert len(rows) == 81
    assert {r.model for r in rows} == {"ptx75"}
    bad = [(r.file, r.expected, r.got) for r in rows
           if not r.agrees and r.file not in KNOWN_DIFFERENCES]
    assert not bad, bad
    assert summarize(rows)[0] + summarize(rows)[1] == 81


@pytest.mark.parametrize("engine", [
    "smt",
    # about two minutes on two cores (the Ticketlock tests): run with -m slow
    pytest.param("explicit", marks=pytest.mark.slow),
])
def test_dat3m_ptx_agrees_under_ptx75(engine: str) -> None:
    """The 104 PTX 6.0 tests keep their expected values under PTX 7.5 (the suite's
    README: 104 of 104 identical under Dartagnan's 7.5 model)."""
    rows = validate_folder(_folder("dat3m-ptx"), engine, model="ptx75")
    assert len(rows) == 104
    assert {r.model for r in rows} == {"ptx75"}
    bad = [(r.file, r.expected, r.got) for r in rows
           if not r.agrees and r.file not in KNOWN_DIFFERENCES]
    assert not bad, bad
