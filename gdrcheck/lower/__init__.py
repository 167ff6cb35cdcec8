"""Lowering: a litmus :class:`~gdrcheck.litmus.ast.Test` becomes a :class:`Program`.

The same skeleton is produced whatever the model: models differ in their
axioms, not in this code (DESIGN.md).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from gdrcheck.errors import UnsupportedError
from gdrcheck.litmus import ast as A
from gdrcheck.litmus.printer import instr as print_instr
from gdrcheck.lower.builder import PathState, Placement, ProgramBuilder, build_thread
from gdrcheck.lower.program import Expr, Program

if TYPE_CHECKING:  # each dialect's lowerer is imported when a test of it is lowered
    from gdrcheck.lower.gin import World  # (a fast start: docs/performance.md)

__all__ = ["lower", "Program", "DEFAULT_UNROLL", "Guards"]

DEFAULT_UNROLL = 2
"""A loop body runs at most this many times on one path (herd7's -unroll default)."""


def _norm_reg(arch: str, name: str) -> str:
    return name.upper() if arch == "X86" else name


def _loop_registers(instrs: Sequence[A.Instr], arch: str
                    ) -> list[tuple[frozenset[str], frozenset[str]]] | None:
    """The registers each instruction reads and writes, for a thread that can loop (one
    with a label); None for the others (spin detection needs them only in loops)."""
    if not any(isinstance(ins, A.Label) for ins in instrs):
        return None
    return [register_uses(ins, arch) for ins in instrs]


def register_uses(ins: A.Instr, arch: str) -> tuple[frozenset[str], frozenset[str]]:
    """(the registers ``ins`` reads, those it writes). A ``dst`` register is written (and
    read too by an X86 instruction other than MOV, which updates it); every other
    register operand is read."""
    uses: set[str] = set()
    defs: set[str] = set()

    def walk(v: object, into: set[str]) -> None:
        if isinstance(v, A.Reg):
            into.add(_norm_reg(arch, v.name))
        elif isinstance(v, (tuple, list)):
            for x in v:
                walk(x, into)
        elif dataclasses.is_dataclass(v) and not isinstance(v, type):
            for f in dataclasses.fields(v):
                walk(getattr(v, f.name), into)

    assert dataclasses.is_dataclass(ins)
    for f in dataclasses.fields(ins):
        value = getattr(ins, f.name)
        if f.name == "dst" and isinstance(value, A.Reg):
            walk(value, defs)
            if arch == "X86" and type(ins).__name__ != "X86Mov":
                walk(value, uses)
        else:
            walk(value, uses)
    return frozenset(uses), frozenset(defs)


def _instr_locations(ins: A.Instr) -> Iterator[A.LocRef]:
    for f in ("loc", "dst", "src", "a", "b", "mbar"):
        v = getattr(ins, f, None)
        if isinstance(v, A.LocRef):
            yield v
        elif isinstance(v, A.X86Mem):
            yield v.loc


def _prop_terms(p: A.Prop) -> Iterator[A.Term]:
    if isinstance(p, A.Cmp):
        yield p.lhs
        yield p.rhs
    elif isinstance(p, (A.And, A.Or)):
        for a in p.args:
            yield from _prop_terms(a)
    elif isinstance(p, A.Not):
        yield from _prop_terms(p.arg)


Guards = dict[tuple[int, int], str]
"""(thread, instruction index) -> a selector that the instruction's events carry as
their guard (gdrcheck fix's shared encoding, gdrcheck/analysis/fix_shared.py)."""


def lower(test: A.Test, unroll: int = DEFAULT_UNROLL,
          tick: Callable[[], None] | None = None, guards: Guards | None = None) -> Program:
    """The program of ``test``. ``tick`` is called now and then while the threads are
    lowered (a check's time limit: whatever it raises when the time is up goes through
    unchanged; the number of paths of a thread is exponential in its branches).
    ``guards``: the selectors of gdrcheck fix's shared encoding."""
    if unroll < 1:
        raise UnsupportedError("the unroll bound must be at least 1")
    if test.arch == "GIN":
        return _lower_gin(test, unroll, tick, guards or {})
    if test.arch == "X86":
        from gdrcheck.lower import x86
    else:
        from gdrcheck.lower import ptx
    guards = guards or {}
    b = ProgramBuilder()
    memory = ptx.Memory.of(test) if test.arch == "PTX" else None

    # Locations: from the init block, the instructions and the condition.
    init_values: dict[str, int] = {}
    init_regs: dict[int, dict[str, Expr]] = {}
    for item in test.init:
        if isinstance(item, (A.AliasDecl, A.SharedDecl, A.MbarrierDecl)):
            continue  # ptx.Memory
        if isinstance(item, A.InitLoc):
            init_values[str(item.loc)] = item.value
        elif isinstance(item, A.InitReg):
            if not isinstance(item.value, int):
                raise UnsupportedError(
                    "registers holding addresses are not supported", test.path, item.pos
                )
            init_regs.setdefault(item.thread, {})[_norm_reg(test.arch, item.reg)] = item.value
        else:
            raise UnsupportedError(
                f"'{type(item).__name__}' declarations belong to the GIN dialect", test.path,
                getattr(item, "pos", None),
            )
    locations: list[str] = list(init_values)
    for th in test.threads:
        for ins in th.instrs:
            for ref in _instr_locations(ins):
                loc = str(ref)
                if memory is not None:
                    loc, _ = memory.locate(ref, _ptx_place(test, th), th.index)
                    word = memory.target(th.index, ref.name)
                    if word in memory.shared:
                        init_values[loc] = memory.shared[word]
                if loc not in locations:
                    locations.append(loc)
            if memory is not None and isinstance(ins, A.PtxClusterBarrier):
                loc = memory.cluster_barrier(_ptx_place(test, th))
                if loc not in locations:
                    locations.append(loc)
    terms = list(_prop_terms(test.condition.prop)) + list(test.locations)
    if test.filter is not None:
        terms += list(_prop_terms(test.filter))
    cond_names: dict[str, str] = {}
    for t in terms:
        if not isinstance(t, A.LocTerm):
            continue
        loc = str(t.loc)
        if memory is not None and memory.is_shared(loc):
            copies = [c for c in locations if c.split(":", 1)[0] == loc and ":" in c]
            if len(copies) != 1:
                raise UnsupportedError(
                    f"'{loc}' is shared memory with {len(copies) or 'no'} CTA copies accessed: "
                    "a condition can name it only when exactly one CTA uses it (read it into "
                    "a register instead)", test.path, t.pos, test.source)
            cond_names[loc] = copies[0]
            continue
        if memory is not None and memory.physical.get(loc, loc) != loc:
            cond_names[loc] = memory.physical[loc]
            loc = memory.physical[loc]
        if loc not in locations:
            locations.append(loc)
    for loc in locations:
        init_values.setdefault(loc, 0)

    _initial_writes(b, locations, init_values)

    for th in test.threads:
        # an unplaced PTX thread runs in CTA 0 of GPU 0 (docs/models.md)
        place = _ptx_place(test, th)
        instrs = th.instrs
        labels = {ins.name: i for i, ins in enumerate(instrs) if isinstance(ins, A.Label)}
        texts = [print_instr(ins) for ins in instrs]

        def step(st: PathState, instrs: tuple[A.Instr, ...] = instrs,
                 labels: dict[str, int] = labels, texts: list[str] = texts) -> Iterator[PathState]:
            ins = instrs[st.pc]
            try:
                if test.arch == "X86":
                    yield from x86.step(st, ins, texts[st.pc])
                else:
                    yield from ptx.step(st, ins, texts[st.pc], labels, memory=memory)
            except UnsupportedError as err:
                if not err.pos.line:
                    err.pos = ins.pos
                raise err.with_context(test.path, test.source) from None

        build_thread(b, th.index, place, len(instrs), step, init_regs.get(th.index, {}), unroll,
                     tick, {i: g for (t, i), g in guards.items() if t == th.index},
                     texts, [ins.pos for ins in instrs], _loop_registers(instrs, test.arch))

    if test.arch == "PTX":
        ptx.grid_dependencies(b, test)  # programmatic dependent launch (format: grid N)
    return _program(test, b, locations, init_values, unroll, cond_names)


def _ptx_place(test: A.Test, th: A.Thread) -> Placement:
    """Where a thread of a PTX test runs (an unplaced one: CTA 0 of GPU 0)."""
    pl = th.placement
    if test.arch == "PTX" and pl.gpu is None and not pl.host:
        return Placement(0 if pl.cta is None else pl.cta, 0, pl.node, pl.cluster)
    return Placement(pl.cta, pl.gpu, pl.node, pl.cluster)


def _initial_writes(b: ProgramBuilder, locations: list[str], init_values: dict[str, int]
                    ) -> None:
    """One initial write per location (thread -1, always executed)."""
    root = b.new_block(-1, None, None, True)
    for loc in locations:
        v = init_values.get(loc, 0)
        b.new_event(thread=-1, kind="W", loc=loc, tags=frozenset({"INIT"}), block=root,
                    parent=None, value=v, label=f"{loc}={v}")


def _program(test: A.Test, b: ProgramBuilder, locations: list[str],
             init_values: dict[str, int], unroll: int,
             aliases: dict[str, str] | None = None) -> Program:
    return Program(
        name=test.name,
        arch=test.arch,
        events=b.events,
        blocks=b.blocks,
        leaves=b.leaves,
        nthreads=len(test.threads),
        locations=locations,
        init_values={loc: init_values.get(loc, 0) for loc in locations},
        rmw=b.rmw,
        data=b.data,
        addr=b.addr,
        ctrl=b.ctrl,
        unroll=unroll,
        aliases=aliases or {},
        relations=b.relations,
        guarded_forks=frozenset(b.guarded_forks),
    )



# --------------------------------------------------------------------------
# The GIN dialect: ranks, per-rank memory, GIN and NVSHMEM calls
# --------------------------------------------------------------------------

_GIN_CALLS = (A.GinPut, A.GinSignal, A.GinFlush, A.GinFlushAsync, A.GinWaitRequest, A.GinGet,
              A.GinWait, A.GinRead, A.GinReset, A.GinBarrier, A.ShmemCall)


def _world(test: A.Test) -> World:
    from gdrcheck.lower.gin import World

    ranks: set[int] = set()
    node_of: dict[int, int | None] = {}
    for th in test.threads:
        g = th.placement.gpu
        if g is not None:
            ranks.add(g)
            old = node_of.get(g)
            if old is not None and th.placement.node is not None and old != th.placement.node:
                raise UnsupportedError(
                    f"rank {g} is placed on node {old} and on node {th.placement.node}",
                    test.path, th.pos, test.source)
            if th.placement.node is not None:
                node_of[g] = th.placement.node
    contexts: list[str] = []
    for th in test.threads:
        for ins in th.instrs:
            for ref in _instr_locations(ins):
                if ref.rank is not None:
                    ranks.add(ref.rank)
            sig = getattr(ins, "signal", None)
            if isinstance(sig, A.SignalSpec) and sig.target.rank is not None:
                ranks.add(sig.target.rank)
            if isinstance(sig, A.LocRef) and sig.rank is not None:
                ranks.add(sig.rank)
            ctx = getattr(ins, "ctx", None)
            if isinstance(ins, _GIN_CALLS) and isinstance(ctx, str) and ctx not in contexts:
                contexts.append(ctx)
    only_on: dict[str, set[int]] = {}
    symmetric: set[str] = set()
    signals: set[str] = set()
    counters: set[str] = set()
    hosts: set[str] = set()
    strict: set[str] = set()
    windows: dict[str, tuple[str, ...]] = {}
    lines: dict[str, tuple[int, ...]] = {}
    for item in test.init:
        if isinstance(item, A.InitLoc):
            if item.loc.rank is None:
                symmetric.add(item.loc.name)
            else:
                ranks.add(item.loc.rank)
                only_on.setdefault(item.loc.name, set()).add(item.loc.rank)
        elif isinstance(item, A.SignalDecl):
            signals.add(item.name)
        elif isinstance(item, A.CounterDecl):
            counters.add(item.name)
        elif isinstance(item, A.HostDecl):
            hosts.add(item.name)
        elif isinstance(item, A.WindowDecl):
            windows[item.name] = item.members
            if item.line:
                lines[item.name] = item.offsets
            if item.strict:
                strict.update(item.members)
        elif isinstance(item, A.MulticastDecl):
            ranks.update(c.rank for c in item.copies if c.rank is not None)
    for t in list(_prop_terms(test.condition.prop)) + list(test.locations):
        if isinstance(t, A.LocTerm) and t.loc.rank is not None:
            ranks.add(t.loc.rank)
    for name in symmetric:
        only_on.pop(name, None)
    contexts.sort(key=lambda c: (len(c), c))
    return World(sorted(ranks), node_of, contexts, frozenset(signals), frozenset(counters),
                 frozenset(hosts), frozenset(strict), only_on, windows, test.path, test.source,
                 lines=lines)


def _lower_gin(test: A.Test, unroll: int, tick: Callable[[], None] | None = None,
               guards: Guards | None = None) -> Program:
    from gdrcheck.lower import gin, host, multimem, ptx

    guards = guards or {}
    world = _world(test)
    # shared memory (one copy per CTA of each rank) and mbarriers, docs/litmus-format.md §7.3
    memory = ptx.Memory.of_gin(test)
    bound = multimem.bindings(test, world)
    b = ProgramBuilder()
    # host verbs and kernel boundaries (docs/litmus-format.md §12)
    host_state = host.HostState(world)
    init_regs: dict[int, dict[str, Expr]] = {}
    init_values: dict[str, int] = {}
    for item in test.init:
        if isinstance(item, A.InitReg):
            if not isinstance(item.value, int):
                raise UnsupportedError("registers holding addresses are not supported",
                                       test.path, item.pos, test.source)
            init_regs.setdefault(item.thread, {})[item.reg] = item.value

    for th in test.threads:
        pl = th.placement
        if pl.host:
            # a CPU thread of a node: system-scope PTX-like accesses to named ranks' memory
            place = Placement(None, None, pl.node)
        else:
            place = Placement(0 if pl.cta is None else pl.cta,
                              pl.gpu if pl.gpu is not None else 0, pl.node, pl.cluster)
        rank = place.gpu
        instrs = th.instrs
        labels = {ins.name: i for i, ins in enumerate(instrs) if isinstance(ins, A.Label)}
        texts = [print_instr(ins) for ins in instrs]

        def resolve(ref: A.LocRef, rank: int | None = rank,
                    node: int | None = pl.node) -> str:
            name = world.loc(ref, rank)
            k = int(name.rsplit("@", 1)[1])
            other = world.node_of.get(k)
            if k != rank and node is not None and other is not None and other != node:
                who = "its own node" if rank is not None else "the host's node"
                raise UnsupportedError(
                    f"{name} is on node {other}: a load or store reaches only the memory of "
                    f"{who} (node {node}); use gin.put/gin.get", pos=ref.pos)
            return name

        def step(st: PathState, instrs: tuple[A.Instr, ...] = instrs,
                 labels: dict[str, int] = labels, texts: list[str] = texts,
                 resolve: Callable[[A.LocRef], str] = resolve) -> Iterator[PathState]:
            ins = instrs[st.pc]
            try:
                if isinstance(ins, _GIN_CALLS):
                    yield from gin.step(st, world, ins, texts[st.pc])
                elif isinstance(ins, host.HOST_INSTRS):
                    yield from host.step(st, host_state, ins, texts[st.pc])
                elif isinstance(ins, multimem.INSTRS):
                    yield from multimem.step(st, ins, texts[st.pc], bound[ins.mc.name],
                                             resolve)
                elif isinstance(ins, (A.PtxLoad, A.PtxStore)) and ins.loc.name in bound:
                    yield from multimem.plain_step(st, ins, texts[st.pc])
                else:
                    yield from ptx.step(st, ins, texts[st.pc], labels, resolve, memory)
            except UnsupportedError as err:
                if not err.pos.line:
                    err.pos = ins.pos
                raise err.with_context(test.path, test.source) from None

        build_thread(b, th.index, place, len(instrs), step, init_regs.get(th.index, {}),
                     unroll, tick, {i: g for (t, i), g in guards.items() if t == th.index},
                     texts, [ins.pos for ins in instrs], _loop_registers(instrs, test.arch))

    host.kernel_boundaries(b, host_state)
    ptx.grid_dependencies(b, test)

    # Locations: every one an event touches, then those the condition names.
    locations: list[str] = []
    for e in b.events:
        if e.loc is not None and e.loc not in locations:
            locations.append(e.loc)
    aliases: dict[str, str] = {}
    terms = list(_prop_terms(test.condition.prop)) + list(test.locations)
    if test.filter is not None:
        terms += list(_prop_terms(test.filter))
    for t in terms:
        if not isinstance(t, A.LocTerm):
            continue
        if memory.is_shared(t.loc.name):
            copies = [c for c in locations if memory.shared_name(c) == t.loc.name]
            if len(copies) != 1 or t.loc.rank is not None:
                raise UnsupportedError(
                    f"'{t.loc.name}' is shared memory with {len(copies) or 'no'} CTA copies "
                    "accessed: a condition can name it (without a rank) only when exactly one "
                    "CTA uses it (read it into a register instead)", test.path, t.pos,
                    test.source)
            aliases[t.loc.name] = copies[0]
            continue
        if t.loc.rank is not None:
            try:
                name = world.loc(t.loc, None)
            except UnsupportedError as err:
                raise err.with_context(test.path, test.source) from None
            if name not in locations:
                locations.append(name)
            continue
        cands = [n for n in locations if n.rsplit("@", 1)[0] == t.loc.name]
        if len(cands) != 1:
            where = ", ".join(cands) if cands else "none is accessed"
            raise UnsupportedError(
                f"name the rank of '{t.loc.name}' in the condition ({t.loc.name}@k; "
                f"candidates: {where})", test.path, t.pos, test.source)
        aliases[t.loc.name] = cands[0]
    for item in test.init:
        if isinstance(item, A.InitLoc):
            if item.loc.rank is not None:
                init_values[f"{item.loc.name}@{item.loc.rank}"] = item.value
        elif isinstance(item, A.HostDecl):
            for k in world.ranks:
                init_values.setdefault(f"{item.name}@{k}", item.value)
    for item in test.init:
        if isinstance(item, A.InitLoc) and item.loc.rank is None:
            for k in world.ranks:
                init_values.setdefault(f"{item.loc.name}@{k}", item.value)
    for loc in locations:
        word = memory.shared_name(loc)
        if word is not None and word in memory.shared:
            init_values[loc] = memory.shared[word]
    _initial_writes(b, locations, init_values)
    return _program(test, b, locations, init_values, unroll, aliases)
