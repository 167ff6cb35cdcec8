"""Building the event tree of each thread (the dialect-independent part).

A dialect lowers one instruction at a time through :class:`PathState`:
``state.emit(...)`` adds an event after the current one, ``state.regs`` holds
register values (symbolic :data:`Expr`), and ``state.fork(cond)`` splits the
path. The builder explores every path of the thread depth-first, unrolling
backward jumps up to the bound.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import field

from gdrcheck.dataclass_cache import dataclass
from gdrcheck.errors import NOPOS, Pos
from gdrcheck.lower.program import (
    NEGATED_CMP,
    BinOp,
    Block,
    CmpExpr,
    Event,
    Expr,
    Ite,
    Leaf,
    ReadVal,
    Spin,
    WaitSite,
    eval_binop,
    eval_cmp,
    expr_reads,
)


def simplify(e: Expr) -> Expr:
    """Fold constant sub-expressions. A conditional value whose condition is decided is
    the value it selects, when the other reads nothing. Nothing a value depends on is
    dropped (an :class:`Ite` of two equal values stays): the explicit engine finds a
    value's dependencies in the simplified expression, the z3 engine in ``data``, which
    is built from the expression as written (herd's syntactic dependencies)."""
    if isinstance(e, BinOp):
        left, right = simplify(e.left), simplify(e.right)
        if isinstance(left, int) and isinstance(right, int):
            return eval_binop(e.op, left, right)
        return BinOp(e.op, left, right)
    if isinstance(e, Ite):
        cond = simplify_cmp(e.cond)
        then, else_ = simplify(e.then), simplify(e.else_)
        if isinstance(cond, bool):
            chosen, other = (then, else_) if cond else (else_, then)
            if not expr_reads(other):
                return chosen
            cond = CmpExpr(e.cond.op, simplify(e.cond.left), simplify(e.cond.right))
        return Ite(cond, then, else_)
    return e


def simplify_cmp(c: CmpExpr) -> CmpExpr | bool:
    """``c`` with its sides simplified, or its outcome when both are constants. A
    comparison with a constant of a conditional value that selects one of two constants
    is the value's condition, or its negation, when the two give different outcomes
    (``setp`` then ``selp``, or a branch on the predicate ``setp`` wrote, tests the
    comparison ``setp`` made); it reads the same registers."""
    left, right = simplify(c.left), simplify(c.right)
    if isinstance(left, int) and isinstance(right, int):
        return eval_cmp(c.op, left, right)
    for ite, k, flipped in ((left, right, False), (right, left, True)):
        if (isinstance(ite, Ite) and isinstance(k, int) and isinstance(ite.then, int)
                and isinstance(ite.else_, int)):
            def holds(v: int, k: int = k, flipped: bool = flipped) -> bool:
                return eval_cmp(c.op, k, v) if flipped else eval_cmp(c.op, v, k)

            yes, no = holds(ite.then), holds(ite.else_)
            if yes != no:
                cond = ite.cond
                return cond if yes else CmpExpr(NEGATED_CMP[cond.op], cond.left, cond.right)
    return CmpExpr(c.op, left, right)


@dataclass
class ProgramBuilder:
    """Collects events, blocks and relations for a whole test."""

    events: list[Event] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    leaves: list[Leaf] = field(default_factory=list)
    rmw: set[tuple[int, int]] = field(default_factory=set)
    data: set[tuple[int, int]] = field(default_factory=set)
    addr: set[tuple[int, int]] = field(default_factory=set)
    ctrl: set[tuple[int, int]] = field(default_factory=set)
    relations: dict[str, set[tuple[int, int]]] = field(
        default_factory=lambda: {"aob": set()})
    """Static relations by cat name; ``aob``: asynchronous-operation order (ptx.py)."""
    guarded_forks: set[str] = field(default_factory=set)
    """Selectors whose instruction split a path (gdrcheck fix: not shareable)."""

    def new_block(self, thread: int, parent: int | None, cond: CmpExpr | None, pos: bool) -> int:
        bid = len(self.blocks)
        self.blocks.append(Block(bid, thread, parent, cond, pos))
        return bid

    def new_event(self, **kw: object) -> Event:
        ev = Event(eid=len(self.events), **kw)  # type: ignore[arg-type]
        self.events.append(ev)
        return ev


@dataclass
class Placement:
    cta: int | None
    gpu: int | None
    node: int | None
    cluster: int | None = None  # the CTA's thread block cluster (None: the CTA alone)


@dataclass
class AsyncState:
    """Per path: the thread's bulk-async operations not yet waited for (their events,
    by bulk group: the open group last) and how many times it has waited on each
    mbarrier (its k-th wait waits for phase k)."""

    groups: list[list[int]] = field(default_factory=lambda: [[]])
    waits: dict[str, int] = field(default_factory=dict)

    def copy(self) -> AsyncState:
        return AsyncState([list(g) for g in self.groups], dict(self.waits))


@dataclass
class PathState:
    """The state of one path of one thread while it is being lowered."""

    builder: ProgramBuilder
    thread: int
    place: Placement
    pc: int
    regs: dict[str, Expr]
    block: int
    last: int | None
    ctrl_reads: frozenset[int]  # reads the current path's branch conditions depend on
    back_jumps: dict[int, int]  # times each backward jump was taken on this path
    asyncs: AsyncState = field(default_factory=AsyncState)
    guard: str | None = None
    """The selector of the instruction being lowered (gdrcheck fix), else None."""
    visits: dict[int, tuple[int | None, dict[str, Expr], int]] = field(default_factory=dict)
    """pc -> (the last event, the registers, the length of ``trace``) when this path last
    reached that pc: a backward jump to it closes one loop iteration (spin detection)."""
    trace: tuple[int, ...] = ()
    """The instructions this path executed, in order (spin detection)."""

    def copy(self) -> PathState:
        return PathState(
            self.builder,
            self.thread,
            self.place,
            self.pc,
            dict(self.regs),
            self.block,
            self.last,
            self.ctrl_reads,
            dict(self.back_jumps),
            self.asyncs.copy(),
            self.guard,
            dict(self.visits),
            self.trace,
        )

    def before(self) -> list[int]:
        """The thread's events on this path so far (its po-predecessors of what comes
        next)."""
        out: list[int] = []
        p = self.last
        while p is not None:
            out.append(p)
            p = self.builder.events[p].parent
        return out

    def reg(self, name: str) -> Expr:
        return self.regs.get(name, 0)

    def emit(
        self,
        kind: str,
        loc: str | None,
        tags: frozenset[str] | set[str],
        label: str,
        *,
        value: Expr | None = None,
        scope: str | None = None,
        pos: Pos = NOPOS,
        barrier_id: tuple[Expr, ...] | None = None,
        quorum: int | None = None,
        agent: str = "",
        op: int | None = None,
        rank: int | None = None,
        ctx: str | None = None,
        peer: int | None = None,
        vloc: str | None = None,
    ) -> Event:
        """Add an event. An event of the thread itself (``agent`` empty) comes next
        in program order; an agent's event (a NIC or proxy acting for this
        operation) is executed with the thread's path but is not in its po."""
        b = self.builder
        ev = b.new_event(
            thread=self.thread,
            kind=kind,
            loc=loc,
            tags=frozenset(tags),
            block=self.block,
            parent=self.last,
            value=simplify(value) if value is not None else None,
            label=label,
            instr=self.pc,
            scope=scope,
            cta=self.place.cta,
            cluster=self.place.cluster,
            gpu=self.place.gpu,
            node=self.place.node,
            pos=pos,
            barrier_id=tuple(simplify(x) for x in barrier_id) if barrier_id else None,
            quorum=quorum,
            agent=agent,
            op=op,
            rank=rank,
            ctx=ctx,
            peer=peer,
            vloc=vloc,
            guard=(self.guard,) if self.guard else (),
        )
        if agent:
            ev.parent = None
            if agent.startswith("nic") or agent.startswith("proxy"):
                ev.cta = ev.gpu = ev.cluster = None
        else:
            self.last = ev.eid
        for r in self.ctrl_reads:
            b.ctrl.add((r, ev.eid))
        if value is not None:
            for r in expr_reads(value):
                b.data.add((r, ev.eid))
        return ev

    def read(self, loc: str, tags: set[str], label: str, **kw: object) -> ReadVal:
        ev = self.emit("R", loc, tags, label, **kw)  # type: ignore[arg-type]
        return ReadVal(ev.eid)

    def assume(self, cond: CmpExpr, wait: WaitSite | None = None,
               polled: tuple[int, ...] | None = None) -> bool:
        """Continue only where ``cond`` holds: the other outcome ends the path in a
        discarded (cut) leaf, as a blocking wait (``wait``) that never returns. False
        when ``cond`` is constantly false (the whole path is discarded). ``polled``: the
        reads the wait repeats (default: every read ``cond`` depends on; a wait whose
        threshold was read before polls only its own read)."""
        fork = self.fork(cond)
        if fork is True:
            return True
        if fork is False:
            if self.guard is not None:
                self.builder.guarded_forks.add(self.guard)
            self.builder.leaves.append(
                Leaf(self.thread, self.block, tuple(sorted(self.regs.items())), True, wait))
            return False
        yes, no = fork
        regs = tuple(sorted(no.regs.items()))
        if wait is None:
            polled = ()
        elif polled is None:
            polled = tuple(sorted(expr_reads(cond)))
        self.builder.leaves.append(Leaf(self.thread, no.block, regs, True, wait,
                                        wait_reads=polled))
        self.block = yes.block
        self.ctrl_reads = yes.ctrl_reads
        return True

    def fork(self, cond: CmpExpr) -> tuple[PathState, PathState] | bool:
        """Split on ``cond``: a pair (then, else) of states, or the constant outcome."""
        simple = simplify_cmp(cond)
        if isinstance(simple, bool):
            return simple
        cond = simple
        b = self.builder
        if self.guard is not None:
            b.guarded_forks.add(self.guard)
        deps = expr_reads(cond)
        yes, no = self.copy(), self.copy()
        yes.block = b.new_block(self.thread, self.block, cond, True)
        no.block = b.new_block(self.thread, self.block, cond, False)
        yes.ctrl_reads = no.ctrl_reads = self.ctrl_reads | deps
        return yes, no


TICK_EVERY = 64
"""Instructions lowered between two looks at the time limit."""


Step = Callable[[PathState, object], Iterator[PathState]]
"""A dialect's lowering of one instruction: yields the successor states
(one, or two after a fork); each successor's ``pc`` must already be set."""


def build_thread(
    builder: ProgramBuilder,
    thread: int,
    place: Placement,
    n_instrs: int,
    step: Callable[[PathState], Iterator[PathState]],
    init_regs: dict[str, Expr],
    unroll: int,
    tick: Callable[[], None] | None = None,
    guards: dict[int, str] | None = None,
    texts: list[str] | None = None,
    positions: list[Pos] | None = None,
    registers: list[tuple[frozenset[str], frozenset[str]]] | None = None,
) -> None:
    """Explore every path of one thread, appending events, blocks and leaves.

    The number of paths is exponential in the branches of the thread: ``tick`` (the
    check's time limit: it raises when the time is up) is called every
    :data:`TICK_EVERY` instructions lowered. ``guards`` (gdrcheck fix): instruction
    index -> the selector its events carry. ``texts`` and ``positions`` (the
    instructions as written, their places) name a spin loop's branch; ``registers`` (the
    registers each instruction reads and writes) say which registers a loop iteration
    reads before writing them (without it: every register)."""
    root = builder.new_block(thread, None, None, True)
    start = PathState(builder, thread, place, 0, dict(init_regs), root, None, frozenset(), {})
    stack = [start]
    steps = 0
    while stack:
        steps += 1
        if tick is not None and steps % TICK_EVERY == 0:
            tick()
        st = stack.pop()
        if st.pc >= n_instrs:
            builder.leaves.append(Leaf(thread, st.block, tuple(sorted(st.regs.items())), False))
            continue
        before = st.pc
        st.guard = guards.get(st.pc) if guards else None
        if registers is not None:  # a thread that can loop: keep what spin detection needs
            st.visits[st.pc] = (st.last, dict(st.regs), len(st.trace))
            st.trace = (*st.trace, st.pc)
        for nxt in step(st):
            if nxt.pc <= before:  # a backward jump: count it against the bound
                taken = nxt.back_jumps.get(before, 0) + 1
                nxt.back_jumps[before] = taken
                if taken >= unroll:
                    text = texts[before] if texts else f"branch at row {before + 1}"
                    where = positions[before] if positions else NOPOS
                    site = WaitSite(thread, before + 1, text, where)
                    builder.leaves.append(
                        Leaf(thread, nxt.block, tuple(sorted(nxt.regs.items())), True,
                             spin=_spin(builder, nxt, site, registers), loop=site)
                    )
                    continue
            stack.append(nxt)


SIDE_EFFECT_TAGS = frozenset({"BAR", "ISSUE", "PXY", "GIN", "SHMEM", "LAUNCH", "KSYNC",
                              "FLUSHRDMA", "WAITSEND", "ASYNCWAIT", "ARRIVE"})
"""Tags of fence-kind events that act on something shared (barriers, API calls, ...):
an iteration that has one is not a spin."""


def live_in(pcs: tuple[int, ...],
            registers: list[tuple[frozenset[str], frozenset[str]]]) -> set[str]:
    """The registers that the instructions ``pcs``, executed in this order, read before
    they write them."""
    written: set[str] = set()
    read_first: set[str] = set()
    for pc in pcs:
        uses, defs = registers[pc]
        read_first |= uses - written
        written |= defs
    return read_first


def _spin(builder: ProgramBuilder, st: PathState, site: WaitSite,
          registers: list[tuple[frozenset[str], frozenset[str]]] | None = None
          ) -> Spin | None:
    """The loop iteration that ``st`` just closed with a backward jump, as a
    :class:`Spin` when it has no side effect on shared memory, else None. The iteration
    repeats itself when the registers it reads before writing them end as they began:
    the others it sets afresh each time."""
    start = st.visits.get(st.pc)
    if start is None:
        return None
    first_last, regs_before, at = start
    rmw_reads = {r for r, _ in builder.rmw}
    reads: list[int] = []
    p = st.last
    while p is not None and p != first_last:
        ev = builder.events[p]
        if ev.op is not None or ev.agent or ev.kind == "W" or p in rmw_reads:
            return None
        if ev.kind == "F" and ev.tags & SIDE_EFFECT_TAGS:
            return None
        if ev.kind == "R":
            reads.append(p)
        p = ev.parent
    if p != first_last:
        return None  # not a simple iteration (the path did not pass the loop head)
    names = set(regs_before) | set(st.regs)
    if registers is not None:
        names &= live_in(st.trace[at:], registers)
    else:
        return None
    same = tuple((regs_before.get(r, 0), st.regs.get(r, 0)) for r in sorted(names)
                 if regs_before.get(r, 0) != st.regs.get(r, 0))
    return Spin(site, tuple(sorted(reads)), same)
