"""The execution skeleton: events, their guards, values and static relations.

A thread is lowered into a *tree* of events: a branch whose outcome depends
on a value read splits the rest of the thread into two subtrees, each guarded
by a :class:`Block`. An execution runs exactly one root-to-leaf path of each
thread. Loops are unrolled up to a bound; a path that would go past it ends in
a *cut* leaf, and executions that reach a cut leaf are discarded (herd7's
``-unroll`` semantics, and Dartagnan's for spin loops).

Values are symbolic :data:`Expr` trees over the values of read events, so the
same skeleton serves the z3 engine (which builds z3 terms) and the explicit
enumerator (which evaluates them under a chosen rf).
"""

from __future__ import annotations

import dataclasses
from dataclasses import field

from gdrcheck.dataclass_cache import dataclass
from gdrcheck.errors import NOPOS, Pos

# --------------------------------------------------------------------------
# Value expressions
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class ReadVal:
    """The value returned by read event ``eid``."""

    eid: int


@dataclass(frozen=True)
class BinOp:
    op: str  # add sub mul div and or xor
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Ite:
    """``cond ? then : else_``: a value chosen without a branch (PTX ``selp`` and ``setp``,
    docs/litmus-format.md §7.2). Its value depends on the reads of all three parts."""

    cond: CmpExpr
    then: Expr
    else_: Expr


Expr = int | ReadVal | BinOp | Ite


@dataclass(frozen=True)
class CmpExpr:
    """A branch condition ``left op right`` (op in eq ne lt le gt ge)."""

    op: str
    left: Expr
    right: Expr


NEGATED_CMP = {"eq": "ne", "ne": "eq", "lt": "ge", "ge": "lt", "gt": "le", "le": "gt"}
"""The comparison that holds exactly when the key does not."""


def expr_reads(e: Expr | CmpExpr) -> frozenset[int]:
    """The read events an expression depends on (of an :class:`Ite`: those of its
    condition and of both of its values)."""
    if isinstance(e, ReadVal):
        return frozenset({e.eid})
    if isinstance(e, (BinOp, CmpExpr)):
        return expr_reads(e.left) | expr_reads(e.right)
    if isinstance(e, Ite):
        return expr_reads(e.cond) | expr_reads(e.then) | expr_reads(e.else_)
    return frozenset()


def eval_binop(op: str, a: int, b: int) -> int:
    if op == "add":
        return a + b
    if op == "sub":
        return a - b
    if op == "mul":
        return a * b
    if op == "div":  # PTX div.s32 and C: the quotient rounded toward zero; 0 for b = 0
        if b == 0:
            return 0
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q
    if op == "and":
        return a & b
    if op == "or":
        return a | b
    if op == "xor":
        return a ^ b
    if op == "min":
        return min(a, b)
    if op == "max":
        return max(a, b)
    raise ValueError(f"unknown operator {op}")


def eval_cmp(op: str, a: int, b: int) -> bool:
    return {
        "eq": a == b,
        "ne": a != b,
        "lt": a < b,
        "le": a <= b,
        "gt": a > b,
        "ge": a >= b,
    }[op]


def eval_expr(e: Expr, reads: dict[int, int]) -> int:
    if isinstance(e, int):
        return e
    if isinstance(e, ReadVal):
        return reads[e.eid]
    if isinstance(e, Ite):
        return eval_expr(e.then if eval_cond(e.cond, reads) else e.else_, reads)
    return eval_binop(e.op, eval_expr(e.left, reads), eval_expr(e.right, reads))


def eval_cond(c: CmpExpr, reads: dict[int, int]) -> bool:
    return eval_cmp(c.op, eval_expr(c.left, reads), eval_expr(c.right, reads))


# --------------------------------------------------------------------------
# Blocks, events, leaves
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    """A guard: executed iff the parent is and ``cond`` holds (root: cond None)."""

    bid: int
    thread: int
    parent: int | None
    cond: CmpExpr | None
    positive: bool = True


