"""One test per instruction form: the cell text and the AST it must produce."""

from __future__ import annotations

import pytest

from gdrcheck.errors import Pos
from gdrcheck.litmus import parse_litmus
from gdrcheck.litmus.ast import (
    Branch,
    Const,
    GinBarrier,
    GinFlush,
    GinGet,
    GinOptions,
    GinPut,
    GinRead,
    GinReset,
    GinSignal,
    GinWait,
    Goto,
    Instr,
    Label,
    LocalOp,
    LocRef,
    PtxAtom,
    PtxBarrier,
    PtxFence,
    PtxLoad,
    PtxRed,
    PtxStore,
    Reg,
    Selp,
    Setp,
    ShmemCall,
    SignalSpec,
    X86Locked,
    X86Mem,
    X86Mfence,
    X86Mov,
    X86Xchg,
)
from gdrcheck.litmus.printer import print_litmus

GIN_INIT = "x = 0; buf@0 = 1; S : signal; T : signal; C : counter;"


def instrs(arch: str, *cells: str, init: str = "") -> tuple[Instr, ...]:
    header = "P0" if arch == "X86" else "P0@cta 0,gpu 0,node 0"
    rows = "\n".join(f" {cell} ;" for cell in cells)
    text = f"{arch} t\n{{ {init} }}\n {header} ;\n{rows}\nexists (true)\n"
    return parse_litmus(text, "t.litmus").threads[0].instrs


def one(arch: str, cell: str, init: str = "") -> Instr:
    (instr,) = instrs(arch, cell, init=init)
    return instr


def mem(name: str, rank: int | None = None) -> X86Mem:
    return X86Mem(LocRef(name, rank))


def loc(name: str, rank: int | None = None) -> LocRef:
    return LocRef(name, rank)


# --------------------------------------------------------------------------
# X86
# --------------------------------------------------------------------------

X86_CASES = [
    ("MOV [x],$1", X86Mov(mem("x"), Const(1))),
    ("MOV EAX,[y]", X86Mov(Reg("EAX"), mem("y"))),
    ("MOV [x],EAX", X86Mov(mem("x"), Reg("EAX"))),
    ("MOV EAX,$1", X86Mov(Reg("EAX"), Const(1))),
    ("MOV EBX,$-2", X86Mov(Reg("EBX"), Const(-2))),
    ("MOV ECX,EAX", X86Mov(Reg("ECX"), Reg("EAX"))),
    ("MOV R8D,[z]", X86Mov(Reg("R8D"), mem("z"))),
    ("MOV RAX,[z]", X86Mov(Reg("RAX"), mem("z"))),
    ("mov eax,[x]", X86Mov(Reg("EAX"), mem("x"))),
    ("MFENCE", X86Mfence()),
    ("mfence", X86Mfence()),
    ("XCHG [x],EAX", X86Xchg(mem("x"), Reg("EAX"))),
    ("XCHG EAX,[x]", X86Xchg(Reg("EAX"), mem("x"))),
    ("LOCK ADD [x],$1", X86Locked("ADD", mem("x"), Const(1))),
    ("LOCK ADD [x],EDX", X86Locked("ADD", mem("x"), Reg("EDX"))),
    ("lock add [x],$1", X86Locked("ADD", mem("x"), Const(1))),
    ("LOCK XADD [x],EAX", X86Locked("XADD", mem("x"), Reg("EAX"))),
    ("LOCK CMPXCHG [x],EBX", X86Locked("CMPXCHG", mem("x"), Reg("EBX"))),
    ("LOCK INC [x]", X86Locked("INC", mem("x"), None)),
    ("LOCK DEC [y]", X86Locked("DEC", mem("y"), None)),
    ("LOCK XCHG [z],ECX", X86Xchg(mem("z"), Reg("ECX"))),
]


@pytest.mark.parametrize(("cell", "expected"), X86_CASES, ids=[c for c, _ in X86_CASES])
def test_x86_instruction(cell: str, expected: Instr) -> None:
    assert one("X86", cell) == expected


# --------------------------------------------------------------------------
# PTX (also valid in GIN tests)
# --------------------------------------------------------------------------

