"""Vacuous answers: when no execution completes, every result says so, with the waits
that block (issue 12, item 1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import gdrcheck
from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.cli import main
from gdrcheck.litmus import parse_litmus

ROOT = Path(__file__).resolve().parents[2]
MP_GIN = ROOT / "litmus" / "gin" / "01-MP+put+strongsig.litmus"

# one strong signal bumps S once: a wait for S >= 2 is never satisfied (R-GIN-3)
NEVER = (ROOT / "tests" / "fixtures" / "never-satisfied.litmus").read_text()

HUGE = NEVER.replace("gin.wait_signal S, 2  ",
                     "gin.wait_signal S, 340282366920938463463374607431768211456")

# NCCL's barrier waits for every rank's signal: a barrier only P0 joins never returns
LONELY_BARRIER = """GIN lonely-barrier
{ x = 0; buf@0 = 1; }
 P0@cta 0,gpu 0,node 0 | P1@cta 0,gpu 1,node 1 ;
 gin.put c0, x@1, buf  | ld.relaxed.sys r0, x  ;
 gin.barrier c0, put   |                       ;
exists (1:r0 = 0)
"""

# a loop that never exits within the unroll bound: every path ends at the bound
SPIN = """PTX spin
{ x = 0; }
 P0@cta 0,gpu 0     ;
 LC00:              ;
 ld.relaxed.gpu r0, x ;
 beq r0, 0, LC00    ;
exists (0:r0 = 0)
"""


@pytest.mark.parametrize("engine", ["smt", "explicit"])
def test_a_wait_never_satisfied_is_vacuous(engine: str) -> None:
    res = check_test(parse_litmus(NEVER), "gin-api", options=CheckOptions(engine=engine))
    assert res.verdict == "Forbidden" and res.vacuous
    assert [str(w) for w in res.blocked] == ["P1:1 gin.wait_signal S, 2"]
    assert res.blocked[0].pos.line == 6
    assert res.vacuity == "no execution completes; P1:1 gin.wait_signal S, 2 never satisfied"
    # the vacuity search's reason first; the fixture's Liveness= entry asks the liveness
    # question too, which names the write the stuck wait keeps reading (docs/liveness.md)
    assert res.liveness[0] == "never satisfied: P1:1 gin.wait_signal S, 2"
    assert res.liveness[1:] == ["P1 waits forever at row 1: gin.wait_signal S, 2 (reads "
                                "S@1=1 from e5 (gin.put c0, x@1, buf, sig=S / signal S@1 W), "
                                "the last writes)"]
    assert res.live == "Hang"
    assert not res.axioms  # nothing of the model rules it out: the test cannot run


def test_a_huge_wait_value_is_vacuous_not_a_crash() -> None:
    res = check_test(parse_litmus(HUGE), "gin-api")
    assert res.vacuous and len(res.blocked) == 1


@pytest.mark.parametrize("model", ["gin-api", "gin-gdaki"])
def test_a_barrier_only_one_rank_joins_blocks(model: str) -> None:
    res = check_test(parse_litmus(LONELY_BARRIER), model)
    assert res.vacuous
    assert res.blocked and all(w.thread == 0 and "gin.barrier" in w.text for w in res.blocked)


def test_the_unroll_bound_is_named() -> None:
    res = check_test(parse_litmus(SPIN), "ptx")
    assert res.vacuous and not res.blocked
    assert res.vacuity is not None and "--unroll 2" in res.vacuity


@pytest.mark.parametrize("engine", ["smt", "explicit"])
def test_a_test_that_runs_is_not_vacuous(engine: str) -> None:
    res = check_test(gdrcheck.load_test(MP_GIN), "gin-api", options=CheckOptions(engine=engine))
    assert res.verdict == "Forbidden" and not res.vacuous
    assert res.vacuity is None and res.blocked == []


def _write(tmp_path: Path, text: str) -> str:
    f = tmp_path / "t.litmus"
    f.write_text(text)
    return str(f)


def test_herd_text_says_so(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["check", _write(tmp_path, NEVER)])
    assert ("Vacuous never-satisfied gin-api: no execution completes; "
            "P1:1 gin.wait_signal S, 2 never satisfied") in r.output
    assert "Positive: ? Negative: ?" in r.output  # not herd7's "Positive: 0 Negative: 0"
    # a vacuous Forbidden meets no expectation; the Liveness= line does hold
    assert "Expect never-satisfied gin-api: Forbidden -> Forbidden MISMATCH (vacuous" in r.output
    assert "Liveness-expect never-satisfied gin-api: Hang -> Hang ok" in r.output
    assert r.exit_code == 1


def test_json_and_table(tmp_path: Path) -> None:
    path = _write(tmp_path, NEVER)
    r = CliRunner().invoke(main, ["check", path, "--format", "json"])
    (rec,) = json.loads(r.output)
    assert rec["schema"] == "gdrcheck.check/2"
    assert rec["vacuous"] is True and rec["expect"] == {"verdict": "Forbidden", "met": False}
    assert rec["blocked"] == [{"thread": 1, "row": 1, "instruction": "gin.wait_signal S, 2",
                               "line": 6, "col": rec["blocked"][0]["col"]}]
    r = CliRunner().invoke(main, ["check", path, "-m", "all"])
    assert "VACUOUS" in r.output


def test_run_results_and_junit(tmp_path: Path) -> None:
    path = _write(tmp_path, NEVER)
    out, junit = tmp_path / "out.jsonl", tmp_path / "junit.xml"
    r = CliRunner().invoke(main, ["run", path, "--jobs", "0", "--results", str(out),
                                  "--junit", str(junit)])
    rec = json.loads(out.read_text().splitlines()[0])
    assert rec["vacuous"] is True
    assert r.exit_code == 1
    assert "MISMATCH" in r.output and "vacuous" in r.output
    assert "vacuous" in junit.read_text()


def test_assert_forbidden_fails_on_a_vacuous_answer() -> None:
    with pytest.raises(AssertionError, match="vacuous: no execution completes"):
        gdrcheck.assert_forbidden(NEVER, "gin-api")
    out = gdrcheck.assert_forbidden(NEVER, "gin-api", allow_vacuous=True)
    assert out.vacuous and out.vacuity is not None


@pytest.mark.parametrize("engine", ["smt", "explicit"])
def test_a_register_threshold_never_reached_is_vacuous(engine: str) -> None:
    # one strong signal bumps S once (R-GIN-3); the threshold is the value read before plus
    # 2, at least 2: never satisfied, named as written
    text = ("GIN reg-never\n{ S : signal; }\n"
            " P0@cta 0,gpu 0,node 0 | P1@cta 0,gpu 1,node 1 ;\n"
            " gin.signal c0, S@1    | gin.read_signal r0, S ;\n"
            "                       | gin.wait_signal S, r0+2 ;\n"
            "exists (1:r0 = 0)\n")
    res = check_test(parse_litmus(text), "gin-api", options=CheckOptions(engine=engine))
    assert res.verdict == "Forbidden" and res.vacuous
    assert [str(w) for w in res.blocked] == ["P1:2 gin.wait_signal S, r0+2"]
