"""The command line: herd layout, JSON, expectations, exit codes, clear errors."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from gdrcheck.cli import main

ROOT = Path(__file__).resolve().parents[2]
SB = str(ROOT / "litmus" / "classic" / "SB.litmus")
MP_PTX = str(ROOT / "litmus" / "ptx" / "MP+rel+acq-gpu.litmus")


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(main, list(args))
    return r.exit_code, r.stdout, r.stderr


def test_sb_x86tso_herd_layout() -> None:
    code, out, _ = run("check", SB, "--model", "x86tso", "--states", "--format", "herd")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Test SB Allowed"
    assert lines[1] == "States 4"
    assert "0:EAX=0; 1:EAX=0;" in lines[2:6]
    assert "Ok" in lines
    assert "Positive: 1 Negative: 3" in lines
    assert "Condition exists (0:EAX=0 /\\ 1:EAX=0)" in lines
    assert "Observation SB Sometimes 1 3" in lines
    assert "Verdict SB x86tso Allowed" in lines
    assert any(line.startswith("Time SB ") for line in lines)


GIN01 = str(ROOT / "litmus" / "gin" / "01-MP+put+strongsig.litmus")


def test_the_first_line_is_the_verdict_then_herds_block() -> None:
    # the issue: `Test t Allowed` (herd's kind of an exists test) read as the verdict of
    # a run whose verdict is Forbidden (litmus/gin/01 expects gin-gdaki:Forbidden)
    code, out, _ = run("check", GIN01, "-m", "gin-gdaki")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("01-MP+put+strongsig under gin-gdaki: Forbidden (the outcome "
                               "1:r0=0 cannot happen; rejected by ")
    assert lines[0].endswith("; expected Forbidden: ok)")
    # herd's block follows unchanged: its Test line is what herd's log readers need
    # (herd/herdtools7@6378f2fb tools/lexLog_tools.mll: `"Test" blank+ testname (blank+
    # kind)? nl`, kind one of herd's), and they skip every line before it
    assert lines[1] == "Test 01-MP+put+strongsig Allowed"
    assert not lines[0].startswith(("Test ", "States", "Fatal"))
    code, herd, _ = run("check", GIN01, "-m", "gin-gdaki", "--format", "herd")
    strip = [x for x in lines[1:] if not x.startswith("Time ")]
    assert strip == [x for x in herd.splitlines() if not x.startswith("Time ")]


def test_the_headline_says_what_each_verdict_means(tmp_path: Path) -> None:
    _, out, _ = run("check", SB, "-m", "x86tso")
    assert out.splitlines()[0] == ("SB under x86tso: Allowed (the outcome 0:EAX=0 /\\ "
                                   "1:EAX=0 can happen; expected Allowed: ok)")
    f = tmp_path / "SB-wrong.litmus"
    f.write_text(Path(SB).read_text().replace("x86tso:Allowed", "x86tso:Forbidden"))
    code, out, _ = run("check", str(f), "-m", "x86tso")
    assert code == 1 and out.splitlines()[0].endswith("; expected Forbidden: MISMATCH)")
    _, out, _ = run("check", SB, "-m", "sc")
    assert out.splitlines()[0].startswith("SB under sc: Forbidden (the outcome 0:EAX=0 "
                                          "/\\ 1:EAX=0 cannot happen; rejected by sc")


def test_sb_under_sc_names_the_axiom() -> None:
    code, out, _ = run("check", SB, "--model", "sc")
    assert code == 0  # SB.litmus expects sc:Forbidden
    assert "Verdict SB sc Forbidden" in out
    assert "Rejected-by sc" in out
    # without --states no count is printed that herd7's tools would read as herd7's
    assert "Observation SB Never ? ?" in out and "Positive: ? Negative: ?" in out


def test_expectations_of_every_model_when_no_model_given() -> None:
    code, out, _ = run("check", MP_PTX)
    assert code == 0
    assert "Expect MP+rel+acq-gpu ptx: Forbidden -> Forbidden ok" in out
    assert "Expect MP+rel+acq-gpu sc: Forbidden -> Forbidden ok" in out


def test_mismatch_exits_1(tmp_path: Path) -> None:
    f = tmp_path / "SB-wrong.litmus"
    f.write_text(Path(SB).read_text().replace("x86tso:Allowed", "x86tso:Forbidden"))
    code, out, err = run("check", str(f), "--model", "x86tso")
    assert code == 1
    assert "MISMATCH" in out
    assert "1 expectation(s) not met" in err


def test_json_output() -> None:
    code, out, _ = run("check", SB, "--model", "x86tso", "--format", "json")
    assert code == 0
    (data,) = json.loads(out)  # a list, even of one record
    assert data["schema"] == "gdrcheck.check/2"
    assert data["verdict"] == "Allowed"
    assert data["witness"]["state"] == {"0:EAX": 0, "1:EAX": 0}
    assert data["expect"] == {"verdict": "Allowed", "met": True}


def test_both_engines_list_states_on_request_only() -> None:
    for engine in ("smt", "explicit"):
        code, out, _ = run("check", SB, "--model", "x86tso", "--engine", engine)
        assert code == 0
        assert "States ? (not listed: --states lists them)" in out
        code, out, _ = run("check", SB, "--model", "x86tso", "--engine", engine, "--states")
        assert code == 0
        assert "States 4" in out and "Positive: 1 Negative: 3" in out


def test_bad_litmus_file_is_exit_2_with_position(tmp_path: Path) -> None:
    f = tmp_path / "bad.litmus"
    f.write_text("X86 bad\n{ x=0; }\n P0 ;\n MOVE [x],$1 ;\nexists (x=1)\n")
    code, out, err = run("check", str(f))
    assert code == 2
    assert f"{f}:4:" in err
    assert "Traceback" not in err + out


def test_unknown_model_is_exit_2() -> None:
    code, _, err = run("check", SB, "--model", "nosuchmodel")
    assert code == 2
    assert "nosuchmodel" in err
    assert "x86tso" in err  # lists the available models


def test_unknown_variant_is_exit_2() -> None:
    code, _, err = run("check", SB, "--model", "x86tso+pcie-ro")
    assert code == 2
    assert "has no variant pcie-ro" in err


def test_bad_model_file_is_exit_2_with_position(tmp_path: Path) -> None:
    m = tmp_path / "broken.cat"
    m.write_text('"broken"\nlet a = po |\nacyclic a\n')
    code, _, err = run("check", SB, "--model", str(m))
    assert code == 2
    assert f"{m}:3:" in err


def test_unbound_name_in_model_is_exit_2_with_position(tmp_path: Path) -> None:
    m = tmp_path / "unbound.cat"
    m.write_text('"unbound"\n\nacyclic po | nosuchrel as oops\n')
    code, _, err = run("check", SB, "--model", str(m))
    assert code == 2
    assert f"{m}:3:" in err
    assert "unbound name 'nosuchrel'" in err


def test_gin_test_under_a_model_without_gin_is_exit_2(tmp_path: Path) -> None:
    f = tmp_path / "gin.litmus"
    f.write_text(
        "GIN MP+put+strongsig\n"
        "{ x = 0; buf@0 = 1; S : signal; }\n"
        " P0@cta 0,gpu 0,node 0 | P1@cta 0,gpu 1,node 1 ;\n"
        " gin.put c0, x@1, buf, sig=S | gin.wait_signal S, 1 ;\n"
        " | ld.relaxed.sys r0, x ;\n"
        "exists (1:r0 = 0)\n"
    )
    code, out, err = run("check", str(f), "--model", "ptx")
    assert code == 2
    assert "model 'ptx' does not describe GIN calls (it accepts X86, PTX, MULTIMEM)" in err
    assert "Traceback" not in err + out


def test_models_lists_specs() -> None:
    code, out, _ = run("models")
    assert code == 0
    for name in ("sc", "x86tso", "ptx"):
        assert name in out
