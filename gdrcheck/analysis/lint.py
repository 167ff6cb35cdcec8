"""Lints: what a careful reviewer of a litmus test would point out although the test is
legal and checks (issue 24: silent mistakes become warnings).

Each :class:`Lint` names its instruction, init item or condition term by position and has
a code of :data:`LINTS`. A lint never changes a verdict or an exit code: the test means
what it says, the lint says that what it says is probably not what was meant.

- ``L001`` a put, signal or get whose remote address has no ``@rank`` goes to (or reads
  from) the issuing thread's own rank (``gin.put c0, x, a`` where ``x@1`` was meant;
  a bundled ``sig=S`` follows its put and is not one of these);
- ``L002`` a location (or signal, counter) the init block declares that no instruction
  accesses and no condition, ``filter`` or ``locations`` names;
- ``L003`` a signal, counter or flag that a thread waits on or reads while no instruction
  ever sends, increments or writes it;
- ``L004`` a counted wait (``gin.wait_signal S, N``, ``gin.wait_counter C, N``) that the
  sends of the whole test cannot satisfy (fewer than N in all, on the waiter's rank),
  in a test without loops or resets, unless a ``Liveness=`` entry expects the hang;
- ``L005`` a register in the condition that its thread never writes (it is initialised,
  so the condition tests the initial value);
- ``L006`` a location in the condition that no instruction writes (its final value is its
  initial value).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import fields

from gdrcheck.dataclass_cache import dataclass
from gdrcheck.errors import Pos
from gdrcheck.litmus import ast as A
from gdrcheck.litmus.printer import instr as print_instr

LINTS: dict[str, str] = {
    "L001": "a put, signal or get without @rank targets the issuing rank",
    "L002": "a declared location that nothing accesses",
    "L003": "a wait on (or read of) a signal, counter or flag that nothing sends or writes",
    "L004": "a counted wait that the sends of the test cannot reach",
    "L005": "a register in the condition that its thread never writes",
    "L006": "a location in the condition that no instruction writes",
}
"""Every lint code and what it flags (docs/output.md, "Lints")."""


@dataclass(frozen=True)
class Lint:
    """One warning about ``test`` at ``pos`` (line 0: the test as a whole)."""

    code: str
    message: str
    path: str | None
    pos: Pos


def lint_test(test: A.Test) -> list[Lint]:
    """The lints of ``test``, by position then code."""
    facts = _Facts(test)
    found = [*_self_targets(test), *_unused(test, facts), *_unsent(test, facts),
             *_unreachable_counts(test, facts), *_condition(test, facts)]
    return sorted(found, key=lambda x: (x.pos.line, x.pos.col, x.code))


# --------------------------------------------------------------------------
# What the test's instructions access and write
# --------------------------------------------------------------------------


class _Facts:
    """The names the instructions access and write, with windows, aliases and multicast
    objects expanded to the locations they stand for."""

    def __init__(self, test: A.Test) -> None:
        self.groups: dict[str, set[str]] = {}
        for item in test.init:
            if isinstance(item, A.WindowDecl):
                self._join(item.name, *item.members)
            elif isinstance(item, A.AliasDecl):
                self._join(item.name, item.target)
            elif isinstance(item, A.MulticastDecl):
                self._join(item.name, *(c.name for c in item.copies),
                           *([item.target] if item.target else []))
        self.accessed: set[str] = set()
        self.written: set[str] = set()
        for thread in test.threads:
            for ins in thread.instrs:
                self.accessed |= self.expand(_named(ins))
                self.written |= self.expand(_writes(ins))
        for item in test.init:
            if isinstance(item, A.InitReg) and isinstance(item.value, A.LocRef):
                self.accessed |= self.expand({item.value.name})  # its address is taken
        self.loops = any(isinstance(ins, A.Goto | A.Branch)
                         for t in test.threads for ins in t.instrs)

    def _join(self, *names: str) -> None:
        group = set(names).union(*(self.groups.get(n, set()) for n in names))
        for n in group:
            self.groups[n] = group

    def expand(self, names: Iterable[str]) -> set[str]:
        out: set[str] = set()
        for n in names:
            out |= self.groups.get(n, {n})
        return out


def _named(ins: A.Instr) -> set[str]:
    """The locations, signals and counters ``ins`` names (as A.locations_named reads
    them)."""
    if isinstance(ins, A.GinWait | A.GinRead | A.GinReset | A.StreamWaitValue):
        return {ins.name}
    out: set[str] = set()
    if isinstance(ins, A.GinPut) and ins.counter is not None:
        out.add(ins.counter)
    for f in fields(ins):
        value = getattr(ins, f.name)
        if isinstance(value, A.LocRef):
            out.add(value.name)
        elif isinstance(value, A.X86Mem):
            out.add(value.loc.name)
        elif isinstance(value, A.SignalSpec):
            out.add(value.target.name)
    return out


def _writes(ins: A.Instr) -> set[str]:
    """The locations, signals and counters ``ins`` may write (a reset counts: it sets)."""
    if isinstance(ins, A.X86Mov):
        return {ins.dst.loc.name} if isinstance(ins.dst, A.X86Mem) else set()
    if isinstance(ins, A.X86Xchg):
        return {x.loc.name for x in (ins.a, ins.b) if isinstance(x, A.X86Mem)}
    if isinstance(ins, A.X86Locked):
        return {ins.dst.loc.name} if isinstance(ins.dst, A.X86Mem) else set()
    if isinstance(ins, A.PtxStore | A.PtxAtom | A.PtxRed | A.PtxAsyncStore):
        return {ins.loc.name}
    if isinstance(ins, A.PtxBulkLoad | A.PtxBulkStore | A.GinGet | A.HostVerb):
        return {ins.dst.name}
    if isinstance(ins, A.MultimemStore | A.MultimemRed):
        return {ins.mc.name}
    if isinstance(ins, A.GinPut):
        out = {ins.dst.name}
        if ins.signal is not None:
            out.add(ins.signal.target.name)
        if ins.counter is not None:
            out.add(ins.counter)
        return out
    if isinstance(ins, A.GinSignal):
        return {ins.signal.target.name}
    if isinstance(ins, A.GinReset):
        return {ins.name}
    if isinstance(ins, A.ShmemCall):
        if ins.op in ("wait_until", "signal_wait_until"):
            return set()
        return {r.name for r in (ins.dst, ins.signal) if r is not None}
    return set()


def _instructions(test: A.Test) -> Iterator[tuple[A.Thread, A.Instr]]:
    for thread in test.threads:
        for ins in thread.instrs:
            yield thread, ins


def _lint(test: A.Test, code: str, message: str, pos: Pos) -> Lint:
    return Lint(code, message, test.path, pos)


# --------------------------------------------------------------------------
# The lints
# --------------------------------------------------------------------------


def _self_targets(test: A.Test) -> Iterator[Lint]:
    """L001: the remote address of a put, signal or get written without ``@rank``."""
    for thread, ins in _instructions(test):
        ref: A.LocRef | None = None
        what = ""
        if isinstance(ins, A.GinPut):
            ref, what = ins.dst, "writes"
        elif isinstance(ins, A.GinSignal):
            ref, what = ins.signal.target, "signals"
        elif isinstance(ins, A.GinGet):
            ref, what = ins.src, "reads"
        elif isinstance(ins, A.ShmemCall):
            if ins.op in ("put", "put_nbi", "p", "put_signal", "put_signal_nbi",
                          "atomic_add", "atomic_set"):
                ref, what = ins.dst, "writes"
            elif ins.op == "signal_op":
                ref, what = ins.signal, "signals"
            elif ins.op in ("get", "get_nbi"):
                ref, what = ins.src, "reads"
        if ref is None or ref.rank is not None:
            continue
        rank = thread.placement.gpu
        on = f"rank {rank}" if rank is not None else "the issuing rank"
        mine = f"{ref.name}@{rank}" if rank is not None else f"{ref.name}@k"
        yield _lint(test, "L001",
                    f"`{print_instr(ins)}` {what} {ref.name} on {thread.name}'s own {on}: "
                    f"the address has no @rank; write {ref.name}@K for rank K's {ref.name} "
                    f"(or {mine} if this rank is meant)", ins.pos)


def _declared(test: A.Test) -> Iterator[tuple[str, Pos, str]]:
    """(name, position, kind) of each location, signal and counter the init block
    declares."""
    for item in test.init:
        if isinstance(item, A.InitLoc):
            yield item.loc.name, item.pos, "location"
        elif isinstance(item, A.SignalDecl):
            yield item.name, item.pos, "signal"
        elif isinstance(item, A.CounterDecl):
            yield item.name, item.pos, "counter"
        elif isinstance(item, A.SharedDecl):
            yield item.name, item.pos, "shared location"


def _observed(test: A.Test) -> tuple[list[A.Term], set[str]]:
    """The terms of the condition, and the location names of the condition, ``filter``
    and ``locations``."""
    condition = _terms(test.condition.prop)
    others = list(test.locations) + (_terms(test.filter) if test.filter is not None else [])
    names = {t.loc.name for t in condition + others if isinstance(t, A.LocTerm)}
    return condition, names


def _unused(test: A.Test, facts: _Facts) -> Iterator[Lint]:
    """L002: declared, never accessed, never observed."""
    _, observed = _observed(test)
    observed = facts.expand(observed)
    seen: set[str] = set()
    for name, pos, kind in _declared(test):
        if name in seen:
            continue
        seen.add(name)
        if name not in facts.accessed and name not in observed:
            yield _lint(test, "L002", f"{kind} {name} is declared but no instruction accesses "
                        "it and no condition names it", pos)


def _unsent(test: A.Test, facts: _Facts) -> Iterator[Lint]:
    """L003: a wait on, or a read of, what nothing writes."""
    for thread, ins in _instructions(test):
        name: str | None = None
        if isinstance(ins, A.GinWait | A.GinRead):
            name = ins.name
            if ins.what == "signal" and not ins.va:
                why = f"no put carries sig=/wsig= {name} and no gin.signal sends it"
            elif ins.what == "counter":
                why = f"no put counts on it (ctr={name})"
            else:
                why = f"no instruction writes {name}"
        elif isinstance(ins, A.ShmemCall) and ins.op in ("wait_until", "signal_wait_until"):
            assert ins.signal is not None
            name, why = ins.signal.name, f"no instruction writes {ins.signal.name}"
        elif isinstance(ins, A.StreamWaitValue):
            name, why = ins.name, f"no instruction writes {ins.name}"
        if name is None or facts.expand({name}) & facts.written:
            continue
        yield _lint(test, "L003", f"`{print_instr(ins)}` in {thread.name} waits on or reads "
                    f"{name}, but {why}: it only ever sees its initial value", ins.pos)


def _unreachable_counts(test: A.Test, facts: _Facts) -> Iterator[Lint]:
    """L004: ``gin.wait_signal S, N`` / ``gin.wait_counter C, N`` above what the whole
    test sends to the waiter's copy (without loops, resets or other writes of it)."""
    if facts.loops or any(e.verdict == "Hang" for e in test.liveness_expectations):
        return
    signals = {i.name for i in test.init if isinstance(i, A.SignalDecl)}
    counters = {i.name for i in test.init if isinstance(i, A.CounterDecl)}
    sent: dict[tuple[str, int | None], int] = {}
    other_writes: set[str] = set()
    for thread, ins in _instructions(test):
        rank = thread.placement.gpu
        if isinstance(ins, A.GinPut):
            peer = ins.dst.rank if ins.dst.rank is not None else rank
            if ins.signal is not None:
                target = ins.signal.target
                at = target.rank if target.rank is not None else peer
                key = (target.name, at)
                sent[key] = sent.get(key, 0) + ins.signal.amount
            if ins.counter is not None:
                sent[(ins.counter, rank)] = sent.get((ins.counter, rank), 0) + 1
            other_writes.add(ins.dst.name)
        elif isinstance(ins, A.GinSignal):
            target = ins.signal.target
            key = (target.name, target.rank if target.rank is not None else rank)
            sent[key] = sent.get(key, 0) + ins.signal.amount
        else:
            other_writes |= _writes(ins)
    for thread, ins in _instructions(test):
        if not isinstance(ins, A.GinWait) or ins.va or ins.base is not None:
            continue  # a threshold in a register: its value is the execution's
        declared = signals if ins.what == "signal" else counters
        rank = thread.placement.gpu
        if (ins.name not in declared or ins.name in other_writes or rank is None
                or not facts.expand({ins.name}) & facts.written):  # L003 says it
            continue
        total = sent.get((ins.name, rank), 0)
        if total >= ins.value:
            continue
        verb = "signals" if ins.what == "signal" else "counted puts"
        yield _lint(test, "L004", f"`{print_instr(ins)}` in {thread.name} waits for "
                    f"{ins.value}, but the test sends at most {total} {verb} to {ins.name} "
                    f"on rank {rank}: the wait never returns (a Liveness=...:Hang entry says "
                    "that is meant)", ins.pos)