@dataclass(frozen=True)
class Alt:
    """The attributes an event has when ``selector`` is on (``gdrcheck fix``'s shared
    encoding: a replacement edit of the instruction, or of the init block, that
    changes only these attributes of the event)."""

    selector: str
    tags: frozenset[str]
    scope: str | None
    ctx: str | None
    agent: str


@dataclass
class Event:
    eid: int
    thread: int  # -1 for initial writes
    kind: str  # "R", "W", "F" (fences and barrier events)
    loc: str | None  # canonical location ("x", or "x@1" in GIN tests)
    tags: frozenset[str]
    block: int  # guard
    parent: int | None  # previous event on the thread's path (po predecessor)
    value: Expr | None = None  # value written (W)
    label: str = ""  # instruction text, for witnesses
    instr: int = -1  # index of the instruction in the thread
    scope: str | None = None  # cta / cluster / gpu / sys for strong operations and fences
    cta: int | None = None
    cluster: int | None = None  # the CTA's thread block cluster (None: a cluster of one CTA)
    gpu: int | None = None
    node: int | None = None
    pos: Pos = field(default=NOPOS)
    barrier_id: tuple[Expr, ...] | None = None  # for barrier arrive/wait events
    quorum: int | None = None  # barrier thread count, when written
    # GPU-initiated networking (GIN and NVSHMEM calls; docs/lowering.md):
    agent: str = ""  # "" for the thread itself, else the NIC queue or proxy acting for it
    op: int | None = None  # the API operation the event belongs to
    rank: int | None = None  # the rank that issued the operation
    ctx: str | None = None  # the GIN context ("shmem" for NVSHMEM calls)
    peer: int | None = None  # the operation's peer rank
    vloc: str | None = None  # the virtual address, when it differs from ``loc`` (PTX ISA §8.2)
    # gdrcheck fix's shared encoding (gdrcheck/analysis/fix_shared.py): a selector
    # Boolean per candidate edit; a program without them has guard (), alts ()
    guard: tuple[str, ...] = ()
    """The event exists only when one of these selectors is on (an inserted
    instruction, or the alternatives of one place); () always."""
    alts: tuple[Alt, ...] = ()
    """Other attributes under other selectors (at most one of them on at a time)."""

    @property
    def is_init(self) -> bool:
        return self.thread < 0

    @property
    def mem(self) -> int | None:
        """The rank whose memory the event's location is in (``x@k``), if any."""
        if self.loc is None or "@" not in self.loc:
            return None
        return int(self.loc.rsplit("@", 1)[1])


@dataclass(frozen=True)
class WaitSite:
    """A blocking wait in the source: its thread, its row (1-based, in the thread's
    column), the instruction as written and its position."""

    thread: int
    row: int
    text: str
    pos: Pos = NOPOS

    def __str__(self) -> str:
        return f"P{self.thread}:{self.row} {self.text}"


@dataclass(frozen=True)
class Spin:
    """The last iteration of a loop at the ``--unroll`` bound, when that iteration has no
    side effect on shared memory (only reads and memory fences of the thread itself, no
    write, read-modify-write, barrier or API call): a spin loop, which the thread may
    repeat forever (Dartagnan's dynamic spin-loop detection: only a loop's last iteration
    is looked at). The iteration repeats itself exactly when every register it changed
    ends with the value it started with: ``same`` holds those (start, end) pairs."""

    site: WaitSite
    """The loop's backward branch (its row and text)."""
    reads: tuple[int, ...]
    """The iteration's read events."""
    same: tuple[tuple[Expr, Expr], ...] = ()


