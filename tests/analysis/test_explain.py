"""gdrcheck explain: the checks that rule an outcome out, as shortest cycles of named edges."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gdrcheck.analysis.explain import (
    AxiomCycle,
    Explanation,
    cat_text,
    explain,
    rotate,
    rule_ids,
)
from gdrcheck.analysis.models import ModelSpec, accepts, get_model, load_models
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.analysis.suite import litmus_files
from gdrcheck.cat.parser import parse_cat
from gdrcheck.cat.values import RelV
from gdrcheck.cli import main
from gdrcheck.engine.replay import evaluate, frame_of_witness
from gdrcheck.litmus import load_litmus
from gdrcheck.lower import lower
from gdrcheck.report.explain import format_explanation

ROOT = Path(__file__).resolve().parents[2]
GIN01 = ROOT / "litmus" / "gin" / "01-MP+put+strongsig.litmus"
GIN09 = ROOT / "litmus" / "gin" / "09-MP+put+put-flag.litmus"
MP_PTX = ROOT / "litmus" / "ptx" / "MP+rel+acq-gpu.litmus"
SB = ROOT / "litmus" / "classic" / "SB.litmus"
MP_X86 = ROOT / "litmus" / "classic" / "MP.litmus"
ATOM = ROOT / "litmus" / "ptx" / "Atom+add-rlx-gpus.litmus"
CORW1 = ROOT / "litmus" / "ptx" / "CoRW1+rlx-gpu.litmus"


def explain_text(test: object, model: str) -> str:
    """The text of ``gdrcheck explain`` (analysis, then the report)."""
    return format_explanation(explain(test, model))  # type: ignore[arg-type]


def _explain(path: Path, model: str) -> Explanation:
    return explain(load_litmus(path), model)


def _cycle(x: Explanation, axiom: str) -> AxiomCycle:
    (c,) = [c for c in x.cycles if c.axiom == axiom]
    return c


def _relations(c: AxiomCycle) -> list[str]:
    return [e.relation for e in c.edges]


def assert_well_formed(x: Explanation, model: str) -> None:
    """Every cycle is connected, closed when it says so, and every edge is a pair of
    the relation it names, on the candidate execution it was found on."""
    spec = ModelSpec.parse(model)
    test = load_litmus(x.file) if x.file else None
    assert test is not None
    loaded = get_model(spec.name)
    prog = lower(test, 2)
    for c in x.cycles:
        if not c.edges:
            continue
        for a, b in zip(c.edges, c.edges[1:], strict=False):
            assert a.dst == b.src, c
        if c.closed:
            assert c.edges[-1].dst == c.edges[0].src
        assert c.execution is not None
        ev, _ = evaluate(prog, frame_of_witness(prog, c.execution), loaded.stmts,
                         frozenset(spec.variants) | frozenset(test.variants))
        for e in [*c.edges, *c.side, *(d for x in c.edges for d in x.detail)]:
            name = e.via or e.relation
            if name.endswith("^-1"):
                rel = ev.env[name[:-3]]
                assert isinstance(rel, RelV) and (e.dst, e.src) in rel.m, e
                continue
            rel = ev.env[name]
            assert isinstance(rel, RelV) and (e.src, e.dst) in rel.m, e


# --------------------------------------------------------------------------
# The cycles the brief asks for
# --------------------------------------------------------------------------


def test_gin01_causality_publish_nic_sync_po_fr() -> None:
    x = _explain(GIN01, "gin-api")
    assert x.verdict == "Forbidden" and x.outcome == "P"
    assert "Causality" in x.axioms
    c = _cycle(x, "Causality")
    assert c.kind == "irreflexive" and c.closed
    rels = _relations(c)
    assert rels[0] in ("publish-bundled", "publish-strong")
    assert rels == [rels[0], "nic-sync", "po", "fr"]
    assert set(c.edges[0].rules) & {"R-GIN-2", "R-GIN-3"}
    assert "R-GDR-4" in c.edges[1].rules
    assert c.edges[3].via == "fr-ptx"
    # the events: the NIC's data write, its signal, the wait, the stale read
    ev = {e.eid: e for e in c.execution.events}  # type: ignore[union-attr]
    kinds = [(ev[e.src].kind, ev[e.src].loc) for e in c.edges]
    assert kinds == [("W", "x@1"), ("W", "S@1"), ("R", "S@1"), ("R", "x@1")]
    assert ev[c.edges[0].src].agent == "nic0.c0.1"
    assert_well_formed(x, "gin-api")


def test_gin01_text() -> None:
    text = explain_text(load_litmus(GIN01), "gin-api")
    assert "rejected by Causality" in text
    assert "-publish-bundled (R-GIN-2)->" in text
    assert "-nic-sync (R-GDR-4" in text
    assert "-fr (fr-ptx)->" in text
    assert text.rstrip().endswith("-publish-bundled-> e5 -nic-sync-> e7 -po-> e8 -fr-> e3")
    assert "[P0 nic0.c0.1: gin.put c0, x@1, buf, sig=S / write x@1]" in text
    # deterministic: no timings, the same text every time
    assert explain_text(load_litmus(GIN01), "gin-api") == text


def test_ptx_mp_sync_and_fr() -> None:
    x = _explain(MP_PTX, "ptx")
    c = _cycle(x, "Causality")
    assert _relations(c) == ["po", "sync", "po", "fr"]
    assert c.closed
    assert_well_formed(x, "ptx")


def test_sb_sc_po_fr() -> None:
    x = _explain(SB, "sc")
    assert x.axioms == ["sc"]
    c = _cycle(x, "sc")
    assert c.kind == "acyclic" and c.closed
    assert _relations(c) == ["po", "fr", "po", "fr"]
    assert c.check == "acyclic po | rf | co | fr | syncbar"
    assert_well_formed(x, "sc")


def test_x86tso_mp_ghb_is_expanded() -> None:
    x = _explain(MP_X86, "x86tso")
    c = _cycle(x, "tso")
    assert _relations(c) == ["ppo", "rfe", "ppo", "fr"]


def test_gin09_gdaki_gdr_seen_with_its_detail() -> None:
    x = _explain(GIN09, "gin-gdaki")
    c = _cycle(x, "Causality")
    assert _relations(c) == ["gdr-seen", "po", "fr"]
    assert [d.relation for d in c.edges[0].detail] == ["arrive", "nic-sync"]
    assert_well_formed(x, "gin-gdaki")


def test_empty_checks_close_with_co_or_show_the_other_operand() -> None:
    x = _explain(ATOM, "sc")
    atomic = _cycle(x, "atomic")
    assert atomic.kind == "empty" and not atomic.closed
    assert _relations(atomic) == ["fre", "coe"]
    assert [e.relation for e in atomic.side] == ["rmw"]
    x = _explain(ATOM, "ptx")
    assert [e.relation for e in _cycle(x, "Atomicity").side] == ["rmw"]
    # the default engine (the enumerator here) names Atomicity alone; z3's core is not
    # minimal: it names Coherence too, which explain marks as not needed
    assert [c.axiom for c in x.cycles] == ["Atomicity"]
    x = explain(load_litmus(ATOM), "ptx", options=CheckOptions(engine="smt"))
    assert _cycle(x, "Coherence").note == ("not needed: the other checks rule the outcome "
                                           "out without it")
    x = _explain(ROOT / "litmus" / "ptx" / "2+2W+fence.sc.gpus.litmus", "ptx")
    coh = _cycle(x, "Coherence")
    assert coh.closed and _relations(coh) == ["po", "sc", "po", "co"]
    assert_well_formed(x, "ptx")
    x = _explain(ROOT / "litmus" / "gin" / "08-WAW+put+put-sig.litmus", "gin-gdaki")
    arr = _cycle(x, "Arrival-order")
    assert arr.closed and _relations(arr) == ["arrive", "co"]
    assert_well_formed(x, "gin-gdaki")


def test_checks_that_also_rule_the_outcome_out() -> None:
    # CoRW1: the core names one check; leaving it out alone still leaves the outcome
    # unreachable, so explain leaves out the others the outcome runs into too
    x = _explain(CORW1, "ptx")
    assert all(c.edges and c.closed for c in x.cycles)
    assert [c.in_core for c in x.cycles][0] is True
    assert any(not c.in_core for c in x.cycles)
    assert "(also rules the outcome out)" in explain_text(load_litmus(CORW1), "ptx")


def test_outcome_no_candidate_reaches() -> None:
    lb = ROOT / "litmus" / "ptx" / "LB+datas.litmus"
    x = _explain(lb, "ptx")
    assert x.verdict == "Forbidden" and x.axioms == [] and x.cycles == []
    assert "the engines' own conditions rule it out" in explain_text(load_litmus(lb), "ptx")


def test_allowed_outcome_prints_the_witness() -> None:
    x = _explain(SB, "x86tso")
    assert x.outcome is None and x.witness is not None and not x.cycles
    text = explain_text(load_litmus(SB), "x86tso")
    assert "The outcome is reached by this execution:" in text
    assert "rf: e1->e3, e0->e5" in text


def test_rotation_ends_with_communication() -> None:
    from gdrcheck.analysis.explain import Edge

    cyc = [Edge(5, 2, "fr"), Edge(2, 3, "po"), Edge(3, 4, "sync"), Edge(4, 5, "po")]
    assert [e.relation for e in rotate(cyc)] == ["po", "sync", "po", "fr"]
    sb = [Edge(4, 5, "po"), Edge(5, 2, "fr"), Edge(2, 3, "po"), Edge(3, 4, "fr")]
    assert rotate(sb)[0].src == 2


# --------------------------------------------------------------------------
# Rule ids and cat text
# --------------------------------------------------------------------------


def test_rule_ids_come_from_the_comment_paragraph(tmp_path: Path) -> None:
    (tmp_path / "m.cat").write_text(
        '"m"\n'
        "(* R-X-1: first *)\n"
        "let a = po\n"
        "let b = rf\n"
        "\n"
        "let c = co (* R-X-9 after: not above *)\n"
        "\n"
        "(* R-X-2 and R-X-3\n"
        "   over two lines *)\n"
        'if "v" then\n'
        "  let d = fr\n"
        "end\n"
        "acyclic a | b | c as ax\n"
    )
    m = get_model(str(tmp_path / "m.cat"))
    ids: dict[str, tuple[str, ...]] = {}
    r = rule_ids(m)

    def walk(stmts: Any) -> None:
        for st in stmts:
            if hasattr(st, "bindings"):
                ids[st.bindings[0].name] = r[id(st)]
            if hasattr(st, "then"):
                walk(st.then)
    walk(m.stmts)
    assert ids == {"a": ("R-X-1",), "b": ("R-X-1",), "c": (), "d": ("R-X-2", "R-X-3")}


def test_rule_ids_of_the_gin_models() -> None:
    x = _explain(GIN01, "gin-api")
    c = _cycle(x, "Causality")
    assert c.edges[0].rules == ("R-GIN-2",)


def test_cat_text_round_trips_every_check_of_the_specs() -> None:
    models, errors = load_models()
    assert not errors
    seen = 0

    def walk(stmts: Any) -> None:
        nonlocal seen
        for st in stmts:
            expr = getattr(st, "expr", None)
            if expr is not None and hasattr(st, "kind"):
                again = parse_cat(f"acyclic {cat_text(expr)}").stmts[0]
                assert again.expr == expr, cat_text(expr)  # type: ignore[union-attr]
                seen += 1
            for b in getattr(st, "bindings", ()):
                again = parse_cat(f"let x = {cat_text(b.expr)}").stmts[0]
                assert again.bindings[0].expr == b.expr, cat_text(b.expr)  # type: ignore[union-attr]
            walk(getattr(st, "then", ()))
            walk(getattr(st, "otherwise", ()))

    for m in models.values():
        walk(m.stmts)
    assert seen > 30


# --------------------------------------------------------------------------
# The command line and the JSON record
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def explain_validator() -> Any:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "docs" / "json-schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator({**schema, "oneOf": [{"$ref": "#/$defs/explain"}]})


def test_cli_text() -> None:
    r = CliRunner().invoke(main, ["explain", str(GIN01), "--model", "gin-api"])
    assert r.exit_code == 0, r.output
    assert "cycle in Causality: e3 -publish-bundled-> e5 -nic-sync-> e7 -po-> e8 -fr-> e3" \
        in r.stdout


def test_cli_json_validates(explain_validator: Any) -> None:
    r = CliRunner().invoke(main, ["explain", str(GIN01), "--model", "gin-api",
                                  "--format", "json"])
    assert r.exit_code == 0, r.output
    recs = json.loads(r.stdout)
    explain_validator.validate(recs)
    (rec,) = recs  # a list, even of one record
    assert rec["schema"] == "gdrcheck.explain/1"
    assert rec["verdict"] == "Forbidden" and rec["outcome"] == "P"
    (cyc,) = rec["cycles"]
    assert [e["relation"] for e in cyc["edges"]] == ["publish-bundled", "nic-sync", "po", "fr"]
    assert cyc["edges"][0]["rules"] == ["R-GIN-2"]
    assert {e["id"] for e in cyc["events"]} >= {e["from"] for e in cyc["edges"]}
    # allowed: the witness, no cycle
    r = CliRunner().invoke(main, ["explain", str(SB), "-m", "x86tso", "--format", "json"])
    recs = json.loads(r.stdout)
    explain_validator.validate(recs)
    (rec,) = recs
    assert rec["outcome"] is None and rec["cycles"] == [] and rec["witness"] is not None
    # several models: a list
    r = CliRunner().invoke(main, ["explain", str(MP_PTX), "--format", "json"])
    recs = json.loads(r.stdout)
    assert [x["model"] for x in recs] == ["ptx", "sc"]
    explain_validator.validate(recs)


def test_cli_bad_input() -> None:
    r = CliRunner().invoke(main, ["explain", str(GIN01), "--model", "gin-api+nope"])
    assert r.exit_code == 2
    assert "has no variant nope" in r.stderr


def test_check_explain_option() -> None:
    r = CliRunner().invoke(main, ["check", str(MP_PTX), "-m", "ptx", "--explain"])
    assert r.exit_code == 0, r.output
    assert "Verdict MP+rel+acq-gpu ptx Forbidden" in r.stdout
    assert "cycle in Causality: e2 -po-> e3 -sync-> e4 -po-> e5 -fr-> e2" in r.stdout


# --------------------------------------------------------------------------
# The whole library (slow)
# --------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.timeout(3600)  # the whole library under every model: past the suite's 300 s
def test_every_forbidden_outcome_of_the_library_gets_a_cycle() -> None:
    models, _ = load_models()
    for path in litmus_files([ROOT / "litmus"]):
        test = load_litmus(path)
        for name, m in models.items():
            if not accepts(m, test):
                continue
            x = explain(test, name)
            if x.outcome is None or not x.axioms:  # not reachable at all (thin air)
                continue
            assert any(c.edges for c in x.cycles), (path, name)
            for c in x.cycles:
                if c.note is not None and c.note.startswith("not needed"):
                    continue
                assert c.edges, (path, name, c.axiom, c.note)
            assert_well_formed(x, name)
