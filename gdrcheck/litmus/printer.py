"""AST -> litmus text: ``parse_litmus(print_litmus(t)) == t``.

The output follows the dialect's usual spelling (herd7 for X86, Dartagnan for
PTX, docs/litmus-format.md §8 for GIN), with the thread table's columns aligned.
Every AST the parser produces round-trips; an AST it cannot produce (an
``And`` of one argument, a doc string containing '"', ...) may not.
"""

from __future__ import annotations

import re

from gdrcheck.litmus.ast import (
    AliasDecl,
    And,
    BoolConst,
    Branch,
    Cmp,
    Const,
    ConstTerm,
    CounterDecl,
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
    HostDecl,
    HostVerb,
    HostWaitCompletion,
    InitItem,
    InitLoc,
    InitReg,
    Instr,
    Label,
    LocalOp,
    LocRef,
    LocTerm,
    MbarrierDecl,
    MulticastDecl,
    MultimemLdReduce,
    MultimemRed,
    MultimemStore,
    Not,
    Or,
    Placement,
    Prop,
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
    RegTerm,
    Selp,
    Setp,
    SharedDecl,
    ShmemCall,
    SignalDecl,
    SignalSpec,
    StreamWaitValue,
    Term,
    Test,
    Thread,
    WindowDecl,
    X86Locked,
    X86Mfence,
    X86Mov,
    X86Operand,
    X86Xchg,
)
from gdrcheck.litmus.instructions import BRANCH_MNEMONICS

_REG_RE = re.compile(r"r[0-9]+")


def print_litmus(test: Test) -> str:
    """Litmus text for ``test``, ending with a newline."""
    if any('"' in d for d in test.docs):
        raise ValueError("a doc string cannot contain '\"'")
    x86 = test.arch == "X86"
    lines = [f"{test.arch} {test.name}"]
    lines.extend(f'"{d}"' for d in test.docs)
    lines.extend(f"{m.key}={m.value}" for m in test.meta)
    lines.append("{")
    lines.extend(f" {init_item(item, x86)};" for item in test.init)
    lines.append("}")
    lines.extend(table(test.threads))
    if test.locations:
        lines.append("locations [" + " ".join(term(t, x86) + ";" for t in test.locations) + "]")
    if test.filter is not None:
        lines.append("filter " + prop(test.filter, test.arch))
    lines.append(f"{test.condition.quantifier} ({prop(test.condition.prop, test.arch)})")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# Init block, thread table
# --------------------------------------------------------------------------


def init_item(item: InitItem, x86: bool = False) -> str:
    if isinstance(item, InitLoc):
        return f"{item.loc}={item.value}"
    if isinstance(item, InitReg):
        return f"{reg_prefix(item.thread, x86)}:{item.reg}={item.value}"
    if isinstance(item, SignalDecl):
        return f"{item.name} : signal"
    if isinstance(item, CounterDecl):
        return f"{item.name} : counter"
    if isinstance(item, HostDecl):
        return f"{item.name} : host = {item.value}"
    if isinstance(item, AliasDecl):
        return f"{item.name} @ {item.proxy} aliases {item.target}"
    if isinstance(item, SharedDecl):
        return f"{item.name} : shared = {item.value}"
    if isinstance(item, MbarrierDecl):
        return f"{item.name} : mbarrier {item.count}"
    if isinstance(item, MulticastDecl):
        if item.target is not None:
            return f"multicast {item.name} = {item.target}"
        return f"multicast {item.name} = {{{', '.join(str(c) for c in item.copies)}}}"
    assert isinstance(item, WindowDecl)
    strict = " strict" if item.strict else ""
    if not item.line:
        return f"window {item.name}{strict} = {{{', '.join(item.members)}}}"
    words = ", ".join(f"{m} : {o}" for m, o in zip(item.members, item.offsets, strict=True))
    return f"window {item.name}{strict} line = {{{words}}}"


def reg_prefix(thread: int, x86: bool) -> str:
    return str(thread) if x86 else f"P{thread}"


def placement(p: Placement) -> str:
    items = ["host"] if p.host else []
    for key in ("cta", "cluster", "gpu", "node"):
        value = getattr(p, key)
        if value is not None:
            items.append(f"{key} {value}")
    if p.grid is not None:
        items.append(f"grid {p.grid}")
    if p.launched:
        items.append("launched")
    return ",".join(items)


