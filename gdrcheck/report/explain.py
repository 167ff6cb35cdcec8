"""The text and JSON (``gdrcheck.explain/1``) of an explanation
(:mod:`gdrcheck.analysis.explain`)."""

from __future__ import annotations

from typing import Any

from gdrcheck.analysis.explain import AxiomCycle, Edge, Explanation
from gdrcheck.analysis.liveness import HangExplanation
from gdrcheck.analysis.unordered import NeededOrder, Ordering, WhyAllowed
from gdrcheck.engine.result import WitnessEvent
from gdrcheck.report.herd import format_prop, format_witness, verdict_line
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


def _ordering_text(o: Ordering) -> str:
    return f"{o.text} [{o.entry}, cost {o.cost}" + (f"; {o.sources}]" if o.sources else "]")


def pair_lines(p: NeededOrder, by_id: dict[int, WitnessEvent]) -> list[str]:
    """One pair of :class:`~gdrcheck.analysis.unordered.WhyAllowed`."""
    first = (f"P{p.thread}:{p.first_row} {p.first_text} "
             f"({event_text(by_id.get(p.first), p.first, False)})")
    second = (f"P{p.thread}:{p.second_row} {p.second_text} "
              f"({event_text(by_id.get(p.second), p.second, False)})")
    if p.first_row == p.second_row:
        second = f"its {event_text(by_id.get(p.second), p.second, False)}"
    if p.status == "ordered":
        return [f"  ordered: {first}, then {second}"]
    lines = [f"  {p.status}: {first} and {second}"]
    for i, w in enumerate(p.why):
        lines.append(("    because: " if i == 0 else "             ") + w)
    if p.orders:
        lines.append("    one edit orders them (checked under the model; gdrcheck fix's "
                     "catalogue):")
        lines.extend(f"      {_ordering_text(o)}" for o in p.orders)
    if p.together:
        lines.append("    no one edit orders them; these do together (checked):")
        lines.extend(f"      {_ordering_text(o)}" for o in p.together)
    if p.status == "undecided":
        lines.append("    (no catalogued strengthening decides whether the model orders them)")
    if p.then:
        lines.append(f"    with the first, the model's order runs: {', '.join(p.then)}")
    return lines


def why_lines(why: WhyAllowed, by_id: dict[int, WitnessEvent]) -> list[str]:
    if not why.cycle:
        return [f"Why: {why.note}."] if why.note else []
    cyc = " ".join(f"e{a} -{r}->" for a, _, r in why.cycle) + f" e{why.cycle[0][0]}"
    open_ = [p for p in why.pairs if p.status != "ordered"]
    n = len(why.pairs)
    lines = [f"Why it can happen: were {'its' if n == 1 else f'all {n}'} program-order "
             f"pair{'s' if n > 1 else ''} of the cycle {cyc} ordered, the outcome would be "
             f"forbidden; {len(open_)} {'is' if len(open_) == 1 else 'are'} not:"]
    for p in sorted(why.pairs, key=lambda p: p.status == "ordered"):
        lines.extend(pair_lines(p, by_id))
    if why.note:
        lines.append(f"  ({why.note})")
    return lines


def hang_lines(test: str, h: HangExplanation) -> list[str]:
    """The liveness answer; for a Hang, the stuck execution in words."""
    if h.answer != "Hang":
        why = f" ({h.reason})" if h.reason else ""
        what = ("no wait or spin loop can block forever in a fair execution"
                if h.answer == "Live" else "not decided")
        return [f"Liveness {test} {h.model}: {h.answer}{why}: {what}"]
    out = [f"Liveness {test} {h.model}: Hang: a fair execution in which "
           + ("a thread blocks" if len(h.stuck) == 1 else f"{len(h.stuck)} threads block")
           + f" forever (engine {h.engine})"]
    for s, lines in zip(h.stuck, h.why, strict=True):
        where = f" (line {s.site.pos.line})" if s.site.pos.line else ""
        what = "spins forever at" if s.kind == "spin" else "waits forever at"
        out.append(f"  P{s.site.thread} {what} row {s.site.row}{where}: {s.site.text}")
        out.extend(f"    {line}" for line in lines)
    for o in h.others:
        out.append(f"  {o}")
    if h.witness is not None:
        out.append("The stuck execution:")
        out.extend(format_witness(h.witness)[1:])
    return out


def hang_json(h: HangExplanation) -> dict[str, Any]:
    """The liveness part of a gdrcheck.explain/1 record."""
    return {
        "answer": h.answer,
        "reason": h.reason,
        "engine": h.engine,
        "stuck": [{
            "thread": s.site.thread, "row": s.site.row, "line": s.site.pos.line or None,
            "text": s.site.text, "kind": s.kind,
            "reads": [{"read": k.read, "loc": k.loc, "value": k.value, "from": k.source,
                       "co": list(k.co), "overwritten": list(k.overwritten)}
                      for k in s.kept],
            "why": why,
        } for s, why in zip(h.stuck, h.why or [[] for _ in h.stuck], strict=True)],
        "others": h.others,
        "execution": None if h.witness is None else witness_json(h.witness),
    }


def format_explanation(x: Explanation) -> str:
    text = _format_explanation(x)
    if x.hang is None:
        return text
    return text + "\n" + "\n".join(hang_lines(x.test, x.hang))


def _format_explanation(x: Explanation) -> str:
    head = (verdict_line(x.test, x.condition, x.result) if x.result is not None
            else f"{x.test} under {x.model}: {x.verdict}")
    out = [head, f"Explain {x.test} {x.model}: {condition_text(x)}"]
    for f in x.flags:
        out.append(f"Flag {f}")
    if x.reason and not x.cycles:
        out.append(f"Reason {x.reason}")
    if x.outcome is None:
        if x.witness is not None:
            if x.why is not None:
                out.extend(why_lines(x.why, {e.eid: e for e in x.witness.events}))
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
        "why": None if x.why is None else why_json(x.why),
        "reason": x.reason,
        "liveness": None if x.hang is None else hang_json(x.hang),
    }


def _ordering_json(o: Ordering) -> dict[str, Any]:
    return {"text": o.text, "entry": o.entry, "sources": o.sources, "cost": o.cost}


def why_json(w: WhyAllowed) -> dict[str, Any]:
    """Why a reached outcome can happen: its cycle and pairs (unordered.py)."""
    return {
        "cycle": [{"from": a, "to": b, "relation": r} for a, b, r in w.cycle],
        "pairs": [{
            "thread": p.thread, "first": p.first, "second": p.second,
            "first_row": p.first_row, "second_row": p.second_row,
            "first_text": p.first_text, "second_text": p.second_text,
            "status": p.status, "why": p.why,
            "orders": [_ordering_json(o) for o in p.orders],
            "together": [_ordering_json(o) for o in p.together],
            "then": p.then,
        } for p in w.pairs],
        "note": w.note,
    }

