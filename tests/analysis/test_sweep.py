"""gdrcheck sweep: every combination of a model's variants from one z3 encoding.

The cross-check: for every combination, the sweep's verdict equals check_test's with
those variants (the concrete-variant path, unchanged)."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest
import z3
from click.testing import CliRunner

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.sweep import SweepResult, expected_for, sweep_test
from gdrcheck.cat.interp import Interpreter
from gdrcheck.cat.parser import parse_cat
from gdrcheck.cat.values import RelV, SetV, to_z3
from gdrcheck.cli import main
from gdrcheck.engine.backends import ConcreteBackend, SymbolicBackend
from gdrcheck.engine.base import base_env
from gdrcheck.engine.smt import encode_candidates
from gdrcheck.litmus import load_litmus
from gdrcheck.lower import lower

ROOT = Path(__file__).resolve().parents[2]
GIN09 = ROOT / "litmus" / "gin" / "09-MP+put+put-flag.litmus"
GIN22 = ROOT / "litmus" / "gin" / "22-MP+put+sig-gdr-none.litmus"
GIN08 = ROOT / "litmus" / "gin" / "08-WAW+put+put-sig.litmus"
GIN01 = ROOT / "litmus" / "gin" / "01-MP+put+strongsig.litmus"
MP_PTX = ROOT / "litmus" / "ptx" / "MP+rel+acq-gpu.litmus"
SB_PTX = ROOT / "litmus" / "ptx" / "SB+fence.sc.ctas.litmus"


def cross_check(path: Path, model: str, sample: int = 24) -> SweepResult:
    """Every combination of the relevant variants (inert ones off), and a sample of
    combinations of all of them (inert ones on too), against check_test."""
    test = load_litmus(path)
    r = sweep_test(test, model)
    assert len(r.verdicts) == 2 ** len(r.relevant)
    for combo, verdict in r.verdicts.items():
        want = check_test(test, model, variants=sorted(combo)).verdict
        assert verdict == want, (path.name, model, sorted(combo))
    rng = random.Random(f"{path.name}:{model}")
    for _ in range(sample):
        combo = frozenset(v for v in r.swept if rng.random() < 0.5)
        want = check_test(test, model, variants=sorted(combo)).verdict
        assert r.verdict(combo) == want, (path.name, model, sorted(combo))
    return r


# --------------------------------------------------------------------------
# The cross-check
# --------------------------------------------------------------------------


def test_gin09_gdaki_every_combination() -> None:
    r = cross_check(GIN09, "gin-gdaki")
    # issue 28 added ll128-x86-pcie and gh200-c2c (specs/ib-rc.cat);
    assert len(r.swept) == 23  # issue 13 added gdr-guide-3.7, gdaki-*, nccl-2.28/2.29/2.30.4;
    # issue 15: mm-copies-in-order (specs/multimem.cat, in every PTX-based model);
    # bulk-wait-async-only (ptx75-cause.cat, source-findings.md F21)
    assert r.default == "Forbidden"
    assert {"pcie-ro", "ib-waw-unordered", "adaptive-routing", "gdr-order-none"} <= set(
        r.relevant)
    assert "nic-sees-async" in r.inert and "gdr-order-owner" in r.inert
    assert "mm-copies-in-order" in r.inert  # no multimem access in the test
    assert "bulk-wait-async-only" in r.inert  # no TMA copy in the test
    assert {"ll128-x86-pcie", "gh200-c2c"} <= set(r.inert)  # no line window in the test


def test_gin09_gdaki_minimal_flips_are_the_expect_lines() -> None:
    test = load_litmus(GIN09)
    r = sweep_test(test, "gin-gdaki")
    flips = {f.variants: f.verdict for f in r.flips()}
    assert flips == {("pcie-ro",): "Allowed", ("ib-waw-unordered",): "Allowed",
                     ("adaptive-routing",): "Allowed", ("gdr-order-none",): "Allowed",
                     ("gdr-guide-3.7",): "Allowed"}
    # each is what the test's Expect= lines say, and so is the default
    for variants, verdict in flips.items():
        assert expected_for(test, r, variants) == verdict
    assert expected_for(test, r, ()) == r.default == "Forbidden"
    assert r.counts() == {"Allowed": 8126464, "Forbidden": 262144}


def test_gin22_gdaki_every_combination() -> None:
    test = load_litmus(GIN22)
    r = cross_check(GIN22, "gin-gdaki")
    flips = {f.variants: f.verdict for f in r.flips()}
    assert flips[("gdr-order-none", "nic-atomic-pcie")] == "Allowed"
    assert flips[("strong-signals-not-required",)] == "Undefined"
    assert r.flags[frozenset({"strong-signals-not-required"})] == (
        "strong-signal-not-required",)
    for e in test.expectations:
        if e.model == "gin-gdaki":
            assert r.verdict(e.variants) == e.verdict, e


def test_gin01_api_every_combination() -> None:
    r = cross_check(GIN01, "gin-api")
    assert r.relevant == ("strong-signals-not-required",)
    assert r.verdicts[frozenset()] == "Forbidden"


def test_ptx_test_under_gin_and_ptx_models() -> None:
    for model in ("gin-gdaki", "gin-api", "ptx"):
        r = cross_check(MP_PTX, model, sample=8)
        assert set(r.verdicts.values()) == {"Forbidden"}
    r = cross_check(SB_PTX, "gin-proxy", sample=8)
    assert r.default == "Allowed"


def test_fixed_variants_and_the_tests_variant_lines() -> None:
    test = load_litmus(GIN09)
    r = sweep_test(test, "gin-gdaki+pcie-ro")
    assert r.fixed == ("pcie-ro",) and "pcie-ro" not in r.swept
    assert set(r.verdicts.values()) == {"Allowed"}
    assert r.model == "gin-gdaki+pcie-ro"


@pytest.mark.slow
@pytest.mark.parametrize("path", [GIN09, GIN22], ids=["09", "22"])
def test_the_sweep_agrees_with_one_check_per_combination(path: Path) -> None:
    """The sweep against ``check`` with the variants given, combination by combination.
    gin-gdaki has 21 variants now (2^21 combinations, hours of checks; this was every
    one of 4096 when it had 12), so: every combination of the relevant variants, each of
    those with each inert variant on and with all of them on (inert means that no
    combination changes with it), and 300 random combinations of all of them."""
    test = load_litmus(path)
    r = sweep_test(test, "gin-gdaki")
    combos: list[list[str]] = []
    for bits in itertools.product((False, True), repeat=len(r.relevant)):
        base = [v for v, b in zip(r.relevant, bits, strict=True) if b]
        combos.append(base)
        combos.extend([*base, v] for v in r.inert)
        combos.append([*base, *r.inert])
    rng = random.Random(path.name)
    combos.extend([v for v in r.swept if rng.random() < 0.5] for _ in range(300))
    assert len(r.swept) >= 12 and len(combos) >= 300 + 2 ** len(r.relevant)
    for combo in combos:
        assert r.verdict(combo) == check_test(test, "gin-gdaki", variants=combo).verdict, combo


# --------------------------------------------------------------------------
# The interpreter's symbolic-variant mode
# --------------------------------------------------------------------------


MODEL = """
let a = po
if "v" then
  let a = a | rf
  acyclic a as inside