def thread_header(t: Thread) -> str:
    where = placement(t.placement)
    return f"P{t.index}@{where}" if where else f"P{t.index}"


def table(threads: tuple[Thread, ...]) -> list[str]:
    columns = [[thread_header(t)] + [instr(i) for i in t.instrs] for t in threads]
    widths = [max(len(cell) for cell in column) for column in columns]
    rows = max((len(column) for column in columns), default=1)
    out = []
    for r in range(rows):
        cells = [
            (column[r] if r < len(column) else "").ljust(width)
            for column, width in zip(columns, widths, strict=True)
        ]
        out.append(" " + " | ".join(cells) + " ;")
    return out


# --------------------------------------------------------------------------
# Instructions
# --------------------------------------------------------------------------


def value(v: Const | Reg) -> str:
    return str(v.value) if isinstance(v, Const) else v.name


def x86_operand(op: X86Operand) -> str:
    if isinstance(op, Const):
        return f"${op.value}"
    if isinstance(op, Reg):
        return op.name
    return f"[{op.loc}]"


def _dotted(*parts: str | None) -> str:
    return ".".join(p for p in parts if p)


def _signal(spec: SignalSpec) -> str:
    amount = f"+{spec.amount}" if spec.explicit_amount or spec.amount != 1 else ""
    return f"{spec.target.name}{amount}"


def _options(options: GinOptions) -> list[str]:
    out = []
    if options.given is not None:
        out.append(f"given={options.given}")
    if options.required is not None:
        out.append(f"required={options.required}")
    if options.aggregate:
        out.append("aggregate")
    return out


def _call(name: str, args: list[str]) -> str:
    return f"{name} {', '.join(args)}" if args else name


