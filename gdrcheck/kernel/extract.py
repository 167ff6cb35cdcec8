"""Extraction: every (rank, CTA, thread) of a kernel becomes a litmus thread
(docs/kernels.md, "Extraction").

Each thread interprets the kernel's IR with its concrete ids and arguments. Values computed
from ids and arguments stay concrete, so branches on them are followed and loops with
constant bounds unroll; a value read from memory is a register of the litmus thread, and a
branch on it becomes a litmus branch (both sides extracted). A loop whose state repeats with
a register-dependent exit (a spin loop) becomes a litmus loop, which the lowering unrolls
to ``--unroll`` with its last iteration cut: a blocking wait. Anything else the IR does that
cannot be represented exactly is refused at the user's line (:class:`KernelError`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Literal, Protocol

from gdrcheck.errors import InputError, Pos
from gdrcheck.kernel import binary32, ir
from gdrcheck.kernel.binary32 import FVal
from gdrcheck.kernel.ir import (
    BlockRef,
    Const,
    FConst,
    FuncRef,
    GlobalRef,
    Instr,
    Ref,
    SharedRef,
    SrcPos,
)
from gdrcheck.kernel.nccl import DEV_COMM_TYPE, dev_comm_field, lsa_team
from gdrcheck.kernel.values import (
    BoolOp,
    Cmp,
    Cond,
    CondInt,
    Flt,
    FSym,
    Not,
    Opaque,
    Ptr,
    Scalar,
    Sym,
    Value,
    is_cond,
    negate,
)

MULTICAST = "ncclMc_"
"""The prefix of a multicast object's base: ``ncclMc_w`` is the LSA team's multicast address
of buffer ``w`` (``multicast ncclMc_w = w;``, docs/litmus-format.md §11)."""

MAX_STEPS = 200_000
"""IR instructions one thread may interpret (a loop bounded by nothing concrete)."""

MAX_LINES = 20_000
"""Litmus instructions one thread may have (the paths of its branches)."""


class KernelError(InputError):
    """A kernel construct the extraction does not support, at the user's line."""


class FloatGrowth(KernelError):
    """The float values stored do not settle without the assumption (``extract``)."""


@dataclass(frozen=True)
class Config:
    """One configuration of a kernel: the launch and the values of its scalar parameters
    (one value for every rank, or one per rank)."""

    kernel: str
    ranks: int
    grid: int = 1
    block: int = 1
    nodes: tuple[int, ...] | None = None
    args: tuple[tuple[str, tuple[int | Fraction, ...]], ...] = ()
    init: str | None = None  # a __device__ function: the host's initialisation, per rank
    check: str | None = None  # a __device__ function: the host's check after the kernel
    host_order: str = "final"  # "stream": init and check run in the rank's thread, in order

    def node_of(self, rank: int) -> int:
        return self.nodes[rank] if self.nodes else rank

    def arg(self, name: str, rank: int) -> int | Fraction | None:
        for key, values in self.args:
            if key == name:
                return values[rank] if len(values) > 1 else values[0]
        return None


@dataclass(frozen=True)
class Line:
    """One litmus instruction of a thread and the source line it came from."""

    text: str
    pos: SrcPos | None
    what: str = ""  # the API call or C++ access it stands for (for witnesses)


@dataclass(frozen=True)
class AssertSite:
    thread: int
    reg: str
    pos: SrcPos | None
    expr: str


@dataclass(frozen=True)
class FinalGuard:
    """When the extraction assumes: the host check's read of a float location's final
    value is computed with exactly when that value is one of ``codes`` (a term of the
    condition when it is not; docs/kernels.md, "Assumed values")."""

    where: str  # the location's placeholder
    codes: tuple[int, ...]
    pos: SrcPos | None


@dataclass(frozen=True)
class HostFailure:
    """When the host check of ``rank`` fails: a condition over final values."""

    rank: int
    pos: SrcPos | None
    expr: str
    fails: Cond | bool


@dataclass
class ThreadCode:
    index: int
    rank: int
    cta: int
    tid: int
    lines: list[Line] = field(default_factory=list)


@dataclass
class Extraction:
    """The extracted threads, their locations and assert flags."""

    path: str
    config: Config
    threads: list[ThreadCode]
    locations: dict[str, int]  # base -> element size (bytes)
    indices: dict[str, set[int]]  # base -> element indices accessed
    asserts: list[AssertSite]
    init_values: dict[tuple[str, int, int], int] = field(default_factory=dict)
    host_failures: list[HostFailure] = field(default_factory=list)
    signals: set[str] = field(default_factory=set)  # NCCL GIN signals (``S : signal``)
    shared: set[str] = field(default_factory=set)  # __shared__ variables (``s : shared``)
    floats: set[str] = field(default_factory=set)  # buffers of float data (values are codes)
    # when the extraction assumes (docs/kernels.md, "Assumed values"): each thread's
    # assumption register, and the host check's final reads
    guards: list[tuple[int, str]] = field(default_factory=list)
    final_guards: list[FinalGuard] = field(default_factory=list)

    @property
    def assumes(self) -> bool:
        return bool(self.guards or self.final_guards)

    def location_name(self, base: str, index: int) -> str:
        if self.indices.get(base, {0}) <= {0}:
            return base
        return f"{base}_{index}"

    def float_location(self, loc: str) -> bool:
        """Whether the litmus location ``loc`` (``b``, ``b_3``, ``b@1``, ``s:cta0@0``) is an
        element of a float buffer, its values codes (binary32.encode)."""
        name = loc.split("@")[0].split(":")[0]
        return any(name == self.location_name(b, k) for b in self.floats
                   for k in self.indices.get(b, {0}))


# --------------------------------------------------------------------------
# The interpretation of one thread
# --------------------------------------------------------------------------


@dataclass
class Frame:
    fn: ir.Function
    env: dict[str, Value]
    block: str
    index: int
    depth: int
    result: str = ""  # the caller's instruction that receives the return value


@dataclass
class PathState:
    frames: list[Frame]
    visited: dict[tuple[object, ...], str]
    shadows: dict[tuple[object, ...], int] = field(default_factory=dict)
    """NCCL's GIN signal shadows this path has increased (a GIN barrier's waits): each
    side of a branch on a value read has its own."""
    local: dict[str, dict[int, tuple[int, Value]]] = field(default_factory=dict)
    """The local arrays of host code (``--init``/``--check``): each byte offset that holds a
    value -> (its size in bytes, the value); a byte memset to zero is (1, 0)."""

    def copy(self) -> PathState:
        return PathState([Frame(f.fn, dict(f.env), f.block, f.index, f.depth, f.result)
                          for f in self.frames], dict(self.visited), dict(self.shadows),
                         {k: dict(v) for k, v in self.local.items()})


_LOC_RE = re.compile(r"\{L:([^:}]+):(\d+):(\d+)(:r)?\}")
"""A location placeholder in an emitted line: base, rank, element index, and ``:r`` for the
remote operand of a one-sided call (named at the end, when every index accessed is known;
a remote operand keeps its ``@rank`` even on the thread's own rank)."""