PTX_CASES = [
    ("ld.weak r0, x", PtxLoad("weak", None, Reg("r0"), loc("x"))),
    ("ld r0, x", PtxLoad("weak", None, Reg("r0"), loc("x"))),
    ("ld.relaxed.gpu r1, x", PtxLoad("relaxed", "gpu", Reg("r1"), loc("x"))),
    ("ld.acquire.cta r1, x", PtxLoad("acquire", "cta", Reg("r1"), loc("x"))),
    ("ld.acquire.sys r1, x", PtxLoad("acquire", "sys", Reg("r1"), loc("x"))),
    ("ld.volatile r1, x", PtxLoad("volatile", None, Reg("r1"), loc("x"))),
    ("ld.global.relaxed.gpu.u32 r1, x", PtxLoad("relaxed", "gpu", Reg("r1"), loc("x"))),
    ("ld r1, 5", LocalOp("mov", Reg("r1"), (Const(5),))),
    ("ld r1, r2", LocalOp("mov", Reg("r1"), (Reg("r2"),))),
    ("mov r1, -7", LocalOp("mov", Reg("r1"), (Const(-7),))),
    ("st.weak x, 1", PtxStore("weak", None, loc("x"), Const(1))),
    ("st x, r1", PtxStore("weak", None, loc("x"), Reg("r1"))),
    ("st.relaxed.sys x, 1", PtxStore("relaxed", "sys", loc("x"), Const(1))),
    ("st.release.gpu y, r2", PtxStore("release", "gpu", loc("y"), Reg("r2"))),
    ("st.volatile y, 3", PtxStore("volatile", None, loc("y"), Const(3))),
    ("atom.relaxed.gpu.add r0, x, 1",
     PtxAtom("relaxed", "gpu", "add", Reg("r0"), loc("x"), (Const(1),))),
    ("atom.acq_rel.sys.sub r0, x, r1",
     PtxAtom("acq_rel", "sys", "sub", Reg("r0"), loc("x"), (Reg("r1"),))),
    ("atom.acquire.cta.exch r0, x, 2",
     PtxAtom("acquire", "cta", "exch", Reg("r0"), loc("x"), (Const(2),))),
    ("atom.relaxed.gpu.cas r1, m, 0, 1",
     PtxAtom("relaxed", "gpu", "cas", Reg("r1"), loc("m"), (Const(0), Const(1)))),
    ("atom.gpu.inc r1, x, 9", PtxAtom("relaxed", "gpu", "inc", Reg("r1"), loc("x"), (Const(9),))),
    ("atom.release.gpu.max r1, x, -1",
     PtxAtom("release", "gpu", "max", Reg("r1"), loc("x"), (Const(-1),))),
    ("red.acq_rel.cta.add x, 1", PtxRed("acq_rel", "cta", "add", loc("x"), Const(1))),
    ("red.release.sys.or x, r1", PtxRed("release", "sys", "or", loc("x"), Reg("r1"))),
    ("red.relaxed.gpu.sub x, 1", PtxRed("relaxed", "gpu", "sub", loc("x"), Const(1))),
    ("fence.sc.gpu", PtxFence("sc", "gpu")),
    ("fence.acq_rel.sys", PtxFence("acq_rel", "sys")),
    ("fence.acquire.cta", PtxFence("acquire", "cta")),
    ("fence.release.gpu", PtxFence("release", "gpu")),
    ("fence.gpu", PtxFence("acq_rel", "gpu")),
    ("membar.cta", PtxFence("sc", "cta")),
    ("membar.gl", PtxFence("sc", "gpu")),
    ("membar.sys", PtxFence("sc", "sys")),
    ("fence.proxy.async", PtxFence("proxy.async", None)),
    ("fence.proxy.async.global", PtxFence("proxy.async.global", None)),
    ("bar.cta.sync 1", PtxBarrier("sync", (Const(1),))),
    ("bar.cta.sync 1, 1, 2", PtxBarrier("sync", (Const(1), Const(1), Const(2)))),
    ("bar.cta.sync 1, r2", PtxBarrier("sync", (Const(1), Reg("r2")))),
    ("bar.cta.arrive 1", PtxBarrier("arrive", (Const(1),))),
    ("bar.cta.arrive 1, 64", PtxBarrier("arrive", (Const(1), Const(64)))),
    ("bar.sync 0", PtxBarrier("sync", (Const(0),))),
    ("bar.sync 0, 32", PtxBarrier("sync", (Const(0), Const(32)))),
    ("barrier.cta.sync 3", PtxBarrier("sync", (Const(3),))),
    ("barrier.sync.aligned 3", PtxBarrier("sync", (Const(3),))),
    ("barrier.cta.arrive 2, 4", PtxBarrier("arrive", (Const(2), Const(4)))),
    ("add r1, r2, 1", LocalOp("add", Reg("r1"), (Reg("r2"), Const(1)))),
    ("sub r1, 5, r2", LocalOp("sub", Reg("r1"), (Const(5), Reg("r2")))),
    ("mul r1, r1, r1", LocalOp("mul", Reg("r1"), (Reg("r1"), Reg("r1")))),
    ("div r1, r2, 2", LocalOp("div", Reg("r1"), (Reg("r2"), Const(2)))),
    ("and r1, r2, 1", LocalOp("and", Reg("r1"), (Reg("r2"), Const(1)))),
    ("or r1, r2, 1", LocalOp("or", Reg("r1"), (Reg("r2"), Const(1)))),
    ("xor r1, r2, 1", LocalOp("xor", Reg("r1"), (Reg("r2"), Const(1)))),
    # PTX ISA §9.7.6.2 setp.CmpOp.type p, a, b and §9.7.6.3 selp.type d, a, b, c; the
    # predicate is an ordinary register, the integer types are accepted and dropped
    ("setp.eq r1, r2, 3", Setp("eq", Reg("r1"), Reg("r2"), Const(3))),
    ("setp.lt.s32 r1, 0, r2", Setp("lt", Reg("r1"), Const(0), Reg("r2"))),
    ("setp.ge.u64 p, r1, r2", Setp("ge", Reg("p"), Reg("r1"), Reg("r2"))),
    ("setp.ne.b32 r1, r1, -1", Setp("ne", Reg("r1"), Reg("r1"), Const(-1))),
    ("selp r1, 9, 16, r2", Selp(Reg("r1"), Const(9), Const(16), Reg("r2"))),
    ("selp.s32 r1, r3, r4, r2", Selp(Reg("r1"), Reg("r3"), Reg("r4"), Reg("r2"))),
    ("selp.u32 r1, r3, 0, 1", Selp(Reg("r1"), Reg("r3"), Const(0), Const(1))),
]