def instr(i: Instr) -> str:
    """One instruction as written in a cell."""
    # X86
    if isinstance(i, X86Mov):
        return f"MOV {x86_operand(i.dst)},{x86_operand(i.src)}"
    if isinstance(i, X86Mfence):
        return "MFENCE"
    if isinstance(i, X86Xchg):
        return f"XCHG {x86_operand(i.a)},{x86_operand(i.b)}"
    if isinstance(i, X86Locked):
        ops = [x86_operand(i.dst)] + ([] if i.src is None else [x86_operand(i.src)])
        return f"LOCK {i.op} {','.join(ops)}"
    # PTX
    if isinstance(i, PtxLoad):
        if i.proxy != "generic":
            name = {"surface": "suld.weak", "texture": "tld.weak", "constant": "ld.weak.const"}
            return f"{name[i.proxy]} {i.dst.name}, {i.loc}"
        return f"{_dotted('ld', i.sem, i.scope)} {i.dst.name}, {i.loc}"
    if isinstance(i, PtxStore):
        mnemonic = "sust" if i.proxy == "surface" else "st"
        return f"{_dotted(mnemonic, i.sem, i.scope)} {i.loc}, {value(i.value)}"
    if isinstance(i, PtxBulkLoad):
        return f"cp.async.bulk {i.dst}, {i.src}, {i.mbar}"
    if isinstance(i, PtxBulkStore):
        return f"cp.async.bulk {i.dst}, {i.src}"
    if isinstance(i, PtxBulkCommit):
        return "cp.async.bulk.commit_group"
    if isinstance(i, PtxMbarArrive):
        if i.expect_tx is not None:
            return f"mbarrier.arrive.expect_tx.{i.sem}.{i.scope} {i.mbar}, {i.expect_tx}"
        return f"mbarrier.arrive.{i.sem}.{i.scope} {i.mbar}"
    if isinstance(i, PtxMbarWait):
        return f"mbarrier.wait.{i.sem}.{i.scope} {i.mbar}"
    if isinstance(i, PtxMapa):
        return f"mapa.shared::cluster {i.dst}, {i.target}, {i.rank}"
    if isinstance(i, PtxClusterBarrier):
        return f"barrier.cluster.{i.action}.{i.sem}"
    if isinstance(i, PtxStoreAsync):
        head = ("st.async" if i.op is None else "red.async.relaxed.cluster") + \
            ".shared::cluster.mbarrier::complete_tx::bytes" + ("" if i.op is None else f".{i.op}")
        return f"{head} {i.loc}, {value(i.value)}, {i.mbar}"
    if isinstance(i, PtxMbarInit):
        return f"mbarrier.init {i.mbar}" + (f", {i.count}" if i.count is not None else "")
    if isinstance(i, PtxGridDep):
        return f"griddepcontrol.{i.action}"
    if isinstance(i, PtxAtom):
        args = [i.dst.name, str(i.loc)] + [value(v) for v in i.operands]
        return _call(_dotted("atom", i.sem, i.scope, i.op), args)
    if isinstance(i, PtxRed):
        return f"{_dotted('red', i.sem, i.scope, i.op)} {i.loc}, {value(i.value)}"
    if isinstance(i, MultimemStore):
        return f"{_dotted('multimem.st', i.sem, i.scope)} {i.mc}, {value(i.value)}"
    if isinstance(i, MultimemRed):
        return f"{_dotted('multimem.red', i.sem, i.scope, i.op)} {i.mc}, {value(i.value)}"
    if isinstance(i, MultimemLdReduce):
        return f"{_dotted('multimem.ld_reduce', i.sem, i.scope, i.op)} {i.dst.name}, {i.mc}"
    if isinstance(i, PtxAsyncStore):
        return f"cp.async.bulk {i.loc}, {value(i.value)}"
    if isinstance(i, PtxAsyncWait):
        return f"cp.async.bulk.wait_group{'.read' if i.read else ''} {i.groups}"
    if isinstance(i, PtxFence):
        return _dotted("fence", i.kind, i.scope)
    if isinstance(i, PtxBarrier):
        return _call(f"bar.cta.{i.mode}", [value(v) for v in i.operands])
    if isinstance(i, LocalOp):
        args = [i.dst.name] + [value(v) for v in i.args]
        if i.op == "mov" and len(i.args) == 1:
            src = i.args[0]
            # Dartagnan's register move is 'ld r, v'; 'mov' when 'v' may read as a location.
            if isinstance(src, Const) or _REG_RE.fullmatch(src.name):
                return _call("ld", args)
        return _call(i.op, args)
    if isinstance(i, Setp):
        return _call(f"setp.{i.cond}", [i.dst.name, value(i.a), value(i.b)])
    if isinstance(i, Selp):
        return _call("selp", [i.dst.name, value(i.a), value(i.b), value(i.c)])
    if isinstance(i, Label):
        return f"{i.name}:"
    if isinstance(i, Branch):
        return _call(BRANCH_MNEMONICS[i.cond], [value(i.a), value(i.b), i.target])
    if isinstance(i, Goto):
        return f"goto {i.target}"
    return _gin_instr(i)


def _gin_instr(i: Instr) -> str:
    if isinstance(i, GinPut):
        src = str(i.src.value) if isinstance(i.src, Const) else str(i.src)
        args = [i.ctx, str(i.dst), src]
        if i.signal is not None:
            key = {"strong": "sig", "weak": "wsig", "va": "vsig", "legacy": "lsig"}[i.signal.kind]
            args.append(f"{key}={_signal(i.signal)}")
        if i.counter is not None:
            args.append(f"ctr={i.counter}")
        name = "gin.put_value" if isinstance(i.src, Const) else "gin.put"
        return _call(name, args + _options(i.options))
    if isinstance(i, GinSignal):
        target = str(i.signal.target)
        amount = _signal(i.signal)[len(i.signal.target.name) :]
        args = [i.ctx, target + amount]
        if i.signal.kind != "strong":
            args.append(i.signal.kind)
        return _call("gin.signal", args + _options(i.options))
    if isinstance(i, GinFlush):
        return f"gin.flush {i.ctx}"
    if isinstance(i, GinFlushAsync):
        return f"gin.flush_async {i.ctx}, {i.request}"
    if isinstance(i, GinWaitRequest):
        return f"gin.wait {i.request}"
    if isinstance(i, GinGet):
        return f"gin.get {i.ctx}, {i.dst}, {i.src}"
    if isinstance(i, GinWait):
        least = str(i.value) if i.base is None else (
            i.base.name + (f"+{i.value}" if i.value else ""))
        return f"gin.wait_{i.what} {i.name}, {least}" + (", va" if i.va else "")
    if isinstance(i, GinRead):
        relaxed = ".relaxed" if i.relaxed else ""
        va = ", va" if i.va else ""
        return f"gin.read_{i.what}{relaxed} {i.dst.name}, {i.name}{va}"
    if isinstance(i, GinReset):
        return f"gin.reset_{i.what} {i.name}"
    if isinstance(i, GinBarrier):
        return _call("gin.barrier", [i.ctx, i.kind] + (["all"] if i.all_contexts else []))
    if isinstance(i, HOST_INSTRS):
        return _host_instr(i)
    assert isinstance(i, ShmemCall), f"cannot print {i!r}"
    return _shmem(i)


