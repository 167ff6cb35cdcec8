"""Wrong input through the commands: ``file:line:col: message`` and exit code 2, never a
traceback (docs/input-rules.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import gdrcheck
from gdrcheck.cli import main
from gdrcheck.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
SB = str(ROOT / "litmus" / "classic" / "SB.litmus")
MP_PTX = ROOT / "litmus" / "ptx" / "MP+rel+acq-gpu.litmus"
HUGE = "340282366920938463463374607431768211456"


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(main, list(args), catch_exceptions=True)
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    assert "Traceback" not in r.output
    return r.exit_code, r.stdout, r.stderr


def write(tmp_path: Path, text: str, name: str = "t.litmus") -> str:
    f = tmp_path / name
    f.write_text(text)
    return str(f)


def mp(tmp_path: Path, old: str, new: str) -> str:
    text = MP_PTX.read_text()
    assert old in text
    return write(tmp_path, text.replace(old, new), "MP.litmus")


# ---- options


@pytest.mark.parametrize("args", [
    ("check", "--timeout", "-5", SB),
    ("check", "--timeout", "0", SB),
    ("check", "-I", "/nonexistent", SB),
    ("models", "-I", "/nonexistent"),
    ("explain", "--timeout", "-1", SB),
    ("sweep", "-I", "/nonexistent", SB),
])
def test_bad_option_values_are_click_errors(args: tuple[str, ...]) -> None:
    code, _, err = run(*args)
    assert code == 2
    assert "Invalid value for" in err


def test_a_model_name_longer_than_a_file_name_is_a_clear_error() -> None:
    code, _, err = run("check", "-m", "a" * 300, SB)
    assert code == 2
    assert "cannot find model 'aaaa" in err


# ---- Expect=, Liveness=, Variant=


def test_an_unknown_model_in_expect_is_an_error_even_with_m(tmp_path: Path) -> None:
    f = mp(tmp_path, "Expect=ptx:Forbidden,sc:Forbidden", "Expect=ptx:Forbidden,sx:Forbidden")
    code, _, err = run("check", "-m", "ptx", f)
    assert code == 2
    assert err.startswith(f"{f}:3:22: unknown model 'sx' in Expect= (models: ")


def test_an_unknown_variant_in_expect_is_at_its_column(tmp_path: Path) -> None:
    f = mp(tmp_path, "Expect=ptx:Forbidden", "Expect=ptx+no-such:Forbidden")
    code, _, err = run("check", f)
    assert code == 2
    assert err.startswith(f"{f}:3:12: model 'ptx' has no variant 'no-such' (in Expect=; "
                          "its variants: ")


def test_a_model_name_over_255_characters_in_expect_is_an_error(tmp_path: Path) -> None:
    f = mp(tmp_path, "Expect=ptx:Forbidden", f"Expect={'a' * 300}:Forbidden")
    code, _, err = run("check", "-m", "sc", f)
    assert code == 2
    assert err.startswith(f"{f}:3:8: unknown model 'aaa")


def test_an_unknown_variant_line_is_an_error(tmp_path: Path) -> None:
    f = mp(tmp_path, "Expect=", "Variant=nosuch\nExpect=")
    code, _, err = run("check", f)
    assert code == 2
    assert err.startswith(f"{f}:3:9: no model has variant 'nosuch' (in Variant=; variants: ")


def test_a_variant_of_another_model_is_accepted(tmp_path: Path) -> None:
    # A test may name variants of several models: gin-gdaki's pcie-ro on a PTX test.
    f = mp(tmp_path, "Expect=", "Variant=pcie-ro\nExpect=")
    code, _, _ = run("check", "-m", "ptx", f)
    assert code == 0


def test_the_api_and_batch_report_the_same(tmp_path: Path) -> None:
    f = mp(tmp_path, "Expect=ptx:Forbidden", "Expect=ptx:Forbidden,zz:Allowed")
    with pytest.raises(InputError, match="unknown model 'zz' in Expect="):
        gdrcheck.check(Path(f), "ptx")
    out = tmp_path / "r.jsonl"
    code, _, _ = run("run", "-j", "0", "-o", str(out), f)
    assert code == 2
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert {line["verdict"] for line in lines} == {"Error"}
    assert any(":3:22: unknown model 'zz'" in line["reason"] for line in lines)


# ---- the rest of the rules, through check


@pytest.mark.parametrize(("old", "new", "where", "message"), [
    ("P1:r2 == 0)", "P1:r3 == 0)", ":12:23:",
     "register 1:r3 in the condition is never written by P1"),
    ("P1:r2 == 0)", "zz == 0)", ":12:23:",
     "location zz in the condition is neither declared"),
    ("{ x=0; y=0;", "{ x=0; y=0; x=1;", ":8:13:", "x is initialised twice"),
    ("ld.weak r2, x", "ld.relaxed.gpu r2, r1", ":11:43:",
     "'r1' is a register, but 'ld.relaxed.gpu' needs a location here"),
])
def test_each_rule_is_file_line_col_and_exit_2(tmp_path: Path, old: str, new: str,
                                               where: str, message: str) -> None:
    f = mp(tmp_path, old, new)
    code, _, err = run("check", f)
    assert code == 2
    assert err.startswith(f"{f}{where} {message}"), err


GET_REMOTE = ("GIN get-remote\n{ x@1 = 7; buf@0 = 0; }\n"
              " P0@cta 0,gpu 0,node 0 | P1@cta 0,gpu 1,node 1 ;\n"
              " gin.get c0, x@1, buf@0 | ;\nexists (x@1 = 0)\n")


def test_a_get_into_remote_memory_is_an_error(tmp_path: Path) -> None:
    f = write(tmp_path, GET_REMOTE)
    code, _, err = run("check", f)
    assert code == 2
    assert err.startswith(f"{f}:4:14: the destination of a get is in the issuing rank's own "
                          "memory: write x, not x@1")
    assert "^" in err  # the line and a caret


MULTICAST = ("GIN mc\n{ x = 0; multicast M = x; }\n"
             " P0@cta 0,gpu 0,node 0 | P1@cta 0,gpu 1,node NODE ;\n"
             " multimem.st.relaxed.sys M, 1 | ;\nexists (COND = 1)\n")


@pytest.mark.parametrize("node,cond,where,message", [
    ("0", "M", ":5:9:", "'M' is a multicast object: the condition names its copies (x@k)"),
    ("1", "x@1", ":2:10:", "multicast object 'M' binds copies on nodes 0, 1"),
])
def test_multicast_rules_are_file_line_col_and_exit_2(tmp_path: Path, node: str, cond: str,
                                                       where: str, message: str) -> None:
    f = write(tmp_path, MULTICAST.replace("NODE", node).replace("COND", cond))
    code, _, err = run("check", f)
    assert code == 2
    assert err.startswith(f"{f}{where} {message}"), err


def test_bytes_that_are_not_utf8_are_at_line_and_column(tmp_path: Path) -> None:
    f = tmp_path / "bad.litmus"
    f.write_bytes(MP_PTX.read_bytes().replace(b"exists", b"exi\xffsts"))
    code, _, err = run("check", str(f))
    assert code == 2
    assert err.startswith(f"{f}:12:4: the file is not UTF-8 text")


# ---- no traceback: deep nesting, huge integers, a run over bad files


COND = "exists (P1:r1 == 1 /\\ P1:r2 == 0)"
DEEP = "exists " + "~" * 1000 + "(P1:r1 == 1 /\\ P1:r2 == 0)"


@pytest.mark.parametrize("command", [
    ("check",), ("check", "-m", "all"), ("explain",), ("sweep",),
    ("diff", "-m", "ptx", "-m", "sc"), ("refines", "ptx", "sc"), ("hw", "run"),
])
def test_deep_nesting_is_a_clear_error_in_every_command(tmp_path: Path,
                                                        command: tuple[str, ...]) -> None:
    f = mp(tmp_path, COND, DEEP)
    code, out, err = run(*command, f)
    assert code == 2
    assert "the condition is nested too deeply" in out + err


def test_a_run_records_an_error_line_and_goes_on(tmp_path: Path) -> None:
    d = tmp_path / "tests"
    d.mkdir()
    (d / "a-deep.litmus").write_text(MP_PTX.read_text().replace(COND, DEEP))
    (d / "b-bytes.litmus").write_bytes(b"PTX B\n\xff\n")
    (d / "c-SB.litmus").write_text(Path(SB).read_text())
    out = tmp_path / "r.jsonl"
    code, _, _ = run("run", "-j", "0", "-o", str(out), str(d))
    assert code == 2  # Error lines
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    by_file = {Path(line["file"]).name: line["verdict"] for line in lines}
    assert by_file["a-deep.litmus"] == "Error" and by_file["b-bytes.litmus"] == "Error"
    assert by_file["c-SB.litmus"] in ("Allowed", "Forbidden")


def test_huge_integers_are_printed_not_crashed_on(tmp_path: Path) -> None:
    text = ("GIN huge\n"
            f"{{ x = 0; buf@0 = {HUGE}; S : signal; }}\n"
            " P0@cta 0,gpu 0,node 0 | P1@cta 0,gpu 1,node 1 ;\n"
            f" gin.put c0, x@1, buf, sig=S+{HUGE} | gin.wait_signal S, {HUGE} ;\n"
            " | ld.relaxed.sys r0, x ;\n"
            f"exists (1:r0 = {HUGE})\n")
    f = write(tmp_path, text)
    for args in (("check", "--states"), ("check", "--format", "json"),
                 ("check", "--engine", "explicit", "--states"), ("explain",), ("sweep",)):
        code, out, _ = run(*args, f)
        assert code in (0, 1), args
    code, out, _ = run("check", "--states", f)
    assert f"1:r0={HUGE}" in out


# ---- outputs that cannot be written, results files that are not ours


def test_hw_report_of_a_file_that_is_not_a_results_file(tmp_path: Path) -> None:
    f = tmp_path / "r.jsonl"
    f.write_text('{"test": "SB"}\n')
    code, _, err = run("hw", "report", str(f))
    assert code == 2 and f"{f}:1: not a line of `gdrcheck hw run`" in err
    f.write_bytes(b"\xff\n")
    code, _, err = run("hw", "report", str(f))
    assert code == 2 and "cannot read the results: not UTF-8 text" in err


def test_a_picture_or_junit_file_that_cannot_be_written(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("")  # a file where a directory is needed
    code, _, err = run("check", "-m", "sc", "--graph", str(blocked / "x.dot"), SB)
    assert code == 0 and "cannot write the picture" in err
    code, _, err = run("run", "-j", "0", "-o", str(tmp_path / "r.jsonl"), "--junit",
                       str(blocked / "j.xml"), SB)
    assert code == 2 and "cannot write the JUnit report" in err