@pytest.mark.parametrize(("cell", "expected"), PTX_CASES, ids=[c for c, _ in PTX_CASES])
@pytest.mark.parametrize("arch", ["PTX", "GIN"])
def test_ptx_instruction(arch: str, cell: str, expected: Instr) -> None:
    assert one(arch, cell) == expected


def test_ptx_labels_and_branches() -> None:
    got = instrs(
        "PTX",
        "LC00:",
        "beq r1, r2, LC01",
        "bne r1, 0, LC00",
        "blt 1, r1, LC01",
        "bgt r1, 2, LC01",
        "ble r1, 3, LC01",
        "bge r1, 4, LC01",
        "goto LC00",
        "LC01:",
    )
    assert got == (
        Label("LC00"),
        Branch("eq", Reg("r1"), Reg("r2"), "LC01"),
        Branch("ne", Reg("r1"), Const(0), "LC00"),
        Branch("lt", Const(1), Reg("r1"), "LC01"),
        Branch("gt", Reg("r1"), Const(2), "LC01"),
        Branch("le", Reg("r1"), Const(3), "LC01"),
        Branch("ge", Reg("r1"), Const(4), "LC01"),
        Goto("LC00"),
        Label("LC01"),
    )


def test_gin_destination_identifiers_are_registers() -> None:
    # 'v' is written by the thread, so 'ld w, v' is a register move, not a load of v.
    got = instrs("GIN", "ld.relaxed.sys v, x", "ld w, v", "ld u, y", init="x = 0; y = 0;")
    assert got == (
        PtxLoad("relaxed", "sys", Reg("v"), loc("x")),
        LocalOp("mov", Reg("w"), (Reg("v"),)),
        PtxLoad("weak", None, Reg("u"), loc("y")),
    )


def test_gin_lsa_locations() -> None:
    got = instrs("GIN", "st.relaxed.sys x@1, 1", "ld.acquire.sys r0, flag@1")
    assert got == (
        PtxStore("relaxed", "sys", loc("x", 1), Const(1)),
        PtxLoad("acquire", "sys", Reg("r0"), loc("flag", 1)),
    )


# --------------------------------------------------------------------------
# GIN device calls (docs/litmus-format.md §9)
# --------------------------------------------------------------------------


def strong(name: str, rank: int | None, amount: int = 1, explicit: bool = False) -> SignalSpec:
    return SignalSpec("strong", loc(name, rank), amount, explicit)