def _condition(test: A.Test, facts: _Facts) -> Iterator[Lint]:
    """L005 and L006: terms of the condition that no instruction can change."""
    condition, _ = _observed(test)
    threads = {t.index: t for t in test.threads}
    seen: set[str] = set()
    for term in condition:
        if str(term) in seen:
            continue
        seen.add(str(term))
        if isinstance(term, A.RegTerm):
            thread = threads.get(term.thread)
            if thread is not None and term.reg not in A.registers_written(thread):
                yield _lint(test, "L005", f"the condition reads {term}, which no instruction "
                            f"of {thread.name} writes: it tests the register's initial value",
                            term.pos)
        elif isinstance(term, A.LocTerm) and not facts.expand({term.loc.name}) & facts.written:
            yield _lint(test, "L006", f"the condition reads {term}, which no instruction "
                        "writes: it tests the location's initial value", term.pos)


def _terms(prop: A.Prop) -> list[A.Term]:
    """The terms of ``prop``, left to right (without recursion: conditions may nest
    deeply)."""
    out: list[A.Term] = []
    stack: list[A.Prop] = [prop]
    while stack:
        p = stack.pop()
        if isinstance(p, A.Cmp):
            out += [t for t in (p.lhs, p.rhs) if not isinstance(t, A.ConstTerm)]
        elif isinstance(p, A.And | A.Or):
            stack.extend(reversed(p.args))
        elif isinstance(p, A.Not):
            stack.append(p.arg)
    return out