else
  let b = co
end
if "w" then
  let c = po
else
  let c = po
end
let d = a
acyclic d as outside
"""


def _env() -> tuple[dict[str, Any], Any]:
    test = load_litmus(ROOT / "litmus" / "classic" / "MP.litmus")
    enc = encode_candidates(lower(test, 2))
    return base_env(enc.frame), enc


def test_symbolic_if_merges_and_guards() -> None:
    env, _ = _env()
    v = z3.Bool("variant!v")
    w = z3.Bool("variant!w")
    stmts = parse_cat(MODEL).stmts
    back = SymbolicBackend()
    ev = Interpreter(env, back, frozenset(), symbolic_variants={"v": v, "w": w}).run(stmts)
    # "w" changes nothing (both branches bind the same value): not used
    assert ev.used_variants == {"v"}
    inside, outside = ev.checks
    assert inside.name == "inside" and z3.eq(to_z3(inside.guard), v)
    assert outside.guard is True
    # a: po where v is off, po | rf where it is on; b only exists under not v
    a, po, rf = ev.env["a"], env["po"], env["rf"]
    assert isinstance(a, RelV) and set(a.m) == set(po.m) | set(rf.m)
    s = z3.Solver()
    s.add(back.defs)
    for pair in rf.m:
        if pair in po.m:
            continue
        s.push()
        s.add(z3.Not(v), to_z3(a.m[pair]))
        assert s.check() == z3.unsat  # an rf pair is in a only when v holds
        s.pop()
    assert isinstance(ev.env["b"], RelV)


def test_concrete_path_is_unchanged() -> None:
    env, _ = _env()
    stmts = parse_cat(MODEL).stmts
    for variants in (frozenset(), frozenset({"v"}), frozenset({"v", "w"})):
        ev = Interpreter(env, ConcreteBackend(), variants).run(stmts)
        assert all(c.guard is True for c in ev.checks)
        assert ev.used_variants == set() and ev.bindings == []
        assert [c.name for c in ev.checks] == (["inside", "outside"] if "v" in variants
                                               else ["outside"])


def test_fixed_variants_win_over_symbolic_ones() -> None:
    env, _ = _env()
    v = z3.Bool("variant!v")
    ev = Interpreter(env, SymbolicBackend(), frozenset({"v"}), symbolic_variants={"v": v}
                     ).run(parse_cat(MODEL).stmts)
    assert [c.guard for c in ev.checks] == [True, True]
    assert ev.used_variants == set()


def test_a_set_under_one_branch_and_empty_under_the_other() -> None:
    env, _ = _env()
    v = z3.Bool("variant!v")
    ev = Interpreter(env, SymbolicBackend(), frozenset(), symbolic_variants={"v": v}).run(
        parse_cat('if "v" then let s = W else let s = 0 end').stmts)
    s = ev.env["s"]
    assert isinstance(s, SetV) and set(s.m) == set(env["W"].m)


# --------------------------------------------------------------------------
# The command line and the JSON record
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sweep_validator() -> Any:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "docs" / "json-schema.json").read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator({**schema, "oneOf": [{"$ref": "#/$defs/sweep"}]})


def test_cli_text() -> None:
    r = CliRunner().invoke(main, ["sweep", str(GIN09), "--model", "gin-gdaki"])
    assert r.exit_code == 0, r.output
    out = r.stdout
    assert "Default (no variant): Forbidden" in out
    assert "Combinations: 8126464 Allowed, 262144 Forbidden (of 8388608)" in out
    assert "Minimal variant sets" in out
    # ack-placed is used by the encoding but flips the verdict in none of its 16 pairs
    # of combinations (issue 12): it is inert, not "can change"
    # ack-placed is used by the encoding but flips the verdict in no pair of combinations
    # (issue 12): it is inert, not "can change"
    flat = " ".join(out.split())  # rich wraps long lines
    relevant = flat.split("can change this test (")[1].split(")")[0]
    assert relevant == ("adaptive-routing, gdr-guide-3.7, gdr-order-none, ib-waw-unordered, "
                        "pcie-ro")
    assert "23 variant(s) swept: 5 can change this test" in out
    assert "ack-placed" in flat.split("inert (")[1].split(")")[0]


def test_cli_many_combinations_are_summarised() -> None:
    r = CliRunner().invoke(main, ["sweep", str(GIN08), "-m", "gin-gdaki"])
    assert r.exit_code == 0, r.output
    assert "(128 combinations of the relevant variants: --all lists them)" in r.stdout
    assert "gdr-order-none + nic-atomic-pcie" in r.stdout


def test_cli_json_validates(sweep_validator: Any) -> None:
    r = CliRunner().invoke(main, ["sweep", str(GIN09), "-m", "gin-gdaki", "--format", "json"])
    assert r.exit_code == 0, r.output
    recs = json.loads(r.stdout)
    sweep_validator.validate(recs)
    (rec,) = recs  # a list, even of one record
    assert rec["schema"] == "gdrcheck.sweep/1"
    assert rec["default"] == "Forbidden"
    assert len(rec["combinations"]) == 2 ** len(rec["relevant"])
    assert sum(rec["counts"].values()) == 2 ** (len(rec["relevant"]) + len(rec["inert"]))
    assert {tuple(f["variants"]) for f in rec["flips"]} == {
        ("pcie-ro",), ("ib-waw-unordered",), ("adaptive-routing",), ("gdr-order-none",),
        ("gdr-guide-3.7",)}
    first = rec["combinations"][0]
    assert first == {"variants": [], "verdict": "Forbidden", "flags": [],
                     "expect": "Forbidden"}
    # without --model: the models of the Expect= lines (each swept once): a list
    r = CliRunner().invoke(main, ["sweep", str(GIN09), "--format", "json"])
    recs = json.loads(r.stdout)
    sweep_validator.validate(recs)
    assert [x["model"] for x in recs] == ["gin-api", "gin-gdaki", "gin-proxy", "gin-efa"]


def test_cli_bad_input() -> None:
    r = CliRunner().invoke(main, ["sweep", str(GIN09), "-m", "gin-gdaki+nope"])
    assert r.exit_code == 2
    r = CliRunner().invoke(main, ["sweep", str(ROOT / "litmus" / "classic" / "SB.litmus"),
                                  "-m", "gin-gdaki"])
    assert r.exit_code == 2 and "does not accept" in r.stderr


@pytest.mark.parametrize("path", [GIN08, GIN09, GIN22])
def test_every_variant_that_can_change_the_test_flips_some_pair(path: Path) -> None:
    r = sweep_test(load_litmus(path), "gin-gdaki")
    for v in r.relevant:
        assert any(r.verdicts[c] != r.verdicts[c | {v}] for c in r.verdicts if v not in c), v
    for v in r.inert:  # and an inert one flips none, over all combinations
        assert all(r.verdict(c) == r.verdict(c | {v}) for c in r.verdicts), v