GIN_CASES = [
    ("gin.put c0, x@1, buf", GinPut("c0", loc("x", 1), loc("buf"))),
    ("gin.put_value c0, x@1, 7", GinPut("c0", loc("x", 1), Const(7))),
    ("gin.put c0, x@1, buf, sig=S", GinPut("c0", loc("x", 1), loc("buf"), strong("S", 1))),
    ("gin.put c0, x@1, buf, sig=S@1", GinPut("c0", loc("x", 1), loc("buf"), strong("S", 1))),
    ("gin.put c0, x@1, buf, sig=S+2",
     GinPut("c0", loc("x", 1), loc("buf"), strong("S", 1, 2, True))),
    ("gin.put c0, x@1, buf, sig=S+1",
     GinPut("c0", loc("x", 1), loc("buf"), strong("S", 1, 1, True))),
    ("gin.put c0, x@1, buf, wsig=S",
     GinPut("c0", loc("x", 1), loc("buf"), SignalSpec("weak", loc("S", 1)))),
    ("gin.put c0, x@1, buf, vsig=f",
     GinPut("c0", loc("x", 1), loc("buf"), SignalSpec("va", loc("f", 1)))),
    ("gin.put c0, x@1, buf, lsig=S",
     GinPut("c0", loc("x", 1), loc("buf"), SignalSpec("legacy", loc("S", 1)))),
    ("gin.put c0, x@1, buf, ctr=C", GinPut("c0", loc("x", 1), loc("buf"), None, "C")),
    ("gin.put c1, x@2, buf, sig=S, ctr=C",
     GinPut("c1", loc("x", 2), loc("buf"), strong("S", 2), "C")),
    ("gin.put c0, x@1, buf, given=cta, required=sys, aggregate",
     GinPut("c0", loc("x", 1), loc("buf"), options=GinOptions("cta", "sys", True))),
    ("gin.put_value c0, x@1, 7, sig=S+3, given=thread",
     GinPut("c0", loc("x", 1), Const(7), strong("S", 1, 3, True), None,
            GinOptions("thread", None, False))),
    ("gin.signal c0, S@1", GinSignal("c0", strong("S", 1))),
    ("gin.signal c0, S@1+2", GinSignal("c0", strong("S", 1, 2, True))),
    ("gin.signal c0, S@1, weak", GinSignal("c0", SignalSpec("weak", loc("S", 1)))),
    ("gin.signal c0, f@1, va", GinSignal("c0", SignalSpec("va", loc("f", 1)))),
    ("gin.signal c0, S@1, legacy", GinSignal("c0", SignalSpec("legacy", loc("S", 1)))),
    ("gin.signal c2, S@1, required=gpu, aggregate",
     GinSignal("c2", strong("S", 1), GinOptions(None, "gpu", True))),
    ("gin.flush c0", GinFlush("c0")),
    ("gin.get c0, buf, x@1", GinGet("c0", loc("buf"), loc("x", 1))),
    ("gin.wait_signal S, 1", GinWait("signal", "S", 1)),
    ("gin.wait_counter C, 2", GinWait("counter", "C", 2)),
    ("gin.read_signal r0, S", GinRead("signal", Reg("r0"), "S")),
    ("gin.read_signal.relaxed r0, S", GinRead("signal", Reg("r0"), "S", relaxed=True)),
    ("gin.read_counter r3, C", GinRead("counter", Reg("r3"), "C")),
    ("gin.wait_signal f, 1, va", GinWait("signal", "f", 1, va=True)),
    # a threshold in a register (NCCL's waitSignal(..., readSignal(S) + n)):
    ("gin.wait_signal S, r0+2", GinWait("signal", "S", 2, base=Reg("r0"))),
    ("gin.wait_signal S, r1", GinWait("signal", "S", 0, base=Reg("r1"))),
    ("gin.wait_counter C, r3+1", GinWait("counter", "C", 1, base=Reg("r3"))),
    ("gin.read_signal r0, f, va", GinRead("signal", Reg("r0"), "f", va=True)),
    ("gin.reset_signal S", GinReset("signal", "S")),
    ("gin.reset_counter C", GinReset("counter", "C")),
    ("gin.barrier c0, put", GinBarrier("c0", "put")),
    ("gin.barrier c0, get, all", GinBarrier("c0", "get", True)),
    ("gin.barrier c1, none", GinBarrier("c1", "none")),
]


@pytest.mark.parametrize(("cell", "expected"), GIN_CASES, ids=[c for c, _ in GIN_CASES])
def test_gin_call(cell: str, expected: Instr) -> None:
    assert one("GIN", cell, GIN_INIT) == expected


