"""The diy-style generator (gdrcheck/gen): generated tests parse, spell their cycle,
and get the verdicts the hand-written classics expect (their Expect= lines cite
herd7, the Intel SDM and the x86-TSO papers; the generated tests carry none)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from gdrcheck.analysis.check import check_test
from gdrcheck.cli import main
from gdrcheck.errors import InputError
from gdrcheck.gen.cycles import build_cycle
from gdrcheck.gen.families import family
from gdrcheck.litmus import load_litmus, parse_litmus

CLASSIC = Path(__file__).resolve().parents[2] / "litmus" / "classic"

# cycle -> the classic test of that shape
SHAPES = {
    "Fre PodWR Fre PodWR": "SB",
    "PodWW Rfe PodRR Fre": "MP",
    "Rfe PodRW Rfe PodRW": "LB",
    "Wse PodWW Wse PodWW": "2+2W",
    "Rfe PodRR Fre Rfe PodRR Fre": "IRIW",
    "Rfe PodRW Rfe PodRR Fre": "WRC",
    "PodWW Rfe PodRW Rfe PodRR Fre": "ISA2",
    "Fre MFencedWR Fre MFencedWR": "SB+mfences",
    "Wse PodWR Fre PodWW": "R",
    "Wse PodWW Rfe PodRW": "S",
}


@pytest.mark.parametrize("cycle,classic", sorted(SHAPES.items()))
@pytest.mark.parametrize("model", ["x86tso", "sc"])
def test_generated_classics_get_the_expected_verdicts(cycle: str, classic: str,
                                                      model: str) -> None:
    ref = load_litmus(str(CLASSIC / f"{classic}.litmus"))
    want = {e.model: e.verdict for e in ref.expectations}[model]
    test = parse_litmus(build_cycle(cycle.split(), "x86"), "g.litmus")
    assert test.name == "+".join(cycle.split())
    assert check_test(test, model).verdict == want
    assert len(test.threads) == len(ref.threads)


def test_condition_spells_the_cycle() -> None:
    text = build_cycle("PodWW Rfe PodRR Fre".split(), "x86")
    assert "exists (0:EAX=1 /\\ 0:EBX=0)" in text  # the reader runs first after rotation
    text = build_cycle("Wse PodWW Wse PodWW".split(), "x86")
    assert "x=2" in text and "y=2" in text  # the coherence orders, by final values


def test_ptx_cycles_and_scopes() -> None:
    mp_sc = parse_litmus(build_cycle("FenceSCdWW Rfe FenceSCdRR Fre".split(), "ptx"), "g")
    assert check_test(mp_sc, "ptx").verdict == "Forbidden"
    mp = parse_litmus(build_cycle("PodWW Rfe PodRR Fre".split(), "ptx"), "g")
    assert check_test(mp, "ptx").verdict == "Allowed"  # relaxed accesses: no sync
    cta = build_cycle("FenceSCdWW Rfe FenceSCdRR Fre".split(), "ptx", scope="cta")
    assert "fence.sc.cta" in cta and "P1@cta 1,gpu 0" in cta
    # fence.sc.cta in different CTAs: not morally strong, allowed (ASPLOS'19 §3.1)
    assert check_test(parse_litmus(cta, "g"), "ptx").verdict == "Allowed"


# expected verdicts: those of the library's scenario of the same shape (docs/gin-library.md,
# "The scenarios", cited in litmus/gin/*.litmus)
@pytest.mark.parametrize("cycle,api,gdaki,acked", [
    ("PutSigdWW Rfe PodRR Fre", "Forbidden", "Forbidden", "Forbidden"),    # #4b, R-GIN-3
    ("PutSSigdWW Rfe PodRR Fre", "Forbidden", "Forbidden", "Forbidden"),   # #1, R-GIN-2
    ("PutWSigdWW Rfe PodRR Fre", "Forbidden", "Forbidden", "Forbidden"),   # #2, R-GIN-2
    ("PutSigWdWW Rfe PodRR Fre", "Allowed", "Forbidden", "Forbidden"),     # #4c, R-GIN-4
    ("PutdWW Rfe PodRR Fre", "Allowed", "Forbidden", "Forbidden"),         # #9, R-GIN-1
    ("PutSigXdWW Rfe PodRR Fre", "Allowed", "Allowed", "Allowed"),         # #5, R-GIN-7
    ("PutFlushSigXdWW Rfe PodRR Fre", "Allowed", "Allowed", "Forbidden"),  # #6, R-GIN-8
    ("PutCtrNvdWW Rfe PodRR Fre", "Allowed", "Allowed", "Forbidden"),      # #16, R-GIN-9
    # #7 (WRC): a strong signal covers the same peer only; the put went to another rank
    ("PutSigdWW Rfe RSigdRW Rfe PodRR Fre", "Allowed", "Allowed", "Allowed"),
    # #28 through puts (2+2W-shaped): puts to one rank on two QPs are unordered
    ("PodWW Coe PodWW Coe", "Allowed", "Allowed", "Allowed"),
])
def test_gin_cycles(cycle: str, api: str, gdaki: str, acked: str) -> None:
    test = parse_litmus(build_cycle(cycle.split(), "gin"), "g.litmus")
    assert check_test(test, "gin-api").verdict == api
    assert check_test(test, "gin-gdaki").verdict == gdaki
    assert check_test(test, "gin-gdaki+ack-placed").verdict == acked


@pytest.mark.parametrize("name,size,dialect,model,verdict", [
    ("SB", 6, "x86", "x86tso", "Allowed"),
    ("SB", 6, "x86", "sc", "Forbidden"),
    ("LB", 5, "x86", "x86tso", "Forbidden"),
    ("IRIW", 4, "x86", "x86tso", "Forbidden"),
    ("MP-chain", 5, "x86", "x86tso", "Forbidden"),
    ("ISA2", 4, "x86", "x86tso", "Forbidden"),
    ("gin-fan-in", 3, "gin", "gin-api", "Forbidden"),
    # one shared signal: R-GIN-3 (each strong signal after its puts) and the wait that
    # reads the count observes every increment (the RMW release sequence, ASPLOS'19
    # Fig. 4 "observation" with the 2025 RMW-chain fix)
    ("gin-fan-in-shared", 3, "gin", "gin-api", "Forbidden"),
    ("gin-fan-in-shared", 3, "gin", "gin-gdaki", "Forbidden"),
    ("gin-fan-out", 3, "gin", "gin-gdaki", "Forbidden"),
    ("gin-ring", 4, "gin", "gin-proxy", "Forbidden"),
    ("gin-barrier", 3, "gin", "gin-api", "Forbidden"),
    ("gin-barrier", 3, "gin", "gin-gdaki", "Forbidden"),
])
def test_families(name: str, size: int, dialect: str, model: str, verdict: str) -> None:
    tname, text = family(name, size, dialect, width=2)
    test = parse_litmus(text, f"{tname}.litmus")
    assert test.name == tname
    assert check_test(test, model).verdict == verdict


@pytest.mark.parametrize("cycle,msg", [
    ("PodWR PodWR", "at least one communication edge"),
    ("Rfe PodWR Fre", "do not chain"),
    ("Fre Foo", "unknown edge 'Foo'"),
])
def test_bad_cycles(cycle: str, msg: str) -> None:
    with pytest.raises(InputError, match=msg):
        build_cycle(cycle.split(), "x86")


def test_gin_placement() -> None:
    """Reads are local: the readers of a location run on the rank that owns it; a GIN
    edge into the writer's own memory is refused."""
    text = build_cycle("PutSigdWW Rfe RSigdRW Rfe PodRR Fre".split(), "gin")
    assert "gin.signal c0, x@0" in text and "gin.put_value c0, z@1, 1" in text
    assert "P1@cta 0,gpu 1,node 1" in text
    with pytest.raises(InputError, match="own memory"):
        build_cycle("PutSigdWW Rfe PosRW".split(), "gin")


def test_cli(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["generate", "--family", "IRIW", "--size", "3", "--size", "4",
                                  "-o", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["IRIW-3.litmus", "IRIW-4.litmus"]
    r = CliRunner().invoke(main, ["generate", "Rfe PodRR Fre PodWW"])
    assert r.exit_code == 0 and "X86 Rfe+PodRR+Fre+PodWW" in r.output
    r = CliRunner().invoke(main, ["generate", "Rfe Bogus"])
    assert r.exit_code == 2 and "unknown edge 'Bogus'" in r.output
