"""The command-line conventions every command keeps (docs/output.md, "Command-line
conventions"; issue 24 items 6 and 7): -m lists, one JSON shape, -o/--output, lints on
stderr, `gdrcheck lint`, `gdrcheck models`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gdrcheck.cli import main

ROOT = Path(__file__).resolve().parents[2]
SB = str(ROOT / "litmus" / "classic" / "SB.litmus")
GIN01 = str(ROOT / "litmus" / "gin" / "01-MP+put+strongsig.litmus")
SCHEMA = json.loads((ROOT / "docs" / "json-schema.json").read_text(encoding="utf-8"))

# gin/01 with the put's @1 left out: the put writes rank 0's own x and its bundled signal
# goes to the put's peer, rank 0 (gdrcheck/lower/gin.py: World.loc, _signal), so P1's
# wait on its own S never returns: no execution completes (vacuous), and the lints say
# why (L001 at the put, L004 at the wait)
MISTAKE = """GIN MP+put-self
{ x = 0; buf@0 = 1; S : signal; }
 P0@cta 0,gpu 0,node 0     | P1@cta 0,gpu 1,node 1 ;
 gin.put c0, x, buf, sig=S | gin.wait_signal S, 1  ;
                           | ld.relaxed.sys r0, x  ;
exists (1:r0 = 0)
"""


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(main, list(args))
    return r.exit_code, r.stdout, r.stderr


def validate(value: Any, definition: str) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    wrapped = {**SCHEMA, "oneOf": [{"$ref": f"#/$defs/{definition}"}]}
    jsonschema.Draft202012Validator(wrapped).validate(value)


@pytest.fixture
def mistake(tmp_path: Path) -> str:
    path = tmp_path / "mistake.litmus"
    path.write_text(MISTAKE)
    return str(path)


# --------------------------------------------------------------------------
# Lints
# --------------------------------------------------------------------------


def test_check_warns_on_stderr_and_changes_nothing_else(mistake: str) -> None:
    code, out, err = run("check", mistake, "-m", "gin-api")
    assert code == 0
    first, second = err.splitlines()
    assert first.startswith(f"{mistake}:4:2: warning: `gin.put c0, x, buf, sig=S` writes x "
                            "on P0's own rank 0"), err
    assert first.endswith("[L001]")
    assert second.startswith(f"{mistake}:4:30: warning: `gin.wait_signal S, 1` in P1 waits "
                             "for 1, but the test sends at most 0 signals to S on rank 1")
    assert second.endswith("[L004]")
    assert "warning" not in out
    quiet_code, quiet_out, quiet_err = run("check", mistake, "-m", "gin-api", "--no-lint")
    assert quiet_code == code and quiet_err == ""
    strip = [x for x in out.splitlines() if not x.startswith("Time ")]
    assert [x for x in quiet_out.splitlines() if not x.startswith("Time ")] == strip


def test_the_json_record_carries_the_lints(mistake: str) -> None:
    code, out, _ = run("check", mistake, "-m", "gin-api", "--format", "json", "--no-lint")
    assert code == 0
    (rec,) = json.loads(out)
    validate(rec, "record")
    assert rec["verdict"] == "Forbidden" and rec["vacuous"] is True
    assert [(x["schema"], x["code"], x["line"], x["col"]) for x in rec["lints"]] == [
        ("gdrcheck.lint/1", "L001", 4, 2), ("gdrcheck.lint/1", "L004", 4, 30)]
    assert {x["file"] for x in rec["lints"]} == {mistake}


def test_explain_and_fix_warn_too(mistake: str) -> None:
    for args in (("explain", mistake, "-m", "gin-api"), ("fix", mistake, "-m", "gin-api")):
        _, out, err = run(*args)
        assert "[L001]" in err and "[L001]" not in out, args
        _, _, err = run(*args, "--no-lint")
        assert "[L001]" not in err, args


def test_gdrcheck_lint(mistake: str, tmp_path: Path) -> None:
    code, out, err = run("lint", mistake)
    assert code == 0 and out.count("warning:") == 2 and "[L001]" in out
    assert "2 warning(s)" in err
    assert run("lint", "--strict", mistake)[0] == 1
    assert run("lint", "--strict", SB, GIN01) == (0, "", "")  # the library's: none
    code, out, _ = run("lint", mistake, "--format", "json")
    recs = json.loads(out)
    assert [r["code"] for r in recs] == ["L001", "L004"]
    for rec in recs:
        validate(rec, "lint")
    assert json.loads(run("lint", SB, "--format", "json")[1]) == []
    bad = tmp_path / "bad.litmus"
    bad.write_text("X86 bad\n{ }\n P0 ;\n")
    code, out, err = run("lint", str(bad), mistake)
    assert code == 2 and "[L001]" in out and f"{bad}:" in err
    # a directory is walked
    assert "[L001]" in run("lint", str(tmp_path))[1]


# --------------------------------------------------------------------------
# -m a,b and -m a -m b
# --------------------------------------------------------------------------


def test_models_as_a_list_or_repeated() -> None:
    for command in (["check", SB], ["explain", SB], ["sweep", SB]):
        code1, out1, _ = run(*command, "-m", "sc,x86tso", "--format", "json")
        code2, out2, _ = run(*command, "-m", "sc", "-m", "x86tso", "--format", "json")
        assert code1 == code2
        models1 = [r["model"] for r in json.loads(out1)]
        assert models1 == [r["model"] for r in json.loads(out2)] == ["sc", "x86tso"], command


def test_diff_takes_a_list_or_two_repeats() -> None:
    a = run("diff", "-m", "sc,x86tso", SB, "--format", "json")
    b = run("diff", "-m", "sc", "-m", "x86tso", SB, "--format", "json")
    assert a[0] == b[0] == 1  # SB: sc forbids, x86tso allows (their Expect= lines)
    ja, jb = json.loads(a[1]), json.loads(b[1])
    assert (ja["a"], ja["b"]) == (jb["a"], jb["b"]) == ("sc", "x86tso")
    code, _, err = run("diff", "-m", "sc", SB)
    assert code == 2 and "exactly two models" in err
    assert run("diff", "-m", "sc,x86tso,ptx", SB)[0] == 2


# --------------------------------------------------------------------------
# One JSON shape for one or many
# --------------------------------------------------------------------------


def test_json_is_a_list_for_one_record_too() -> None:
    for command, definition in ((["check"], "records"), (["explain"], "explain"),
                                (["sweep"], "sweep")):
        code, out, err = run(*command, SB, "-m", "x86tso", "--format", "json")
        assert code == 0, err
        value = json.loads(out)
        assert isinstance(value, list) and len(value) == 1, command
        validate(value, definition)


def test_nothing_checked_is_an_empty_list(tmp_path: Path) -> None:
    bad = tmp_path / "bad.litmus"
    bad.write_text("X86 bad\n{ }\n P0 ;\n")
    code, out, _ = run("check", str(bad), "--format", "json")
    assert code == 2 and json.loads(out) == []


# --------------------------------------------------------------------------
# -o / --output
# --------------------------------------------------------------------------


def test_output_has_its_long_name(tmp_path: Path) -> None:
    code, _, err = run("generate", "Fre PodWR Fre PodWR", "--output", str(tmp_path / "gen"))
    assert code == 0, err
    assert [p.suffix for p in (tmp_path / "gen").iterdir()] == [".litmus"]
    sb = tmp_path / "sb.litmus"
    sb.write_text(Path(SB).read_text())
    # SB under x86tso is Allowed (its Expect= line); the fix (fences) is written there
    fixed = tmp_path / "fixed.litmus"
    code, _, err = run("fix", str(sb), "-m", "x86tso", "--output", str(fixed))
    assert code == 0 and f"wrote the repaired test to {fixed}" in err, err
    assert "MFENCE" in fixed.read_text()
    for command in ("fix", "generate", "verdicts"):
        help_text = run(command, "--help")[1]
        assert "-o, --output" in help_text, command


# --------------------------------------------------------------------------
# gdrcheck models
# --------------------------------------------------------------------------


def test_models_is_short_by_default() -> None:
    from gdrcheck.cat.loader import available_models

    code, out, _ = run("models")
    assert code == 0
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == available_models()  # one line each
    x86 = next(line for line in lines if line.startswith("x86tso "))
    assert x86.split() == ["x86tso", "0", "variants", "X86", "x86-TSO"]
    code, long_out, _ = run("models", "--long")
    assert code == 0 and len(long_out.splitlines()) > 3 * len(lines)
    assert "pcie-ro" in long_out and "pcie-ro" not in out


def test_models_json() -> None:
    code, out, _ = run("models", "--format", "json")
    assert code == 0
    recs = json.loads(out)
    for rec in recs:
        validate(rec, "model")
    by_name = {r["name"]: r for r in recs}
    assert by_name["x86tso"]["accepts"] == ["X86"] and by_name["x86tso"]["variants"] == []
    gdaki = {v["name"]: v["doc"] for v in by_name["gin-gdaki"]["variants"]}
    assert "pcie-ro" in gdaki
