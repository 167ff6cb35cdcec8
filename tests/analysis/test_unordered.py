"""Why an allowed outcome can happen (gdrcheck/analysis/unordered.py): the pairs of one
thread its cycle needs ordered, which the model leaves unordered, and why.

Each expectation cites the library file's own reason for its Allowed verdict."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from gdrcheck.analysis.explain import explain
from gdrcheck.analysis.unordered import NeededOrder, WhyAllowed
from gdrcheck.cli import main
from gdrcheck.litmus import load_litmus
from gdrcheck.report.explain import explanation_json, format_explanation

ROOT = Path(__file__).resolve().parents[2]
LIB = ROOT / "litmus"


def _why(path: str, model: str) -> WhyAllowed:
    x = explain(load_litmus(LIB / path), model)
    assert x.verdict == "Allowed" and x.why is not None
    return x.why


def _by_rows(why: WhyAllowed) -> dict[tuple[int, int, int], NeededOrder]:
    return {(p.thread, p.first_row, p.second_row): p for p in why.pairs}


@pytest.mark.parametrize("model", ["gin-api", "gin-gdaki"])
def test_gin_put_and_signal_on_other_contexts(model: str) -> None:
    # litmus/gin/05: "contexts are independent ordering-wise; strong-signal cumulativity
    # never crosses contexts (R-GIN-7)"; "nothing orders the ATOMIC on c1's QP after the
    # WRITE on c0's QP" (R-GDAKI-1) -- the put (P0:1) and the signal (P0:2) are unordered;
    # the wait (acquire, R-GIN-10) orders B's load
    why = _why("gin/05-MP+put+signal-otherctx.litmus", model)
    assert [r for _, _, r in why.cycle] == ["po", "rf", "po", "fr"]
    pairs = _by_rows(why)
    put_sig = pairs[(0, 1, 2)]
    assert put_sig.status == "unordered"
    assert put_sig.first_text == "gin.put c0, x@1, buf"
    assert put_sig.second_text == "gin.signal c1, S@1"
    assert any("context c0 and the signal on another" in w for w in put_sig.why)
    assert put_sig.why[0].startswith("the put is on context c0")  # the attribute first
    entries = {o.entry for o in put_sig.orders}
    assert "same-context" in entries  # R-GIN-2, R-GIN-4: the signal's context
    assert pairs[(1, 1, 2)].status == "ordered"


def test_gin_relaxed_poll() -> None:
    # litmus/gin/21: "A relaxed readSignal (ord=relaxed, R-GIN-10) followed by a plain load
    # is no acquire pattern (R-PTX-2): B's two loads are unordered"; the put's own strong
    # signal covers it (R-GIN-2)
    why = _why("gin/21-MP+put+sig+relaxed-poll.litmus", "gin-gdaki")
    pairs = _by_rows(why)
    poll = pairs[(1, 1, 2)]
    assert poll.status == "unordered"
    assert poll.first_text == "gin.read_signal.relaxed r1, S"
    assert poll.why == ["the read of the signal is relaxed (gin.read_signal.relaxed: "
                        "no acquire)"]
    assert [o.entry for o in poll.orders] == ["read-signal.acquire"]
    assert "R-GIN-10" in poll.orders[0].sources
    assert pairs[(0, 1, 1)].status == "ordered"  # the put and its bundled signal


def test_gin_reuse_without_waiting_for_local_completion() -> None:
    # litmus/gin/14: the thread overwrites the put's source buffer before the put has
    # read it; a counter and its wait order them (R-GIN-9, litmus/gin/15)
    why = _why("gin/14-reuse+put-noflush.litmus", "gin-gdaki")
    (pair,) = why.pairs
    assert [r for _, _, r in why.cycle] == ["po", "rf"]
    assert pair.status == "unordered" and pair.second_text == "st.weak buf, 2"
    assert "counter-wait" in {o.entry for o in pair.orders}
    assert pair.then  # the model's order once the counter wait is in


def test_ptx_cta_scope_across_ctas() -> None:
    # litmus/ptx/MP+rel+acq-cta: "A .cta scope does not include a thread of another CTA,
    # so release and acquire are not morally strong: no sync"
    why = _why("ptx/MP+rel+acq-cta.litmus", "ptx")
    pairs = _by_rows(why)
    for key in ((0, 1, 2), (1, 1, 2)):
        p = pairs[key]
        assert p.status == "unordered"
        assert p.why[0].endswith("scope .cta is too narrow for the other thread")
        assert "widen the scope to .gpu" in [o.text for o in p.orders]


def test_ptx_relaxed_flag_read() -> None:
    # litmus/ptx/MP+rel+rlx-gpu: the flag is read relaxed (no acquire), "so there is no
    # sync"; the release orders the writer's pair
    why = _why("ptx/MP+rel+rlx-gpu.litmus", "ptx")
    pairs = _by_rows(why)
    assert pairs[(0, 1, 2)].status == "ordered"
    reader = pairs[(1, 1, 2)]
    assert reader.status == "unordered"
    assert reader.why[0] == "the load is .relaxed, not an acquire"
    assert "make the load ld.acquire.gpu" in [o.text for o in reader.orders]


def test_x86_store_buffering() -> None:
    # litmus/classic/SB: "both PodWR edges are W->R pairs, which are not in ppo"
    # (Intel SDM Vol.3A §8.2.3.4: loads may be reordered with older stores to different
    # locations); one MFENCE does not forbid SB (litmus/classic/SB+mfence+po: x86tso
    # Allowed), one on each side does (SB+mfences: Forbidden, "MFENCE flushes the store
    # buffer", Owens-Sarkar-Sewell TPHOLs 2009)
    why = _why("classic/SB.litmus", "x86tso")
    assert len(why.pairs) == 2
    for p in why.pairs:
        assert p.status == "unordered"
        assert p.why[0].startswith("no MFENCE between them")
        assert [o.entry for o in p.orders] == ["mfence"]
        assert p.then == ["mfence"]  # the model's own relation (x86tso.cat)


def test_text_json_and_picture() -> None:
    x = explain(load_litmus(LIB / "gin/05-MP+put+signal-otherctx.litmus"), "gin-gdaki")
    text = format_explanation(x)
    lines = text.splitlines()
    assert lines[0] == ("05-MP+put+signal-otherctx under gin-gdaki: Allowed (the outcome "
                        "1:r0=0 can happen)")
    assert any(ln.startswith("Why it can happen: were all 2 program-order pairs of the "
                             "cycle e3 -po-> e8 -rf-> e10 -po-> e11 -fr-> e3") for ln in lines)
    assert ("  unordered: P0:1 gin.put c0, x@1, buf (e3:W(x@1)=1) and P0:2 gin.signal c1, "
            "S@1 (e8:W(S@1)=1)") in lines
    rec = explanation_json(x)
    schema = json.loads((ROOT / "docs" / "json-schema.json").read_text())
    jsonschema.validate(rec, {"$ref": "#/$defs/explain-record", "$defs": schema["$defs"]})
    assert rec["why"]["pairs"][0]["status"] == "unordered"
    r = CliRunner().invoke(main, ["explain", str(LIB / "gin/05-MP+put+signal-otherctx.litmus"),
                                  "-m", "gin-gdaki", "--graph", "-"])
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("digraph G {")
    assert ('e3 -> e8 [color=darkorange2, fontcolor=darkorange2, style=dashed, penwidth=2.5, '
            'label="unordered: the put is on\\ncontext c0 and the signal on\\nanother"') \
        in r.stdout


def test_forbidden_outcome_has_no_why() -> None:
    x = explain(load_litmus(LIB / "gin/01-MP+put+strongsig.litmus"), "gin-api")
    assert x.verdict == "Forbidden" and x.why is None
    assert explanation_json(x)["why"] is None


def test_gin_signal_to_another_peer_is_described_when_undecided() -> None:
    # litmus/gin/07: "R-GIN-3 covers 'preceding puts on this context to the same peer';
    # A's signal goes to B, the put to C". No catalogued strengthening forbids the
    # outcome (the put would have to be signalled at C), so no pair is decided; the
    # writer's pair is still described from its instructions
    why = _why("gin/07-WRC+put+signal.litmus", "gin-api")
    assert [r for _, _, r in why.cycle].count("po") == 3
    writer = _by_rows(why)[(0, 1, 2)]
    assert writer.status == "undecided" and not writer.orders
    assert writer.why[0] == ("the put goes to rank 2, the signal to rank 1 (a signal covers "
                             "puts to its own peer, R-GIN-3)")
