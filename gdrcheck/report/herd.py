"""herd7's output layout (Test / States / Ok·No·Undef / Witnesses / Condition /
Observation / Time), plus gdrcheck's verdict lines, and the headline a person reads
first (:func:`headline`).

``Test NAME KIND`` gives the kind of the test as herd7 does (exists → Allowed,
~exists → Forbidden, forall → Required); gdrcheck's verdict on the proposition
follows on a ``Verdict`` line. herd7's log readers (herd/herdtools7@6378f2fb
tools/lexLog_tools.mll, read by mcompare7, msort7, ...) need that ``Test`` line as it
is: its kind must be one of herd's kinds, or the reader stops ("Lexing kind"). The
readers skip every line before a ``Test`` line (rule ``main``: ``[^'\r''\n']* nl``),
so the headline, which starts with the test's name and never with ``Test``, goes
before the block without changing what they read; ``--format herd`` leaves it out.
Counts after Positive/Negative and Observation are numbers of distinct final states
when states were listed (``--states``); otherwise they are ``?``.
"""

from __future__ import annotations

from gdrcheck.engine.result import Result, State, Witness
from gdrcheck.litmus import ast as A

KIND = {"exists": "Allowed", "~exists": "Forbidden", "forall": "Required"}


def format_prop(p: A.Prop, top: bool = True) -> str:
    if isinstance(p, A.Cmp):
        return f"{p.lhs}{'=' if p.op == '=' else '!='}{p.rhs}"
    if isinstance(p, A.And):
        s = " /\\ ".join(format_prop(a, False) for a in p.args)
    elif isinstance(p, A.Or):
        s = " \\/ ".join(format_prop(a, False) for a in p.args)
    elif isinstance(p, A.Not):
        return "~" + format_prop(p.arg, False)
    else:
        return "true" if p.value else "false"
    return s if top else f"({s})"


def format_state(st: State) -> str:
    return " ".join(f"{k}={v};" for k, v in st)


def format_witness(w: Witness) -> list[str]:
    lines = ["Witness execution:"]
    by_id = {e.eid: e for e in w.events}
    # the thread's own events, then the agents (NIC queues, proxies) acting for it
    groups = sorted({(e.thread, e.agent) for e in w.events},
                    key=lambda g: (g[0], g[1] != "", g[1]))
    for t, agent in groups:
        name = "init" if t < 0 else f"P{t}" + (f" {agent}" if agent else "")
        evs = [e for e in w.events if e.thread == t and e.agent == agent]
        parts = []
        for e in evs:
            label = e.label.split(" / ", 1)[-1] if agent else e.label
            if e.kind in ("R", "W") and t < 0:
                parts.append(f"e{e.eid}:W({e.loc})={e.value}")
            elif e.kind in ("R", "W"):
                parts.append(f"e{e.eid}:{e.kind}({e.loc})={e.value} [{label}]")
            else:
                parts.append(f"e{e.eid}:{label}")
        sep = "  " if t < 0 else "\n      "
        lines.append(f"  {name}: " + sep.join(parts))
    if w.rf:
        lines.append("  rf: " + ", ".join(f"e{a}->e{b}" for a, b in w.rf))
    multi = {loc: ws for loc, ws in w.co.items() if len(ws) > 1}
    if multi:
        lines.append("  co: " + "; ".join(
            f"{loc}: " + " < ".join(f"e{x}" for x in ws) for loc, ws in sorted(multi.items())))
    for name, pairs in w.extra.items():
        lines.append(f"  {name}: " + ", ".join(f"e{a}->e{b}" for a, b in pairs))
    del by_id
    return lines


