"""``gdrcheck refines IMPL SPEC``: SC is stronger than x86-TSO, so x86tso does not
refine sc (SB and friends) and sc refines x86tso; the comparison rules (forall,
Undefined, Unknown) on hand-made answers; the CLI's exit codes and JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gdrcheck.analysis.options import CheckOptions
from gdrcheck.analysis.refine import Answer, compare, refine
from gdrcheck.analysis.suite import LIBRARY_DIR, litmus_files
from gdrcheck.cli import main
from gdrcheck.litmus import parse_litmus

ROOT = Path(__file__).resolve().parents[2]
CLASSIC = str(ROOT / "litmus" / "classic")
SB = str(ROOT / "litmus" / "classic" / "SB.litmus")
MP = str(ROOT / "litmus" / "classic" / "MP.litmus")

# the W->R reorderings of TSO: what x86tso allows and sc forbids in litmus/classic
TSO_ONLY = {"SB", "R", "RWC", "SB+mfence+po", "SB+rfi-pos", "SB+xchg+po", "n6"}


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(main, list(args))
    return r.exit_code, r.stdout, r.stderr


def _test(quantifier: str) -> Any:
    return parse_litmus(
        "X86 T\n{ x=0; }\n P0 ;\n MOV [x],$1 ;\n" f"{quantifier} (x=1)\n", "t.litmus")


# --------------------------------------------------------------------------
# Comparing answers
# --------------------------------------------------------------------------

ALLOWED = Answer("m", "Allowed", True, True)
FORBIDDEN = Answer("m", "Forbidden", False, True)
REQUIRED = Answer("m", "Required", True, False)
UNDEF = Answer("m", "Undefined", True, True)
UNKNOWN = Answer("m", "Unknown", reason="solver: timeout")


@pytest.mark.parametrize("impl,spec,impl_extra,spec_extra", [
    (ALLOWED, FORBIDDEN, ("P",), ()),
    (FORBIDDEN, ALLOWED, (), ("P",)),
    (ALLOWED, ALLOWED, (), ()),
    (FORBIDDEN, FORBIDDEN, (), ()),
])
def test_exists(impl: Answer, spec: Answer, impl_extra: tuple[str, ...],
                spec_extra: tuple[str, ...]) -> None:
    for q in ("exists", "~exists"):
        c = compare(_test(q), impl, spec)
        assert c.status == "compared"
        assert (c.impl_extra, c.spec_extra) == (impl_extra, spec_extra)


@pytest.mark.parametrize("impl,spec,impl_extra,spec_extra", [
    (ALLOWED, REQUIRED, ("~P",), ()),  # the spec requires, the impl only allows
    (REQUIRED, ALLOWED, (), ("~P",)),
    (ALLOWED, FORBIDDEN, ("P",), ()),
    (FORBIDDEN, REQUIRED, ("~P",), ("P",)),  # in both lists
    (REQUIRED, REQUIRED, (), ()),
])
def test_forall(impl: Answer, spec: Answer, impl_extra: tuple[str, ...],
                spec_extra: tuple[str, ...]) -> None:
    c = compare(_test("forall"), impl, spec)
    assert (c.impl_extra, c.spec_extra) == (impl_extra, spec_extra)


def test_undefined_and_unknown() -> None:
    t = _test("exists")
    assert compare(t, ALLOWED, UNDEF).status == "spec-undefined"  # anything goes
    assert compare(t, UNDEF, UNDEF).status == "spec-undefined"
    assert compare(t, UNDEF, FORBIDDEN).status == "impl-undefined"
    assert compare(t, UNKNOWN, FORBIDDEN).status == "inconclusive"
    assert compare(t, ALLOWED, UNKNOWN).status == "inconclusive"
    assert compare(t, Answer.error("m", "boom"), ALLOWED).status == "inconclusive"


def test_states() -> None:
    t = _test("exists")
    a = Answer("m", "Allowed", True, True, states=((("x", 1),), (("x", 0),)))
    b = Answer("m", "Allowed", True, True, states=((("x", 1),), (("x", 2),)))
    c = compare(t, a, b, states=True)
    assert (c.impl_extra, c.spec_extra) == (("x=0;",), ("x=2;",))
    assert c.impl_only_states == ((("x", 0),),)
    # no states listed (an Unknown): inconclusive
    assert compare(t, ALLOWED, b, states=True).status == "inconclusive"


# --------------------------------------------------------------------------
# Running: sc is stronger than x86-TSO
# --------------------------------------------------------------------------


def test_x86tso_does_not_refine_sc() -> None:
    r = refine("x86tso", "sc", [CLASSIC])
    assert {c.test for c in r.violations} == TSO_ONLY
    assert r.stronger == []
    assert not r.refines
    assert len(r.comparisons) == len(list(Path(CLASSIC).glob("*.litmus")))
    assert len(r.agree) == len(r.comparisons) - len(TSO_ONLY)
    assert r.skipped == [] and r.errors == []


def test_sc_refines_x86tso() -> None:
    r = refine("sc", "x86tso", [CLASSIC])
    assert r.violations == []
    assert r.refines
    assert {c.test for c in r.stronger} == TSO_ONLY


def test_states_mode() -> None:
    r = refine("x86tso", "sc", [SB, MP], options=CheckOptions(states=True))
    (v,) = r.violations
    assert v.test == "SB"
    assert v.impl_extra == ("0:EAX=0; 1:EAX=0;",)
    assert r.stronger == []
    assert [c.test for c in r.agree] == ["MP"]
    r = refine("sc", "x86tso", [SB], options=CheckOptions(states=True))
    assert r.violations == [] and [c.spec_extra for c in r.stronger] == [
        ("0:EAX=0; 1:EAX=0;",)]


def test_undefined_lists(tmp_path: Path) -> None:
    (tmp_path / "racy.cat").write_text(
        '"racy"\nacyclic po | rf | co | fr as sc\nflag ~empty rf & ext as race\n')
    r = refine("racy", "x86tso", [SB], options=CheckOptions(include_dirs=[str(tmp_path)]))
    assert [c.test for c in r.impl_undefined] == ["SB"] and r.violations == []
    r = refine("x86tso", "racy", [SB], options=CheckOptions(include_dirs=[str(tmp_path)]))
    assert [c.test for c in r.spec_undefined] == ["SB"] and r.refines


def test_tests_not_accepted_by_both_are_skipped(tmp_path: Path) -> None:
    (tmp_path / "ptxonly.cat").write_text('"p"\n(* @accepts: PTX *)\nacyclic po as po\n')
    r = refine("ptxonly", "sc", [SB], options=CheckOptions(include_dirs=[str(tmp_path)]))
    assert r.comparisons == []
    assert [s.reason for s in r.skipped] == ["not accepted by ptxonly"]


def test_directories_are_walked() -> None:
    files = litmus_files([CLASSIC, SB])  # SB is in CLASSIC too: listed once
    assert files == sorted(str(f) for f in Path(CLASSIC).glob("*.litmus"))
    assert files.count(str(SB)) == 1


# --------------------------------------------------------------------------
# The command
# --------------------------------------------------------------------------


def test_cli_exit_codes() -> None:
    code, out, _ = run("refines", "x86tso", "sc", CLASSIC)
    assert code == 1
    assert "impl allows, spec forbids" in out
    assert "x86tso does NOT refine sc" in out
    code, out, _ = run("refines", "sc", "x86tso", CLASSIC)
    assert code == 0
    assert "impl forbids, spec allows" in out
    assert "sc refines x86tso on these tests" in out
    code, out, _ = run("refines", "x86tso", "sc", SB, "--states")
    assert code == 1
    assert "0:EAX=0; 1:EAX=0;" in out
    code, _, _ = run("refines", "sc", "x86tso", SB, "--states")
    assert code == 0


@pytest.mark.parametrize("args,message", [
    (("nosuchmodel", "sc", SB), "cannot find model 'nosuchmodel'"),
    (("x86tso+pcie-ro", "sc", SB), "has no variant pcie-ro"),
    (("x86tso", "sc", "nosuchfile.litmus"), "cannot read the file"),
])
def test_cli_bad_input_is_exit_2(args: tuple[str, ...], message: str) -> None:
    code, out, err = run("refines", *args)
    assert code == 2
    assert message in err
    assert "Traceback" not in out + err


def test_cli_json_validates() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "docs" / "json-schema.json").read_text())
    validator = jsonschema.Draft202012Validator(
        {**schema, "oneOf": [{"$ref": "#/$defs/refines"}]})
    for states in ((), ("--states",)):
        code, out, _ = run("refines", "x86tso", "sc", CLASSIC, "--format", "json", *states)
        assert code == 1
        data = json.loads(out)
        validator.validate(data)
        assert data["schema"] == "gdrcheck.refines/1"
        assert data["mode"] == ("states" if states else "verdicts")
        assert data["refines"] is False
        assert {v["test"] for v in data["violations"]} == TSO_ONLY
        assert data["counts"]["violations"] == len(TSO_ONLY)
        assert data["stronger"] == []
    # a check record is not a refines report
    code, out, _ = run("check", SB, "--model", "sc", "--format", "json")
    assert not validator.is_valid(json.loads(out))


def test_cli_default_files_are_the_library() -> None:
    assert LIBRARY_DIR == ROOT / "litmus"
    code, out, _ = run("refines", "sc", "sc", "--format", "json")
    data = json.loads(out)
    assert data["counts"]["compared"] >= 80
    assert data["violations"] == [] and data["stronger"] == []
    assert code == 0
