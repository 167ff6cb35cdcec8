"""The text and JSON (``gdrcheck.explain/1``) of an explanation
(:mod:`gdrcheck.analysis.explain`)."""

from __future__ import annotations

from typing import Any

from gdrcheck.analysis.explain import AxiomCycle, Edge, Explanation
from gdrcheck.engine.result import WitnessEvent
from gdrcheck.report.herd import format_prop, format_witness
from gdrcheck.report.json import witness_json


def condition_text(x: Explanation) -> str:
    """``exists (1:r1=1 /\\ 1:r0=0)``."""
    return f"{x.quantifier} ({format_prop(x.condition.prop)})"


# --------------------------------------------------------------------------
# Text
# --------------------------------------------------------------------------


def event_text(e: WitnessEvent | None, eid: int, full: bool = True) -> str:
    """``e3:W(x@1)=1 [gin.put c0, x@1, buf, sig=S / write x@1]``."""
    if e is None:
        return f"e{eid}"
    if e.kind in ("R", "W"):
        head = f"e{eid}:{e.kind}({e.loc})={e.value}"
    else:
        head = f"e{eid}:F"
    if not full:
        return head
    who = "init" if e.thread < 0 else f"P{e.thread}" + (f" {e.agent}" if e.agent else "")
    return f"{head} [{who}: {e.label}]" if e.label else f"{head} [{who}]"


def cycle_lines(c: AxiomCycle) -> list[str]:
    what = ("cycle" if c.closed else "path") if c.edges else "no cycle"
    also = "" if c.in_core else " (also rules the outcome out)"
    lines = [f"{c.axiom}{also}: {c.check}" if c.check else f"{c.axiom}{also}:"]
    if c.note or not c.edges:
        lines.append(f"  ({c.note or what})")
        return lines
    by_id = {e.eid: e for e in (c.execution.events if c.execution else [])}
    for ed in c.edges:
        lines.append("    " + event_text(by_id.get(ed.src), ed.src, full=True))
        lines.append(f"      -{ed.label()}->")
        if ed.detail:
            steps = " ".join(f"e{x.src} -{x.relation}->" for x in ed.detail)
            lines.append(f"         (= {steps} e{ed.detail[-1].dst})")
    last = c.edges[-1].dst
    lines.append("    " + event_text(by_id.get(last), last, full=not c.closed))
    short = " ".join(f"e{ed.src} -{ed.relation}->" for ed in c.edges) + f" e{last}"
    if c.side:
        short += ", and " + " ".join(f"e{ed.src} -{ed.relation}->" for ed in c.side)
        short += f" e{c.side[-1].dst}"
    lines.append(f"  {what} in {c.axiom}: {short}")
    return lines


def format_explanation(x: Explanation) -> str:
    out = [f"Explain {x.test} {x.model}: {condition_text(x)}", f"Verdict {x.verdict}"]
    for f in x.flags:
        out.append(f"Flag {f}")
    if x.reason and not x.cycles:
        out.append(f"Reason {x.reason}")
    if x.outcome is None:
        if x.witness is not None:
            out.append("The outcome is reached by this execution:")
            out.extend(format_witness(x.witness)[1:])
        return "\n".join(out)
    what = "the proposition" if x.outcome == "P" else "its negation"
    if not x.axioms:
        out.append(f"No candidate execution reaches {what}, whatever the model's checks: "
                   "the engines' own conditions rule it out (every read reads one write, "
                   "no value out of thin air, the --unroll bound, no barrier deadlock).")
        return "\n".join(out)
    out.append(f"No consistent execution reaches {what}; rejected by "
               f"{', '.join(x.axioms)}.")
    for c in x.cycles:
        out.extend(cycle_lines(c))
    return "\n".join(out)


# --------------------------------------------------------------------------
# JSON (gdrcheck.explain/1)
# --------------------------------------------------------------------------

SCHEMA = "gdrcheck.explain/1"


def _edge_json(ed: Edge) -> dict[str, Any]:
    return {"from": ed.src, "to": ed.dst, "relation": ed.relation, "rules": list(ed.rules),
            "via": ed.via, "detail": [_edge_json(x) for x in ed.detail]}


def explanation_json(x: Explanation) -> dict[str, Any]:
    def event(e: WitnessEvent) -> dict[str, Any]:
        return {"id": e.eid, "thread": e.thread, "agent": e.agent, "kind": e.kind,
                "loc": e.loc, "value": e.value, "label": e.label}

    cycles = []
    for c in x.cycles:
        by_id = {e.eid: e for e in (c.execution.events if c.execution else [])}
        ids = [x for ed in [*c.edges, *c.side] for x in (ed.src, ed.dst)]
        ids += [x for ed in c.edges for d in ed.detail for x in (d.src, d.dst)]
        cycles.append({
            "axiom": c.axiom,
            "kind": c.kind,
            "check": c.check,
            "closed": c.closed,
            "edges": [_edge_json(ed) for ed in c.edges],
            "side": [_edge_json(ed) for ed in c.side],
            "events": [event(by_id[i]) for i in dict.fromkeys(ids) if i in by_id],
            "text": "\n".join(cycle_lines(c)),
            "note": c.note,
            "in_core": c.in_core,
            "execution": None if c.execution is None else witness_json(c.execution),
        })
    return {
        "schema": SCHEMA,
        "test": x.test,
        "file": x.file,
        "model": x.model,
        "condition": condition_text(x),
        "quantifier": x.quantifier,
        "verdict": x.verdict,
        "outcome": x.outcome,
        "axioms": x.axioms,
        "flags": x.flags,
        "cycles": cycles,
        "witness": None if x.witness is None else witness_json(x.witness),
        "reason": x.reason,
    }

