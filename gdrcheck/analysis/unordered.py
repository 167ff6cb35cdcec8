"""Why an allowed outcome can happen: the orders it needs that nothing gives.

``gdrcheck explain`` of an outcome that is reached. On the witness execution:

1. the *communications* the outcome rests on: every read that takes its value from
   another agent's write (``rf``), every read that misses the write coherence-after the
   one it read (``fr``: a stale read), and, for the locations whose final value the
   condition names, each write overwritten by another agent's (``co``);
2. the *pairs whose order the outcome needs*: a shortest cycle of those communications
   joined by program-order steps of one thread (from the event a communication ends at
   to the event a later one starts from, the first no later in the thread than the
   second: a put's data write and the signal after it; a wait and the load after it).
   Were every such pair ordered by the model, the cycle would be a cycle of the
   model's order and the outcome forbidden (the shape of every cycle
   :mod:`gdrcheck.analysis.explain` shows of a forbidden one);
3. for each pair, gdrcheck fix's catalogue (:mod:`gdrcheck.analysis.strengthen`)
   decides, by checks under the same model, whether the model already orders it and,
   when not, which single strengthening at that place would: the others' pairs are
   given their strongest edits; when that alone forbids the outcome, this pair is
   ordered already; otherwise each edit at the pair is tried on top. The answers come
   from the model (one check each, the shared encoding of ``gdrcheck fix``), never from
   the test's name or comments;
4. each pair that is not ordered is described in the domain's words: what about the
   two operations (or what is missing between them) keeps the order out — the edit
   that orders it says which attribute that is (another context, a weak signal, no
   flush, a relaxed read, a narrow scope, no fence, ...) — and, on the test with the
   cheapest such edit, the steps of the model's order that then join the two (from
   the cycle ``gdrcheck explain`` finds on it).

A pair for which no catalogued strengthening decides the question is *undecided*; its
attributes are still listed, from the instructions alone.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gdrcheck.analysis.models import ModelSpec
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.analysis.strengthen import CATALOGUE, Edit, apply_edits
from gdrcheck.engine.deadline import Deadline, Expired
from gdrcheck.engine.result import Witness, WitnessEvent
from gdrcheck.litmus import ast as A
from gdrcheck.lower.program import Program

Step = tuple[int, int, str]
"""``(from, to, relation)``: a communication (rf, fr, co) or a program-order step (po)."""


@dataclass(frozen=True)
class Ordering:
    """One strengthening that orders a pair (an entry of gdrcheck fix's catalogue)."""

    text: str  # "flush context c0 before the signal"
    entry: str  # "flush"
    sources: str  # the catalogue entry's sources: "R-GIN-7, R-GIN-8"
    cost: int


@dataclass
class NeededOrder:
    """Two operations of one thread whose order the outcome needs."""

    thread: int
    first: int  # event ids in the witness
    second: int
    first_row: int  # rows of their instructions, 1-based (P0:1 is the first)
    second_row: int
    first_text: str
    second_text: str
    status: str  # "unordered" | "ordered" | "undecided"
    why: list[str] = field(default_factory=list)
    """What keeps the order out, in the domain's words."""
    orders: list[Ordering] = field(default_factory=list)
    """Single strengthenings at this pair that forbid the outcome (with the other
    pairs ordered), cheapest first."""
    together: list[Ordering] = field(default_factory=list)
    """When no single edit does: the edits at this pair that do together."""
    then: list[str] = field(default_factory=list)
    """The steps of the model's order from this thread's events once the cheapest edit
    is in (``gdr-seen (R-GDR-1)``), from explain's cycle on the strengthened test."""


@dataclass
class WhyAllowed:
    """The cycle the outcome would close and its pairs (:func:`why_allowed`)."""

    cycle: list[Step]
    pairs: list[NeededOrder]
    note: str | None = None


# --------------------------------------------------------------------------
# 1-2. the communications and the cycle
# --------------------------------------------------------------------------


def _lane(e: WitnessEvent) -> tuple[int, str]:
    return (e.thread, e.agent)


def _condition_locations(p: A.Prop) -> set[str]:
    if isinstance(p, A.Cmp):
        lhs = str(p.lhs)
        return set() if ":" in lhs else {lhs}
    if isinstance(p, (A.And, A.Or)):
        return set().union(*(_condition_locations(a) for a in p.args))
    if isinstance(p, A.Not):
        return _condition_locations(p.arg)
    return set()


def communications(w: Witness, final_locs: set[str]) -> list[Step]:
    """rf from another agent's write, fr to another agent's write, and co between
    agents on the locations the condition names."""
    by_id = {e.eid: e for e in w.events}
    nxt: dict[int, int] = {}
    for ws in w.co.values():
        for a, b in itertools.pairwise(ws):
            nxt[a] = b
    out: list[Step] = []
    for src, r in sorted(w.rf):
        we, re_ = by_id.get(src), by_id.get(r)
        if we is None or re_ is None or re_.thread < 0:
            continue
        if we.thread >= 0 and _lane(we) != _lane(re_):
            out.append((src, r, "rf"))
        later = nxt.get(src)
        if later is not None and by_id[later].thread >= 0 and _lane(by_id[later]) != _lane(re_):
            out.append((r, later, "fr"))
    for loc, ws in sorted(w.co.items()):
        if loc not in final_locs and loc.split("@")[0] not in final_locs:
            continue
        for a, b in itertools.pairwise(ws):
            ea, eb = by_id[a], by_id[b]
            if ea.thread >= 0 and _lane(ea) != _lane(eb):
                out.append((a, b, "co"))
    return out


def needed_cycle(w: Witness, prog: Program, final_locs: set[str]) -> list[Step]:
    """A shortest cycle of communications and program-order steps of one thread
    (module docstring); [] when there is none."""
    comm = communications(w, final_locs)
    ends = {b for _, b, _ in comm}
    starts = {a for a, _, _ in comm}
    steps: list[Step] = list(comm)
    for y in sorted(ends):
        for x in sorted(starts):
            ey, ex = prog.events[y], prog.events[x]
            if x != y and ey.thread == ex.thread >= 0 and 0 <= ey.instr <= ex.instr:
                steps.append((y, x, "po"))
    succ: dict[int, list[Step]] = {}
    for s in steps:
        succ.setdefault(s[0], []).append(s)
    best: list[Step] = []
    for first in comm:
        # BFS from the end of one communication back to its start
        prev: dict[int, Step] = {}
        queue = deque([first[1]])
        seen = {first[1]}
        while queue:
            n = queue.popleft()
            if n == first[0]:
                break
            for s in succ.get(n, []):
                if s[1] not in seen:
                    seen.add(s[1])
                    prev[s[1]] = s
                    queue.append(s[1])
        if first[0] not in seen:
            continue
        path = [first]
        n = first[0]
        while n != first[1]:
            s = prev[n]
            path.insert(1, s)
            n = s[0]
        if not any(s[2] == "po" for s in path):
            continue
        if not best or len(path) < len(best):
            best = _rotated(path)
    return best


def _rotated(path: list[Step]) -> list[Step]:
    """Start at the smallest event that begins a program-order step."""
    i = min(range(len(path)), key=lambda k: (path[k][2] != "po", path[k][0]))
    return path[i:] + path[:i]


# --------------------------------------------------------------------------
# 3. ordered or not, by checks
# --------------------------------------------------------------------------


def _at_pair(e: Edit, thread: int, lo: int, hi: int, nic: bool) -> bool:
    """Whether edit ``e`` changes something between instructions lo and hi of thread."""
    if e.action == "init":
        return nic
    if e.thread != thread:
        return False
    if e.action == "insert":
        return lo < e.index <= hi
    return any(lo <= k <= hi for k in range(e.index, e.index + e.span))


def _strongest(edits: Sequence[Edit]) -> list[Edit]:
    """The dearest edit of each place, places not shared (as fix's first query)."""
    out: list[Edit] = []
    taken: set[tuple[int, int, str]] = set()
    for e in sorted(edits, key=lambda x: (-x.cost, x.thread, x.index, x.text)):
        if not taken & set(e.slots):
            out.append(e)
            taken |= set(e.slots)
    return out


MAX_COMBINATIONS = 64
"""Strengthenings of the other pairs tried with each edit of one pair (one edit or none
at each other pair, cheapest first); beyond that many, the pair is undecided."""


def _combinations(per_pair: Sequence[Sequence[Edit]]) -> list[list[Edit]]:
    """One edit or none at each pair, without two edits on one place, cheapest first
    (the empty one first), at most :data:`MAX_COMBINATIONS`."""
    out: list[list[Edit]] = []
    for combo in itertools.product(*[[None, *opts] for opts in per_pair]):
        chosen = [e for e in combo if e is not None]
        slots = [sl for e in chosen for sl in e.slots]
        if len(slots) == len(set(slots)):
            out.append(chosen)
    out.sort(key=lambda c: (sum(e.cost for e in c), len(c)))
    return out[:MAX_COMBINATIONS]


def _compatible(base: Sequence[Edit], e: Edit) -> list[Edit]:
    """``base`` without the edits that take one of ``e``'s places, plus ``e``."""
    slots = set(e.slots)
    return [x for x in base if not slots & set(x.slots)] + [e]


def catalogued(test: A.Test) -> list[tuple[Edit, str]]:
    """Every edit of gdrcheck fix's catalogue that ``test`` can take, with the sources
    of its entry."""
    return [(e, s.sources) for s in CATALOGUE for e in s.candidates(test)]


# --------------------------------------------------------------------------
# 4. the domain's words
# --------------------------------------------------------------------------


def _index(e: object) -> int:
    """The instruction's index in its thread (Event.instr is its 1-based row)."""
    return int(getattr(e, "instr", 0)) - 1


def _sem_of(ins: object) -> str:
    return str(getattr(ins, "sem", "") or "")


def _what(ins: object) -> str:
    if isinstance(ins, A.PtxLoad):
        return "the load"
    if isinstance(ins, A.PtxStore):
        return "the store"
    if isinstance(ins, A.GinPut):
        return "the put"
    if isinstance(ins, A.GinSignal):
        return "the signal"
    if isinstance(ins, A.GinRead):
        return f"the read of {ins.what} {ins.name}"
    return "the instruction"


Phrase = Callable[[Edit, object], str]

RESTRUCTURING = frozenset({"bundle-signal", "put_signal", "counter-wait"})
"""Edits that rewrite the calls rather than change an attribute of one: their phrase
comes after the attributes' (the context before "not bundled")."""

PHRASES: dict[str, Phrase] = {
    "ld.acquire": lambda e, ins: f"the load is .{_sem_of(ins)}, not an acquire",
    "st.release": lambda e, ins: f"the store is .{_sem_of(ins)}, not a release",
    "fence.acq_rel": lambda e, ins: "no fence between them",
    "fence.sc": lambda e, ins: "no fence between them",
    "mfence": lambda e, ins: ("no MFENCE between them (x86-TSO lets a load pass an "
                              "earlier store to another location: the store buffer)"),
    "strong-signal": lambda e, ins: "the signal is weak (it covers only its own put)",
    "flush": lambda e, ins: f"no flush of the put's context before the signal ({e.text})",
    "same-context": lambda e, ins: (
        f"the put is on context {getattr(ins, 'ctx', '?')} and the signal on another: "
        "contexts are not ordered with each other"),
    "bundle-signal": lambda e, ins: "the signal is a call of its own, not bundled with the put",
    "required-release": lambda e, ins: "no requiredRelease on the call",
    "strict-window": lambda e, ins: "the window is not registered NCCL_WIN_STRICT_ORDERING",
    "scope": lambda e, ins: f"{_what(ins)}'s scope .{getattr(ins, 'scope', '?')} is too "
                            "narrow for the other thread",
    "read-signal.acquire": lambda e, ins: ("the read of the signal is relaxed "
                                           "(gin.read_signal.relaxed: no acquire)"),
    "counter-wait": lambda e, ins: "nothing waits for the put's local completion",
    "shmem.fence": lambda e, ins: "no shmem.fence or shmem.quiet between them",
    "shmem.quiet": lambda e, ins: "no shmem.fence or shmem.quiet between them",
    "put_signal": lambda e, ins: "the signal is a shmem.signal_op of its own, not part of "
                                 "the put",
    "fence.proxy.async": lambda e, ins: "no proxy fence between the two proxies",
}


def _phrase(e: Edit, test: A.Test) -> str:
    ins: object = None
    if e.action != "init" and 0 <= e.thread < len(test.threads):
        instrs = test.threads[e.thread].instrs
        ins = instrs[e.index] if e.index < len(instrs) else None
    f = PHRASES.get(e.entry)
    return f(e, ins) if f is not None else f"it lacks what '{e.text}' adds"


def attributes(test: A.Test, thread: int, lo: int, hi: int) -> list[str]:
    """The ordering attributes of instructions lo..hi of ``thread``, from the
    instructions alone (for a pair no catalogued edit decides)."""
    instrs = test.threads[thread].instrs
    a, b = instrs[lo], instrs[hi]
    between = instrs[lo + 1:hi]
    out: list[str] = []
    for ins in (a, b) if lo != hi else (a,):
        if isinstance(ins, (A.PtxLoad, A.PtxStore)) and ins.sem in ("weak", "relaxed"):
            out.append(f"{_what(ins)} is .{ins.sem}")
        if isinstance(ins, A.GinRead) and ins.relaxed:
            out.append(f"{_what(ins)} is relaxed (no acquire)")
        sig = getattr(ins, "signal", None)
        if isinstance(ins, (A.GinPut, A.GinSignal)) and isinstance(sig, A.SignalSpec) \
                and sig.kind == "weak":
            out.append("the signal is weak")
    if isinstance(a, A.GinPut) and isinstance(b, A.GinSignal) \
            and a.dst.rank is not None and b.signal.target.rank is not None \
            and a.dst.rank != b.signal.target.rank:
        out.append(f"the put goes to rank {a.dst.rank}, the signal to rank "
                   f"{b.signal.target.rank} (a signal covers puts to its own peer, R-GIN-3)")
    ca, cb = getattr(a, "ctx", None), getattr(b, "ctx", None)
    if ca is not None and cb is not None and ca != cb:
        out.append(f"issued on different contexts ({ca}, {cb})")
    if isinstance(a, (A.GinPut, A.GinGet)) and lo != hi and not any(
            isinstance(x, A.GinFlush) and x.ctx == ca for x in between):
        out.append(f"no flush of context {ca} between them")
    if lo != hi and not any(isinstance(x, (A.PtxFence, A.X86Mfence)) for x in between):
        out.append("no fence between them")
    return out


# --------------------------------------------------------------------------
# why_allowed
# --------------------------------------------------------------------------


def why_allowed(test: A.Test, spec: ModelSpec, variants: Sequence[str], w: Witness,
                prog: Program, options: CheckOptions, explain: Callable[..., Any],
                deadline: Deadline | None = None) -> WhyAllowed:
    """The pairs an allowed outcome needs ordered, and which of them the model leaves
    unordered (module docstring). ``explain``: :func:`gdrcheck.analysis.explain.explain`
    (given, not imported: explain imports this module), for the cycle on the
    strengthened test."""
    from gdrcheck.analysis.fix import FixResult, _Checker

    deadline = deadline or Deadline(options.timeout)
    cycle = needed_cycle(w, prog, _condition_locations(test.condition.prop))
    if not cycle:
        return WhyAllowed([], [], "the outcome rests on no communication between two "
                                  "agents that an order could close into a cycle")
    by_id = {e.eid: e for e in w.events}
    links = [s for s in cycle if s[2] == "po"]
    listed = catalogued(test)
    edits = [e for e, _ in listed]
    sources = {id(e): src for e, src in listed}

    def ordering(e: Edit) -> Ordering:
        return Ordering(e.text, e.entry, sources.get(id(e), ""), e.cost)
    at: list[list[int]] = []
    for y, x, _ in links:
        ey, ex = prog.events[y], prog.events[x]
        nic = bool(by_id[y].agent or by_id[x].agent)
        at.append([j for j, e in enumerate(edits)
                   if _at_pair(e, ey.thread, _index(ey), _index(ex), nic)])
    targets = [spec.with_variants(variants)] if variants else [spec]
    out = FixResult(test.name, test.path, [str(t) for t in targets], False, "", {})
    checker = _Checker(test, edits, targets, False, options, out, deadline)
    index = {id(e): j for j, e in enumerate(edits)}

    def forbids(chosen: Sequence[Edit]) -> bool | None:
        if deadline.expired():
            return None
        try:
            _, ok = checker(sorted({index[id(e)] for e in chosen}))
        except Expired:
            return None
        return ok

    options_at = [[edits[j] for j in js] for js in at]
    pairs: list[NeededOrder] = []
    for k, (y, x, _) in enumerate(links):
        ey, ex = prog.events[y], prog.events[x]
        t = ey.thread
        instrs = test.threads[t].instrs
        pair = NeededOrder(t, y, x, ey.instr, ex.instr,
                           _instr_text(by_id[y]), _instr_text(by_id[x]), "undecided")
        pairs.append(pair)
        others = _combinations([o for i, o in enumerate(options_at) if i != k])
        # ordered already: some strengthening of the other pairs alone forbids it
        if any(c and forbids(c) for c in others):
            pair.status = "ordered"
            continue
        singles: list[tuple[Edit, list[Edit]]] = []
        for e in sorted(options_at[k], key=lambda e: (e.cost, e.text)):
            if any(e.dominates(s) for s, _ in singles):
                continue  # a stronger form of one that works: it works too
            for c in others:
                with_e = _compatible(c, e)
                if forbids(with_e):
                    singles.append((e, with_e))
                    break
        if singles:
            pair.status = "unordered"
            pair.orders = [ordering(e) for e, _ in singles]
            pair.why = list(dict.fromkeys(
                _phrase(e, test) for e, _ in sorted(singles, key=lambda s: (
                    s[0].entry in RESTRUCTURING, s[0].cost))))
            pair.then = _then(explain, test, spec, variants, options, singles[0][1], t)
            continue
        strongest = _strongest(options_at[k])
        if len(strongest) > 1 and any(forbids([*c, *strongest]) for c in others):
            pair.status = "unordered"
            pair.together = [ordering(e) for e in strongest]
            pair.why = list(dict.fromkeys(_phrase(e, test) for e in strongest))
            continue
        lo, hi = _index(ey), _index(ex)
        if 0 <= lo <= hi < len(instrs):
            pair.why = attributes(test, t, lo, hi)
    note = None
    if deadline.expired():
        note = "timeout while explaining (the pairs not decided by then are undecided)"
    return WhyAllowed(cycle, pairs, note)


def _instr_text(e: WitnessEvent) -> str:
    return e.label.split(" / ", 1)[0] if e.label else f"e{e.eid}"


def _then(explain: Callable[..., Any], test: A.Test, spec: ModelSpec,
          variants: Sequence[str], options: CheckOptions, edits: list[Edit], thread: int
          ) -> list[str]:
    """The steps of the model's order from ``thread``'s events on the cycle that explain
    finds once ``edits`` are in (they forbid the outcome): what then orders the pair."""
    try:
        x = explain(apply_edits(test, edits), spec, variants, options, reasons=False)
    except Exception:  # the strengthened test is only a means to name the order
        return []
    for c in x.cycles:
        if not c.edges or c.execution is None:
            continue
        th = {ev.eid: ev.thread for ev in c.execution.events}
        steps = [ed.label() for ed in c.edges
                 if th.get(ed.src) == thread and ed.relation not in ("rf", "fr", "co", "po")]
        if steps:
            return list(dict.fromkeys(steps))
    return []