class ThreadExtractor:
    """Interprets the kernel for one (rank, CTA, thread)."""

    def __init__(self, ex: Extractor, code: ThreadCode, host: str | None = None) -> None:
        self.ex = ex
        self.code = code
        self.host = host  # None: a kernel thread; "init" or "check": a host function
        self.regs: dict[tuple[int, str], str] = {}
        self.labels = 0
        self.steps = 0
        self.loop_headers: dict[str, dict[str, frozenset[str]]] = {}
        self.end = "LEND"  # the label the top frame's ret jumps to
        self.stream_host: str | None = None  # the host function run in stream order, if any
        self.state = PathState([], {})  # the path being interpreted (walk sets it)
        self.float_seq = 0  # this thread's float accesses so far, in the walk's order
        self.epoch = 0  # CTA barriers passed (docs/kernels.md, "Assumed values")

    # ---- registers, labels, lines

    def reg(self, depth: int, name: str) -> str:
        key = (depth, name)
        if key not in self.regs:
            self.regs[key] = f"r{len(self.regs)}"
        return self.regs[key]

    def fresh_reg(self, hint: str) -> str:
        return self.reg(-1, f"{hint}#{len(self.regs)}")

    def host_name(self) -> str:
        cfg = self.ex.config
        return (cfg.init if self.host == "init" else cfg.check) or ""

    def label(self) -> str:
        self.labels += 1
        return f"L{self.labels:02d}"

    def emit(self, text: str, pos: SrcPos | None, what: str = "") -> None:
        if self.host is not None:
            raise self.ex.error(pos, f"the host {self.host} function {self.host_name()} does "
                                f"what only a kernel thread can ({text.split()[0]}): it may "
                                "store constants (init) or compare values read with "
                                "constants in asserts (check)")
        if len(self.code.lines) >= MAX_LINES:
            raise self.ex.error(pos, f"the thread has more than {MAX_LINES} litmus "
                                "instructions (too many branches on values read)")
        self.code.lines.append(Line(text, pos, what))

    def loc(self, p: Ptr, size: int, pos: SrcPos | None, rank: int | None = None,
            is_float: bool | None = False) -> str:
        """The placeholder of the location ``p`` points to (``size``-byte access; a ``float``
        load or store when ``is_float``, None for a copy of bytes, a put, which takes its
        buffers' kind); with ``rank``, the remote operand of a one-sided
        call on that rank (named ``x@rank`` even on the thread's own rank: a put to oneself
        is meant, not a missing ``@rank``, lint L001)."""
        kind = (self.ex.float_kind.setdefault(p.base, is_float) if is_float is not None
                else is_float)
        if kind != is_float:
            raise self.ex.error(pos, f"{p.base} is accessed both as float and as integer "
                                "data (a float location holds the float's value, not its "
                                "encoding)")
        elem = self.ex.elem_size(p.base, size, pos)
        if p.offset < 0 or p.offset % elem:
            raise self.ex.error(pos, f"an access at byte {p.offset} of {p.base}, whose "
                                f"elements are {elem} bytes")
        if size != elem:
            raise self.ex.error(pos, f"a {size}-byte access to {p.base}, whose elements are "
                                f"{elem} bytes (mixed-size accesses are not supported)")
        index = p.offset // elem
        self.ex.indices.setdefault(p.base, set()).add(index)
        if p.base.startswith(MULTICAST):  # the copies it is bound to exist too
            under = p.base[len(MULTICAST):]
            self.ex.elem_size(under, elem, pos)
            self.ex.indices.setdefault(under, set()).add(index)
        if rank is None:
            return f"{{L:{p.base}:{p.rank}:{index}}}"
        return f"{{L:{p.base}:{rank}:{index}:r}}"  # a one-sided call's remote operand

    # ---- values

    def value(self, fr: Frame, op: ir.Operand, ins: Instr) -> Value:
        if isinstance(op, Const):
            return _wrap(op.value, op.bits)
        if isinstance(op, FConst):
            try:
                return Flt(binary32.from_double(op.value))
            except binary32.Binary32Error as e:
                raise self.ex.error(ins.pos, str(e)) from None
        if isinstance(op, Ref):
            if op.name not in fr.env:
                raise self.ex.error(ins.pos, f"a value the extraction did not compute: "
                                    f"%{op.name}")
            return fr.env[op.name]
        if isinstance(op, ir.Undef):
            raise self.ex.error(ins.pos, "an undefined value (undef or poison) is used")
        if isinstance(op, SharedRef):
            return self.shared(op.name, op.offset, ins)
        if isinstance(op, GlobalRef):
            if op.name in self.ex.module.shared:
                return self.shared(op.name, 0, ins)
            return Opaque(f"the address of the global {op.name}")
        raise self.ex.error(ins.pos, f"unsupported operand {op}")

    def shared(self, global_name: str, offset: int, ins: Instr) -> Ptr:
        """A pointer into this thread's CTA's copy of a ``__shared__`` variable: the litmus
        location ``s : shared`` (litmus-format.md §3: each CTA of each rank has its own)."""
        var = self.ex.module.shared.get(global_name)
        if var is None:
            raise self.ex.error(ins.pos, f"a constant address into {global_name}, which is not "
                                "a __shared__ variable")
        host = self.stream_host or (self.host_name() if self.host is not None else None)
        if host is not None:
            raise self.ex.error(ins.pos, f"the host function {host} uses the __shared__ "
                                f"variable {var.name} (shared memory is the kernel's: the host "
                                "cannot reach it)")
        owner = self.ex.shared_names.setdefault(var.name, global_name)
        if owner != global_name or var.name in {p.name for p in self.ex.kernel.params}:
            raise self.ex.error(ins.pos, f"the __shared__ variable {var.name} has the name of "
                                "another variable or parameter of the kernel (its location "
                                "would be theirs): rename it")
        if var.elem_bytes <= 0:
            raise self.ex.error(ins.pos, f"the __shared__ variable {var.name} is not an integer "
                                "or an array of integers")
        self.ex.shared.add(var.name)
        self.ex.elems.setdefault(var.name, var.elem_bytes)
        return Ptr(var.name, self.code.rank, offset)

    def scalar(self, v: Value, pos: SrcPos | None, what: str) -> Scalar:
        """A value usable as a litmus operand (a constant or a register)."""
        if isinstance(v, (int, Sym)):
            return v
        if isinstance(v, Opaque):
            raise self.ex.error(pos, f"{what} uses {v.why}, which cannot be extracted")
        if isinstance(v, Ptr):
            raise self.ex.error(pos, f"{what} uses a pointer as an integer")
        if isinstance(v, (Flt, FSym)):
            raise self.ex.error(pos, f"{what} uses a float as an integer")
        cond = v.c if isinstance(v, CondInt) else v
        assert is_cond(cond)
        return self.materialise(cond, pos)  # type: ignore[arg-type]

    def materialise(self, c: Cond, pos: SrcPos | None) -> Sym:
        """A register holding 1 when ``c`` holds, else 0 (setp, and/or: no branch)."""
        return Sym(self.predicate(c, pos, {}))

    def predicate(self, c: Cond, pos: SrcPos | None, known: dict[Cmp, str]) -> str:
        """The register of ``c``'s predicate, 1 or 0: a ``setp`` per comparison (``known``:
        those already computed, by comparison), conjunctions and disjunctions combined
        pairwise with ``and``/``or`` (so that the lowered expression's depth grows with
        the logarithm of their length)."""
        if isinstance(c, Not):
            c = negate(c.c)
        if isinstance(c, Cmp):
            if c not in known:
                known[c] = self.fresh_reg("setp")
                self.emit(f"setp.{c.op} {known[c]}, {_text(c.a)}, {_text(c.b)}", pos)
            return known[c]
        assert isinstance(c, BoolOp)
        regs = [self.predicate(part, pos, known) for part in _operands(c)]
        return self.pairwise(c.op, regs, pos)

    def pairwise(self, op: str, regs: list[str], pos: SrcPos | None) -> str:
        """``regs`` combined with the register operation ``op`` as a balanced tree."""
        while len(regs) > 1:
            level = []
            for a, b in zip(regs[::2], regs[1::2], strict=False):
                dst = self.fresh_reg(op)
                self.emit(f"{op} {dst}, {a}, {b}", pos)
                level.append(dst)
            if len(regs) % 2:
                level.append(regs[-1])
            regs = level
        return regs[0]

    def choose(self, cases: list[tuple[Scalar, str]], default: Scalar,
               pos: SrcPos | None) -> Scalar:
        """The value of the case whose predicate register holds (at most one does), else
        ``default``: ``selp``s combined pairwise, no branch (a tournament: each pair's
        value is the first's when its predicate holds, else the second's, and its predicate
        the ``or`` of theirs)."""
        level = list(cases)
        while len(level) > 1:
            nxt: list[tuple[Scalar, str]] = []
            for (va, pa), (vb, pb) in zip(level[::2], level[1::2], strict=False):
                v, q = self.fresh_reg("selp"), self.fresh_reg("or")
                self.emit(f"selp {v}, {_text(va)}, {_text(vb)}, {pa}", pos)
                self.emit(f"or {q}, {pa}, {pb}", pos)
                nxt.append((Sym(v), q))
            if len(level) % 2:
                nxt.append(level[-1])
            level = nxt
        if not level:
            return default
        (value, pred), = level
        dst = self.fresh_reg("selp")
        self.emit(f"selp {dst}, {_text(value)}, {_text(default)}, {pred}", pos)
        return Sym(dst)

    def jump_if(self, c: Cond, target: str, pos: SrcPos | None) -> None:
        """Branch to ``target`` when ``c`` holds: one branch, on the comparison itself or,
        for a conjunction or disjunction, on its predicate (:meth:`predicate`), so that
        the path splits in two whatever the condition."""
        if isinstance(c, Not):
            c = negate(c.c)
        if isinstance(c, Cmp):
            self.emit(f"b{c.op} {_text(c.a)}, {_text(c.b)}, {target}", pos)
            return
        self.emit(f"bne {self.predicate(c, pos, {})}, 0, {target}", pos)

    def truth(self, v: Value, pos: SrcPos | None, what: str) -> bool | Cond:
        """A branch condition: concrete, or a condition over registers."""
        if isinstance(v, int):
            return v != 0
        if isinstance(v, Sym):
            return Cmp("ne", v, 0)
        if isinstance(v, CondInt):
            return v.c
        if is_cond(v):
            return v  # type: ignore[return-value]
        if isinstance(v, Ptr):
            return True
        if isinstance(v, (Flt, FSym)):
            raise self.ex.error(pos, f"{what} on a float (compare it instead)")
        assert isinstance(v, Opaque)
        raise self.ex.error(pos, f"{what} depends on {v.why}, which cannot be extracted")

    # ---- the walk

    def run(self, fn: ir.Function, env: dict[str, Value], end: str = "LEND") -> None:
        """Interpret ``fn``; its returns jump to ``end`` (a label of its own when host code
        runs before or after the kernel in the same thread)."""
        self.loop_headers[fn.name] = _loop_headers(fn)
        self.end = end
        st = PathState([Frame(fn, env, fn.entry, 0, 0)], {})
        self.walk(st)
        if self.host is None:
            self.emit(f"{end}:", None)

    def walk(self, st: PathState) -> None:
        self.state = st
        while True:
            self.steps += 1
            fr = st.frames[-1]
            ins = fr.fn.blocks[fr.block].instrs[fr.index]
            if self.steps > MAX_STEPS:
                raise self.ex.error(ins.pos, f"the thread runs more than {MAX_STEPS} IR "
                                    "instructions: a loop whose bound is not a constant "
                                    "(give its bound with --arg)")
            op = ins.opcode
            if op == "br":
                if len(ins.operands) == 1:
                    assert isinstance(ins.operands[0], BlockRef)
                    if self.enter(st, ins.operands[0].name, ins):
                        return
                    continue
                cond = self.truth(self.value(fr, ins.operands[0], ins), ins.pos, "a branch")
                t, f = ins.operands[2], ins.operands[1]
                assert isinstance(t, BlockRef) and isinstance(f, BlockRef)
                if isinstance(cond, bool):
                    if self.enter(st, t.name if cond else f.name, ins):
                        return
                    continue
                self.fork(st, cond, t.name, f.name, ins)
                return
            if op == "switch":
                raise self.ex.error(ins.pos, "a switch statement is not supported yet")
            if op == "ret":
                if len(st.frames) == 1:
                    if self.host is None:
                        self.emit(f"goto {self.end}", ins.pos)
                    return
                done = st.frames.pop()
                caller = st.frames[-1]
                if ins.operands and done.result:
                    caller.env[done.result] = self.value(done, ins.operands[0], ins)
                caller.index += 1
                continue
            if op == "unreachable":
                raise self.ex.error(ins.pos, "the thread reaches unreachable code (undefined "
                                    "behaviour, or a trap)")
            if op == "call" and isinstance(ins.callee, FuncRef):
                callee = self.ex.module.functions.get(ins.callee.name)
                if callee is not None and not callee.declaration:
                    self.call(st, callee, ins)
                    continue
            result = self.step(fr, ins)
            if ins.name and result is not None:
                fr.env[ins.name] = result
            fr.index += 1

    def fork(self, st: PathState, cond: Cond, t: str, f: str, ins: Instr) -> None:
        """Both sides of a branch on a value read: the false side falls through."""
        yes = self.label()
        self.jump_if(cond, yes, ins.pos)
        other = st.copy()
        if not self.enter(st, f, ins):
            self.walk(st)
        self.emit(f"{yes}:", ins.pos)
        if not self.enter(other, t, ins):
            self.walk(other)

    def enter(self, st: PathState, target: str, ins: Instr) -> bool:
        """Go to block ``target`` (its phis assigned); True when the path ends here (a
        jump back to an earlier state: a litmus loop)."""
        fr = st.frames[-1]
        prev = fr.block
        block = fr.fn.blocks[target]
        phis = [p for p in block.instrs if p.opcode == "phi"]
        values: dict[str, Value] = {}
        for p in phis:
            try:
                k = p.incoming.index(prev)
            except ValueError:
                raise self.ex.error(p.pos, f"a phi without a value from block {prev}") from None
            values[p.name] = self.value(fr, p.operands[k], p)
        for p in phis:  # a condition carried around a loop: its registers may be read again
            v = values[p.name]
            if is_cond(v) or isinstance(v, CondInt):
                values[p.name] = self.scalar(v, p.pos, "a phi")
        moves = [(p, v) for p in phis if isinstance(v := values[p.name], Sym)]
        sources = {v.reg for _, v in moves if isinstance(v, Sym)}
        dsts = {self.reg(fr.depth, p.name) for p, _ in moves}
        staged: dict[str, Value] = {}
        copies: list[tuple[str, str, SrcPos | None]] = []
        for p, v in moves:
            dst = self.reg(fr.depth, p.name)
            assert isinstance(v, Sym)
            staged[p.name] = Sym(dst)
            if v.reg != dst:
                copies.append((dst, v.reg, p.pos))
        if sources & dsts:  # a parallel copy (a phi reads another's register): via temporaries
            temps = []
            for dst, src, pos in copies:
                tmp = self.fresh_reg("phi")
                self.emit(f"mov {tmp}, {src}", pos)
                temps.append((dst, tmp, pos))
            copies = temps
        for dst, src, pos in copies:
            self.emit(f"mov {dst}, {src}", pos)
        for p in phis:
            fr.env[p.name] = staged.get(p.name, values[p.name])
        fr.block, fr.index = target, len(phis)
        inside = self.loop_headers.get(fr.fn.name, {}).get(target)
        if self.host is None and inside is not None:
            # the state a loop iteration starts from: the header's phis and every value
            # defined outside the loop (an enclosing loop's, the caller's); what the body
            # defines is computed again from them
            key = (tuple((f.fn.name, f.block, f.index, f.depth) for f in st.frames),
                   tuple(_key(fr.env[p.name]) for p in phis),
                   tuple(sorted((k, _key(v)) for k, v in fr.env.items() if k not in inside)),
                   tuple(tuple(sorted((k, _key(v)) for k, v in f.env.items()))
                         for f in st.frames[:-1]))
            if key in st.visited:
                self.emit(f"goto {st.visited[key]}", ins.pos)
                return True
            here = self.label()
            self.emit(f"{here}:", ins.pos)
            st.visited[key] = here
        return False

    def call(self, st: PathState, callee: ir.Function, ins: Instr) -> None:
        fr = st.frames[-1]
        if any(f.fn.name == callee.name for f in st.frames):
            raise self.ex.error(ins.pos, f"a recursive call of {callee.source_name}")
        env = {p.ir_name: self.value(fr, a, ins) for p, a in zip(callee.params, ins.args,
                                                                  strict=False)}
        self.loop_headers.setdefault(callee.name, _loop_headers(callee))
        st.frames.append(Frame(callee, env, callee.entry, 0, fr.depth + 1, ins.name))

    # ---- one instruction

    def step(self, fr: Frame, ins: Instr) -> Value | None:
        op = ins.opcode
        pos = ins.pos
        if op in _BINARY:
            a = self.value(fr, ins.operands[0], ins)
            b = self.value(fr, ins.operands[1], ins)
            if ins.type == "i1" and op in ("and", "or", "xor"):
                return self.boolean(op, a, b, pos)
            return self.arith(fr, ins, op, a, b)
        if op in ("zext", "sext", "trunc"):
            v = self.value(fr, ins.operands[0], ins)
            if isinstance(v, int):
                src = ir.type_bits(_operand_type(ins))
                if op == "sext":
                    v = _signed(v, src)
                return _wrap(v, ins.bits)
            if is_cond(v):
                if op == "zext":
                    return CondInt(v)  # type: ignore[arg-type]
                if op == "trunc":
                    return v
                raise self.ex.error(pos, "a sign-extended condition is not supported")
            return v  # registers hold unbounded integers (docs/kernels.md)
        if op in _FLOAT_BINARY or op in _FLOAT_OTHER:
            return self.float_op(fr, ins)
        if op == "icmp":
            a = self.value(fr, ins.operands[0], ins)
            b = self.value(fr, ins.operands[1], ins)
            return self.compare(ins, a, b)
        if op == "select":
            c = self.truth(self.value(fr, ins.operands[0], ins), pos, "a select")
            t = self.value(fr, ins.operands[1], ins)
            f = self.value(fr, ins.operands[2], ins)
            if isinstance(c, bool):
                return t if c else f
            if ins.type == "i1":  # a logical and/or (`a && b` is `select a, b, false`)
                return _select_cond(c, self.truth(t, pos, "a select"),
                                    self.truth(f, pos, "a select"))
            if is_cond(t) or is_cond(f) or isinstance(t, Ptr) or isinstance(f, Ptr):
                raise self.ex.error(pos, "a select of conditions or pointers on a value read "
                                    "is not supported")
            vt = _litmus_int(self.scalar(t, pos, "a select"), ins.bits)
            vf = _litmus_int(self.scalar(f, pos, "a select"), ins.bits)
            pred = self.predicate(c, pos, {})
            dst = self.reg(fr.depth, ins.name)
            self.emit(f"selp {dst}, {_text(vt)}, {_text(vf)}, {pred}", pos)
            return Sym(dst)
        if op == "getelementptr":
            return self.gep(fr, ins)
        if op == "load":
            return self.load(fr, ins)
        if op == "store":
            self.store(fr, ins)
            return None
        if op == "call":
            return self.ex.calls.call(self, fr, ins)
        if op == "freeze":
            return self.value(fr, ins.operands[0], ins)
        if op in ("atomicrmw", "cmpxchg", "fence"):
            raise self.ex.error(pos, f"an IR {op} (a C++ or clang atomic): its scope is lost "
                                "in the IR; use the CUDA atomic functions, cuda::atomic_ref "
                                "or inline PTX")
        if op == "alloca":
            if self.host is None and self.stream_host is None:
                raise self.ex.error(pos, "local memory (an array or a variable whose address "
                                    "is taken) is not supported yet in a kernel (only in host "
                                    "code)")
            base = f"{LOCAL}{ins.name}#{len(self.state.local)}"
            self.state.local[base] = {}
            return Ptr(base, self.code.rank, 0)
        if op in ("ptrtoint", "inttoptr", "addrspacecast", "bitcast"):
            v = self.value(fr, ins.operands[0], ins)
            if op in ("addrspacecast", "bitcast") and isinstance(v, Ptr):
                return v
            raise self.ex.error(pos, f"an integer-pointer conversion ({op}) is not supported")
        raise self.ex.error(pos, f"the IR instruction {op!r} is not supported "
                            f"({ins.text[:60]})")

    def boolean(self, op: str, a: Value, b: Value, pos: SrcPos | None) -> Value:
        ca = self.truth(a, pos, "a condition")
        cb = self.truth(b, pos, "a condition")
        if op == "xor":
            if isinstance(cb, bool):
                ca, cb = cb, ca
            if isinstance(ca, bool):
                if isinstance(cb, bool):
                    return int(ca != cb)
                return Not(cb) if ca else cb
            raise self.ex.error(pos, "a xor of two conditions on values read")
        if isinstance(ca, bool) and isinstance(cb, bool):
            return int(ca and cb) if op == "and" else int(ca or cb)
        if isinstance(cb, bool):
            ca, cb = cb, ca
        if isinstance(ca, bool):
            assert not isinstance(cb, bool)
            if op == "and":
                return cb if ca else 0
            return 1 if ca else cb
        assert not isinstance(cb, bool)
        return BoolOp("and" if op == "and" else "or", ca, cb)

    def arith(self, fr: Frame, ins: Instr, op: str, a: Value, b: Value) -> Value:
        pos = ins.pos
        bits = ins.bits
        if isinstance(a, int) and isinstance(b, int):
            return _concrete(op, a, b, bits, pos, self.ex)
        if a == 0 and op in ("urem", "srem") and b == Opaque(GIN_CONTEXT_COUNT):
            return 0  # 0 % n for the count n >= 1 (NCCL makes at least one GIN context)
        if isinstance(a, Ptr) or isinstance(b, Ptr):
            raise self.ex.error(pos, "arithmetic on a pointer as an integer")
        sa = _litmus_int(self.scalar(a, pos, "arithmetic"), bits)
        sb = _litmus_int(self.scalar(b, pos, "arithmetic"), bits)
        litmus = {"add": "add", "sub": "sub", "mul": "mul", "sdiv": "div", "udiv": "div",
                  "and": "and", "or": "or", "xor": "xor"}.get(op)
        if op == "shl" and isinstance(sb, int):
            litmus, sb = "mul", 1 << sb
        if litmus is None:
            raise self.ex.error(pos, f"the operation {op} on a value read from memory is not "
                                "supported (litmus registers have add, sub, mul, div, and, "
                                "or, xor)")
        if isinstance(sa, int) and isinstance(sb, int):
            return _concrete(op, sa, sb, bits, pos, self.ex)
        dst = self.reg(fr.depth, ins.name)
        self.emit(f"{litmus} {dst}, {_text(sa)}, {_text(sb)}", pos)
        return Sym(dst)

    def float_op(self, fr: Frame, ins: Instr) -> Value:
        """``float`` arithmetic, conversions and comparisons (docs/kernels.md, "Floats in
        memory"): exact binary32 on concrete values and intervals, tables over the codes of
        the values read."""
        op = ins.opcode
        pos = ins.pos
        vals = [self.value(fr, o, ins) for o in ins.operands]
        if op in ("fadd", "fsub", "fmul", "fdiv", "fneg") or op == "fcmp":
            if any(ty != "float" for ty in _float_types(ins)):
                raise self.ex.error(pos, f"{op} on a type other than float (double and half "
                                    "are not supported)")
        if op in _FLOAT_BINARY:
            fn = {"fadd": binary32.fadd, "fsub": binary32.fsub, "fmul": binary32.fmul,
                  "fdiv": binary32.fdiv}[op]
            t = self.ftable(vals[0], vals[1], fn, pos, f"the float operation {op}")
            if op != "fdiv" and isinstance(t, FSym) and self.host is None:
                exact = self.integer_float_op(fr, ins, op, vals[0], vals[1], t)
                if exact is not None:
                    return exact
            return t
        if op == "fneg":
            return self.funary(vals[0], binary32.fneg, pos, "fneg")
        if op in ("sitofp", "uitofp"):
            (a,) = vals
            if ins.type != "float":
                raise self.ex.error(pos, f"a conversion to {ins.type} (float only)")
            if isinstance(a, int):
                src = ir.type_bits(_operand_type(ins))
                n = _signed(a, src) if op == "sitofp" else a
                return Flt(binary32.round32(Fraction(n)))
            raise self.ex.error(pos, "a conversion to float of a value read from memory is "
                                "not supported yet")
        if op in ("fptosi", "fptoui"):
            (a,) = vals
            def to_int(q: FVal) -> int:
                try:
                    n = binary32.trunc(q)
                except binary32.Binary32Error as e:
                    raise self.ex.error(pos, str(e)) from None
                if op == "fptoui" and n < 0 or abs(n) >= 1 << ins.bits:
                    raise self.ex.error(pos, f"the conversion of {binary32.show(q)} to {ins.type} "
                                        "is out of range (poison in LLVM)")
                return n

            if isinstance(a, Flt):
                return _wrap(to_int(a.value), ins.bits)
            if isinstance(a, FSym):
                return self.materialise_rows(a, to_int, pos)
            raise self.ex.error(pos, f"{op} of something that is not a float")
        assert op == "fcmp"
        return self.fcompare(ins, vals[0], vals[1])

    def fcompare(self, ins: Instr, a: Value, b: Value) -> Value:
        """``fcmp``: the ordered and unordered predicates agree, no NaN being representable
        (binary32.py refuses them). A register whose every code is an integer float kept as
        itself (``_identity``) is compared as that integer: against a constant ``c`` that is
        not an integer, ``x < c`` is ``x <= floor(c)`` and ``x == c`` is false; any other
        comparison is the table of its outcomes (an interval that does not decide it:
        refused, binary32.compare)."""
        pos = ins.pos
        m = re.search(r"= fcmp (?:[a-z]+ )*?([ou]?(?:eq|ne|lt|le|gt|ge)|true|false) ", ins.text)
        if m is None:
            raise self.ex.error(pos, f"an fcmp predicate not supported ({ins.text[:60]})")
        pred = m.group(1)
        if pred in ("true", "false"):
            return int(pred == "true")
        rel = pred[-2:]
        if isinstance(a, Flt) and isinstance(b, Flt):
            try:
                return int(binary32.compare(rel, a.value, b.value))
            except binary32.Binary32Error as e:
                raise self.ex.error(pos, f"a float comparison: {e}") from None
        if isinstance(a, Flt) and isinstance(b, FSym):
            a, b = b, a
            rel = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}.get(rel, rel)
        ia, ib = _identity(a), _identity(b)
        if ia is not None and ib is not None:
            return Cmp(rel, Sym(ia), Sym(ib))
        if ia is not None and isinstance(b, Flt) and not isinstance(b.value, binary32.Interval):
            a = Sym(ia)
            c = b.value
            if c.denominator == 1:
                return Cmp(rel, a, int(c))
            lo = c.numerator // c.denominator  # floor(c) < c < floor(c) + 1
            if rel in ("eq", "ne"):
                return int(rel == "ne")
            if rel in ("lt", "le"):
                return Cmp("le", a, lo)
            return Cmp("ge", a, lo + 1)
        t = self.ftable(a, b, lambda x, y: Fraction(int(binary32.compare(rel, x, y))),
                        pos, "a float comparison")
        if isinstance(t, Flt):
            return int(t.value != 0)
        return _rows_cond(t, lambda q: q != 0)

    def integer_float_op(self, fr: Frame, ins: Instr, op: str, a: Value, b: Value,
                         t: FSym) -> FSym | None:
        """``a op b`` (+ -, and * by a constant) as the litmus register operation on the
        codes, when both are
        integer floats held as themselves (a register read from a float location whose every
        value is such an integer, or an integer constant) and every result is an integer of
        magnitude at most 2^24: then the float result is exact (no rounding, IEEE 754-2019
        §4.3: the exact result is a binary32 value) and is the integer result, which is its
        code (binary32.encode). The table is then over the one register the operation
        writes: no branch per combination."""
        def operand(v: Value) -> Scalar | None:
            if isinstance(v, Flt):
                q = v.value
                if isinstance(q, Fraction) and q.denominator == 1 and abs(q) <= binary32.EXACT:
                    return int(q)
                return None
            reg = _identity(v)
            return Sym(reg) if reg is not None else None

        sa, sb = operand(a), operand(b)
        if sa is None or sb is None:
            return None
        if op == "fmul" and isinstance(sa, Sym) and isinstance(sb, Sym):
            return None  # a product of registers is non-linear arithmetic for the solver
        results: set[int] = set()
        for _, q in t.rows:
            if not (isinstance(q, Fraction) and q.denominator == 1
                    and abs(q) <= binary32.EXACT):
                return None
            results.add(int(q))
        dst = self.reg(fr.depth, ins.name)
        litmus = {"fadd": "add", "fsub": "sub", "fmul": "mul"}[op]
        self.emit(f"{litmus} {dst}, {_text(sa)}, {_text(sb)}", ins.pos, f"float {litmus} "
                  "(integer floats, exact)")
        return FSym((dst,), tuple(((n,), Fraction(n)) for n in sorted(results)))

    def funary(self, a: Value, fn: Callable[[FVal], FVal], pos: SrcPos | None,
               what: str) -> Flt | FSym:
        """``fn`` of a float: a constant, or a table over the same registers."""
        return self.ftable(a, Flt(Fraction(0)), lambda x, _: fn(x), pos, what)

    def ftable(self, a: Value, b: Value, fn: Callable[[FVal, FVal], FVal],
               pos: SrcPos | None, what: str) -> Flt | FSym:
        """``fn`` over every combination of the values ``a`` and ``b`` may hold: a constant
        when it is one, else the table of the registers' values (docs/kernels.md)."""
        ta, tb = _as_table(a), _as_table(b)
        if ta is None or tb is None:
            raise self.ex.error(pos, f"{what} of something that is not a float")
        regs = ta.regs + tuple(r for r in tb.regs if r not in ta.regs)
        rows: dict[tuple[int, ...], FVal] = {}
        for ka, va in ta.rows:
            bound = dict(zip(ta.regs, ka, strict=True))
            for kb, vb in tb.rows:
                if any(bound.get(r, c) != c for r, c in zip(tb.regs, kb, strict=True)):
                    continue
                key = dict(bound)
                key.update(zip(tb.regs, kb, strict=True))
                try:
                    rows[tuple(key[r] for r in regs)] = fn(va, vb)
                except binary32.Binary32Error as e:
                    when = ", ".join(f"{r}={key[r]}" for r in regs)
                    raise self.ex.error(pos, f"{what}: {e}" + (
                        f" (when the values read are {when})" if when else "")) from None
                if len(rows) > MAX_FLOAT_ROWS:
                    raise self.ex.growth_error(pos, f"{what} has more than {MAX_FLOAT_ROWS} "
                                        "combinations of the values read")
        values = set(rows.values())
        if len(values) == 1:
            return Flt(values.pop())
        return FSym(regs, tuple(sorted(rows.items(), key=lambda kv: kv[0])))

    def materialise_rows(self, t: FSym, conv: Callable[[FVal], int],
                         pos: SrcPos | None) -> Scalar:
        """``conv`` of the table's value: the result most rows give, else the one whose
        rows' condition holds (:meth:`choose`; no branch, docs/kernels.md "Floats")."""
        count: dict[int, int] = {}
        for _, v in t.rows:
            count[conv(v)] = count.get(conv(v), 0) + 1
        default = max(sorted(count), key=lambda w: count[w])
        known: dict[Cmp, str] = {}
        cases: list[tuple[Scalar, str]] = []
        for w in sorted(count):
            if w == default:
                continue
            c = _rows_cond(t, lambda q, w=w: conv(q) == w)  # type: ignore[misc]
            assert not isinstance(c, int)  # another result's rows exist, and these
            cases.append((w, self.predicate(c, pos, known)))
        return self.choose(cases, default, pos)

    def compare(self, ins: Instr, a: Value, b: Value) -> Value:
        pred = ins.predicate
        pos = ins.pos
        if isinstance(a, Ptr) or isinstance(b, Ptr):
            if pred in ("eq", "ne") and (a == 0 or b == 0 or (isinstance(a, Ptr)
                                                             and isinstance(b, Ptr))):
                return int((a == b) == (pred == "eq"))
            raise self.ex.error(pos, "an ordered comparison of pointers")
        if isinstance(a, int) and isinstance(b, int):
            bits = ir.type_bits(_operand_type(ins))
            x, y = (_signed(a, bits), _signed(b, bits)) if pred.startswith("s") else (a, b)
            return int(_holds(pred[-2:] if pred not in ("eq", "ne") else pred, x, y))
        if is_cond(a) or isinstance(a, CondInt) or is_cond(b) or isinstance(b, CondInt):
            c = a if not isinstance(a, int) else b
            k = b if not isinstance(a, int) else a
            cond = c.c if isinstance(c, CondInt) else c
            if isinstance(k, int) and k in (0, 1) and pred in ("eq", "ne") and is_cond(cond):
                keep = (pred == "ne") == (k == 0)
                return cond if keep else Not(cond)  # type: ignore[arg-type]
        width = ir.type_bits(_operand_type(ins))
        sa = _litmus_int(self.scalar(a, pos, "a comparison"), width)
        sb = _litmus_int(self.scalar(b, pos, "a comparison"), width)
        return Cmp(pred if pred in ("eq", "ne") else pred[-2:], sa, sb)

    def gep(self, fr: Frame, ins: Instr) -> Value:
        base = self.value(fr, ins.operands[0], ins)
        if isinstance(base, Opaque):
            return base
        if not isinstance(base, Ptr):
            raise self.ex.error(ins.pos, "an address computed from something that is not a "
                                "kernel parameter's buffer")
        ty = ins.gep_type
        sizes = _gep_sizes(ty)
        if sizes is None:
            raise self.ex.error(ins.pos, f"an address into a {ty} (only integer elements "
                                "and arrays of them are supported)")
        offset = base.offset
        for k, op in enumerate(ins.operands[1:]):
            v = self.value(fr, op, ins)
            if not isinstance(v, int):
                raise self.ex.error(ins.pos, "an address computed from a value read from "
                                    "memory (data-dependent addresses are not supported)")
            if k >= len(sizes):
                raise self.ex.error(ins.pos, f"an address into a {ty} with {k + 1} indices")
            idx = _signed(v, ir.type_bits(_index_type(ins, k)) or 64)
            offset += idx * sizes[k]
        return Ptr(base.base, base.rank, offset)

    def load(self, fr: Frame, ins: Instr) -> Value:
        p = self.value(fr, ins.operands[0], ins)
        if not isinstance(p, Ptr):
            raise self.ex.error(ins.pos, "a load through an address that is not a kernel "
                                "parameter's buffer")
        if p.base.startswith(LOCAL):
            return self.local_load(p, ins)
        if p.base in self.ex.comms:
            return self.comm_field(p, ins)
        if ins.atomic:
            raise self.ex.error(ins.pos, "an IR atomic load: its scope is lost in the IR; use "
                                "cuda::atomic_ref or inline PTX")
        if ins.type == "ptr":
            raise self.ex.error(ins.pos, "a pointer read from memory (data-dependent "
                                "addresses are not supported)")
        is_float = ins.type == "float"
        bits = 32 if is_float else ins.bits
        if bits == 0 or bits % 8:
            raise self.ex.error(ins.pos, f"a load of {ins.type} (integers and float only)")
        if self.host == "check":  # the location's final value
            final = self.loc(p, bits // 8, ins.pos, is_float=is_float)
            return self.float_read(final, final, ins.pos) if is_float else Sym(final)
        if self.host == "init":
            raise self.ex.error(ins.pos, f"the host init function {self.host_name()} reads "
                                "memory (it may only store constants)")
        dst = self.reg(fr.depth, ins.name)
        sem = "volatile" if ins.volatile else "weak"
        where = self.loc(p, bits // 8, ins.pos, is_float=is_float)
        self.emit(f"ld.{sem} {dst}, {where}", ins.pos,
                  "volatile load" if ins.volatile else "load")
        return self.float_read(dst, where, ins.pos) if is_float else Sym(dst)

    def float_read(self, reg: str, where: str, pos: SrcPos | None) -> FSym:
        """A float read of the location ``where``: the identity table over the values its
        writes may store (0, the initial value, included; the fixpoint of ``extract``), less
        those of this thread's own later writes: a read never observes a write its own thread
        makes later (ASPLOS'19 Axiom 6 Causality, specs/ptx-axioms.cat). "Later" is the walk's
        order of this thread's float accesses; the walk visits a path's accesses in program
        order, and the accesses of another path of a branch are exclusive of it, so counting
        them is conservative.

        When the extraction assumes (``Extractor.assume``, docs/kernels.md "Assumed values"),
        the table covers the values :meth:`float_values` assumes, and the read is guarded:
        :meth:`guard` sets the thread's assumption register when the value read is another."""
        self.float_seq += 1
        known = self.float_values(where)
        if self.host == "check":
            if self.ex.assume:  # the final value: a term of the condition (test.py)
                self.ex.final_guards.append(FinalGuard(where, tuple(known), pos))
        else:
            self.guard(reg, known, pos)
        return FSym((reg,), tuple(((n,), binary32.decode(n)) for n in known))

    def float_values(self, where: str, copy: bool = False) -> list[int]:
        """The codes the float location ``where`` may hold when this thread reads it now
        (``float_seq`` counts the read): see ``float_read``. When the extraction assumes,
        a kernel thread's read sees the writes of the host's init code, its own earlier
        writes, and the other threads' writes made before they passed more CTA barriers
        than this thread has (``epoch``); ``copy``: a put's read of its source, which the
        NIC makes at any time until the next barrier, so its own writes up to then too."""
        me = self.float_who()
        assume = self.ex.assume and self.host != "check"
        out = {0}
        for who, epoch, n, v in self.ex.float_known.get(where, ()):
            if who == me and not (copy and assume):
                seen = n < self.float_seq
            elif assume and who[0] == "kernel":
                seen = epoch <= self.epoch
            else:
                seen = True
            if seen:
                out.add(v)
        return sorted(out)

    def guard(self, reg: str, codes: list[int], pos: SrcPos | None) -> None:
        """When the extraction assumes: ``or`` into the thread's assumption register 1 when
        ``reg``, a value read, is none of ``codes`` (the table's keys: a value among them
        is computed with exactly; docs/kernels.md, "Assumed values")."""
        if not self.ex.assume:
            return
        outside = _balanced("and", [Cmp("ne", Sym(reg), c) for c in codes])
        bad = self.predicate(outside, pos, {})
        flag = self.reg(-1, ASSUME_REG)
        if (self.code.index, flag) not in self.ex.guards:
            self.ex.guards.append((self.code.index, flag))
        self.emit(f"or {flag}, {flag}, {bad}", pos, "the extraction's assumption "
                  "(docs/kernels.md, \"Assumed values\")")

    def comm_field(self, p: Ptr, ins: Instr) -> Value:
        """A field of the NCCL communicator, from the configuration (gdrcheck/kernel/nccl.py)."""
        cfg = self.ex.config
        if p.offset == GIN_CONTEXT_COUNT_OFFSET and ins.bits == 32:
            return Opaque(GIN_CONTEXT_COUNT)
        nodes = [cfg.node_of(r) for r in range(cfg.ranks)]
        value = dev_comm_field(p.offset, nodes, p.rank, ins.bits)
        if value is None:
            if lsa_team(nodes, p.rank) is None:
                raise self.ex.error(ins.pos, "the ranks of a node are not contiguous (--nodes): "
                                    "NCCL's LSA team is modelled as contiguous world ranks")
            raise self.ex.error(ins.pos, f"a read of {p.base} at byte {p.offset}: of the "
                                "ncclDevComm fields only rank, nRanks, lsaRank and lsaSize "
                                "(and the barrier handles, passed to barrier sessions) are "
                                "modelled")
        return value

    def store(self, fr: Frame, ins: Instr) -> None:
        v = self.value(fr, ins.operands[0], ins)
        p = self.value(fr, ins.operands[1], ins)
        if not isinstance(p, Ptr):
            raise self.ex.error(ins.pos, "a store through an address that is not a kernel "
                                "parameter's buffer")
        if p.base in self.ex.comms:
            raise self.ex.error(ins.pos, f"a store into the communicator {p.base}")
        if p.base.startswith(LOCAL):
            self.local_store(p, v, ins)
            return
        if ins.atomic:
            raise self.ex.error(ins.pos, "an IR atomic store: its scope is lost in the IR; "
                                "use cuda::atomic_ref or inline PTX")
        is_float = _operand_type(ins) == "float"
        bits = 32 if is_float else ir.type_bits(_operand_type(ins))
        if bits == 0 or bits % 8 or isinstance(v, Ptr):
            raise self.ex.error(ins.pos, "a store of something other than an integer or a "
                                "float")
        where = self.loc(p, bits // 8, ins.pos, is_float=is_float)
        s: Scalar
        if is_float:
            s = self.float_litmus(v, where, ins.pos)
        else:
            s = _litmus_int(self.scalar(v, ins.pos, "a store"), bits)
        if self.host == "init" and isinstance(s, int):
            m = _LOC_RE.fullmatch(where)
            assert m is not None
            self.ex.init_values[(m.group(1), int(m.group(2)), int(m.group(3)))] = s
            return
        sem = "volatile" if ins.volatile else "weak"
        self.emit(f"st.{sem} {where}, {_text(s)}", ins.pos,
                  "volatile store" if ins.volatile else "store")


    # ---- host code's local arrays: the host's own memory, no litmus access

    def local_size(self, ins: Instr) -> int:
        ty = ins.type if ins.opcode == "load" else _operand_type(ins)
        bits = 32 if ty == "float" else ir.type_bits(ty)
        if bits == 0 or bits % 8:
            raise self.ex.error(ins.pos, f"a local access of {ty or 'an unknown type'} "
                                "(integers and float only)")
        return bits // 8

    def local_load(self, p: Ptr, ins: Instr) -> Value:
        size = self.local_size(ins)
        mem = self.state.local[p.base]
        held = mem.get(p.offset)
        if held is not None and held[0] == size:
            return held[1]
        if all(mem.get(p.offset + k) == (1, 0) for k in range(size)):
            return Flt(Fraction(0)) if ins.type == "float" else 0
        raise self.ex.error(ins.pos, "a read of a local array element that was not written "
                            "whole (or written with another size)")

    def local_store(self, p: Ptr, v: Value, ins: Instr) -> None:
        size = self.local_size(ins)
        mem = self.state.local[p.base]
        for k in range(-7, size):  # what the store overwrites, whole or in part
            held = mem.get(p.offset + k)
            if held is not None and p.offset + k + held[0] > p.offset:
                del mem[p.offset + k]
        mem[p.offset] = (size, v)

    def local_memset(self, p: Ptr, byte: Value, n: Value, pos: SrcPos | None) -> None:
        if not p.base.startswith(LOCAL):
            raise self.ex.error(pos, f"a memset of {p.base}: memset is supported on the local "
                                "arrays of host code only")
        if byte != 0 or not isinstance(n, int):
            raise self.ex.error(pos, "a memset with a value other than 0 or a length that is "
                                "not a constant")
        mem = self.state.local[p.base]
        for k in range(n):
            mem.pop(p.offset + k, None)
            mem[p.offset + k] = (1, 0)

    def float_copy(self, dst: str, src: str, pos: SrcPos | None) -> None:
        """A put's copy of ``src`` into ``dst`` (placeholders): ``dst`` may then hold any value
        ``src`` may hold, at any time (the NIC reads the source after the put is posted, in
        no order with the thread's later accesses). Both buffers must be of one kind
        (checked when every access is known, ``Extractor.extract``)."""
        src_base, dst_base = src.split(":")[1], dst.split(":")[1]
        self.ex.copies.append((src_base, dst_base, pos))
        def local(where: str) -> str:  # a remote operand's placeholder as its location's
            return where.removesuffix(":r}") + "}" if where.endswith(":r}") else where

        if self.ex.assume:
            values = set(self.float_values(local(src), copy=True))
        else:
            values = {0} | {v for *_, v in self.ex.float_known.get(local(src), ())}
        self.record_float(local(dst), values)

    def float_who(self) -> tuple[str, int]:
        return (self.host or "kernel", self.code.index)

    def record_float(self, where: str | list[str], values: set[int]) -> None:
        self.float_seq += 1
        who = self.float_who()
        for w in [where] if isinstance(where, str) else where:
            self.ex.float_stored.setdefault(w, set()).update(
                (who, self.epoch, self.float_seq, v) for v in values)

    def float_litmus(self, v: Value, where: str | list[str], pos: SrcPos | None) -> Scalar:
        """The litmus value of a float stored into ``where`` (a multimem store: every copy):
        its code (binary32.encode: an integer float of magnitude at most 2^24 is itself, so
        the models' integer sums are the float sums while they stay exact; every other
        binary32 value and interval a code of its own); a register read from a float
        location already holds one."""
        def exact(q: FVal) -> int:
            try:
                return binary32.encode(q)
            except binary32.Binary32Error as e:
                raise self.ex.error(pos, f"a float store: {e}") from None

        if isinstance(v, FSym):
            values = {exact(q) for _, q in v.rows}
            self.record_float(where, values)
            reg = _code_reg(v)
            return Sym(reg) if reg is not None else self.materialise_rows(v, exact, pos)
        if not isinstance(v, Flt):
            raise self.ex.error(pos, "a float store of something that is not a float")
        n = exact(v.value)
        self.record_float(where, {n})
        return n


# --------------------------------------------------------------------------
# The extractor: every thread, then the test text
# --------------------------------------------------------------------------


class CallLowering(Protocol):
    """How calls become litmus instructions (:class:`gdrcheck.kernel.calls.Calls`; passed
    in, so that the call table may use this module's types)."""

    def call(self, th: ThreadExtractor, fr: Frame, ins: Instr) -> Value | None: ...


class Extractor:
    def __init__(self, module: ir.Module, config: Config, path: str, source: str,
                 calls: Callable[[Extractor], CallLowering],
                 float_known: dict[str, frozenset[FloatWrite]] | None = None,
                 assume: bool = False) -> None:
        self.module = module
        self.config = config
        self.path = path
        self.source = source
        self.elems: dict[str, int] = {}
        self.float_kind: dict[str, bool] = {}  # buffer -> accessed as float data
        self.float_known = float_known or {}  # float location -> the values it may hold
        self.float_stored: dict[str, set[FloatWrite]] = {}  # float location -> writes
        # docs/kernels.md, "Assumed values": reads see the values of writes made before
        # their thread passed more CTA barriers than the reader has, each read guarded
        self.assume = assume
        self.guards: list[tuple[int, str]] = []  # (thread, its assumption register)
        self.final_guards: list[FinalGuard] = []
        self.indices: dict[str, set[int]] = {}
        self.copies: list[tuple[str, str, SrcPos | None]] = []  # puts: (source, destination)
        self.asserts: list[AssertSite] = []
        self.init_values: dict[tuple[str, int, int], int] = {}
        self.host_failures: list[HostFailure] = []
        self.signals: set[str] = set()
        self.shared: set[str] = set()
        self.shared_names: dict[str, str] = {}  # source name -> IR global
        self.shadow_owner: dict[tuple[int, object], int] = {}  # (rank, shadow) -> thread
        self.calls = calls(self)
        self.kernel = module.kernel(config.kernel)
        self.comms = {p.name for p in self.kernel.params if p.byval == DEV_COMM_TYPE}
        for p in self.kernel.params:
            if p.pointer and p.elem_bytes and p.name not in self.comms:
                self.elems[p.name] = p.elem_bytes

    def error(self, pos: SrcPos | None, message: str) -> KernelError:
        if pos is None:
            return KernelError(message, self.path)
        same = Path(pos.file).resolve() == Path(self.path).resolve()
        return KernelError(message, self.path if same else pos.file,
                           Pos(pos.line, max(pos.col, 1)), self.source if same else None)

    def growth_error(self, pos: SrcPos | None, message: str) -> KernelError:
        """A float table too large: without the assumption, the sign that the values do
        not settle (``extract`` then assumes); with it, a refusal."""
        err = self.error(pos, message)
        return err if self.assume else FloatGrowth(err.message, err.path, err.pos, err.source)

    def elem_size(self, base: str, size: int, pos: SrcPos | None) -> int:
        return self.elems.setdefault(base, size)

    def extract(self) -> Extraction:
        cfg = self.config
        threads: list[ThreadCode] = []
        stream = cfg.host_order == "stream"
        if stream and (cfg.init or cfg.check) and cfg.grid != 1:
            raise KernelError("--host-order stream runs the host code in thread 0 of the "
                              "rank's one CTA, the other threads meeting it at a bar.sync: it "
                              "needs --grid 1")
        for name, mode in ((cfg.init, "init"), (cfg.check, "check")):
            if name is None or stream:
                continue
            fn = self.host_function(name, mode)
            for rank in range(cfg.ranks):
                env = {p.ir_name: v for p, v in zip(fn.params, self.arguments(rank).values(),
                                                    strict=True)}
                ThreadExtractor(self, ThreadCode(-1, rank, 0, 0), mode).run(fn, env)
        for rank in range(cfg.ranks):
            env = self.arguments(rank)
            for cta in range(cfg.grid):
                for tid in range(cfg.block):
                    code = ThreadCode(len(threads), rank, cta, tid)
                    th = ThreadExtractor(self, code)
                    # stream order (docs/kernels.md, "Host code"): the host's copies
                    # complete before the kernel starts, the kernel before the host's
                    # cudaStreamSynchronize returns; each boundary is a fence.sc.sys
                    # (with several threads, the host code runs in thread 0, and the CTA's
                    # threads meet it at a bar.sync: every thread of the kernel starts after
                    # the copies and ends before the host reads)
                    many = cfg.block > 1
                    if stream and cfg.init:
                        if tid == 0:
                            th.stream_host = cfg.init
                            th.run(self.host_function(cfg.init, "init"),
                                   self.host_env(cfg.init, rank), "LINIT")
                            th.stream_host = None
                            th.emit("fence.sc.sys", None, "stream order: host code, then kernel")
                        if many:
                            th.emit("bar.sync 0", None, "stream order: the kernel starts")
                    th.run(self.kernel, dict(env), "LEND" if not (stream and cfg.check)
                           else "LKERNEL")
                    if stream and cfg.check:
                        th.emit("fence.sc.sys", None, "stream order: kernel, then host code")
                        if many:
                            th.emit("bar.sync 0", None, "stream order: the kernel ends")
                        if tid == 0:
                            th.stream_host = cfg.check
                            th.run(self.host_function(cfg.check, "check"),
                                   self.host_env(cfg.check, rank))
                            th.stream_host = None
                    threads.append(code)
        for src, dst, pos in self.copies:
            kinds = {self.float_kind.get(b) for b in (src, dst)} - {None}
            if len(kinds) > 1:
                raise self.error(pos, f"a put from {src} into {dst}: one holds floats and the "
                                 "other integers (a float location holds the float's code, "
                                 "not its encoding, docs/kernels.md)")
        for code in threads:
            code.lines = _drop_unused_labels(code.lines)
        return Extraction(self.path, cfg, threads, dict(self.elems), self.indices,
                          self.asserts, self.init_values, self.host_failures, self.signals,
                          set(self.shared), {b for b, f in self.float_kind.items() if f},
                          list(self.guards), list(self.final_guards))

    def host_env(self, name: str, rank: int) -> dict[str, Value]:
        fn = self.module.kernel(name)
        return {p.ir_name: v for p, v in zip(fn.params, self.arguments(rank).values(),
                                             strict=True)}

    def host_function(self, name: str, mode: str) -> ir.Function:
        """The ``--init``/``--check`` function: it takes the kernel's parameters."""
        fn = self.module.kernel(name)
        theirs = [p.name for p in fn.params]
        ours = [p.name for p in self.kernel.params]
        if theirs != ours:
            raise self.error(fn.pos, f"the host {mode} function {name} must take the kernel's "
                             f"parameters ({', '.join(ours)}), not ({', '.join(theirs)})")
        return fn

    def arguments(self, rank: int) -> dict[str, Value]:
        env: dict[str, Value] = {}
        names = {p.name for p in self.kernel.params}
        for key, _ in self.config.args:
            if key not in names:
                raise KernelError(f"--arg {key}: the kernel {self.kernel.source_name} has no "
                                  f"parameter {key!r} (parameters: "
                                  f"{', '.join(p.name for p in self.kernel.params)})")
        for p in self.kernel.params:
            given = self.config.arg(p.name, rank)
            if p.pointer:
                if given is not None:
                    raise KernelError(f"--arg {p.name}: a pointer parameter is a buffer of "
                                      "its own on every rank and takes no value")
                env[p.ir_name] = Ptr(p.name, rank, 0)
                continue
            if given is None:
                raise KernelError(f"the kernel's parameter {p.name!r} needs a value: "
                                  f"--arg {p.name}=VALUE (or one value per rank, "
                                  f"--arg {p.name}=0,1)")
            if p.ir_type == "float":
                try:
                    env[p.ir_name] = Flt(binary32.round32(Fraction(given)))
                except binary32.Binary32Error as e:
                    raise KernelError(f"--arg {p.name}: {e}") from None
                continue
            if not isinstance(given, int):
                raise KernelError(f"--arg {p.name}={given}: {p.name} is not a float parameter "
                                  f"(its type is {p.ir_type or 'not known'}): give an integer")
            env[p.ir_name] = given
        return env


def extract(module: ir.Module, config: Config, path: str, source: str,
            calls: Callable[[Extractor], CallLowering]) -> Extraction:
    """The litmus threads of ``config``'s kernel, its calls lowered by ``calls``."""
    if config.ranks < 1 or config.grid < 1 or config.block < 1:
        raise KernelError("--ranks, --grid and --block must be at least 1")
    if config.nodes is not None and len(config.nodes) != config.ranks:
        raise KernelError(f"--nodes gives {len(config.nodes)} nodes for {config.ranks} ranks")
    for key, values in config.args:
        if len(values) not in (1, config.ranks):
            raise KernelError(f"--arg {key}: {len(values)} values for {config.ranks} ranks "
                              "(give one, or one per rank)")
    # the values of each float location: those its writes may store, a fixpoint (a read's
    # table covers the values known so far; a round that stores new ones runs again);
    # when they do not settle, the same with the assumption (docs/kernels.md, "Assumed
    # values"): each read sees the values of the writes made before it, checked
    try:
        return _fixpoint(module, config, path, source, calls, assume=False,
                         rounds=MAX_FLOAT_ROUNDS_EXACT)
    except FloatGrowth:
        return _fixpoint(module, config, path, source, calls, assume=True,
                         rounds=MAX_FLOAT_ROUNDS)


def _fixpoint(module: ir.Module, config: Config, path: str, source: str,
              calls: Callable[[Extractor], CallLowering], assume: bool,
              rounds: int) -> Extraction:
    known: dict[str, frozenset[FloatWrite]] = {}
    for _ in range(rounds):
        ex = Extractor(module, config, path, source, calls, known, assume)
        result = ex.extract()
        grown = {b: frozenset(known.get(b, frozenset()) | v) for b, v in ex.float_stored.items()}
        if all(grown[b] == known.get(b) for b in grown):
            return result
        known.update(grown)
    message = (f"the float values stored do not settle after {rounds} rounds (a value read "
               "feeds a store of a new value each time" + (
                   ", even with each read seeing only the values stored by threads past no "
                   "more CTA barriers than the reader's, docs/kernels.md \"Assumed values\")"
                   if assume else ")"))
    raise KernelError(message, path) if assume else FloatGrowth(message, path)


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------

GIN_CONTEXT_COUNT_OFFSET = 80  # ncclDevComm.ginContextCount in gdrcheck's nccl_device.h
GIN_CONTEXT_COUNT = ("ncclDevComm.ginContextCount (the number of GIN contexts, not in the "
                     "configuration: only 0 % it, CTA 0's context, is known)")
LOCAL = "%local:"  # the base of a host function's local array (no buffer has this name)

# a float write: (the thread, host or kernel, and its index), the CTA barriers the thread
# had passed, its place among the thread's float accesses, a value it may store
FloatWrite = tuple[tuple[str, int], int, int, int]
MAX_FLOAT_ROWS = 4096
MAX_FLOAT_ROUNDS = 16
MAX_FLOAT_ROUNDS_EXACT = 6  # without the assumption: more rounds, the assumption's turn
ASSUME_REG = "assumption"  # each thread's assumption register (ThreadExtractor.guard)
_FLOAT_BINARY = frozenset({"fadd", "fsub", "fmul", "fdiv"})
_FLOAT_OTHER = frozenset({"fneg", "fcmp", "sitofp", "uitofp", "fptosi", "fptoui"})
_BINARY = frozenset({"add", "sub", "mul", "sdiv", "udiv", "srem", "urem", "and", "or", "xor",
                     "shl", "lshr", "ashr"})


def _wrap(v: int, bits: int) -> int:
    """``v`` as the unsigned value of a ``bits``-bit integer."""
    return v & ((1 << bits) - 1) if bits else v


def _signed(v: int, bits: int) -> int:
    if bits <= 0:
        return v
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def _litmus_int(s: Scalar, bits: int) -> Scalar:
    """A constant as the litmus test writes it: the signed value of its ``bits``-bit
    pattern (litmus registers hold mathematical integers: ``b - 1`` is ``add b, -1``)."""
    return _signed(s, bits) if isinstance(s, int) and bits else s


def _text(s: Scalar) -> str:
    return s.reg if isinstance(s, Sym) else str(s)


def _holds(op: str, a: int, b: int) -> bool:
    return {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b,
            "ge": a >= b}[op]


def _concrete(op: str, a: int, b: int, bits: int, pos: SrcPos | None, ex: Extractor) -> int:
    sa, sb = _signed(a, bits), _signed(b, bits)
    if op in ("sdiv", "udiv", "srem", "urem") and b == 0:
        raise ex.error(pos, "a division by zero")
    out = {
        "add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b,
        "sdiv": lambda: int(sa / sb), "udiv": lambda: a // b,
        "srem": lambda: sa - int(sa / sb) * sb, "urem": lambda: a % b,
        "and": lambda: a & b, "or": lambda: a | b, "xor": lambda: a ^ b,
        "shl": lambda: a << b, "lshr": lambda: a >> b, "ashr": lambda: sa >> b,
    }[op]()
    return _wrap(out, bits)


def _as_table(v: Value) -> FSym | None:
    if isinstance(v, Flt):
        return FSym((), (((), v.value),))
    return v if isinstance(v, FSym) else None


def _identity(v: Value) -> str | None:
    """The register of a table that is the register's own value (a float read)."""
    if isinstance(v, FSym) and len(v.regs) == 1 and all(k[0] == q for k, q in v.rows):
        return v.regs[0]
    return None


def _code_reg(v: Value) -> str | None:
    """The register of a table that is the float its register's code stands for (a float
    read): storing it stores the register."""
    if isinstance(v, FSym) and len(v.regs) == 1 and all(
            binary32.decode(k[0]) == q for k, q in v.rows):
        return v.regs[0]
    return None


def _rows_cond(t: FSym, keep: Callable[[FVal], bool]) -> Cond | int:
    """The condition over the registers under which the table's value satisfies ``keep``:
    the rows that do (or the negation of those that do not, when fewer)."""
    yes = [k for k, q in t.rows if keep(q)]
    no = [k for k, q in t.rows if not keep(q)]
    if not no:
        return 1
    if not yes:
        return 0

    def row(k: tuple[int, ...]) -> Cond:
        return _balanced("and", [Cmp("eq", Sym(r), c) for r, c in zip(t.regs, k, strict=True)])

    def any_of(keys: list[tuple[int, ...]]) -> Cond:
        return _balanced("or", [row(k) for k in keys])

    return any_of(yes) if len(yes) <= len(no) else negate(any_of(no))


def _balanced(op: Literal["and", "or"], conds: list[Cond]) -> Cond:
    """``conds`` joined by ``op`` as a balanced tree (its depth the logarithm of their
    number: the conditions of a table's rows are walked recursively)."""
    while len(conds) > 1:
        level: list[Cond] = [BoolOp(op, a, b) for a, b in zip(conds[::2], conds[1::2],
                                                               strict=False)]
        conds = level + conds[len(level) * 2:]
    return conds[0]


def _operands(c: BoolOp) -> list[Cond]:
    """The operands of a chain of one Boolean operator: ``a and (b and c)`` -> a, b, c."""
    out: list[Cond] = []
    for part in (c.a, c.b):
        if isinstance(part, BoolOp) and part.op == c.op:
            out.extend(_operands(part))
        else:
            out.append(part)
    return out


def _float_types(ins: Instr) -> list[str]:
    """The operand type of an ``fadd``/``fcmp``/... (its text: ``= fadd float %a, %b``)."""
    m = re.search(r"= (?:fadd|fsub|fmul|fdiv|fneg|fcmp)(?: [a-z]+)* (float|double|half|bfloat|"
                  r"<[^>]+>|fp128|x86_fp80) ", ins.text)
    return [m.group(1) if m else ins.text[:40]]


def _operand_type(ins: Instr) -> str:
    """The type of the first operand (from the instruction text)."""
    m = re.search(r"= (?:icmp \w+|zext|sext|trunc|sitofp|uitofp) (i\d+|ptr)", ins.text)
    if m:
        return m.group(1)
    m = re.match(r"store (?:volatile )?(i\d+|ptr|float|double|half)", ins.text)
    return m.group(1) if m else ""


def _index_type(ins: Instr, k: int) -> str:
    types = re.findall(r", (i\d+) ", ins.text.split(", !")[0] + " ")
    return types[k] if k < len(types) else "i64"


def _gep_sizes(ty: str) -> list[int] | None:
    """The byte size of each GEP index's step: ``i32`` -> [4]; ``[8 x i32]`` -> [32, 4]."""
    if ty == "float":
        return [4]
    m = re.fullmatch(r"i(\d+)", ty)
    if m:
        return [int(m.group(1)) // 8]
    m = re.fullmatch(r"\[(\d+) x (.+)\]", ty)
    if m:
        inner = _gep_sizes(m.group(2))
        if inner is None:
            return None
        return [int(m.group(1)) * inner[0], *inner]
    return None


def _select_cond(c: Cond, t: bool | Cond, f: bool | Cond) -> Value:
    """``c ? t : f`` of conditions, simplified when a side is constant."""
    if isinstance(t, bool) and isinstance(f, bool):
        return int(t) if t == f else (c if t else Not(c))
    if isinstance(f, bool):
        assert not isinstance(t, bool)
        return BoolOp("or", Not(c), t) if f else BoolOp("and", c, t)
    if isinstance(t, bool):
        return BoolOp("or", c, f) if t else BoolOp("and", Not(c), f)
    return BoolOp("or", BoolOp("and", c, t), BoolOp("and", Not(c), f))


def _key(v: Value) -> str:
    return repr(v)  # one sortable form for every kind of value


def _loop_headers(fn: ir.Function) -> dict[str, frozenset[str]]:
    """Each block entered by a back edge (of a depth-first walk from the entry) -> the
    names its natural loop defines (its blocks' instructions, the header's phis too)."""
    succ: dict[str, list[str]] = {
        name: [o.name for o in b.instrs[-1].operands if isinstance(o, BlockRef)]
        for name, b in fn.blocks.items()
    }
    preds: dict[str, list[str]] = {name: [] for name in fn.blocks}
    for name, nexts in succ.items():
        for n in nexts:
            preds.setdefault(n, []).append(name)
    back: list[tuple[str, str]] = []
    state: dict[str, int] = {fn.entry: 1}
    stack: list[tuple[str, int]] = [(fn.entry, 0)]
    while stack:
        node, k = stack.pop()
        nexts = succ.get(node, [])
        if k < len(nexts):
            stack.append((node, k + 1))
            nxt = nexts[k]
            if state.get(nxt) == 1:
                back.append((node, nxt))
            elif nxt not in state:
                state[nxt] = 1
                stack.append((nxt, 0))
        else:
            state[node] = 2
    bodies: dict[str, set[str]] = {}
    for tail, head in back:
        body = bodies.setdefault(head, {head})
        work = [tail]
        while work:
            b = work.pop()
            if b in body:
                continue
            body.add(b)
            work.extend(preds.get(b, []))
    return {head: frozenset(i.name for b in body for i in fn.blocks[b].instrs if i.name)
            for head, body in bodies.items()}


def _drop_unused_labels(lines: list[Line]) -> list[Line]:
    """Without the jumps to the next line and the labels no jump names."""
    out = list(lines)
    while True:
        out = [ln for k, ln in enumerate(out)
               if not (ln.text.startswith("goto ") and k + 1 < len(out)
                       and out[k + 1].text == ln.text[5:] + ":")]
        used = set()
        for ln in out:
            m = re.match(r"(?:b\w+ .*, |goto )(\w+)$", ln.text)
            if m:
                used.add(m.group(1))
        kept = [ln for ln in out if not (ln.text.endswith(":") and ln.text[:-1] not in used)]
        if len(kept) == len(out):
            return kept
        out = kept