def _meaning(condition: A.Condition, res: Result) -> str:
    """What the verdict says of the outcome, in words."""
    outcome = format_prop(condition.prop)
    forall = condition.quantifier == "forall"
    if res.verdict == "Allowed":
        return (f"some executions end with {outcome}, others do not" if forall
                else f"the outcome {outcome} can happen")
    if res.verdict == "Forbidden":
        return f"the outcome {outcome} cannot happen"
    if res.verdict == "Required":
        return f"every execution ends with {outcome}"
    if res.verdict == "Undefined":
        return f"a misuse flag fired: {', '.join(res.flags) or '?'}"
    return f"no answer: {res.reason or 'the solver gave up'}"


def headline(test: A.Test, res: Result, expected: str | None = None) -> str:
    """The verdict in words, the first line a person reads:
    ``MP under gin-gdaki: Forbidden (the outcome 1:r0=0 cannot happen; rejected by
    Causality)``. ``expected``: the test's ``Expect=`` verdict for this model."""
    return verdict_line(test.name, test.condition, res, expected)


def verdict_line(name: str, condition: A.Condition, res: Result,
                 expected: str | None = None) -> str:
    """:func:`headline` of the test ``name`` with ``condition``."""
    parts = [_meaning(condition, res)]
    if res.axioms and res.verdict in ("Forbidden", "Required"):
        parts.append("rejected by " + ", ".join(res.axioms))
    if res.vacuous:
        parts.append(f"VACUOUS: {res.vacuity or 'no execution completes'}")
    if expected is not None:
        met = expected == res.verdict and not res.vacuous
        parts.append(f"expected {expected}: {'ok' if met else 'MISMATCH'}")
    return f"{name} under {res.model}: {res.verdict} ({'; '.join(parts)})"


def format_report(test: A.Test, res: Result, show_witness: bool = False,
                  expected: str | None = None) -> str:
    """The headline, then herd's block (:func:`format_result`)."""
    return headline(test, res, expected) + "\n" + format_result(test, res, show_witness)


def format_result(test: A.Test, res: Result, show_witness: bool = False) -> str:
    out = [f"Test {test.name} {KIND[test.condition.quantifier]}"]
    if res.states is not None:
        out.append(f"States {len(res.states)}")
        out.extend(format_state(s) for s in res.states)
    else:
        out.append("States ? (not listed: --states lists them)")
    if res.verdict == "Unknown":
        out.append("Unknown")
    elif res.verdict == "Undefined":
        out.append("Undef")
    else:
        out.append("Ok" if res.ok else "No")
    out.append("Witnesses")
    # counts of final states when they were listed; otherwise '?': a count that only
    # says "some" or "none" must not be read as herd7's (mcompare7, msort7); the
    # Observation kind (Never / Sometimes / Always) still says which were reached
    if res.states is not None and res.pos_states is not None:
        pos, neg = str(res.pos_states), str(res.neg_states)
    else:
        pos = neg = "?"
    out.append(f"Positive: {pos} Negative: {neg}")
    for f in res.flags:
        out.append(f"Flag {f}")
    for f in res.liveness:
        out.append(f"Liveness {res.test} {res.model} may hang: {f}")
    if res.live is not None:
        why = f" ({res.live_reason})" if res.live_reason else ""
        out.append(f"Liveness {res.test} {res.model} {res.live}{why}")
    q = test.condition.quantifier
    out.append(f"Condition {q} ({format_prop(test.condition.prop)})")
    if res.verdict != "Unknown":
        out.append(f"Observation {test.name} {res.observation} {pos} {neg}")
    out.append(f"Verdict {test.name} {res.model} {res.verdict}")
    if res.vacuous:
        out.append(f"Vacuous {test.name} {res.model}: {res.vacuity or 'no execution completes'}")
    if res.verdict == "Unknown" and res.reason:
        out.append(f"Reason {res.reason}")
    if res.axioms and res.verdict in ("Forbidden", "Required"):
        out.append("Rejected-by " + ", ".join(res.axioms))
    if show_witness and res.witness is not None:
        out.extend(format_witness(res.witness))
    out.append(f"Time {test.name} {res.time:.3f}")
    return "\n".join(out)