def test_a_register_threshold_round_trips_through_the_printer() -> None:
    text = ("GIN reg-wait\n{ S : signal; C : counter; }\n"
            " P0@cta 0,gpu 0,node 0 | P1@cta 0,gpu 1,node 1 ;\n"
            " gin.signal c0, S@1    | gin.read_signal r0, S ;\n"
            "                       | gin.wait_signal S, r0+1 ;\n"
            "                       | gin.wait_signal S, r0 ;\n"
            "                       | gin.wait_counter C, r0+2 ;\n"
            "exists (1:r0 = 0)\n")
    t = parse_litmus(text)
    printed = print_litmus(t)
    assert "gin.wait_signal S, r0+1" in printed and "gin.wait_signal S, r0 " in printed
    assert "gin.wait_counter C, r0+2" in printed
    assert parse_litmus(printed) == t


# --------------------------------------------------------------------------
# NVSHMEM device calls (docs/litmus-format.md §10)
# --------------------------------------------------------------------------

SHMEM_CASES = [
    ("shmem.put x@1, buf", ShmemCall("put", dst=loc("x", 1), src=loc("buf"))),
    ("shmem.put_nbi x@1, buf", ShmemCall("put_nbi", dst=loc("x", 1), src=loc("buf"))),
    ("shmem.p x@1, 7", ShmemCall("p", dst=loc("x", 1), value=7)),
    ("shmem.p x@1, r0", ShmemCall("p", dst=loc("x", 1), reg=Reg("r0"))),
    ("shmem.put_signal x@1, buf, S, 1, add",
     ShmemCall("put_signal", dst=loc("x", 1), src=loc("buf"), signal=loc("S", 1),
               signal_value=1, signal_op="add")),
    ("shmem.put_signal_nbi x@2, buf, S, 5, set",
     ShmemCall("put_signal_nbi", dst=loc("x", 2), src=loc("buf"), signal=loc("S", 2),
               signal_value=5, signal_op="set")),
    ("shmem.signal_op S@1, 1, add",
     ShmemCall("signal_op", signal=loc("S", 1), signal_value=1, signal_op="add")),
    ("shmem.signal_op S@1, 3, set",
     ShmemCall("signal_op", signal=loc("S", 1), signal_value=3, signal_op="set")),
    ("shmem.atomic_add x@1, 1", ShmemCall("atomic_add", dst=loc("x", 1), value=1)),
    ("shmem.get buf, x@1", ShmemCall("get", dst=loc("buf"), src=loc("x", 1))),
    ("shmem.get_nbi buf, x@1", ShmemCall("get_nbi", dst=loc("buf"), src=loc("x", 1))),
    ("shmem.fence", ShmemCall("fence")),
    ("shmem.quiet", ShmemCall("quiet")),
    ("shmem.barrier_all", ShmemCall("barrier_all")),
] + [
    (f"shmem.wait_until S, {cmp}, 1", ShmemCall("wait_until", signal=loc("S"), cmp=cmp, value=1))
    for cmp in (">=", "==", "!=", ">", "<", "<=")
]


@pytest.mark.parametrize(("cell", "expected"), SHMEM_CASES, ids=[c for c, _ in SHMEM_CASES])
def test_shmem_call(cell: str, expected: Instr) -> None:
    assert one("GIN", cell, "x = 0; buf@0 = 1; S = 0;") == expected


# --------------------------------------------------------------------------
# Positions are in file coordinates
# --------------------------------------------------------------------------


def test_positions_are_file_coordinates() -> None:
    text = (
        "GIN pos\n"
        "{ x = 0; S : signal; }\n"
        " P0@cta 0,gpu 0,node 0      | P1@cta 0,gpu 1,node 1 ;\n"
        " gin.put c0, x@1, buf, sig=S | gin.wait_signal S, 1  ;\n"
        "    (* a comment *)          | ld.acquire.sys r0, x  ;\n"
        "exists (1:r0 = 0)\n"
    )
    test = parse_litmus(text)
    put = test.threads[0].instrs[0]
    assert isinstance(put, GinPut)
    assert put.pos == Pos(4, 2)
    assert put.dst.pos == Pos(4, 14)
    assert put.src.pos == Pos(4, 19)
    assert put.signal is not None and put.signal.target.pos == Pos(4, 28)
    load = test.threads[1].instrs[1]
    assert isinstance(load, PtxLoad)
    assert load.pos == Pos(5, 32)
    assert load.dst.pos == Pos(5, 47)
    assert load.loc.pos == Pos(5, 51)
    assert test.threads[1].pos == Pos(3, 31)
    assert test.condition.pos == Pos(6, 1)
    assert test.init[1].pos == Pos(2, 10)
