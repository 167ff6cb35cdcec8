"""``gdrcheck generate --enumerate``: every cycle up to a size, once per rotation."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from gdrcheck.cli import main
from gdrcheck.gen.cycles import all_rotations
from gdrcheck.gen.enumerate import DEFAULT_EDGES, enumerate_cycles
from gdrcheck.litmus import parse_litmus


@pytest.mark.parametrize("dialect", ["x86", "ptx", "gin"])
def test_cycles_are_unique_up_to_rotation_and_make_tests(dialect: str) -> None:
    got = list(enumerate_cycles(DEFAULT_EDGES[dialect], 4, dialect))
    assert got
    seen: set[tuple[str, ...]] = set()
    for names, text in got:
        rots = {tuple(r) for r in all_rotations(names)}
        assert not rots & seen, names
        seen |= rots
        assert any(n in ("Rfe", "Fre", "Wse") for n in names)
        parse_litmus(text, "+".join(names))


def test_the_classic_shapes_are_there() -> None:
    cycles = {tuple(c) for c, _ in enumerate_cycles(DEFAULT_EDGES["x86"], 4, "x86")}
    rot = {tuple(r) for c in cycles for r in all_rotations(list(c))}
    assert ("Fre", "PodWR", "Fre", "PodWR") in rot  # SB
    assert ("Rfe", "PodRR", "Fre", "PodWW") in rot  # MP
    assert ("Rfe", "PodRW", "Rfe", "PodRW") in rot  # LB
    # edges that do not chain never meet: no Rfe followed by Fre's W-start mismatch
    assert all(not (a == "Rfe" and b.startswith("PodW")) for c in cycles
               for a, b in zip(c, c[1:] + c[:1], strict=True))


def test_sizes_grow() -> None:
    n4 = sum(1 for _ in enumerate_cycles(DEFAULT_EDGES["x86"], 4, "x86"))
    n5 = sum(1 for _ in enumerate_cycles(DEFAULT_EDGES["x86"], 5, "x86"))
    assert n5 > n4


def test_cli_writes_the_suite(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["generate", "--enumerate", "--dialect", "ptx", "--size", "3",
                                  "--edges", "Rfe,Fre,PodWR,PodRW", "-o", str(tmp_path)])
    assert r.exit_code == 0, r.output
    files = sorted(tmp_path.glob("*.litmus"))
    assert files and all(parse_litmus(f.read_text(), str(f)) for f in files)
    r = CliRunner().invoke(main, ["generate", "--enumerate", "Rfe Fre"])
    assert r.exit_code == 2