@dataclass(frozen=True)
class Leaf:
    """The end of one path of a thread: its block and final registers."""

    thread: int
    block: int
    regs: tuple[tuple[str, Expr], ...]
    cut: bool  # the unroll bound was reached, or a wait blocks: the execution is discarded
    wait: WaitSite | None = None
    """For the failing outcome of a blocking wait: the wait (else the unroll bound)."""
    spin: Spin | None = None
    """For a cut at the unroll bound whose last iteration is side-effect free: the spin."""
    loop: WaitSite | None = None
    """For a cut at the unroll bound: the loop's backward branch."""
    wait_reads: tuple[int, ...] = ()
    """For a failing wait: the reads its condition depends on (the wait polls them)."""

    def polled(self) -> tuple[int, ...]:
        """The reads a thread stuck here repeats forever (a fair scheduler lets each of
        them see the last write to its location)."""
        return self.spin.reads if self.spin is not None else self.wait_reads

    @property
    def stuck(self) -> bool:
        """A thread may stay here forever: a blocking wait that fails, or a spin."""
        return self.cut and (self.wait is not None or self.spin is not None)


@dataclass
class Program:
    """The lowered test: everything the engines need, nothing dialect-specific."""

    name: str
    arch: str
    events: list[Event]
    blocks: list[Block]
    leaves: list[Leaf]
    nthreads: int
    locations: list[str]
    init_values: dict[str, int]
    rmw: set[tuple[int, int]]
    data: set[tuple[int, int]]
    addr: set[tuple[int, int]]
    ctrl: set[tuple[int, int]]
    unroll: int = 2
    aliases: dict[str, str] = field(default_factory=dict)
    """Names a condition may use for a location (GIN: ``x`` for the only ``x@k``)."""
    relations: dict[str, set[tuple[int, int]]] = field(default_factory=dict)
    """Further static relations a dialect's lowering defines, by their cat name
    (PTX: ``aob``, the order of asynchronous operations, gdrcheck/lower/ptx.py)."""
    guarded_forks: frozenset[str] = frozenset()
    """Selectors (gdrcheck fix) whose guarded instruction split or ended a path."""

    def event(self, eid: int) -> Event:
        return self.events[eid]

    @property
    def reads(self) -> list[Event]:
        return [e for e in self.events if e.kind == "R"]

    @property
    def writes(self) -> list[Event]:
        return [e for e in self.events if e.kind == "W"]

    def ancestors(self, eid: int) -> list[int]:
        """Events po-before ``eid`` on its path, nearest first."""
        out: list[int] = []
        p = self.events[eid].parent
        while p is not None:
            out.append(p)
            p = self.events[p].parent
        return out

    def block_chain(self, bid: int) -> list[Block]:
        """The blocks from the root down to ``bid``."""
        chain: list[Block] = []
        b: int | None = bid
        while b is not None:
            chain.append(self.blocks[b])
            b = self.blocks[b].parent
        return list(reversed(chain))

    def leaves_of(self, thread: int) -> list[Leaf]:
        return [lf for lf in self.leaves if lf.thread == thread]

    def blocking_waits(self) -> list[Leaf]:
        """The leaves where a blocking wait fails (the path ends there, discarded)."""
        return [lf for lf in self.leaves if lf.cut and lf.wait is not None]

    def stuck_leaves(self) -> list[Leaf]:
        """The leaves where a thread may stay forever (failing waits and spins)."""
        return [lf for lf in self.leaves if lf.stuck]

    def bound_cuts(self) -> list[Leaf]:
        """The leaves where the ``--unroll`` bound cut a loop with side effects."""
        return [lf for lf in self.leaves if lf.cut and not lf.stuck]

    def with_leaves_relaxed(self, which: list[Leaf]) -> Program:
        """The same program in which the paths that end at ``which`` (cut leaves) are
        kept: a thread may stop there (the liveness question's executions)."""
        keep = {id(lf) for lf in which}
        leaves = [dataclasses.replace(lf, cut=False) if id(lf) in keep else lf
                  for lf in self.leaves]
        return dataclasses.replace(self, leaves=leaves)

    def with_waits_relaxed(self) -> Program:
        """The same program in which a thread may stop at a wait that fails: its path
        ends there and the execution is kept (used to say which waits block)."""
        return self.with_leaves_relaxed(self.blocking_waits())
