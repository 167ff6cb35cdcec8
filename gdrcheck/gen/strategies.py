"""Hypothesis strategies for random litmus tests.

:func:`litmus_tests` draws *valid* :class:`~gdrcheck.litmus.ast.Test` ASTs in the
X86 or the PTX dialect: every test lowers, every register the condition names
is written by its thread, every branch jumps forward to a label of its own
thread, and every CTA that uses barrier 0 has each of its threads use it the
same number of times. They are meant for differential testing (the z3 engine
against the explicit enumerator) and for fuzzing the front end::

    from hypothesis import given
    from gdrcheck.strategies import litmus_tests

    @given(litmus_tests("ptx", max_threads=3, max_events=8))
    def test_something(test): ...

Sizes are counted in *events*, the way the lowering counts them: a memory
access or a fence is one event, a read-modify-write (``XCHG``, ``LOCK ADD``,
``LOCK XADD``, ``atom``, ``red``) is two (its read and its write) and a
``bar.cta.sync`` is two (its arrival and its wait). Events under a branch are
counted whether or not the branch is taken, so ``max_events`` bounds every
path of the program. Register moves, register arithmetic, labels and branches
are not events.

The instruction kinds a test may use can be restricted with ``ops`` (a set of
the names in :data:`X86_OPS` or :data:`PTX_OPS`; ``"atom"`` is short for the
three PTX atomics).
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from hypothesis import strategies as st

from gdrcheck.litmus import ast as A

__all__ = [
    "X86_OPS",
    "PTX_OPS",
    "OP_EVENTS",
    "litmus_tests",
    "x86_tests",
    "ptx_tests",
    "count_events",
    "estimate_candidates",
    "possible_values",
]

X86_OPS: dict[str, str] = {
    "store": "MOV [x],$v: a store of a constant",
    "store_reg": "MOV [x],R: a store of a register loaded earlier (a data dependency)",
    "load": "MOV R,[x]: a load into EAX, EBX, ECX (then EDX, ESI, EDI)",
    "mfence": "MFENCE",
    "xchg": "MOV R,$v then XCHG [x],R: a locked exchange",
    "lock_add": "LOCK ADD [x],$v",
    "xadd": "MOV R,$v then LOCK XADD [x],R: a locked fetch-and-add",
}
"""The X86 instruction kinds, by the name ``ops`` uses."""

PTX_OPS: dict[str, str] = {
    "load": "ld.{weak,relaxed.S,acquire.S,volatile} r, x (S: cta, gpu or sys)",
    "store": "st.{weak,relaxed.S,release.S,volatile} x, v: a store of a constant",
    "store_reg": "st.* x, r (or add r', r, v; st.* x, r'): a store of a loaded register "
                 "(a data dependency)",
    "fence": "fence.{sc,acq_rel}.S",
    "atom_add": "atom.{relaxed,acquire,release,acq_rel}.S.add r, x, v",
    "atom_exch": "atom.{relaxed,acquire,release,acq_rel}.S.exch r, x, v",
    "atom_cas": "atom.{relaxed,acquire,release,acq_rel}.S.cas r, x, e, v",
    "red": "red.{relaxed,release}.S.add x, v",
    "barrier": "bar.cta.sync 0, the same number of times in every thread of a CTA",
    "branch": "beq/bne r, v, LCnn over one or two instructions (forward only)",
    "select": "setp.CC p, r, v; selp d, a, b, p; st.* x, d: a store of a value chosen from a "
              "loaded register without a branch (a data dependency on r)",
}
"""The PTX instruction kinds, by the name ``ops`` uses (``"atom"`` names the three
atomics)."""

OP_EVENTS: dict[str, int] = {
    "store": 1, "store_reg": 1, "load": 1, "mfence": 1, "fence": 1,
    "xchg": 2, "lock_add": 2, "xadd": 2, "atom_add": 2, "atom_exch": 2, "atom_cas": 2,
    "red": 2, "barrier": 2, "branch": 0, "select": 1,
}
"""Events one instruction of each kind adds (a branch adds none itself: its body
is counted instruction by instruction)."""

_X86_REGS = ("EAX", "EBX", "ECX", "EDX", "ESI", "EDI")
_SCOPES: tuple[A.Scope, ...] = ("cta", "gpu", "sys")
_LOAD_SEMS: tuple[A.Sem, ...] = ("weak", "relaxed", "acquire", "volatile")
_STORE_SEMS: tuple[A.Sem, ...] = ("weak", "relaxed", "release", "volatile")
_RMW_SEMS: tuple[A.Sem, ...] = ("relaxed", "acquire", "release", "acq_rel")
_RED_SEMS: tuple[A.Sem, ...] = ("relaxed", "release")
_CMP_OPS: tuple[Literal["=", "!="], ...] = ("=", "!=")
_QUANTIFIERS: tuple[A.Quantifier, ...] = ("exists", "~exists", "forall")
# kinds that need a register loaded earlier in the thread
_NEEDS_REG = {"store_reg", "branch", "select"}
# kinds that are placed by the generator itself, not drawn for a thread's body
_PLACED = {"barrier"}


# --------------------------------------------------------------------------
# Helpers on tests (public: the differential tests use them)
# --------------------------------------------------------------------------


def _instr_events(ins: A.Instr) -> int:
    if isinstance(ins, (A.X86Xchg, A.X86Locked, A.PtxAtom, A.PtxRed)):
        return 2
    if isinstance(ins, A.X86Mov):
        return int(isinstance(ins.dst, A.X86Mem) or isinstance(ins.src, A.X86Mem))
    if isinstance(ins, A.PtxBarrier):
        return 2 if ins.mode == "sync" else 1
    if isinstance(ins, (A.X86Mfence, A.PtxFence, A.PtxLoad, A.PtxStore)):
        return 1
    return 0


def count_events(test: A.Test) -> int:
    """The events of ``test`` as :func:`litmus_tests` counts them (every instruction
    of every thread, branch bodies included, RMWs and barrier syncs as two)."""
    return sum(_instr_events(i) for th in test.threads for i in th.instrs)


def estimate_candidates(test: A.Test) -> int:
    """A cheap upper bound on the candidate executions the explicit enumerator
    visits: the product over locations of (reads' rf choices x coherence orders),
    times the Fence-SC orders and the paths. Used to keep random tests cheap."""
    writes: dict[str, int] = {}
    reads: dict[str, int] = {}
    sc_fences = 0
    paths = 1
    for th in test.threads:
        branches = 0
        for ins in th.instrs:
            for loc, r, w in _accesses(ins):
                reads[loc] = reads.get(loc, 0) + r
                writes[loc] = writes.get(loc, 0) + w
            if isinstance(ins, A.PtxFence) and ins.kind == "sc":
                sc_fences += 1
            if isinstance(ins, A.Branch) or (isinstance(ins, A.PtxAtom) and ins.op == "cas"):
                branches += 1
        paths *= 2 ** branches
    total = paths * _factorial(sc_fences)
    for loc in set(writes) | set(reads):
        w = writes.get(loc, 0)
        total *= _factorial(w) * (w + 1) ** reads.get(loc, 0)
    return total


def _factorial(n: int) -> int:
    out = 1
    for i in range(2, n + 1):
        out *= i
    return out


def _accesses(ins: A.Instr) -> Iterable[tuple[str, int, int]]:
    """(location, reads, writes) of one instruction."""
    if isinstance(ins, A.X86Mov):
        if isinstance(ins.dst, A.X86Mem):
            yield str(ins.dst.loc), 0, 1
        elif isinstance(ins.src, A.X86Mem):
            yield str(ins.src.loc), 1, 0
    elif isinstance(ins, A.X86Xchg):
        mem = ins.a if isinstance(ins.a, A.X86Mem) else ins.b
        if isinstance(mem, A.X86Mem):
            yield str(mem.loc), 1, 1
    elif isinstance(ins, A.X86Locked) and isinstance(ins.dst, A.X86Mem):
        yield str(ins.dst.loc), 1, 1
    elif isinstance(ins, A.PtxLoad):
        yield str(ins.loc), 1, 0
    elif isinstance(ins, A.PtxStore):
        yield str(ins.loc), 0, 1
    elif isinstance(ins, (A.PtxAtom, A.PtxRed)):
        yield str(ins.loc), 1, 1


def possible_values(test: A.Test, limit: int = 8) -> list[int]:
    """Values a register or a location of ``test`` may plausibly end with: 0, the
    constants it stores or exchanges, and sums of those with the constants it adds
    (at most ``limit`` values, smallest first). An over-approximation is fine: the
    condition only needs to hit real outcomes often."""
    bases = {0}
    adds: list[int] = []
    for th in test.threads:
        for ins in th.instrs:
            if isinstance(ins, A.PtxStore) and isinstance(ins.value, A.Const):
                bases.add(ins.value.value)
            elif isinstance(ins, A.X86Mov) and isinstance(ins.src, A.Const):
                bases.add(ins.src.value)
            elif isinstance(ins, A.PtxAtom):
                consts = [o.value for o in ins.operands if isinstance(o, A.Const)]
                if ins.op == "add":
                    adds.extend(consts)
                elif consts:
                    bases.add(consts[-1])
            elif isinstance(ins, A.PtxRed) and isinstance(ins.value, A.Const):
                adds.append(ins.value.value)
            elif isinstance(ins, A.X86Locked) and ins.op in ("ADD", "XADD"):
                if isinstance(ins.src, A.Const):
                    adds.append(ins.src.value)
            elif isinstance(ins, A.LocalOp) and ins.op == "add":
                adds.extend(a.value for a in ins.args if isinstance(a, A.Const))
            elif isinstance(ins, A.Selp):
                bases.update(a.value for a in (ins.a, ins.b) if isinstance(a, A.Const))
    # XADD adds the register it was given by the MOV before it
    for th in test.threads:
        for prev, ins in itertools.pairwise(th.instrs):
            if (isinstance(ins, A.X86Locked) and ins.op == "XADD"
                    and isinstance(prev, A.X86Mov) and isinstance(prev.src, A.Const)):
                adds.append(prev.src.value)
    out = set(bases)
    frontier = set(bases)
    for _ in range(2):  # sums of up to two adds
        frontier = {b + a for b in frontier for a in adds}
        out |= frontier
    return sorted(out)[:limit]


# --------------------------------------------------------------------------
# The generator
# --------------------------------------------------------------------------


@dataclass
class _ThreadGen:
    """The state of one thread while its instructions are drawn."""

    index: int
    dialect: str
    budget: int
    instrs: list[list[A.Instr]] = field(default_factory=list)  # top-level items
    loaded: list[str] = field(default_factory=list)  # registers holding a loaded value
    written: list[str] = field(default_factory=list)  # every register written
    next_reg: int = 0
    next_label: int = 0

    def fresh_reg(self) -> str:
        if self.dialect == "x86":
            name = _X86_REGS[self.next_reg % len(_X86_REGS)]
        else:
            name = f"r{self.next_reg}"
        self.next_reg += 1
        if name not in self.written:
            self.written.append(name)
        return name


def _normalise_ops(dialect: str, ops: Collection[str] | None) -> frozenset[str]:
    table = X86_OPS if dialect == "x86" else PTX_OPS
    if ops is None:
        return frozenset(table)
    chosen = set(ops)
    if dialect == "ptx" and "atom" in chosen:
        chosen.discard("atom")
        chosen |= {"atom_add", "atom_exch", "atom_cas"}
    unknown = chosen - set(table)
    if unknown:
        raise ValueError(f"unknown {dialect} instruction kinds: {', '.join(sorted(unknown))} "
                         f"(known: {', '.join(sorted(table))})")
    if not chosen - _NEEDS_REG - _PLACED:
        raise ValueError("ops needs at least one kind that stands on its own "
                         "(not only store_reg, branch, select or barrier)")
    return frozenset(chosen)


def litmus_tests(
    dialect: str = "x86",
    max_threads: int = 4,
    max_events: int = 12,
    locations: Sequence[str] = ("x", "y", "z"),
    values: Sequence[int] = (1, 2),
    ops: Collection[str] | None = None,
    *,
    min_threads: int = 1,
    prefer_small: bool = False,
    max_candidates: int | None = None,
    max_barrier_uses: int = 2,
) -> st.SearchStrategy[A.Test]:
    """Random valid litmus tests.

    - ``dialect``: ``"x86"`` (herd7's X86: MOV, MFENCE, XCHG, LOCK ADD, LOCK XADD)
      or ``"ptx"`` (ld/st with every semantics and scope, fence.sc/acq_rel, atom
      add/exch/cas, red.add, ``bar.cta.sync 0``, forward branches on loaded
      registers); threads are placed on CTAs 0-1 of GPUs 0-1 (PTX) and X86
      threads have no placement.
    - ``max_threads`` / ``min_threads``: the number of threads.
    - ``max_events``: the most events (see the module docstring for how they are
      counted); every thread has at least one instruction.
    - ``locations``: the memory locations used (all initially 0).
    - ``values``: the constants stored, added and exchanged.
    - ``ops``: the instruction kinds allowed (names of :data:`X86_OPS` /
      :data:`PTX_OPS`); None allows all of them.
    - ``prefer_small``: draw the event budget so that small programs are much
      more likely than large ones (still reaching ``max_events``).
    - ``max_candidates``: when set, tests whose :func:`estimate_candidates`
      exceeds it are not produced (their instructions are trimmed from the end
      of the longest thread until they fit), keeping the explicit engine cheap.
    - ``max_barrier_uses``: how many times, at most, a thread uses barrier 0 (PTX,
      when ``"barrier"`` is allowed). In a CTA that uses it, every thread uses it
      the same number of times; barriers are never under a branch.

    The condition is ``exists``, ``~exists`` or ``forall`` over a random subset of
    the registers written and the locations used, compared with values from
    :func:`possible_values`; sometimes a ``locations [...]`` clause lists the
    remaining observables, so that final states cover every register and location.
    """
    if dialect not in ("x86", "ptx"):
        raise ValueError(f"dialect must be 'x86' or 'ptx', not {dialect!r}")
    kinds = _normalise_ops(dialect, ops)
    if not locations:
        raise ValueError("locations must not be empty")
    if not values:
        raise ValueError("values must not be empty")
    if min_threads < 1 or max_threads < min_threads:
        raise ValueError("need 1 <= min_threads <= max_threads")
    min_cost = min(OP_EVENTS[k] for k in kinds - _NEEDS_REG - _PLACED)
    if max_events < min_threads * min_cost:
        raise ValueError(f"max_events={max_events} is too small for {min_threads} threads")
    return _tests(dialect, max_threads, max_events, tuple(locations), tuple(values), kinds,
                  min_threads, prefer_small, max_candidates, min_cost, max_barrier_uses)


def x86_tests(**kw: object) -> st.SearchStrategy[A.Test]:
    """``litmus_tests("x86", ...)``."""
    return litmus_tests("x86", **kw)  # type: ignore[arg-type]


def ptx_tests(**kw: object) -> st.SearchStrategy[A.Test]:
    """``litmus_tests("ptx", ...)``."""
    return litmus_tests("ptx", **kw)  # type: ignore[arg-type]


@st.composite
def _tests(draw: st.DrawFn, dialect: str, max_threads: int, max_events: int,
           locations: tuple[str, ...], values: tuple[int, ...], kinds: frozenset[str],
           min_threads: int, prefer_small: bool, max_candidates: int | None,
           min_cost: int, max_barrier_uses: int) -> A.Test:
    top = min(max_threads, max_events // min_cost)
    n = draw(st.sampled_from(range(min_threads, top + 1)), label="threads")
    lo = n * min_cost
    budget = draw(st.integers(lo, max_events), label="events")
    if prefer_small:  # the least of two draws: small budgets are much more likely
        budget = min(budget, draw(st.integers(lo, max_events)))

    # Placements (PTX): CTAs 0-1 on GPUs 0-1.
    if dialect == "ptx":
        places = [A.Placement(cta=draw(st.integers(0, 1)), gpu=draw(st.integers(0, 1)))
                  for _ in range(n)]
    else:
        places = [A.Placement() for _ in range(n)]

    # Barriers: per CTA, every thread uses bar.cta.sync 0 the same number of times.
    free = budget - lo
    bars = [0] * n
    if "barrier" in kinds:
        groups: dict[tuple[int | None, int | None], list[int]] = {}
        for i, p in enumerate(places):
            groups.setdefault((p.gpu, p.cta), []).append(i)
        for members in groups.values():
            most = min(max_barrier_uses, free // (2 * len(members)))
            k = draw(st.integers(0, most)) if most > 0 else 0
            if k and draw(st.booleans()):  # barriers in only some tests
                for i in members:
                    bars[i] = k
                free -= 2 * k * len(members)

    # The rest of the budget, one event at a time, to random threads.
    budgets = [min_cost] * n
    for _ in range(free):
        budgets[draw(st.integers(0, n - 1))] += 1

    gens = []
    for i in range(n):
        g = _ThreadGen(i, dialect, budgets[i])
        _fill_thread(draw, g, kinds, locations, values)
        gens.append(g)

    arch: A.Arch = "X86" if dialect == "x86" else "PTX"
    if max_candidates is not None:
        _trim(arch, gens, max_candidates)

    threads = []
    for i, g in enumerate(gens):
        items = list(g.instrs)
        if bars[i]:
            spots = sorted(draw(st.integers(0, len(items))) for _ in range(bars[i]))
            for j, at in enumerate(spots):
                items.insert(at + j, [A.PtxBarrier("sync", (A.Const(0),))])
        threads.append(A.Thread(i, places[i], tuple(x for item in items for x in item)))

    test = A.Test(arch, "random", None, (), (), tuple(threads), (), None,
                  A.Condition("exists", A.BoolConst(True)))
    return _with_condition(draw, test, gens, locations)


def _assemble(arch: A.Arch, gens: list[_ThreadGen]) -> A.Test:
    threads = tuple(A.Thread(g.index, A.Placement(), tuple(x for item in g.instrs for x in item))
                    for g in gens)
    return A.Test(arch, "trim", None, (), (), threads, (), None,
                  A.Condition("exists", A.BoolConst(True)))


def _trim(arch: A.Arch, gens: list[_ThreadGen], max_candidates: int) -> None:
    """Drop the last items of the biggest threads until the explicit enumeration
    estimate fits (each thread keeps one item); then forget dropped registers."""
    while estimate_candidates(_assemble(arch, gens)) > max_candidates:
        sizes = [(sum(_instr_events(x) for item in g.instrs for x in item), -k)
                 for k, g in enumerate(gens) if len(g.instrs) > 1]
        if not sizes:
            break
        k = -max(sizes)[1]
        gens[k].instrs.pop()
    for g in gens:
        present = _regs_written(A.Thread(g.index, A.Placement(),
                                         tuple(x for item in g.instrs for x in item)))
        g.written = [r for r in g.written if r in present]
        g.loaded = [r for r in g.loaded if r in present]


def _fill_thread(draw: st.DrawFn, g: _ThreadGen, kinds: frozenset[str],
                 locations: tuple[str, ...], values: tuple[int, ...]) -> None:
    rem = g.budget
    body_kinds = sorted(kinds - _PLACED)
    while True:
        ok = [k for k in body_kinds if _fits(k, g, rem, kinds)]
        if not ok:
            return
        # dependencies are what catches bugs: weigh them up when they can be drawn
        ok += [k for k in ok if k in _NEEDS_REG] * 2
        kind = draw(st.sampled_from(ok))
        if kind == "branch":
            rem -= _draw_branch(draw, g, kinds, locations, values, rem)
        else:
            g.instrs.append(_draw_instr(draw, g, kind, locations, values))
            rem -= OP_EVENTS[kind]


def _fits(kind: str, g: _ThreadGen, rem: int, kinds: frozenset[str]) -> bool:
    if kind in _NEEDS_REG and not g.loaded:
        return False
    if kind == "branch":
        return any(_fits(k, g, rem, kinds) for k in kinds - _PLACED - {"branch"})
    return OP_EVENTS[kind] <= rem


def _draw_branch(draw: st.DrawFn, g: _ThreadGen, kinds: frozenset[str],
                 locations: tuple[str, ...], values: tuple[int, ...], rem: int) -> int:
    """``bCC r, v, LCnn; <one or two instructions>; LCnn:``; returns the events used."""
    reg = draw(st.sampled_from(g.loaded))
    cond = draw(st.sampled_from(("eq", "ne")))
    v = draw(st.sampled_from((0, *values)))
    label = f"LC{g.next_label:02d}"
    g.next_label += 1
    item: list[A.Instr] = [A.Branch(cond, A.Reg(reg), A.Const(v), label)]
    used = 0
    body = sorted(kinds - _PLACED - {"branch"})
    for j in range(2):
        ok = [k for k in body if _fits(k, g, rem - used, kinds)]
        if not ok or (j > 0 and not draw(st.booleans())):
            break
        kind = draw(st.sampled_from(ok))
        item.extend(_draw_instr(draw, g, kind, locations, values))
        used += OP_EVENTS[kind]
    item.append(A.Label(label))
    g.instrs.append(item)
    return used


def _draw_instr(draw: st.DrawFn, g: _ThreadGen, kind: str, locations: tuple[str, ...],
                values: tuple[int, ...]) -> list[A.Instr]:
    loc = A.LocRef(draw(st.sampled_from(locations)))
    if g.dialect == "x86":
        return _draw_x86(draw, g, kind, loc, values)
    return _draw_ptx(draw, g, kind, loc, values)


def _draw_x86(draw: st.DrawFn, g: _ThreadGen, kind: str, loc: A.LocRef,
              values: tuple[int, ...]) -> list[A.Instr]:
    mem = A.X86Mem(loc)
    if kind == "store":
        return [A.X86Mov(mem, A.Const(draw(st.sampled_from(values))))]
    if kind == "store_reg":
        return [A.X86Mov(mem, A.Reg(draw(st.sampled_from(g.loaded))))]
    if kind == "load":
        r = g.fresh_reg()
        g.loaded.append(r)
        return [A.X86Mov(A.Reg(r), mem)]
    if kind == "mfence":
        return [A.X86Mfence()]
    v = A.Const(draw(st.sampled_from(values)))
    if kind == "lock_add":
        return [A.X86Locked("ADD", mem, v)]
    r = g.fresh_reg()
    g.loaded.append(r)
    setup = A.X86Mov(A.Reg(r), v)
    if kind == "xchg":
        return [setup, A.X86Xchg(mem, A.Reg(r))]
    assert kind == "xadd"
    return [setup, A.X86Locked("XADD", mem, A.Reg(r))]


def _draw_ptx(draw: st.DrawFn, g: _ThreadGen, kind: str, loc: A.LocRef,
              values: tuple[int, ...]) -> list[A.Instr]:
    scope = draw(st.sampled_from(_SCOPES))
    if kind == "load":
        sem = draw(st.sampled_from(_LOAD_SEMS))
        r = g.fresh_reg()
        g.loaded.append(r)
        return [A.PtxLoad(sem, scope if sem in ("relaxed", "acquire") else None, A.Reg(r), loc)]
    if kind in ("store", "store_reg", "select"):
        sem = draw(st.sampled_from(_STORE_SEMS))
        sc = scope if sem in ("relaxed", "release") else None
        if kind == "select":
            dst, chosen = _draw_select(draw, g, values)
            return [*chosen, A.PtxStore(sem, sc, loc, dst)]
        if kind == "store":
            return [A.PtxStore(sem, sc, loc, A.Const(draw(st.sampled_from(values))))]
        src = draw(st.sampled_from(g.loaded))
        if draw(st.booleans()):
            return [A.PtxStore(sem, sc, loc, A.Reg(src))]
        r = g.fresh_reg()
        add = A.LocalOp("add", A.Reg(r), (A.Reg(src), A.Const(draw(st.sampled_from(values)))))
        return [add, A.PtxStore(sem, sc, loc, A.Reg(r))]
    if kind == "fence":
        return [A.PtxFence(draw(st.sampled_from(("sc", "acq_rel"))), scope)]
    if kind == "red":
        sem = draw(st.sampled_from(_RED_SEMS))
        return [A.PtxRed(sem, scope, "add", loc, A.Const(draw(st.sampled_from(values))))]
    sem = draw(st.sampled_from(_RMW_SEMS))
    r = g.fresh_reg()
    g.loaded.append(r)
    v = A.Const(draw(st.sampled_from(values)))
    if kind == "atom_cas":
        expected = A.Const(draw(st.sampled_from((0, *values))))
        return [A.PtxAtom(sem, scope, "cas", A.Reg(r), loc, (expected, v))]
    op = {"atom_add": "add", "atom_exch": "exch"}[kind]
    return [A.PtxAtom(sem, scope, op, A.Reg(r), loc, (v,))]


def _draw_select(draw: st.DrawFn, g: _ThreadGen, values: tuple[int, ...]
                 ) -> tuple[A.Reg, list[A.Instr]]:
    """``setp.CC p, r, v; selp d, a, b, p`` over a loaded register r: d, and the two
    instructions (d is a, which may be r, or b, as r compares with v)."""
    src = A.Reg(draw(st.sampled_from(g.loaded)))
    cond = draw(st.sampled_from(tuple(BRANCH_CONDS)))
    pred, dst = A.Reg(g.fresh_reg()), A.Reg(g.fresh_reg())
    pick = st.sampled_from((0, *values))
    a: A.Value = src if draw(st.booleans()) else A.Const(draw(pick))
    return dst, [A.Setp(cond, pred, src, A.Const(draw(pick))),
                  A.Selp(dst, a, A.Const(draw(pick)), pred)]


BRANCH_CONDS = ("eq", "ne", "lt", "le", "gt", "ge")


def _with_condition(draw: st.DrawFn, test: A.Test, gens: list[_ThreadGen],
                    locations: tuple[str, ...]) -> A.Test:
    """A random condition over the registers written and the locations used."""
    used: list[str] = []
    for th in test.threads:
        for ins in th.instrs:
            for loc, _, _ in _accesses(ins):
                if loc not in used:
                    used.append(loc)
    observables: list[A.Term] = [A.RegTerm(g.index, r) for g in gens for r in g.written]
    observables += [A.LocTerm(A.LocRef(x)) for x in used]
    vals = possible_values(test)
    if not observables:  # only fences and barriers: name a location anyway (declared:
        # a condition may not name a location that nothing declares or accesses)
        observables = [A.LocTerm(A.LocRef(locations[0]))]
        test = replace(test, init=(A.InitLoc(A.LocRef(locations[0]), 0),))
    k = draw(st.integers(1, min(4, len(observables))))
    picked = draw(st.lists(st.sampled_from(observables), min_size=k, max_size=k, unique=True))
    cmps: list[A.Prop] = []
    for t in picked:
        if draw(st.integers(0, 9)) == 0 and len(observables) > 1:  # term against term
            other = draw(st.sampled_from([o for o in observables if o != t]))
            cmps.append(A.Cmp(draw(st.sampled_from(_CMP_OPS)), t, other))
        else:
            op: Literal["=", "!="] = "!=" if draw(st.integers(0, 5)) == 0 else "="
            cmps.append(A.Cmp(op, t, A.ConstTerm(draw(st.sampled_from(vals)))))
    shape = draw(st.integers(0, 9))
    prop: A.Prop
    if len(cmps) == 1:
        prop = cmps[0]
    elif shape == 0:
        prop = A.Or(tuple(cmps))
    elif shape == 1:
        rest = cmps[1] if len(cmps) == 2 else A.Or(tuple(cmps[1:]))
        prop = A.And((A.Not(rest), cmps[0]))
    else:
        prop = A.And(tuple(cmps))
    quant = draw(st.sampled_from(_QUANTIFIERS))
    extra: tuple[A.Term, ...] = ()
    if draw(st.booleans()):
        extra = tuple(o for o in observables if o not in picked)
    return A.Test(test.arch, test.name, test.doc, test.meta, test.init, test.threads, extra,
                  None, A.Condition(quant, prop))


def _regs_written(th: A.Thread) -> set[str]:
    """The registers some instruction of ``th`` writes."""
    out: set[str] = set()
    for ins in th.instrs:
        if isinstance(ins, A.X86Mov) and isinstance(ins.dst, A.Reg):
            out.add(ins.dst.name)
        elif isinstance(ins, A.X86Xchg):
            out |= {x.name for x in (ins.a, ins.b) if isinstance(x, A.Reg)}
        elif isinstance(ins, A.X86Locked) and isinstance(ins.src, A.Reg):
            out.add(ins.src.name)
        elif isinstance(ins, (A.PtxLoad, A.PtxAtom, A.LocalOp, A.Setp, A.Selp)):
            out.add(ins.dst.name)
    return out
