"""Cells of the thread table -> instruction nodes, per dialect.

The grammar parses every cell into a generic shape (a mnemonic and a list of
operands, :class:`Cell`); this module gives it its meaning in the test's
dialect (X86, PTX, GIN) and reports what is wrong in words a user understands.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Literal, NoReturn, cast

from lark import Token, Tree

from gdrcheck.dataclass_cache import dataclass
from gdrcheck.errors import LitmusError, Pos
from gdrcheck.litmus.ast import (
    Branch,
    Const,
    CudaFlushRdma,
    CudaLaunch,
    CudaSync,
    GinBarrier,
    GinFlush,
    GinFlushAsync,
    GinGet,
    GinOptions,
    GinPut,
    GinRead,
    GinReset,
    GinSignal,
    GinWait,
    GinWaitRequest,
    Goto,
    HostVerb,
    HostWaitCompletion,
    Instr,
    Label,
    LocalOp,
    LocRef,
    MultimemLdReduce,
    MultimemRed,
    MultimemStore,
    Proxy,
    PtxAsyncStore,
    PtxAsyncWait,
    PtxAtom,
    PtxBarrier,
    PtxBulkCommit,
    PtxBulkLoad,
    PtxBulkStore,
    PtxClusterBarrier,
    PtxFence,
    PtxGridDep,
    PtxLoad,
    PtxMapa,
    PtxMbarArrive,
    PtxMbarInit,
    PtxMbarWait,
    PtxRed,
    PtxStore,
    PtxStoreAsync,
    Reg,
    Scope,
    Selp,
    Sem,
    Setp,
    ShmemCall,
    SignalSpec,
    StreamWaitValue,
    Thread,
    Value,
    X86Instr,
    X86Locked,
    X86Mem,
    X86Mfence,
    X86Mov,
    X86Operand,
    X86Xchg,
)
from gdrcheck.litmus.grammar import token_pos, tree_pos

# --------------------------------------------------------------------------
# The generic cell
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Operand:
    """One operand as written.

    kind: ``int`` (5), ``imm`` ($5), ``name`` (x, r0, c0), ``at`` (x@1),
    ``plus`` (S+2, S@1+2: ``inner`` + ``value``), ``kw`` (sig=S: ``name`` =
    ``inner``), ``mem`` ([x], [x@1]) or ``cmp`` (>=).
    """

    kind: str
    pos: Pos
    name: str = ""
    rank: int | None = None
    value: int = 0
    inner: Operand | None = None

    @property
    def text(self) -> str:
        if self.kind == "int":
            return str(self.value)
        if self.kind == "imm":
            return f"${self.value}"
        if self.kind in ("name", "cmp"):
            return self.name
        if self.kind == "at":
            return f"{self.name}@{self.rank}"
        if self.kind == "plus":
            assert self.inner is not None
            return f"{self.inner.text}+{self.value}"
        if self.kind == "kw":
            assert self.inner is not None
            return f"{self.name}={self.inner.text}"
        at = "" if self.rank is None else f"@{self.rank}"
        return f"[{self.name}{at}]"


@dataclass(frozen=True)
class Cell:
    """A non-empty cell: ``mnemonic operands`` or a label ``name:``."""

    mnemonic: str
    pos: Pos
    operands: tuple[Operand, ...]
    is_label: bool = False


def _fail(message: str, pos: Pos) -> NoReturn:
    raise LitmusError(message, None, pos)


def _rank(tok: Token) -> int:
    value = int(tok)
    if value < 0:
        _fail(f"a rank is a number >= 0, found {value}", token_pos(tok))
    return value


def _operand(tree: Tree) -> Operand:
    kids = tree.children
    pos = tree_pos(tree)
    data = tree.data
    if data == "op_int":
        return Operand("int", pos, value=int(cast(Token, kids[0])))
    if data == "op_imm":
        return Operand("imm", pos, value=int(str(kids[0])[1:]))
    if data == "op_name":
        return Operand("name", pos, name=str(kids[0]))
    if data == "op_at":
        return Operand("at", pos, name=str(kids[0]), rank=_rank(cast(Token, kids[1])))
    if data == "op_plus":
        return Operand("plus", pos, inner=_operand(cast(Tree, kids[0])), value=int(str(kids[1])))
    if data == "op_kw":
        return Operand("kw", pos, name=str(kids[0]), inner=_operand(cast(Tree, kids[1])))
    if data == "op_kw_plus":
        base = _operand(cast(Tree, kids[1]))
        inner = Operand("plus", base.pos, inner=base, value=int(str(kids[2])))
        return Operand("kw", pos, name=str(kids[0]), inner=inner)
    if data == "op_mem":
        rank = None if kids[1] is None else _rank(cast(Token, kids[1]))
        return Operand("mem", pos, name=str(kids[0]), rank=rank)
    if data == "op_cmp":
        return Operand("cmp", pos, name=str(kids[0]))
    raise AssertionError(f"unknown operand tree {data}")  # pragma: no cover


def cell_from_tree(tree: Tree) -> Cell:
    mnemonic = cast(Token, tree.children[0])
    pos = token_pos(mnemonic)
    if tree.data == "label_cell":
        name = str(mnemonic)
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            _fail(f"bad label name {name!r}", pos)
        return Cell(name, pos, (), is_label=True)
    ops_tree = tree.children[1]
    ops: tuple[Operand, ...] = ()
    if isinstance(ops_tree, Tree):
        ops = tuple(_operand(cast(Tree, t)) for t in ops_tree.children)
    return Cell(str(mnemonic), pos, ops)


# --------------------------------------------------------------------------
# Context of a thread
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class ThreadContext:
    """What instruction building needs to know beyond the cell itself."""

    arch: str
    thread: int
    dests: frozenset[str] = frozenset()  # identifiers this thread writes as registers
    signals: frozenset[str] = frozenset()  # names declared 'S : signal'
    counters: frozenset[str] = frozenset()  # names declared 'C : counter'
    shared: frozenset[str] = frozenset()  # names declared 's : shared'
    mbarriers: frozenset[str] = frozenset()  # names declared 'mb : mbarrier N'
    multicasts: frozenset[str] = frozenset()  # names declared 'multicast M = ...'
    host: bool = False  # a host (CPU) thread: 'P2@host,node 0' (docs/litmus-format.md §12)
    launched: bool = False  # a GPU thread started by cuda.launch ('..., launched')
    mapped: tuple[tuple[str, str], ...] = ()  # mapa destinations and the shared word they map


_REG_RE = re.compile(r"r[0-9]+")

# The first operand of these is a destination register.
_DEST_MNEMONICS = frozenset(
    {"ld", "atom", "mov", "add", "sub", "mul", "div", "and", "or", "xor", "setp", "selp", "suld",
     "tld", "cold"}
)
_DEST_CALLS = frozenset({"gin.read_signal", "gin.read_counter", "multimem.ld_reduce"})


def mapa_targets(cells: Iterable[Cell]) -> tuple[tuple[str, str], ...]:
    """The names a thread's ``mapa`` instructions define, each with the shared word (or
    mbarrier) it maps (docs/ptx-clusters.md)."""
    out: dict[str, str] = {}
    for cell in cells:
        if cell.is_label or cell.mnemonic.lower().split(".")[0] != "mapa":
            continue
        ops = cell.operands
        if len(ops) >= 2 and ops[0].kind == "name" and ops[1].kind == "name":
            out.setdefault(ops[0].name, ops[1].name)
    return tuple(out.items())


def destinations(cells: Iterable[Cell]) -> frozenset[str]:
    """Names a PTX/GIN thread uses as destination registers."""
    out: set[str] = set()
    for cell in cells:
        if cell.is_label or not cell.operands or cell.operands[0].kind != "name":
            continue
        parts = cell.mnemonic.lower().split(".")
        if parts[0] in _DEST_MNEMONICS or ".".join(parts[:2]) in _DEST_CALLS:
            out.add(cell.operands[0].name)
    return frozenset(out)


def check_labels(cells: Sequence[Cell], thread: int) -> None:
    """Every branch target is a label of the thread; no label is defined twice."""
    defined: dict[str, Pos] = {}
    for cell in cells:
        if cell.is_label:
            if cell.mnemonic in defined:
                _fail(f"label {cell.mnemonic} is defined twice in thread P{thread}", cell.pos)
            defined[cell.mnemonic] = cell.pos
    for cell in cells:
        base = cell.mnemonic.lower().split(".")[0]
        if cell.is_label or (base not in _BRANCHES and base not in ("goto", "bra")):
            continue
        target = cell.operands[-1]
        if target.name not in defined:
            _fail(f"label {target.name} is not defined in thread P{thread}", target.pos)


# --------------------------------------------------------------------------
# Operand helpers
# --------------------------------------------------------------------------


def _arity(cell: Cell, low: int, high: int, usage: str) -> None:
    n = len(cell.operands)
    if low <= n <= high:
        return
    if low == high:
        want = f"{low} operand" + ("" if low == 1 else "s")
    elif high == low + 1:
        want = f"{low} or {high} operands"
    else:
        want = f"{low} to {high} operands"
    found = "none" if n == 0 else str(n)
    pos = cell.operands[high].pos if n > high else cell.pos
    _fail(f"'{cell.mnemonic}' takes {want} ({usage}), found {found}", pos)


def _reg(op: Operand, what: str = "a register") -> Reg:
    if op.kind != "name":
        _fail(f"expected {what}, found {op.text!r}", op.pos)
    return Reg(op.name, op.pos)


def _loc(op: Operand, what: str = "a location") -> LocRef:
    if op.kind == "name":
        return LocRef(op.name, None, op.pos)
    if op.kind == "at":
        return LocRef(op.name, op.rank, op.pos)
    _fail(f"expected {what}, found {op.text!r}", op.pos)


def _no_float_or_unsigned(cell: Cell, parts: list[str]) -> None:
    """setp and selp on what the dialect's registers cannot hold: they hold mathematical
    integers (no floats, no unsigned wrap-around)."""
    offset = len(parts[0])
    for q in parts[1:]:
        qpos = Pos(cell.pos.line, cell.pos.col + offset)
        offset += len(q) + 1
        if q in ("f16", "f32", "f64", "ftz") or q in _FLOAT_CMPS:
            _fail(f"'{cell.mnemonic}': the registers of a litmus test hold integers, not "
                  f"floats ('.{q}' is not supported)", qpos)
        if q in ("lo", "ls", "hi", "hs"):
            _fail(f"'{cell.mnemonic}': the registers of a litmus test hold mathematical "
                  f"integers, so the unsigned comparison '.{q}' is not supported (write .lt, "
                  ".le, .gt or .ge)", qpos)
        if q in ("and", "or", "xor") and parts[0] == "setp":
            _fail(f"'{cell.mnemonic}': setp with a Boolean operator ('.{q}') is not supported "
                  "(combine the predicates with and, or, xor)", qpos)


_FLOAT_CMPS = frozenset({"equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"})


def _value(op: Operand) -> Value:
    if op.kind == "int":
        return Const(op.value, op.pos)
    if op.kind == "name":
        return Reg(op.name, op.pos)
    _fail(f"expected a register or an integer, found {op.text!r}", op.pos)


def _int(op: Operand, what: str = "an integer") -> int:
    if op.kind != "int":
        _fail(f"expected {what}, found {op.text!r}", op.pos)
    return op.value


def _word(op: Operand, choices: Sequence[str], what: str) -> str:
    if op.kind != "name" or op.name not in choices:
        _fail(f"expected {what} ({_alternatives(choices)}), found {op.text!r}", op.pos)
    return op.name


def _alternatives(choices: Sequence[str]) -> str:
    if len(choices) == 1:
        return choices[0]
    return ", ".join(choices[:-1]) + " or " + choices[-1]


# --------------------------------------------------------------------------
# X86
# --------------------------------------------------------------------------

X86_REGISTERS = frozenset(
    ["EAX", "EBX", "ECX", "EDX", "ESI", "EDI", "EBP", "ESP"]
    + ["RAX", "RBX", "RCX", "RDX", "RSI", "RDI", "RBP", "RSP"]
    + [f"R{i}" for i in range(8, 16)]
    + [f"R{i}D" for i in range(8, 16)]
)

_X86_LOCKED = ("ADD", "XADD", "CMPXCHG", "INC", "DEC", "XCHG")
_X86_KNOWN = "MOV, XCHG, MFENCE and LOCK ADD|XADD|CMPXCHG|INC|DEC|XCHG"


def _x86_operand(op: Operand) -> X86Operand:
    if op.kind in ("imm", "int"):
        return Const(op.value, op.pos)
    if op.kind == "name":
        if op.name.upper() in X86_REGISTERS:
            return Reg(op.name.upper(), op.pos)
        _fail(f"expected a register, [location] or $value, found {op.text!r}", op.pos)
    if op.kind == "mem":
        if op.name.upper() in X86_REGISTERS:
            _fail(f"indirect addressing {op.text} is not supported", op.pos)
        return X86Mem(LocRef(op.name, op.rank, op.pos), op.pos)
    _fail(f"unexpected operand {op.text!r} in an X86 instruction", op.pos)


def _x86_reg_or_mem(op: Operand, mn: str) -> X86Operand:
    out = _x86_operand(op)
    if isinstance(out, Const):
        _fail(f"'{mn}' needs a register or a [location] here, found {op.text!r}", op.pos)
    return out


def build_x86(cell: Cell) -> X86Instr:
    if cell.is_label:
        _fail("labels are not supported in X86 tests", cell.pos)
    words = cell.mnemonic.upper().split()
    ops = cell.operands
    if len(words) == 2:
        op = words[1]
        mn = f"LOCK {op}"
        if op not in _X86_LOCKED:
            _fail(f"unknown instruction {cell.mnemonic!r} (X86 tests support {_X86_KNOWN})",
                  cell.pos)
        if op in ("INC", "DEC"):
            _arity(cell, 1, 1, f"{mn} [x]")
            return X86Locked(op, _x86_mem(ops[0], mn), None, cell.pos)
        _arity(cell, 2, 2, f"{mn} [x],src")
        if op == "XCHG":
            a, b = _x86_reg_or_mem(ops[0], mn), _x86_reg_or_mem(ops[1], mn)
            if not isinstance(a, X86Mem) and not isinstance(b, X86Mem):
                _fail("'LOCK XCHG' needs a [location] operand", cell.pos)
            return X86Xchg(a, b, cell.pos)
        mem = _x86_mem(ops[0], mn)
        arg = _x86_operand(ops[1])
        if isinstance(arg, X86Mem) or (op != "ADD" and not isinstance(arg, Reg)):
            want = "a register or $value" if op == "ADD" else "a register"
            _fail(f"'{mn}' needs {want} as its second operand, found {ops[1].text!r}",
                  ops[1].pos)
        return X86Locked(op, mem, arg, cell.pos)
    mn = words[0]
    if mn == "MFENCE":
        _arity(cell, 0, 0, "MFENCE")
        return X86Mfence(cell.pos)
    if mn == "MOV":
        _arity(cell, 2, 2, "MOV dst,src")
        dst = _x86_reg_or_mem(ops[0], mn)
        src = _x86_operand(ops[1])
        if isinstance(dst, X86Mem) and isinstance(src, X86Mem):
            _fail("'MOV' cannot move from memory to memory", ops[1].pos)
        return X86Mov(dst, src, cell.pos)
    if mn == "XCHG":
        _arity(cell, 2, 2, "XCHG a,b")
        a, b = _x86_reg_or_mem(ops[0], mn), _x86_reg_or_mem(ops[1], mn)
        if isinstance(a, X86Mem) and isinstance(b, X86Mem):
            _fail("'XCHG' cannot exchange two memory locations", ops[1].pos)
        return X86Xchg(a, b, cell.pos)
    _fail(f"unknown instruction {cell.mnemonic!r} (X86 tests support {_X86_KNOWN})", cell.pos)


def _x86_mem(op: Operand, mn: str) -> X86Mem:
    out = _x86_operand(op)
    if not isinstance(out, X86Mem):
        _fail(f"'{mn}' needs a [location] as its first operand, found {op.text!r}", op.pos)
    return out


# --------------------------------------------------------------------------
# PTX
# --------------------------------------------------------------------------

SCOPES: tuple[Scope, ...] = ("cta", "cluster", "gpu", "sys")  # PTX ISA §8.5
STRONG: tuple[Sem, ...] = ("relaxed", "acquire", "release", "acq_rel", "sc")
LD_SEMS: tuple[Sem, ...] = ("weak", "relaxed", "acquire", "volatile")
ST_SEMS: tuple[Sem, ...] = ("weak", "relaxed", "release", "volatile")
ATOM_SEMS: tuple[Sem, ...] = ("relaxed", "acquire", "release", "acq_rel")
FENCE_KINDS = ("sc", "acq_rel", "acquire", "release")
ATOM_OPS = ("add", "sub", "mul", "div", "and", "or", "xor", "exch", "cas", "inc", "dec",
            "min", "max")
RED_OPS = tuple(op for op in ATOM_OPS if op not in ("exch", "cas"))
LOCAL_OPS = ("add", "sub", "mul", "div", "and", "or", "xor")
# multimem (docs/litmus-format.md §11): the semantics and operations the format accepts
MULTIMEM_ST_SEMS: tuple[Sem, ...] = ("weak", "relaxed", "release")
MULTIMEM_RED_SEMS: tuple[Sem, ...] = ("relaxed", "release")
MULTIMEM_LD_SEMS: tuple[Sem, ...] = ("weak", "relaxed", "acquire")
MULTIMEM_RED_OPS = ("add",)
MULTIMEM_LD_OPS = ("add", "min", "max")
_BRANCHES = {"beq": "eq", "bne": "ne", "blt": "lt", "bgt": "gt", "ble": "le", "bge": "ge"}
BRANCH_MNEMONICS = {cond: mn for mn, cond in _BRANCHES.items()}
MEMBAR_SCOPES: dict[str, Scope] = {"cta": "cta", "gl": "gpu", "sys": "sys"}
# Qualifiers accepted and dropped: the (default) global state space and integer types.
_IGNORED_QUALS = frozenset({"global", "u32", "s32", "b32", "u64", "s64", "b64"})
_PTX_KNOWN = ("ld, st, suld, sust, tld, ld.const (cold), atom, red, cp.async.bulk, mbarrier, "
              "multimem, fence, membar, bar, barrier, barrier.cluster, mapa, st.async, "
              "red.async, griddepcontrol, branches, goto, setp, selp and register ops")
# fence.proxy.<kind>: the proxy kinds of the PTX ISA (the membar/fence instruction: .alias,
# .async{.global|.shared::cta|.shared::cluster}) and of the mixed-proxy paper / Dartagnan's
# PTX 7.5 tests (.surface, .texture, .constant).
PROXY_FENCE_KINDS = ("alias", "surface", "texture", "constant", "async", "async.global",
                     "async.shared::cta", "async.shared::cluster")
# The state-space qualifiers of ld/st/atom/red on a shared-memory word.
_SHARED_QUALS = ("shared", "shared::cta", "shared::cluster")
# st.async / red.async: the state space and completion mechanism (PTX ISA st.async, red.async)
_ASYNC_QUALS = ("shared::cluster",)
_COMPLETE_TX = ("mbarrier::complete_tx::bytes",)
RED_ASYNC_OPS = ("add", "min", "max", "and", "or", "xor")  # (.inc, .dec: not supported)


def _qualifiers(
    cell: Cell, parts: list[str], cats: dict[str, Sequence[str]], base: int = 1
) -> dict[str, str]:
    """Sort the dotted qualifiers of a mnemonic (after its ``base`` first parts) into
    categories (semantics, scope, operation, ...)."""
    out: dict[str, str] = {}
    name = ".".join(parts[:base])
    offset = len(name)
    for q in parts[base:]:
        qpos = Pos(cell.pos.line, cell.pos.col + offset)
        offset += len(q) + 1
        if q in _IGNORED_QUALS:
            continue
        for cat, names in cats.items():
            if q in names:
                if cat in out:
                    _fail(f"'{cell.mnemonic}' has two {cat} qualifiers "
                          f"('.{out[cat]}' and '.{q}')", qpos)
                out[cat] = q
                break
        else:
            accepted = ", ".join("." + n for names in cats.values() for n in names)
            accepts = f"{name} accepts {accepted}" if accepted else f"{name} takes none"
            _fail(f"unknown qualifier '.{q}' in '{cell.mnemonic}' ({accepts})", qpos)
    return out


def _sem_scope(
    cell: Cell, q: dict[str, str], default: Sem, sems: Sequence[str]
) -> tuple[Sem, Scope | None]:
    sem = cast(Sem, q.get("semantics", default))
    scope = cast("Scope | None", q.get("scope"))
    if sem in STRONG and scope is None:
        _fail(f"strong operation '{cell.mnemonic}' needs a scope (.cta, .cluster, .gpu or .sys)",
              cell.pos)
    if sem not in STRONG and scope is not None:
        if "semantics" in q:
            _fail(f"'{cell.mnemonic}': a .{sem} operation takes no scope", cell.pos)
        strong = ", ".join("." + s for s in sems if s in STRONG)
        _fail(f"'{cell.mnemonic}': a scope needs a strong semantics ({strong})", cell.pos)
    return sem, scope


class _Builder:
    """Builds the PTX and GIN instructions of one thread."""

    def __init__(self, ctx: ThreadContext) -> None:
        self.ctx = ctx
        self.mapa_seen: set[str] = set()

    def is_register(self, name: str) -> bool:
        if name in dict(self.ctx.mapped):
            return False  # a mapped shared::cluster address (mapa), a location
        return bool(_REG_RE.fullmatch(name)) or name in self.ctx.dests

    def target(self, name: str) -> str:
        """The shared word a mapa destination maps (any other name: itself)."""
        return dict(self.ctx.mapped).get(name, name)

    def loc(self, cell: Cell, op: Operand, what: str = "a location") -> LocRef:
        """A location operand; a register of the thread (or a name in the register syntax
        r0, r1, ...) is refused rather than read as a location of that name. A name a
        ``mapa`` defines is a location: the copy of a shared word in a CTA of the cluster."""
        if op.kind == "name" and op.name in dict(self.ctx.mapped):
            return LocRef(op.name, None, op.pos)
        if op.kind == "name" and self.is_register(op.name):
            _fail(f"{op.name!r} is a register, but '{cell.mnemonic}' needs {what} here "
                  "(locations and registers do not share names)", op.pos)
        if op.kind in ("name", "at") and op.name in self.ctx.multicasts:
            base = cell.mnemonic.lower().split(".")[0]
            if base not in ("ld", "st") or op.kind == "at":
                _fail(f"{op.name!r} is a multicast object: only multimem.st, multimem.red and "
                      "multimem.ld_reduce access it (PTX ISA §8.2.3; a plain ld or st of it is "
                      "undefined behaviour, flagged by the models); a plain access names a copy",
                      op.pos)
        return _loc(op, what)

    # ---- dispatch

    def build(self, cell: Cell) -> Instr:
        if cell.is_label:
            return Label(cell.mnemonic, cell.pos)
        parts = cell.mnemonic.lower().split(".")
        base = parts[0]
        if base in _HOST_BASES:
            if self.ctx.arch != "GIN":
                _fail(f"unknown instruction {cell.mnemonic!r} ({base}.* calls need a GIN test)",
                      cell.pos)
            return build_host_instr(self, cell, parts)
        if base in ("gin", "shmem"):
            if self.ctx.arch != "GIN":
                _fail(f"unknown instruction {cell.mnemonic!r} ({base}.* calls need a GIN test)",
                      cell.pos)
            if base == "gin":
                return self.gin(cell, parts)
            return self.shmem(cell, parts)
        method = getattr(self, "ptx_" + base, None)
        if base in LOCAL_OPS:
            return self.local_op(cell, parts)
        if base in _BRANCHES:
            return self.branch(cell, parts)
        if method is None:
            _fail(f"unknown instruction {cell.mnemonic!r} ({self.ctx.arch} tests support "
                  f"{_PTX_KNOWN}{', gin.* and shmem.* calls' if self.ctx.arch == 'GIN' else ''})",
                  cell.pos)
        return cast(Instr, method(cell, parts))

    # ---- PTX memory operations

    def ptx_cp(self, cell: Cell, parts: list[str]) -> Instr:
        if parts[:3] != ["cp", "async", "bulk"] or len(parts) not in (3, 4, 5) or (
                len(parts) >= 4 and parts[3] not in ("wait_group", "commit_group")) or (
                len(parts) == 5 and parts[3:] != ["wait_group", "read"]):
            _fail(f"unknown instruction {cell.mnemonic!r} (expected cp.async.bulk x, v, "
                  "cp.async.bulk s, x, mb, cp.async.bulk x, s, cp.async.bulk.commit_group or "
                  "cp.async.bulk.wait_group{.read} N)", cell.pos)
        ops = cell.operands
        if len(parts) == 4 and parts[3] == "commit_group":
            _arity(cell, 0, 0, "cp.async.bulk.commit_group")
            return PtxBulkCommit(cell.pos)
        if len(parts) >= 4:
            _arity(cell, 1, 1, f"{cell.mnemonic} N")
            n = _int(ops[0], "a group count")
            if n < 0:
                _fail(f"a group count is >= 0, found {n}", ops[0].pos)
            return PtxAsyncWait(n, cell.pos, read=len(parts) == 5)
        _arity(cell, 2, 3, "cp.async.bulk x, v | cp.async.bulk s, x, mb | cp.async.bulk x, s")
        if len(ops) == 3:
            dst = self.loc(cell, ops[0], "a shared-memory destination")
            if dst.name not in self.ctx.shared:
                _fail(f"a TMA load writes shared memory: {dst.name!r} is not declared "
                      f"'{dst.name} : shared'", dst.pos)
            src = self._global(cell, ops[1], "source of a TMA load")
            return PtxBulkLoad(dst, src, self._mbar(ops[2]), cell.pos)
        dst = self._global(cell, ops[0], "destination of a bulk copy")
        if ops[1].kind == "name" and ops[1].name in self.ctx.shared:
            return PtxBulkStore(dst, _loc(ops[1]), cell.pos)
        return PtxAsyncStore(dst, _value(ops[1]), cell.pos)

    def _global(self, cell: Cell, op: Operand, what: str) -> LocRef:
        loc = self.loc(cell, op, "a global location")
        if loc.name in self.ctx.shared or loc.name in self.ctx.mbarriers:
            _fail(f"the {what} is global memory, found the shared {loc.name!r}", loc.pos)
        return loc

    def ptx_ld(self, cell: Cell, parts: list[str]) -> Instr:
        q = _qualifiers(cell, parts, {"semantics": LD_SEMS, "scope": SCOPES,
                                      "state space": ("const",) + _SHARED_QUALS})
        _arity(cell, 2, 2, "ld{.sem}{.scope} r, x")
        ops = cell.operands
        dst = _reg(ops[0], "a destination register")
        src = ops[1]
        if not q and (src.kind == "int" or (src.kind == "name" and self.is_register(src.name))):
            return LocalOp("mov", dst, (_value(src),), cell.pos)
        if q.get("state space") == "const":
            return self._proxy_load(cell, q, "constant")
        sem, scope = _sem_scope(cell, q, "weak", LD_SEMS)
        loc = self.loc(cell, src)
        self._space(cell, q, loc)
        return PtxLoad(sem, scope, dst, loc, cell.pos)

    def ptx_st(self, cell: Cell, parts: list[str]) -> Instr:
        if len(parts) > 1 and parts[1] == "async":
            return self._async_store(cell, parts)
        q = _qualifiers(cell, parts, {"semantics": ST_SEMS, "scope": SCOPES,
                                      "state space": _SHARED_QUALS})
        _arity(cell, 2, 2, "st{.sem}{.scope} x, v")
        sem, scope = _sem_scope(cell, q, "weak", ST_SEMS)
        loc = self.loc(cell, cell.operands[0])
        self._space(cell, q, loc)
        return PtxStore(sem, scope, loc, _value(cell.operands[1]), cell.pos)

    def _space(self, cell: Cell, q: dict[str, str], loc: LocRef) -> None:
        """A '.shared' qualifier names a shared-memory word (the declaration decides)."""
        if "state space" in q and self.target(loc.name) not in self.ctx.shared:
            _fail(f"'{cell.mnemonic}' accesses shared memory, but {loc.name!r} is not "
                  f"declared '{loc.name} : shared'", loc.pos)
        self._not_mbarrier(loc)

    def _not_mbarrier(self, loc: LocRef) -> None:
        if self.target(loc.name) in self.ctx.mbarriers:
            _fail(f"{loc.name!r} is an mbarrier: use mbarrier.arrive and mbarrier.wait on it",
                  loc.pos)

    # ---- surface, texture and constant accesses (Dartagnan's PTX 7.5 dialect)

    def _proxy_load(self, cell: Cell, q: dict[str, str], proxy: Proxy) -> Instr:
        if q.get("semantics", "weak") != "weak" or "scope" in q:
            _fail(f"'{cell.mnemonic}': {proxy} accesses are weak (only '.weak' is accepted)",
                  cell.pos)
        _arity(cell, 2, 2, f"{cell.mnemonic} r, x")
        dst = _reg(cell.operands[0], "a destination register")
        loc = self._proxy_loc(cell.operands[1], proxy)
        return PtxLoad("weak", None, dst, loc, cell.pos, proxy=proxy)

    def _proxy_loc(self, op: Operand, proxy: str) -> LocRef:
        loc = _loc(op)
        if loc.name in self.ctx.shared or loc.name in self.ctx.mbarriers:
            _fail(f"a {proxy} access cannot name shared memory ({loc.name!r})", loc.pos)
        return loc

    def ptx_suld(self, cell: Cell, parts: list[str]) -> Instr:
        q = _qualifiers(cell, parts, {"semantics": ("weak",)})
        return self._proxy_load(cell, q, "surface")

    def ptx_tld(self, cell: Cell, parts: list[str]) -> Instr:
        q = _qualifiers(cell, parts, {"semantics": ("weak",)})
        return self._proxy_load(cell, q, "texture")

    def ptx_cold(self, cell: Cell, parts: list[str]) -> Instr:
        q = _qualifiers(cell, parts, {"semantics": ("weak",)})
        return self._proxy_load(cell, q, "constant")

    def ptx_sust(self, cell: Cell, parts: list[str]) -> Instr:
        _qualifiers(cell, parts, {"semantics": ("weak",)})
        _arity(cell, 2, 2, "sust{.weak} s, v")
        loc = self._proxy_loc(cell.operands[0], "surface")
        return PtxStore("weak", None, loc, _value(cell.operands[1]), cell.pos, proxy="surface")

    # ---- mbarriers (docs/litmus-format.md §7.3; PTX ISA mbarrier)

    def _mbar(self, op: Operand, remote: bool = False) -> LocRef:
        """An mbarrier operand; with ``remote``, also a mapa destination that maps one (an
        mbarrier of a CTA of the cluster: shared::cluster)."""
        if op.kind == "name" and op.name in dict(self.ctx.mapped):
            if not remote:
                _fail(f"{op.name!r} is a shared::cluster address (mapa): this operation takes "
                      "an mbarrier of the thread's own CTA (shared::cta; PTX ISA mbarrier)",
                      op.pos)
            if self.target(op.name) not in self.ctx.mbarriers:
                _fail(f"{op.name!r} maps {self.target(op.name)!r}, which is not an mbarrier",
                      op.pos)
            return LocRef(op.name, None, op.pos)
        loc = _loc(op, "an mbarrier")
        if loc.rank is not None or loc.name not in self.ctx.mbarriers:
            _fail(f"expected an mbarrier declared 'mb : mbarrier N', found {op.text!r}", op.pos)
        return loc

    def ptx_mbarrier(self, cell: Cell, parts: list[str]) -> Instr:
        op = parts[1] if len(parts) > 1 else ""
        if op == "arrive":
            # PTX ISA mbarrier.arrive{.sem}{.scope}{.shared{::cta|::cluster}}: .scope is .cta
            # (the default) or .cluster; a shared::cluster mbarrier may be a peer CTA's
            q = _qualifiers(cell, parts, {"operation": ("expect_tx",),
                                          "semantics": ("release", "relaxed"),
                                          "scope": ("cta", "cluster"),
                                          "state space": _SHARED_QUALS}, base=2)
            scope = cast(Literal["cta", "cluster"], q.get("scope", "cta"))
            sem = cast(Literal["release", "relaxed"], q.get("semantics", "release"))
            if "expect_tx" in q.values():
                _arity(cell, 2, 2, "mbarrier.arrive.expect_tx mb, N")
                n = _int(cell.operands[1], "a transaction count")
                if n < 0:
                    _fail(f"a transaction count is >= 0, found {n}", cell.operands[1].pos)
                return PtxMbarArrive(self._mbar(cell.operands[0], remote=True), sem, n,
                                     cell.pos, scope)
            _arity(cell, 1, 1, "mbarrier.arrive mb")
            return PtxMbarArrive(self._mbar(cell.operands[0], remote=True), sem, None, cell.pos,
                                 scope)
        if op in ("wait", "try_wait", "test_wait"):
            # PTX ISA mbarrier.test_wait/try_wait{.sem}{.scope}: .cta (default) or .cluster;
            # valid only on the own CTA's mbarrier (shared::cta)
            q = _qualifiers(cell, parts, {"semantics": ("acquire", "relaxed"),
                                          "scope": ("cta", "cluster"),
                                          "state space": ("shared", "shared::cta")}, base=2)
            _arity(cell, 1, 1, f"mbarrier.{op} mb")
            return PtxMbarWait(self._mbar(cell.operands[0]),
                               cast(Literal["acquire", "relaxed"], q.get("semantics", "acquire")),
                               cell.pos, cast(Literal["cta", "cluster"], q.get("scope", "cta")))
        if op == "init":
            # PTX ISA §9.7.13.15.9: mbarrier.init{.shared{::cta}}.b64 [addr], count
            _qualifiers(cell, parts, {"state space": _SHARED_QUALS}, base=2)
            _arity(cell, 1, 2, "mbarrier.init mb{, N}")
            mbar = self._mbar(cell.operands[0])
            count: int | None = None
            if len(cell.operands) == 2:
                count = _int(cell.operands[1], "an arrival count")
            return PtxMbarInit(mbar, count, cell.pos)
        _fail(f"unknown instruction {cell.mnemonic!r} (expected mbarrier.arrive, "
              "mbarrier.arrive.expect_tx, mbarrier.wait or mbarrier.init)", cell.pos)

    # ---- clusters and distributed shared memory (docs/ptx-clusters.md)

    def ptx_mapa(self, cell: Cell, parts: list[str]) -> Instr:
        # PTX ISA mapa{.space}.type d, a, b: the address of a's variable in CTA b of the
        # cluster; .space = .shared::cluster (a shared::cta address in, shared::cluster out)
        q = _qualifiers(cell, parts, {"state space": ("shared::cluster",)})
        if "state space" not in q:
            _fail(f"'{cell.mnemonic}': write mapa.shared::cluster (the generic form of mapa "
                  "is not supported)", cell.pos)
        _arity(cell, 3, 3, "mapa.shared::cluster a, s, rank")
        ops = cell.operands
        dst = _reg(ops[0], "a name for the mapped address")
        if dst.name in self.ctx.shared or dst.name in self.ctx.mbarriers:
            _fail(f"{dst.name!r} is declared shared memory: name the mapped address otherwise",
                  dst.pos)
        if dst.name in self.mapa_seen:
            _fail(f"{dst.name!r} is defined by two mapa instructions of this thread (a mapped "
                  "address is named once)", dst.pos)
        self.mapa_seen.add(dst.name)
        if ops[1].kind != "name" or (ops[1].name not in self.ctx.shared
                                     and ops[1].name not in self.ctx.mbarriers):
            _fail(f"mapa maps a shared word or an mbarrier ('s : shared', 'mb : mbarrier N'), "
                  f"found {ops[1].text!r}", ops[1].pos)
        rank = _int(ops[2], "the rank of a CTA in the cluster")
        if rank < 0:
            _fail(f"a CTA rank is >= 0, found {rank}", ops[2].pos)
        return PtxMapa(dst.name, LocRef(ops[1].name, None, ops[1].pos), rank, cell.pos)

    def _async_store(self, cell: Cell, parts: list[str]) -> Instr:
        """st.async / red.async (PTX ISA): into shared::cluster memory, completing on an
        mbarrier of the same CTA."""
        if parts[0] == "st":
            _qualifiers(cell, parts, {"semantics": ("weak",), "state space": _ASYNC_QUALS,
                                      "completion": _COMPLETE_TX}, base=2)
            op: str | None = None
            usage = "st.async a, v, mb"
        else:
            q = _qualifiers(cell, parts, {"semantics": ("relaxed",), "scope": ("cluster",),
                                          "state space": _ASYNC_QUALS,
                                          "completion": _COMPLETE_TX,
                                          "operation": RED_ASYNC_OPS}, base=2)
            if "operation" not in q:
                _fail(f"'{cell.mnemonic}' needs an operation "
                      f"({_alternatives(['.' + o for o in RED_ASYNC_OPS])})", cell.pos)
            op = q["operation"]
            usage = f"red.async.relaxed.cluster.{op} a, v, mb"
        _arity(cell, 3, 3, usage)
        ops = cell.operands
        loc = self.loc(cell, ops[0], "a shared::cluster location")
        if self.target(loc.name) not in self.ctx.shared:
            _fail(f"'{cell.mnemonic}' writes shared memory: {loc.name!r} is neither a shared "
                  "word nor a mapa of one", loc.pos)
        return PtxStoreAsync(loc, _value(ops[1]), self._mbar(ops[2], remote=True), op, cell.pos)

    def _cluster_barrier(self, cell: Cell, parts: list[str]) -> Instr:
        # PTX ISA §9.7.13.3: barrier.cluster.arrive{.sem}{.aligned}, .sem = .release (default)
        # or .relaxed; barrier.cluster.wait{.acquire}{.aligned} (.acquire: the default)
        action = parts[2] if len(parts) > 2 else ""
        if action not in ("arrive", "wait"):
            _fail(f"unknown instruction {cell.mnemonic!r} (expected barrier.cluster.arrive or "
                  "barrier.cluster.wait)", cell.pos)
        sems = ("release", "relaxed") if action == "arrive" else ("acquire",)
        q = _qualifiers(cell, parts, {"semantics": sems, "alignment": ("aligned",)}, base=3)
        _arity(cell, 0, 0, f"barrier.cluster.{action}")
        sem = q.get("semantics", "release" if action == "arrive" else "acquire")
        return PtxClusterBarrier(cast(Literal["arrive", "wait"], action),
                                 cast(Literal["release", "relaxed", "acquire"], sem), cell.pos)

    # ---- programmatic dependent launch (PTX ISA §9.7.13.13; docs/ptx-pdl-mbarrier.md)

    def ptx_griddepcontrol(self, cell: Cell, parts: list[str]) -> Instr:
        action = ".".join(parts[1:])
        if action not in ("launch_dependents", "wait"):
            _fail(f"unknown instruction {cell.mnemonic!r} (expected "
                  "griddepcontrol.launch_dependents or griddepcontrol.wait)", cell.pos)
        _arity(cell, 0, 0, f"griddepcontrol.{action}")
        return PtxGridDep(cast(Literal["launch_dependents", "wait"], action), cell.pos)

    # ---- multimem (docs/litmus-format.md §11; PTX ISA §9.7.9.14)

    def _mc(self, op: Operand) -> LocRef:
        if op.kind != "name" or op.name not in self.ctx.multicasts:
            _fail(f"expected a multicast object declared 'multicast M = ...', found "
                  f"{op.text!r}", op.pos)
        return LocRef(op.name, None, op.pos)

    def ptx_multimem(self, cell: Cell, parts: list[str]) -> Instr:
        if self.ctx.arch != "GIN":
            _fail(f"'{cell.mnemonic}' accesses a multicast object: it needs a GIN test",
                  cell.pos)
        op = parts[1] if len(parts) > 1 else ""
        ops = cell.operands
        if op == "st":
            q = _qualifiers(cell, parts, {"semantics": MULTIMEM_ST_SEMS, "scope": SCOPES},
                            base=2)
            _arity(cell, 2, 2, "multimem.st{.sem}{.scope} M, v")
            sem, scope = _sem_scope(cell, q, "weak", MULTIMEM_ST_SEMS)
            return MultimemStore(sem, scope, self._mc(ops[0]), _value(ops[1]), cell.pos)
        if op == "red":
            q = _qualifiers(cell, parts, {"semantics": MULTIMEM_RED_SEMS, "scope": SCOPES,
                                          "operation": MULTIMEM_RED_OPS}, base=2)
            if "operation" not in q:
                _fail(f"'{cell.mnemonic}' needs an operation (.add)", cell.pos)
            _arity(cell, 2, 2, "multimem.red{.sem}{.scope}.add M, v")
            # PTX ISA §9.7.9.14: multimem.red is .relaxed and .sys unless qualified
            sem = cast(Sem, q.get("semantics", "relaxed"))
            scope = cast(Scope, q.get("scope", "sys"))
            return MultimemRed(sem, scope, q["operation"], self._mc(ops[0]), _value(ops[1]),
                               cell.pos)
        if op == "ld_reduce":
            q = _qualifiers(cell, parts, {"semantics": MULTIMEM_LD_SEMS, "scope": SCOPES,
                                          "operation": MULTIMEM_LD_OPS}, base=2)
            if "operation" not in q:
                _fail(f"'{cell.mnemonic}' needs an operation (.add, .min or .max)", cell.pos)
            _arity(cell, 2, 2, "multimem.ld_reduce{.sem}{.scope}.op r, M")
            sem, scope = _sem_scope(cell, q, "weak", MULTIMEM_LD_SEMS)
            dst = _reg(ops[0], "a destination register")
            return MultimemLdReduce(sem, scope, q["operation"], dst, self._mc(ops[1]), cell.pos)
        _fail(f"unknown instruction {cell.mnemonic!r} (expected multimem.st, multimem.red or "
              "multimem.ld_reduce)", cell.pos)

    def _rmw_quals(
        self, cell: Cell, parts: list[str], ops: Sequence[str]
    ) -> tuple[Sem, Scope, str]:
        q = _qualifiers(cell, parts, {"semantics": ATOM_SEMS, "scope": SCOPES, "operation": ops,
                                      "state space": _SHARED_QUALS})
        if "operation" not in q:
            _fail(f"'{cell.mnemonic}' needs an operation ({_alternatives(['.' + o for o in ops])})",
                  cell.pos)
        sem, scope = _sem_scope(cell, q, "relaxed", ATOM_SEMS)
        assert scope is not None
        return sem, scope, q["operation"]

    def ptx_atom(self, cell: Cell, parts: list[str]) -> Instr:
        sem, scope, op = self._rmw_quals(cell, parts, ATOM_OPS)
        ops = cell.operands
        if op == "cas":
            _arity(cell, 4, 4, "atom.sem.scope.cas r, x, expected, new")
        else:
            _arity(cell, 3, 3, f"atom.sem.scope.{op} r, x, v")
        values = tuple(_value(v) for v in ops[2:])
        dst = _reg(ops[0], "a destination register")
        loc = self.loc(cell, ops[1])
        self._not_mbarrier(loc)
        return PtxAtom(sem, scope, op, dst, loc, values, cell.pos)

    def ptx_red(self, cell: Cell, parts: list[str]) -> Instr:
        if len(parts) > 1 and parts[1] == "async":
            return self._async_store(cell, parts)
        sem, scope, op = self._rmw_quals(cell, parts, RED_OPS)
        _arity(cell, 2, 2, f"red.sem.scope.{op} x, v")
        loc = self.loc(cell, cell.operands[0])
        self._not_mbarrier(loc)
        return PtxRed(sem, scope, op, loc, _value(cell.operands[1]), cell.pos)

    def ptx_fence(self, cell: Cell, parts: list[str]) -> Instr:
        _arity(cell, 0, 0, "fence.sem.scope")
        if len(parts) > 1 and parts[1] == "mbarrier_init":
            # PTX ISA §9.7.13.4: fence.op_restrict.release.cluster, .op_restrict = .mbarrier_init
            if parts[2:] != ["release", "cluster"]:
                _fail(f"'{cell.mnemonic}': the mbarrier-init fence is "
                      "fence.mbarrier_init.release.cluster (PTX ISA: .release and .cluster "
                      "only)", cell.pos)
            return PtxFence("mbarrier_init.release.cluster", None, cell.pos)
        if len(parts) > 1 and parts[1] == "proxy":
            kind = ".".join(parts[2:])
            if not kind or not all(parts[2:]):
                _fail(f"'{cell.mnemonic}' needs a proxy kind (e.g. fence.proxy.async)", cell.pos)
            if kind not in PROXY_FENCE_KINDS:
                at = Pos(cell.pos.line, cell.pos.col + len("fence.proxy."))
                kinds = ", ".join("." + k for k in PROXY_FENCE_KINDS)
                _fail(f"unknown proxy kind '.{kind}' in '{cell.mnemonic}' (expected {kinds})",
                      at)
            return PtxFence("proxy." + kind, None, cell.pos)
        q = _qualifiers(cell, parts, {"semantics": FENCE_KINDS, "scope": SCOPES})
        kind = q.get("semantics", "acq_rel")
        scope = cast("Scope | None", q.get("scope"))
        if scope is None:
            _fail(f"'{cell.mnemonic}' needs a scope (.cta, .cluster, .gpu or .sys)", cell.pos)
        return PtxFence(kind, scope, cell.pos)

    def ptx_membar(self, cell: Cell, parts: list[str]) -> Instr:
        _arity(cell, 0, 0, "membar.cta|gl|sys")
        q = _qualifiers(cell, parts, {"scope": tuple(MEMBAR_SCOPES)})
        if "scope" not in q:
            _fail(f"'{cell.mnemonic}' needs a scope (membar.cta, membar.gl or membar.sys)",
                  cell.pos)
        return PtxFence("sc", MEMBAR_SCOPES[q["scope"]], cell.pos)

    def ptx_bar(self, cell: Cell, parts: list[str]) -> Instr:
        q = _qualifiers(
            cell, parts, {"scope": ("cta",), "mode": ("sync", "arrive"), "alignment": ("aligned",)}
        )
        if "mode" not in q:
            _fail(f"'{cell.mnemonic}' needs .sync or .arrive", cell.pos)
        mode = cast(Literal["sync", "arrive"], q["mode"])
        _arity(cell, 1, 3, f"{parts[0]}.cta.{mode} id{{, count}}")
        values = tuple(_value(op) for op in cell.operands)
        return PtxBarrier(mode, values, cell.pos)

    def ptx_barrier(self, cell: Cell, parts: list[str]) -> Instr:
        if len(parts) > 1 and parts[1] == "cluster":
            return self._cluster_barrier(cell, parts)
        return self.ptx_bar(cell, parts)

    def local_op(self, cell: Cell, parts: list[str]) -> Instr:
        _qualifiers(cell, parts, {})
        op = parts[0]
        _arity(cell, 3, 3, f"{op} r, a, b")
        ops = cell.operands
        dst = _reg(ops[0], "a destination register")
        return LocalOp(op, dst, (_value(ops[1]), _value(ops[2])), cell.pos)

    def ptx_mov(self, cell: Cell, parts: list[str]) -> Instr:
        _qualifiers(cell, parts, {})
        _arity(cell, 2, 2, "mov r, v")
        dst = _reg(cell.operands[0], "a destination register")
        return LocalOp("mov", dst, (_value(cell.operands[1]),), cell.pos)

    def ptx_setp(self, cell: Cell, parts: list[str]) -> Instr:
        """``setp.CmpOp{.type} p, a, b`` (PTX ISA §9.7.6.2), ``p`` an ordinary register."""
        _no_float_or_unsigned(cell, parts)
        q = _qualifiers(cell, parts, {"comparison": tuple(_BRANCHES.values())})
        if "comparison" not in q:
            _fail(f"'{cell.mnemonic}' needs a comparison (setp.eq, .ne, .lt, .le, .gt or .ge)",
                  cell.pos)
        _arity(cell, 3, 3, f"setp.{q['comparison']} p, a, b")
        ops = cell.operands
        dst = _reg(ops[0], "a destination register (the predicate: 1 or 0)")
        return Setp(q["comparison"], dst, _value(ops[1]), _value(ops[2]), cell.pos)

    def ptx_selp(self, cell: Cell, parts: list[str]) -> Instr:
        """``selp{.type} d, a, b, c`` (PTX ISA §9.7.6.3): d := c ? a : b."""
        _no_float_or_unsigned(cell, parts)
        _qualifiers(cell, parts, {})
        _arity(cell, 4, 4, "selp d, a, b, c")
        ops = cell.operands
        dst = _reg(ops[0], "a destination register")
        return Selp(dst, _value(ops[1]), _value(ops[2]), _value(ops[3]), cell.pos)

    def branch(self, cell: Cell, parts: list[str]) -> Instr:
        _qualifiers(cell, parts, {})
        _arity(cell, 3, 3, f"{parts[0]} a, b, LABEL")
        ops = cell.operands
        target = _reg(ops[2], "a label").name
        return Branch(_BRANCHES[parts[0]], _value(ops[0]), _value(ops[1]), target, cell.pos)

    def ptx_goto(self, cell: Cell, parts: list[str]) -> Instr:
        _qualifiers(cell, parts, {})
        _arity(cell, 1, 1, f"{parts[0]} LABEL")
        return Goto(_reg(cell.operands[0], "a label").name, cell.pos)

    ptx_bra = ptx_goto

    # ---- GIN device calls

    def gin(self, cell: Cell, parts: list[str]) -> Instr:
        call = parts[1] if len(parts) > 1 else ""
        method = getattr(self, "gin_" + call, None)
        if method is None or len(parts) > 2 and call not in ("read_signal", "read_counter"):
            _fail(f"unknown GIN call {cell.mnemonic!r} (gin.put, gin.put_value, gin.signal, "
                  "gin.flush, gin.get, gin.wait_signal, gin.wait_counter, gin.read_signal, "
                  "gin.read_counter, gin.reset_signal, gin.reset_counter, gin.barrier, "
                  "gin.flush_async, gin.wait)", cell.pos)
        return cast(Instr, method(cell, parts))

    def _ctx(self, op: Operand) -> str:
        if op.kind != "name" or not re.fullmatch(r"c[0-9]+", op.name):
            _fail(f"expected a GIN context such as c0, found {op.text!r}", op.pos)
        return op.name

    def _signal_name(self, op: Operand, what: str = "signal") -> str:
        """A signal or counter named without a rank (the thread's own)."""
        if op.kind == "at":
            _fail(f"a rank waits on, reads and resets its own {what}s: write {op.name}, "
                  f"not {op.text}", op.pos)
        if op.kind != "name":
            _fail(f"expected a {what} name, found {op.text!r}", op.pos)
        self._declared(op.name, what, op.pos)
        return op.name

    def _declared(self, name: str, what: str, pos: Pos) -> None:
        names = self.ctx.signals if what == "signal" else self.ctx.counters
        if name not in names:
            _fail(f"{name!r} is not a {what}: declare it in the init block "
                  f"('{name} : {what};')", pos)

    def _signal_spec(self, op: Operand, kind: str, peer: int | None, in_put: bool) -> SignalSpec:
        amount, explicit = 1, False
        base = op
        if op.kind == "plus":
            assert op.inner is not None
            base, amount, explicit = op.inner, op.value, True
        if base.kind not in ("name", "at"):
            _fail(f"expected a signal such as S or S+2, found {op.text!r}", op.pos)
        if in_put and base.kind == "at" and base.rank != peer:
            _fail(f"the signal of a put is on the put's peer: write {base.name}, "
                  f"not {base.text}", base.pos)
        rank = base.rank if base.kind == "at" else peer
        if kind == "va":
            if base.name in self.ctx.signals or base.name in self.ctx.counters:
                _fail(f"{base.name!r} is a signal or counter; a VA signal needs a window "
                      "location", base.pos)
        else:
            self._declared(base.name, "signal", base.pos)
        spec_kind = cast(Literal["strong", "weak", "va", "legacy"], kind)
        return SignalSpec(spec_kind, LocRef(base.name, rank, base.pos), amount, explicit, op.pos)

    def _options(
        self, cell: Cell, ops: Sequence[Operand], peer: int | None, put: bool
    ) -> tuple[SignalSpec | None, str | None, GinOptions, str | None]:
        """Trailing options: sig=/wsig=/vsig=/ctr= (put only), given=, required=,
        aggregate, and the weak/va flag of gin.signal."""
        signal: SignalSpec | None = None
        counter: str | None = None
        given: str | None = None
        required: str | None = None
        aggregate = False
        flag: str | None = None
        seen: set[str] = set()
        keys = ["given=", "required=", "aggregate"]
        keys = (["sig=", "wsig=", "vsig=", "lsig=", "ctr="] + keys) if put else (
            ["weak", "va", "legacy"] + keys)
        for op in ops:
            key = op.name if op.kind in ("kw", "name") else op.text
            if key in seen or (key in ("sig", "wsig", "vsig", "lsig") and signal is not None) or (
                key in ("weak", "va", "legacy") and flag is not None
            ):
                _fail(f"option {op.text!r} conflicts with an earlier one in "
                      f"'{cell.mnemonic}'", op.pos)
            seen.add(key)
            inner = op.inner
            if op.kind == "kw" and put and key in ("sig", "wsig", "vsig", "lsig"):
                assert inner is not None
                kind = {"sig": "strong", "wsig": "weak", "vsig": "va", "lsig": "legacy"}[key]
                signal = self._signal_spec(inner, kind, peer, in_put=True)
            elif op.kind == "kw" and put and key == "ctr":
                assert inner is not None
                counter = self._signal_name(inner, "counter")
            elif op.kind == "kw" and key == "given":
                assert inner is not None
                given = _word(inner, ("thread", "cta", "gpu", "sys"), "a scope for given=")
            elif op.kind == "kw" and key == "required":
                assert inner is not None
                required = _word(inner, ("gpu", "sys"), "a scope for required=")
            elif op.kind == "name" and key == "aggregate":
                aggregate = True
            elif op.kind == "name" and not put and key in ("weak", "va", "legacy"):
                flag = key
            else:
                _fail(f"unknown option {op.text!r} for '{cell.mnemonic}' (expected "
                      f"{_alternatives(keys)})", op.pos)
        return signal, counter, GinOptions(given, required, aggregate), flag

    def gin_put(self, cell: Cell, parts: list[str]) -> Instr:
        if len(cell.operands) < 3:
            _arity(cell, 3, 3, "gin.put c0, x@1, buf{, sig=S}{, ctr=C}{, options}")
        ops = cell.operands
        ctx = self._ctx(ops[0])
        dst = self.loc(cell, ops[1], "a destination location such as x@1")
        if ops[2].kind == "int":
            _fail(f"expected a source location, found {ops[2].text!r} (gin.put_value puts an "
                  "immediate value)", ops[2].pos)
        src = self.loc(cell, ops[2], "a source location")
        signal, counter, options, _ = self._options(cell, ops[3:], dst.rank, put=True)
        return GinPut(ctx, dst, src, signal, counter, options, cell.pos)

    def gin_put_value(self, cell: Cell, parts: list[str]) -> Instr:
        if len(cell.operands) < 3:
            _arity(cell, 3, 3, "gin.put_value c0, x@1, 7{, sig=S}{, ctr=C}{, options}")
        ops = cell.operands
        ctx = self._ctx(ops[0])
        dst = _loc(ops[1], "a destination location such as x@1")
        value = Const(_int(ops[2], "an integer value"), ops[2].pos)
        signal, counter, options, _ = self._options(cell, ops[3:], dst.rank, put=True)
        return GinPut(ctx, dst, value, signal, counter, options, cell.pos)

    def gin_signal(self, cell: Cell, parts: list[str]) -> Instr:
        if len(cell.operands) < 2:
            _arity(cell, 2, 2, "gin.signal c0, S@1{+k}{, weak|va|legacy}{, options}")
        ops = cell.operands
        ctx = self._ctx(ops[0])
        _, _, options, flag = self._options(cell, ops[2:], None, put=False)
        kind = {None: "strong", "weak": "weak", "va": "va", "legacy": "legacy"}[flag]
        spec = self._signal_spec(ops[1], kind, None, in_put=False)
        return GinSignal(ctx, spec, options, cell.pos)

    def gin_flush(self, cell: Cell, parts: list[str]) -> Instr:
        _arity(cell, 1, 1, "gin.flush c0")
        return GinFlush(self._ctx(cell.operands[0]), cell.pos)

    def _request(self, op: Operand) -> str:
        if op.kind != "name" or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", op.name):
            _fail(f"expected a request name such as rq, found {op.text!r}", op.pos)
        return op.name

    def gin_flush_async(self, cell: Cell, parts: list[str]) -> Instr:
        _arity(cell, 2, 2, "gin.flush_async c0, rq")
        ops = cell.operands
        return GinFlushAsync(self._ctx(ops[0]), self._request(ops[1]), cell.pos)

    def gin_wait(self, cell: Cell, parts: list[str]) -> Instr:
        _arity(cell, 1, 1, "gin.wait rq")
        return GinWaitRequest(self._request(cell.operands[0]), cell.pos)

    def gin_get(self, cell: Cell, parts: list[str]) -> Instr:
        _arity(cell, 3, 3, "gin.get c0, buf, x@1")
        ops = cell.operands
        ctx = self._ctx(ops[0])
        return GinGet(ctx, self.loc(cell, ops[1], "a local location"), self.loc(cell, ops[2]),
                      cell.pos)

    def _va_flag(self, cell: Cell, ops: Sequence[Operand], at: int) -> bool:
        if len(ops) <= at:
            return False
        _word(ops[at], ("va",), "'va' (a VA signal: a window location)")
        return True

    def _va_name(self, op: Operand) -> str:
        if op.kind != "name":
            _fail(f"expected the thread's own window location, found {op.text!r}", op.pos)
        if op.name in self.ctx.signals or op.name in self.ctx.counters:
            _fail(f"{op.name!r} is a signal or counter; a VA signal is a window location",
                  op.pos)
        return op.name

    def _least(self, op: Operand) -> tuple[Reg | None, int]:
        """A wait's threshold: a constant (``2``), a register of the thread (``r0``) or a
        register plus a constant (``r0+2``)."""
        if op.kind == "int":
            return None, op.value
        if op.kind == "name" and self.is_register(op.name):
            return Reg(op.name, op.pos), 0
        if op.kind == "plus" and op.inner is not None and op.inner.kind == "name" \
                and self.is_register(op.inner.name):
            return Reg(op.inner.name, op.inner.pos), op.value
        _fail("expected the threshold: an integer, a register (r0) or a register plus an "
              f"integer (r0+2), found {op.text!r}", op.pos)

    def gin_wait_signal(self, cell: Cell, parts: list[str]) -> Instr:
        _arity(cell, 2, 3, "gin.wait_signal S, value{, va}")
        ops = cell.operands
        va = self._va_flag(cell, ops, 2)
        name = self._va_name(ops[0]) if va else self._signal_name(ops[0])
        base, least = self._least(ops[1])
        return GinWait("signal", name, least, va, cell.pos, base)

    def gin_wait_counter(self, cell: Cell, parts: list[str]) -> Instr:
        _arity(cell, 2, 2, "gin.wait_counter C, value")
        ops = cell.operands
        base, least = self._least(ops[1])
        return GinWait("counter", self._signal_name(ops[0], "counter"), least,
                       pos=cell.pos, base=base)

    def _read(self, cell: Cell, parts: list[str], what: str) -> Instr:
        q = _qualifiers(cell, parts, {"order": ("relaxed",)}, base=2)
        va_opt = "{, va}" if what == "signal" else ""
        _arity(cell, 2, 3 if what == "signal" else 2,
               f"gin.read_{what}{{.relaxed}} r, {what[0].upper()}{va_opt}")
        ops = cell.operands
        dst = _reg(ops[0], "a destination register")
        va = self._va_flag(cell, ops, 2)
        name = self._va_name(ops[1]) if va else self._signal_name(ops[1], what)
        return GinRead("signal" if what == "signal" else "counter", dst, name, "order" in q,
                       va, cell.pos)

    def gin_read_signal(self, cell: Cell, parts: list[str]) -> Instr:
        return self._read(cell, parts, "signal")

    def gin_read_counter(self, cell: Cell, parts: list[str]) -> Instr:
        return self._read(cell, parts, "counter")

    def gin_reset_signal(self, cell: Cell, parts: list[str]) -> Instr:
        _arity(cell, 1, 1, "gin.reset_signal S")
        return GinReset("signal", self._signal_name(cell.operands[0]), cell.pos)

    def gin_reset_counter(self, cell: Cell, parts: list[str]) -> Instr:
        _arity(cell, 1, 1, "gin.reset_counter C")
        return GinReset("counter", self._signal_name(cell.operands[0], "counter"), cell.pos)

    def gin_barrier(self, cell: Cell, parts: list[str]) -> Instr:
        _arity(cell, 2, 3, "gin.barrier c0, put|get|none{, all}")
        ops = cell.operands
        ctx = self._ctx(ops[0])
        kind = cast(Literal["put", "get", "none"], _word(ops[1], ("put", "get", "none"),
                                                         "a barrier kind"))
        if len(ops) == 3:
            _word(ops[2], ("all",), "'all'")
        return GinBarrier(ctx, kind, len(ops) == 3, cell.pos)

    # ---- NVSHMEM device calls

    def shmem(self, cell: Cell, parts: list[str]) -> Instr:
        op = ".".join(parts[1:])
        shape = _SHMEM_SHAPES.get(op)
        if shape is None:
            known = ", ".join("shmem." + name for name in _SHMEM_SHAPES)
            _fail(f"unknown NVSHMEM call {cell.mnemonic!r} ({known})", cell.pos)
        usage = f"shmem.{op} {shape}".strip()
        ops = cell.operands
        if op in ("fence", "quiet", "barrier_all", "sync_all"):
            _arity(cell, 0, 0, usage)
            return ShmemCall(op, pos=cell.pos)
        if op in ("put", "put_nbi"):
            _arity(cell, 2, 2, usage)
            return ShmemCall(op, dst=_loc(ops[0]), src=_loc(ops[1]), pos=cell.pos)
        if op in ("get", "get_nbi"):
            _arity(cell, 2, 2, usage)
            return ShmemCall(op, dst=_loc(ops[0]), src=_loc(ops[1]), pos=cell.pos)
        if op == "p" and ops[1:2] and ops[1].kind == "name":  # the value of a register
            _arity(cell, 2, 2, usage)
            return ShmemCall(op, dst=_loc(ops[0]), reg=_reg(ops[1], "a register or an "
                                                              "integer"), pos=cell.pos)
        if op in ("p", "atomic_add", "atomic_set"):
            _arity(cell, 2, 2, usage)
            return ShmemCall(op, dst=_loc(ops[0]), value=_int(ops[1]), pos=cell.pos)
        if op in ("put_signal", "put_signal_nbi"):
            _arity(cell, 5, 5, usage)
            dst = _loc(ops[0])
            sig = _loc(ops[2], "a signal location")
            if sig.rank is not None and sig.rank != dst.rank:
                _fail(f"the signal of a put is on the put's peer: write {sig.name}, "
                      f"not {sig}", sig.pos)
            return ShmemCall(
                op, dst=dst, src=_loc(ops[1]), signal=LocRef(sig.name, dst.rank, sig.pos),
                signal_value=_int(ops[3]), signal_op=self._sig_op(ops[4]), pos=cell.pos,
            )
        if op == "signal_op":
            _arity(cell, 3, 3, usage)
            return ShmemCall(op, signal=_loc(ops[0]), signal_value=_int(ops[1]),
                             signal_op=self._sig_op(ops[2]), pos=cell.pos)
        assert op in ("wait_until", "signal_wait_until")
        _arity(cell, 3, 3, usage)
        if ops[1].kind != "cmp":
            _fail(f"expected a comparison (>=, ==, !=, >, <, <=), found {ops[1].text!r}",
                  ops[1].pos)
        return ShmemCall(op, signal=_loc(ops[0]), cmp=ops[1].name, value=_int(ops[2]),
                         pos=cell.pos)

    def _sig_op(self, op: Operand) -> Literal["add", "set"]:
        return cast(Literal["add", "set"], _word(op, ("add", "set"), "a signal operation"))


_SHMEM_SHAPES = {
    "put": "x@1, buf",
    "put_nbi": "x@1, buf",
    "p": "x@1, value|r0",
    "put_signal": "x@1, buf, S, value, add|set",
    "put_signal_nbi": "x@1, buf, S, value, add|set",
    "signal_op": "S@1, value, add|set",
    "atomic_add": "x@1, value",
    "atomic_set": "x@1, value",
    "get": "buf, x@1",
    "get_nbi": "buf, x@1",
    "fence": "",
    "quiet": "",
    "barrier_all": "",
    "sync_all": "",
    "wait_until": "S, >=, value",
    "signal_wait_until": "S, >=, value",
}


# --------------------------------------------------------------------------
# Host-initiated RDMA and kernel boundaries (docs/litmus-format.md §12)
# --------------------------------------------------------------------------

_HOST_BASES = ("ibv", "cuda", "stream")
_HOST_CALLS = {
    "ibv.write": "ibv.write q0, x@1, buf",
    "ibv.write_imm": "ibv.write_imm q0, x@1, buf",
    "ibv.atomic_add": "ibv.atomic_add q0, f@1, 1",
    "ibv.wait_send": "ibv.wait_send q0",
    "ibv.wait_recv": "ibv.wait_recv q0",
    "cuda.launch": "cuda.launch P1",
    "cuda.sync": "cuda.sync P1",
    "cuda.flush_rdma": "cuda.flush_rdma",
    "stream.wait_value": "stream.wait_value f, >=, 1{, flush}",
}
_THREAD_NAME_RE = re.compile(r"P([0-9]+)")


def _qp(op: Operand) -> str:
    if op.kind != "name" or not re.fullmatch(r"q[0-9]+", op.name):
        _fail(f"expected a queue pair such as q0, found {op.text!r}", op.pos)
    return op.name


def _thread_ref(op: Operand) -> int:
    m = _THREAD_NAME_RE.fullmatch(op.name) if op.kind == "name" else None
    if m is None or len(m.group(1)) > 100:
        _fail(f"expected a thread such as P1, found {op.text[:40]!r}", op.pos)
    return int(m.group(1))


def build_host_instr(builder: _Builder, cell: Cell, parts: list[str]) -> Instr:
    """An ``ibv.*``, ``cuda.*`` or ``stream.*`` call (docs/litmus-format.md §12)."""
    call = ".".join(parts)
    usage = _HOST_CALLS.get(call)
    if usage is None:
        _fail(f"unknown call {cell.mnemonic!r} ({', '.join(_HOST_CALLS)})", cell.pos)
    ctx = builder.ctx
    ops = cell.operands
    if parts[0] == "stream":
        if ctx.host or not ctx.launched:
            _fail("stream.wait_value is the GPU front end's wait before a kernel starts: it "
                  "belongs to a GPU thread declared 'launched' (e.g. P1@cta 0,gpu 1,node 1,"
                  "launched)", cell.pos)
        _arity(cell, 3, 4, usage)
        if ops[0].kind == "at":
            _fail(f"a stream waits on its own GPU's memory: write {ops[0].name}, not "
                  f"{ops[0].text}", ops[0].pos)
        name = builder.loc(cell, ops[0], "a location").name
        if ops[1].kind != "cmp":
            _fail(f"expected a comparison (>=, ==, !=, >, <, <=), found {ops[1].text!r}",
                  ops[1].pos)
        flush = len(ops) == 4 and _word(ops[3], ("flush",), "'flush'") == "flush"
        return StreamWaitValue(name, ops[1].name, _int(ops[2]), flush, cell.pos)
    if not ctx.host:
        _fail(f"'{call}' is a host call: it belongs to a host thread (e.g. P2@host,node 0)",
              cell.pos)
    if call in ("ibv.write", "ibv.write_imm"):
        _arity(cell, 3, 3, usage)
        dst = builder.loc(cell, ops[1], "a destination location such as x@1")
        src = builder.loc(cell, ops[2], "a source location")
        verb = cast(Literal["write", "write_imm"], parts[1])
        return HostVerb(verb, _qp(ops[0]), dst, src, None, cell.pos)
    if call == "ibv.atomic_add":
        _arity(cell, 3, 3, usage)
        dst = builder.loc(cell, ops[1], "a destination location such as f@1")
        return HostVerb("atomic_add", _qp(ops[0]), dst, None, _int(ops[2]), cell.pos)
    if call in ("ibv.wait_send", "ibv.wait_recv"):
        _arity(cell, 1, 1, usage)
        kind = cast(Literal["send", "recv"], parts[1][len("wait_"):])
        return HostWaitCompletion(kind, _qp(ops[0]), cell.pos)
    if call == "cuda.flush_rdma":
        _arity(cell, 0, 0, usage)
        return CudaFlushRdma(cell.pos)
    _arity(cell, 1, 1, usage)
    if call == "cuda.launch":
        return CudaLaunch(_thread_ref(ops[0]), cell.pos)
    return CudaSync(_thread_ref(ops[0]), cell.pos)


def check_host_threads(threads: Sequence[Thread]) -> None:
    """The kernel boundaries of a test make sense (docs/litmus-format.md §12): every
    ``cuda.launch``/``cuda.sync`` names a thread declared ``launched``; every launched
    thread is launched exactly once, by a host thread with no branches; a sync follows
    the launch of its thread; ``stream.wait_value`` is its thread's first instruction."""
    by_index = {t.index: t for t in threads}
    launched_by: dict[int, tuple[int, Pos]] = {}
    for t in threads:
        branchy = any(isinstance(i, (Label, Branch, Goto)) for i in t.instrs)
        launched_here: set[int] = set()
        for k, ins in enumerate(t.instrs):
            if isinstance(ins, StreamWaitValue) and k != 0:
                _fail("stream.wait_value must be the first instruction of its launched "
                      "thread (the stream waits before the kernel starts)", ins.pos)
            if not isinstance(ins, (CudaLaunch, CudaSync)):
                continue
            verb = "cuda.launch" if isinstance(ins, CudaLaunch) else "cuda.sync"
            target = by_index.get(ins.thread)
            if target is None:
                _fail(f"{verb} P{ins.thread}: there is no thread P{ins.thread}", ins.pos)
            if not target.placement.launched:
                _fail(f"{verb} P{ins.thread}: P{ins.thread} is not declared 'launched' "
                      f"(write its header as P{ins.thread}@cta 0,gpu 1,node 1,launched)",
                      ins.pos)
            if branchy:
                _fail(f"{verb}: a thread that launches or waits for kernels has no branches "
                      "or labels (the launch must happen on every path)", ins.pos)
            if isinstance(ins, CudaLaunch):
                if ins.thread in launched_by:
                    first = launched_by[ins.thread][1]
                    _fail(f"P{ins.thread} is launched twice (first at {first.line}:"
                          f"{first.col}); a launched thread is one kernel run", ins.pos)
                launched_by[ins.thread] = (t.index, ins.pos)
                launched_here.add(ins.thread)
            elif ins.thread not in launched_here:
                _fail(f"cuda.sync P{ins.thread} comes before this thread's cuda.launch "
                      f"P{ins.thread}", ins.pos)
    for t in threads:
        if t.placement.launched and t.index not in launched_by:
            _fail(f"P{t.index} is declared 'launched' but no host thread launches it "
                  f"(add cuda.launch P{t.index})", t.pos)
    _check_grids(threads)
    _check_clusters(threads)


def _check_grids(threads: Sequence[Thread]) -> None:
    """The grids of a stream (placement ``grid N``, docs/ptx-pdl-mbarrier.md) run on one
    GPU and share no CTA."""
    if not any(t.placement.grid for t in threads):
        return
    gpus = {t.placement.gpu or 0 for t in threads if not t.placement.host}
    if len(gpus) > 1:
        t = next(t for t in threads if t.placement.grid)
        _fail(f"P{t.index} is in grid {t.placement.grid}: the grids of one stream run on one "
              f"GPU, but the test places GPU threads on GPUs {sorted(gpus)}", t.pos)
    owner: dict[int, tuple[int, int]] = {}  # cta -> (its grid, the first thread placed there)
    for t in threads:
        if t.placement.host:
            continue
        cta, grid = t.placement.cta or 0, t.placement.grid or 0
        first = owner.setdefault(cta, (grid, t.index))
        if first[0] != grid:
            _fail(f"P{t.index} (grid {grid}) and P{first[1]} (grid {first[0]}) are both in "
                  f"cta {cta}: a CTA belongs to one grid (number the CTAs of each grid apart)",
                  t.pos)


@dataclass(frozen=True)
class ClusterLayout:
    """The thread block clusters of a test (placement ``cluster N``, docs/ptx-clusters.md):
    the CTAs of each cluster of each GPU in rank order (%cluster_ctarank: the order of
    their numbers), and each CTA's cluster (None: a CTA launched without a cluster, a
    cluster of its own)."""

    members: dict[tuple[int, int], tuple[int, ...]]  # (gpu, cluster) -> its CTAs by rank
    cluster_of: dict[tuple[int, int], int | None]  # (gpu, cta) -> its cluster

    def ctas(self, gpu: int, cta: int) -> tuple[int, ...]:
        """The CTAs of the cluster of CTA ``cta`` of GPU ``gpu``, by rank."""
        k = self.cluster_of.get((gpu, cta))
        return (cta,) if k is None else self.members[(gpu, k)]

    def rank(self, gpu: int, cta: int) -> int:
        return self.ctas(gpu, cta).index(cta)

    @property
    def clustered(self) -> bool:
        return bool(self.members)


def cluster_layout(threads: Sequence[Thread]) -> ClusterLayout:
    """The clusters of a test; every thread of a CTA names the same cluster (or none), a
    cluster is in one grid."""
    cluster_of: dict[tuple[int, int], tuple[int | None, int]] = {}  # -> (cluster, 1st thread)
    grid_of: dict[tuple[int, int], tuple[int, int]] = {}  # (gpu, cluster) -> (grid, thread)
    for t in threads:
        pl = t.placement
        if pl.host:
            continue
        key = (pl.gpu or 0, pl.cta or 0)
        first = cluster_of.setdefault(key, (pl.cluster, t.index))
        if first[0] != pl.cluster:
            def said(k: int | None) -> str:
                return "no cluster" if k is None else f"cluster {k}"
            _fail(f"P{t.index} ({said(pl.cluster)}) and P{first[1]} ({said(first[0])}) are "
                  f"both in cta {key[1]}: the threads of one CTA are in one cluster (give "
                  "each thread of the CTA the same 'cluster N')", t.pos)
        if pl.cluster is not None:
            g = grid_of.setdefault((key[0], pl.cluster), (pl.grid or 0, t.index))
            if g[0] != (pl.grid or 0):
                _fail(f"P{t.index} (grid {pl.grid or 0}) and P{g[1]} (grid {g[0]}) are both in "
                      f"cluster {pl.cluster}: a cluster belongs to one grid", t.pos)
    members: dict[tuple[int, int], list[int]] = {}
    for (gpu, cta), (k, _) in cluster_of.items():
        if k is not None:
            members.setdefault((gpu, k), []).append(cta)
    return ClusterLayout({key: tuple(sorted(ctas)) for key, ctas in members.items()},
                         {key: k for key, (k, _) in cluster_of.items()})


def _check_clusters(threads: Sequence[Thread]) -> None:
    """A mapa names a CTA of the thread's cluster; an st.async / red.async writes the
    shared memory of the CTA whose mbarrier it completes (PTX ISA st.async: "the shared
    memory addresses of the destination operand a and the mbarrier object ... must be in
    the same CTA")."""
    layout = cluster_layout(threads)
    for t in threads:
        if t.placement.host:
            continue
        gpu, cta = t.placement.gpu or 0, t.placement.cta or 0
        ctas = layout.ctas(gpu, cta)
        ranks = {i.dst: i.rank for i in t.instrs if isinstance(i, PtxMapa)}
        for ins in t.instrs:
            if isinstance(ins, PtxMapa):
                if ins.rank >= len(ctas):
                    where = (f"cluster {t.placement.cluster} has CTAs {list(ctas)} (ranks 0 to "
                             f"{len(ctas) - 1})" if t.placement.cluster is not None else
                             "the thread's CTA is in no cluster (rank 0 only; place it with "
                             "'cluster N')")
                    _fail(f"mapa rank {ins.rank} names no CTA of the cluster: {where}", ins.pos)
            elif isinstance(ins, PtxStoreAsync):
                own = ctas.index(cta)
                a, b = ranks.get(ins.loc.name, own), ranks.get(ins.mbar.name, own)
                if a != b:
                    _fail(f"{ins.loc.name!r} is in the CTA of rank {a} and {ins.mbar.name!r} in "
                          f"that of rank {b}: an {'st' if ins.op is None else 'red'}.async "
                          "completes on an mbarrier of the CTA it writes (PTX ISA)", ins.pos)


def build_thread(cells: Sequence[Cell], ctx: ThreadContext) -> tuple[Instr, ...]:
    """The instructions of one thread, in order (labels included)."""
    if ctx.arch == "X86":
        return tuple(build_x86(cell) for cell in cells)
    builder = _Builder(ctx)
    instrs = tuple(builder.build(cell) for cell in cells)
    check_labels(cells, ctx.thread)
    return instrs
