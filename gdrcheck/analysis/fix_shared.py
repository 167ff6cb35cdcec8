"""``gdrcheck fix``'s shared encoding: every candidate edit a selector Boolean of ONE
program, encoded once per target model; a candidate set is then one solver call under
assumptions (the selectors of the set on, all others off), not a new encoding.

How the edits become selectors (:func:`build_shared`):

- an **insertion** (a fence, a flush, ``shmem.fence``, ...) is lowered once, in place,
  with a *guard*: its events exist only when its selector is on
  (:attr:`~gdrcheck.lower.program.Event.guard`; the z3 engine ands the guard into the
  event's execution condition, and po from a guarded event asks for it). An insertion
  whose lowering splits or ends a path (a wait), or that reads or writes memory, is
  not shared;
- a **replacement** (``ld`` → ``ld.acquire``, a weak signal made strong, a put moved
  to another context, a strict window, ...) is lowered on its own and compared with
  the shared program event by event: when only tags, scopes, contexts and agents
  differ, those become the events' *alternatives* under its selector
  (:attr:`~gdrcheck.lower.program.Event.alts`; base_env makes each tag set and each
  relation that reads those attributes depend on the selectors). Anything else
  differing (an event more or less, a value, a branch) and the edit is not shared.

Each candidate set's verdict comes from the shared encoding only when the shared
program, with that set's selectors fixed, is *the same program* as the lowering of
the edited test (:func:`project` compares the two, event by event, up to renumbering):
so an interaction between two edits that the per-edit construction did not foresee
cannot give a wrong answer; such a set, or one with an unshared edit, is checked by
encoding the edited test on its own (the fallback, counted in ``FixResult.fallbacks``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import z3

from gdrcheck.analysis.check import prepare
from gdrcheck.analysis.models import ModelSpec
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.analysis.strengthen import Edit, apply_edits
from gdrcheck.engine.base import selector_var
from gdrcheck.engine.deadline import Deadline, Expired
from gdrcheck.engine.smt import Query, build_query, query_solver
from gdrcheck.errors import InputError
from gdrcheck.litmus import ast as A
from gdrcheck.lower import Guards, lower
from gdrcheck.lower.program import Alt, BinOp, CmpExpr, Event, Expr, Ite, Program, ReadVal

_FIXED_TAGS = frozenset({"ARRIVE", "WAIT", "INIT"})
"""Tags an alternative may not change (the engine reads them when it builds the
barrier and initial-write constraints, not through the model)."""


def selector(j: int) -> str:
    """The selector of candidate edit ``j``."""
    return f"e{j}"


Origin = tuple[str, int]
"""Where an instruction of the shared test comes from: ("orig", k) the test's k-th of
its thread, ("edit", j) inserted by candidate edit j."""


@dataclass
class SharedProgram:
    program: Program
    """Every shared insertion in place with its guard, every shared replacement as
    alternatives of its events."""
    shared: frozenset[int]
    """The candidate edits that have a selector (the others: the fallback)."""
    layout: dict[int, list[Origin]]


def _shared_test(test: A.Test, edits: Sequence[Edit], inserts: set[int]
                 ) -> tuple[A.Test, Guards, dict[int, list[Origin]]]:
    """``test`` with every insertion of ``inserts`` in place, each instruction's guard,
    and where each instruction of each thread comes from."""
    threads = []
    guards: Guards = {}
    layout: dict[int, list[Origin]] = {}
    for t, th in enumerate(test.threads):
        ins: list[A.Instr] = []
        where: list[Origin] = []
        for k in range(len(th.instrs) + 1):
            for j in sorted(inserts):
                e = edits[j]
                if e.thread == t and e.index == k:
                    guards[(t, len(ins))] = selector(j)
                    ins.append(e.instr)  # type: ignore[arg-type]
                    where.append(("edit", j))
            if k < len(th.instrs):
                ins.append(th.instrs[k])
                where.append(("orig", k))
        threads.append(dataclasses.replace(th, instrs=tuple(ins)))
        layout[t] = where
    return dataclasses.replace(test, threads=tuple(threads)), guards, layout


def _same_structure(a: Event, b: Event) -> bool:
    """Equal but for the attributes an alternative may change (and the label)."""
    keep = ("thread", "kind", "loc", "block", "parent", "value", "instr", "cta", "cluster",
            "gpu", "node", "barrier_id", "quorum", "op", "rank", "peer", "vloc", "guard")
    return (all(getattr(a, f) == getattr(b, f) for f in keep)
            and bool(a.agent) == bool(b.agent)
            and not ((a.tags ^ b.tags) & _FIXED_TAGS))


def _leaf_key(prog: Program) -> list[Any]:
    return [(lf.thread, lf.block, lf.regs, lf.cut, lf.wait is not None) for lf in prog.leaves]


def _alternatives(base: Program, edited: Program, sel: str) -> list[tuple[int, Alt]] | None:
    """The alternatives that turn ``base`` into ``edited`` (None: they differ in more
    than an event's tags, scope, context or agent)."""
    if (len(base.events) != len(edited.events) or base.blocks != edited.blocks
            or _leaf_key(base) != _leaf_key(edited)
            or (base.rmw, base.data, base.addr, base.ctrl, base.relations)
            != (edited.rmw, edited.data, edited.addr, edited.ctrl, edited.relations)
            or (base.locations, base.init_values, base.aliases)
            != (edited.locations, edited.init_values, edited.aliases)):
        return None
    out: list[tuple[int, Alt]] = []
    for a, b in zip(base.events, edited.events, strict=True):
        if not _same_structure(a, b):
            return None
        if (a.tags, a.scope, a.ctx, a.agent) != (b.tags, b.scope, b.ctx, b.agent):
            out.append((a.eid, Alt(sel, b.tags, b.scope, b.ctx, b.agent)))
    return out


def _lower(test: A.Test, unroll: int, guards: Guards) -> Program | None:
    try:
        return lower(test, unroll, guards=guards)
    except InputError:
        return None


def build_shared(test: A.Test, edits: Sequence[Edit], unroll: int) -> SharedProgram | None:
    """The shared program of ``test`` and its candidate ``edits`` (None: the test as
    it is cannot be lowered with guards, so nothing is shared).

    The insertions at one place (one slot: at most one of them is ever on) share one
    instruction where they can: the first is lowered in place, guarded by all their
    selectors, and each other one whose lowering differs only in tags, scopes,
    contexts or agents becomes alternatives of its events (six fences at one place
    are one guarded fence event with five alternatives)."""
    by_slot: dict[tuple[int, int, str], list[int]] = {}
    for j, e in enumerate(edits):
        if e.action == "insert":
            by_slot.setdefault(e.slot, []).append(j)
    dropped: set[int] = set()  # insertions not shared
    separate: set[int] = set()  # insertions lowered as their own instruction
    while True:
        carriers = {g[0]: g for g in ([j for j in grp if j not in dropped | separate]
                                      for grp in by_slot.values()) if g}
        inserts = set(carriers) | (separate - dropped)
        stest, guards, layout = _shared_test(test, edits, inserts)
        prog = _lower(stest, unroll, guards)
        if prog is None:
            if not inserts:
                return None
            dropped |= inserts  # some insertion does not lower: share replacements only
            continue
        bad = {j for j in inserts if selector(j) in prog.guarded_forks}
        bad |= {int(g[1:]) for e in prog.events for g in e.guard if e.kind != "F"}
        if bad:
            dropped |= bad
            continue
        # the other insertions of each place as alternatives of its carrier's events
        alts: dict[int, list[Alt]] = {}
        guard_of: dict[int, tuple[str, ...]] = {}
        own = {(t, where[i][1]): i for t, where in layout.items()
               for i, o in enumerate(where) if o[0] == "edit"}
        for c, group in carriers.items():
            t = edits[c].thread
            pos = own[(t, c)]
            for j in group[1:]:
                th = stest.threads[t]
                instrs = list(th.instrs)
                instrs[pos] = edits[j].instr  # type: ignore[call-overload]
                other = _lower(dataclasses.replace(stest, threads=tuple(
                    dataclasses.replace(x, instrs=tuple(instrs)) if x.index == th.index else x
                    for x in stest.threads)), unroll, guards)
                found = None if other is None or selector(c) in other.guarded_forks \
                    else _alternatives(prog, other, selector(j))
                if found is None:
                    separate.add(j)
                    continue
                for ev in prog.events:
                    if selector(c) in ev.guard:
                        guard_of[ev.eid] = (*guard_of.get(ev.eid, ev.guard), selector(j))
                for eid, alt in found:
                    alts.setdefault(eid, []).append(alt)
        if any(j in separate for g in carriers.values() for j in g[1:]):
            continue  # lower again, with those as instructions of their own
        break
    shared = {j for g in carriers.values() for j in g} | (separate - dropped)
    for j, e in enumerate(edits):
        if e.action == "insert" or not e.simple:
            continue  # several instructions for one, or a declaration added: the fallback
        index = e.index if e.action == "init" else layout[e.thread].index(("orig", e.index))
        edited = _lower(apply_edits(stest, [dataclasses.replace(e, index=index)]), unroll,
                        guards)
        found = None if edited is None else _alternatives(prog, edited, selector(j))
        if found is None:
            continue
        shared.add(j)
        for eid, alt in found:
            alts.setdefault(eid, []).append(alt)
    events = [dataclasses.replace(ev, guard=guard_of.get(ev.eid, ev.guard),
                                  alts=tuple(alts.get(ev.eid, ()))) for ev in prog.events]
    return SharedProgram(dataclasses.replace(prog, events=events), frozenset(shared), layout)


# --------------------------------------------------------------------------
# The shared program with a set's selectors fixed, compared with the edited test
# --------------------------------------------------------------------------


def _remap(e: Expr | CmpExpr | None, m: dict[int, int]) -> Any:
    if isinstance(e, ReadVal):
        return ReadVal(m[e.eid])
    if isinstance(e, BinOp):
        return BinOp(e.op, _remap(e.left, m), _remap(e.right, m))
    if isinstance(e, CmpExpr):
        return CmpExpr(e.op, _remap(e.left, m), _remap(e.right, m))
    if isinstance(e, Ite):
        return Ite(_remap(e.cond, m), _remap(e.then, m), _remap(e.else_, m))
    return e


def canonical(prog: Program, on: frozenset[str] = frozenset()) -> tuple[Any, ...] | None:
    """What the engines see of ``prog`` with the selectors ``on`` on and every other
    off: the events that exist, with the attributes they have, renumbered in order
    (operations by first appearance); labels, source positions and instruction
    numbers left out. None when two alternatives of one event are on."""
    kept = [e for e in prog.events if not e.guard or any(g in on for g in e.guard)]
    m = {e.eid: i for i, e in enumerate(kept)}
    ops: dict[int, int] = {}
    rows = []
    for e in kept:
        attrs: Event | Alt = e
        chosen = [a for a in e.alts if a.selector in on]
        if len(chosen) > 1:
            return None
        if chosen:
            attrs = chosen[0]
        parent = e.parent
        while parent is not None and parent not in m:
            parent = prog.events[parent].parent
        op = None if e.op is None else ops.setdefault(e.op, len(ops))
        rows.append((e.thread, e.kind, e.loc, attrs.tags, e.block,
                     None if parent is None else m[parent], _remap(e.value, m), attrs.scope,
                     e.cta, e.gpu, e.node,
                     None if e.barrier_id is None else tuple(_remap(x, m) for x in e.barrier_id),
                     e.quorum, attrs.agent, op, e.rank, attrs.ctx, e.peer, e.vloc))

    def pairs(ps: set[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
        return tuple(sorted((m[a], m[b]) for a, b in ps if a in m and b in m))

    blocks = tuple((b.thread, b.parent, _remap(b.cond, m), b.positive) for b in prog.blocks)
    leaves = tuple((lf.thread, lf.block, tuple((r, _remap(v, m)) for r, v in lf.regs), lf.cut,
                    lf.wait is not None) for lf in prog.leaves)
    rels = tuple(sorted((k, pairs(v)) for k, v in prog.relations.items()))
    return (tuple(rows), blocks, leaves, pairs(prog.rmw), pairs(prog.data), pairs(prog.addr),
            pairs(prog.ctrl), rels, prog.nthreads, tuple(prog.locations),
            tuple(sorted(prog.init_values.items())), tuple(sorted(prog.aliases.items())))


def project_matches(sp: SharedProgram, test: A.Test, edits: Sequence[Edit],
                    chosen: Sequence[int], unroll: int) -> bool:
    """Is the shared program, with the selectors of ``chosen`` on and the others off,
    the program of ``test`` with those edits (as the engines see it)?"""
    if not set(chosen) <= sp.shared:
        return False
    on = canonical(sp.program, frozenset(selector(j) for j in chosen))
    if on is None:
        return False
    try:
        real = lower(apply_edits(test, [edits[j] for j in chosen]), unroll)
    except InputError:
        return False
    return on == canonical(real)


# --------------------------------------------------------------------------
# The queries
# --------------------------------------------------------------------------


@dataclass
class _Target:
    spec: ModelSpec
    query: Query
    solver: z3.Solver


class SharedJudge:
    """The shared program encoded once per target model; :meth:`judge` answers one
    candidate set with solver calls under assumptions."""

    def __init__(self, test: A.Test, sp: SharedProgram, specs: Sequence[ModelSpec],
                 options: CheckOptions) -> None:
        self.sp = sp
        self.timeout = options.timeout
        self.targets: list[_Target] = []
        for spec in specs:
            _, loaded, chosen = prepare(test, spec, (), options)
            q = build_query(sp.program, loaded.stmts, chosen, test, loaded.path_of,
                            deadline=Deadline(options.timeout))
            self.targets.append(_Target(spec, q, query_solver(q)))
        self.sels = {j: selector_var(selector(j)) for j in sorted(sp.shared)}

    def judge(self, chosen: Sequence[int], goal_forall: bool) -> bool | None:
        """Does every target forbid the outcome (``forall``: require it) with exactly the
        edits ``chosen``, none flagging it Undefined and some execution left? None when
        a solver gives up."""
        on = set(chosen)
        assume = [x if j in on else z3.Not(x) for j, x in self.sels.items()]
        deadline = Deadline(self.timeout)  # the time left of the search, for every target
        for t in self.targets:
            lits = [*t.query.axiom_lits.values(), *assume]
            for term in t.query.flag_terms.values():
                a = deadline.check(t.solver, *lits, term)
                if a == z3.unknown:
                    return None
                if a == z3.sat:
                    return False  # Undefined
            bad = z3.Not(t.query.prop) if goal_forall else t.query.prop
            a = deadline.check(t.solver, *lits, bad)
            if a == z3.unknown:
                return None
            if a == z3.sat:
                return False
            a = deadline.check(t.solver, *lits)  # some execution completes (not vacuous)
            if a == z3.unknown:
                return None
            if a == z3.unsat:
                return False
        return True


def shared_judge(test: A.Test, edits: Sequence[Edit], specs: Sequence[ModelSpec],
                 options: CheckOptions) -> SharedJudge | None:
    """The shared encoding of ``test`` and ``edits`` under ``specs`` (None: nothing to
    share, or the encoding ran out of time)."""
    sp = build_shared(test, edits, options.unroll)
    if sp is None or not sp.shared:
        return None
    try:
        return SharedJudge(test, sp, specs, options)
    except Expired:
        return None