# Host-initiated RDMA and kernel boundaries (docs/litmus-format.md §12)

HOST_INSTRS = (HostVerb, HostWaitCompletion, CudaLaunch, CudaSync, CudaFlushRdma,
               StreamWaitValue)


def _host_instr(i: Instr) -> str:
    if isinstance(i, HostVerb):
        last = str(i.src) if i.src is not None else str(i.value)
        return f"ibv.{i.op} {i.qp}, {i.dst}, {last}"
    if isinstance(i, HostWaitCompletion):
        return f"ibv.wait_{i.kind} {i.qp}"
    if isinstance(i, CudaLaunch):
        return f"cuda.launch P{i.thread}"
    if isinstance(i, CudaSync):
        return f"cuda.sync P{i.thread}"
    if isinstance(i, CudaFlushRdma):
        return "cuda.flush_rdma"
    assert isinstance(i, StreamWaitValue), f"cannot print {i!r}"
    return f"stream.wait_value {i.name}, {i.cmp}, {i.value}" + (", flush" if i.flush else "")


def _loc_name(loc: LocRef | None) -> str:
    assert loc is not None
    return str(loc)


def _shmem(i: ShmemCall) -> str:
    name = f"shmem.{i.op}"
    if i.op in ("put", "put_nbi", "get", "get_nbi"):
        return _call(name, [_loc_name(i.dst), _loc_name(i.src)])
    if i.op in ("p", "atomic_add", "atomic_set"):
        return _call(name, [_loc_name(i.dst), i.reg.name if i.reg is not None else str(i.value)])
    if i.op in ("put_signal", "put_signal_nbi"):
        assert i.signal is not None
        return _call(name, [_loc_name(i.dst), _loc_name(i.src), i.signal.name,
                            str(i.signal_value), str(i.signal_op)])
    if i.op == "signal_op":
        return _call(name, [_loc_name(i.signal), str(i.signal_value), str(i.signal_op)])
    if i.op in ("wait_until", "signal_wait_until"):
        return _call(name, [_loc_name(i.signal), str(i.cmp), str(i.value)])
    return name


# --------------------------------------------------------------------------
# Conditions
# --------------------------------------------------------------------------


def term(t: Term, x86: bool = False) -> str:
    if isinstance(t, RegTerm):
        return f"{reg_prefix(t.thread, x86)}:{t.reg}"
    if isinstance(t, LocTerm):
        return f"[{t.loc}]" if x86 else str(t.loc)
    assert isinstance(t, ConstTerm)
    return str(t.value)


def prop(p: Prop, arch: str = "GIN") -> str:
    """A proposition; ``/\\`` binds tighter than ``\\/``, nesting is kept with parentheses."""
    x86 = arch == "X86"
    if isinstance(p, Cmp):
        op = "==" if p.op == "=" and arch == "PTX" else p.op
        return f"{term(p.lhs, x86)} {op} {term(p.rhs, x86)}"
    if isinstance(p, BoolConst):
        return "true" if p.value else "false"
    if isinstance(p, Not):
        return f"~({prop(p.arg, arch)})"
    if isinstance(p, And):
        return " /\\ ".join(_wrap(a, arch, (And, Or)) for a in p.args)
    assert isinstance(p, Or)
    return " \\/ ".join(_wrap(a, arch, (Or,)) for a in p.args)


def _wrap(p: Prop, arch: str, nested: tuple[type, ...]) -> str:
    text = prop(p, arch)
    return f"({text})" if isinstance(p, nested) else text
