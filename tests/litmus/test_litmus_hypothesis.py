"""Property: parse(print(t)) == t for random ASTs of the three dialects."""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gdrcheck.litmus import parse_litmus, print_litmus
from gdrcheck.litmus.ast import (
    And,
    BoolConst,
    Branch,
    Cmp,
    Condition,
    Const,
    ConstTerm,
    CounterDecl,
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
    HostDecl,
    InitItem,
    InitLoc,
    InitReg,
    Instr,
    Label,
    LocalOp,
    LocRef,
    LocTerm,
    Meta,
    Not,
    Or,
    Placement,
    Prop,
    PtxAtom,
    PtxBarrier,
    PtxFence,
    PtxLoad,
    PtxRed,
    PtxStore,
    Quantifier,
    Reg,
    RegTerm,
    Selp,
    Setp,
    ShmemCall,
    SignalDecl,
    SignalSpec,
    Term,
    Thread,
    WindowDecl,
    X86Locked,
    X86Mem,
    X86Mfence,
    X86Mov,
    X86Xchg,
    locations_named,
    registers_written,
)
from gdrcheck.litmus.ast import Test as LitmusTest
from gdrcheck.litmus.instructions import ATOM_OPS, FENCE_KINDS, LOCAL_OPS, RED_OPS, SCOPES

LOCS = ["x", "y", "z", "buf", "flag"]
SIGNALS = ["S", "T"]
COUNTERS = ["C"]
WINDOW_LOCS = ["f", "g"]
X86_REGS = ["EAX", "EBX", "ECX", "EDX", "ESI", "EDI"]
END = "LEND"  # every PTX/GIN thread ends with this label, the target of its branches

ints = st.integers(min_value=-5, max_value=9)
ranks = st.none() | st.integers(min_value=0, max_value=3)
ptx_regs = st.integers(min_value=0, max_value=5).map(lambda i: Reg(f"r{i}"))


def locs(with_rank: bool) -> st.SearchStrategy[LocRef]:
    names = st.sampled_from(LOCS)
    if not with_rank:
        return names.map(LocRef)
    return st.builds(LocRef, names, ranks)


# --------------------------------------------------------------------------
# Instructions
# --------------------------------------------------------------------------


def x86_instr() -> st.SearchStrategy[Instr]:
    reg = st.sampled_from(X86_REGS).map(Reg)
    mem = locs(False).map(X86Mem)
    imm = ints.map(Const)
    return st.one_of(
        st.builds(X86Mov, reg, mem | imm | reg),
        st.builds(X86Mov, mem, reg | imm),
        st.just(X86Mfence()),
        st.builds(X86Xchg, mem, reg),
        st.builds(X86Xchg, reg, mem),
        st.builds(X86Locked, st.just("ADD"), mem, reg | imm),
        st.builds(X86Locked, st.sampled_from(["XADD", "CMPXCHG"]), mem, reg),
        st.builds(X86Locked, st.sampled_from(["INC", "DEC"]), mem, st.none()),
    )


@st.composite
def ptx_instr(draw: st.DrawFn, gin: bool) -> Instr:
    loc = locs(gin)
    value = ints.map(Const) | ptx_regs
    scope = st.sampled_from(SCOPES)
    kind = draw(st.integers(min_value=0, max_value=14))
    if kind == 0:
        sem = draw(st.sampled_from(["weak", "volatile", "relaxed", "acquire"]))
        sc = draw(scope) if sem in ("relaxed", "acquire") else None
        return PtxLoad(sem, sc, draw(ptx_regs), draw(loc))  # type: ignore[arg-type]
    if kind == 1:
        sem = draw(st.sampled_from(["weak", "volatile", "relaxed", "release"]))
        sc = draw(scope) if sem in ("relaxed", "release") else None
        return PtxStore(sem, sc, draw(loc), draw(value))  # type: ignore[arg-type]
    if kind == 2:
        op = draw(st.sampled_from(ATOM_OPS))
        n = 2 if op == "cas" else 1
        operands = tuple(draw(value) for _ in range(n))
        sem = draw(st.sampled_from(["relaxed", "acquire", "release", "acq_rel"]))
        return PtxAtom(sem, draw(scope), op, draw(ptx_regs), draw(loc), operands)  # type: ignore[arg-type]
    if kind == 3:
        sem = draw(st.sampled_from(["relaxed", "acquire", "release", "acq_rel"]))
        return PtxRed(sem, draw(scope), draw(st.sampled_from(RED_OPS)), draw(loc), draw(value))  # type: ignore[arg-type]
    if kind == 4:
        if draw(st.booleans()):
            return PtxFence(draw(st.sampled_from(["proxy.async", "proxy.alias"])), None)
        return PtxFence(draw(st.sampled_from(FENCE_KINDS)), draw(scope))
    if kind == 5:
        mode = draw(st.sampled_from(["sync", "arrive"]))
        operands = tuple(draw(st.lists(value, min_size=1, max_size=3)))
        return PtxBarrier(mode, operands)  # type: ignore[arg-type]
    if kind == 6:
        op = draw(st.sampled_from(LOCAL_OPS))
        return LocalOp(op, draw(ptx_regs), (draw(value), draw(value)))
    if kind == 7:
        return LocalOp("mov", draw(ptx_regs), (draw(value),))
    if kind == 8:
        cond = draw(st.sampled_from(["eq", "ne", "lt", "gt", "le", "ge"]))
        return Branch(cond, draw(value), draw(value), END)
    if kind == 9:
        return Goto(END)
    if kind == 10:
        return Label(draw(st.sampled_from(["LC00", "LC01", "L2"])))
    if kind == 13:
        cond = draw(st.sampled_from(["eq", "ne", "lt", "gt", "le", "ge"]))
        return Setp(cond, draw(ptx_regs), draw(value), draw(value))
    if kind == 14:
        return Selp(draw(ptx_regs), draw(value), draw(value), draw(value))
    if gin:
        return draw(gin_instr())
    return PtxFence("sc", draw(scope))


def signal_spec(peer: int | None, for_put: bool) -> st.SearchStrategy[SignalSpec]:
    amounts = st.just((1, False)) | st.tuples(st.integers(1, 4), st.just(True))

    @st.composite
    def build(draw: st.DrawFn) -> SignalSpec:
        kind = draw(st.sampled_from(["strong", "weak", "va"]))
        name = draw(st.sampled_from(WINDOW_LOCS if kind == "va" else SIGNALS))
        rank = peer if for_put else draw(ranks)
        amount, explicit = draw(amounts)
        return SignalSpec(kind, LocRef(name, rank), amount, explicit)  # type: ignore[arg-type]

    return build()


options = st.builds(
    GinOptions,
    st.none() | st.sampled_from(["thread", "cta", "gpu", "sys"]),
    st.none() | st.sampled_from(["gpu", "sys"]),
    st.booleans(),
)
contexts = st.integers(0, 2).map(lambda i: f"c{i}")


@st.composite
def gin_put(draw: st.DrawFn) -> GinPut:
    dst = draw(locs(True))
    src: LocRef | Const = draw(locs(True) | ints.map(Const))
    signal = draw(st.none() | signal_spec(dst.rank, True))
    counter = draw(st.none() | st.sampled_from(COUNTERS))
    return GinPut(draw(contexts), dst, src, signal, counter, draw(options))


@st.composite
def shmem_call(draw: st.DrawFn) -> ShmemCall:
    op = draw(st.sampled_from([
        "put", "put_nbi", "p", "put_signal", "put_signal_nbi", "signal_op", "atomic_add", "get",
        "get_nbi", "fence", "quiet", "barrier_all", "wait_until",
    ]))
    loc = locs(True)
    if op in ("put", "put_nbi", "get", "get_nbi"):
        return ShmemCall(op, dst=draw(loc), src=draw(loc))
    if op in ("p", "atomic_add"):
        return ShmemCall(op, dst=draw(loc), value=draw(ints))
    sig_op = draw(st.sampled_from(["add", "set"]))
    if op in ("put_signal", "put_signal_nbi"):
        dst = draw(loc)
        return ShmemCall(op, dst=dst, src=draw(loc), signal=LocRef("S", dst.rank),
                         signal_value=draw(ints), signal_op=sig_op)  # type: ignore[arg-type]
    if op == "signal_op":
        return ShmemCall(op, signal=LocRef("S", draw(ranks)), signal_value=draw(ints),
                         signal_op=sig_op)  # type: ignore[arg-type]
    if op == "wait_until":
        cmp = draw(st.sampled_from([">=", "==", "!=", ">", "<", "<="]))
        return ShmemCall(op, signal=LocRef("S"), cmp=cmp, value=draw(ints))
    return ShmemCall(op)


def gin_instr() -> st.SearchStrategy[Instr]:
    what: st.SearchStrategy[Literal["signal", "counter"]] = st.sampled_from(
        ["signal", "counter"]
    )

    @st.composite
    def named(draw: st.DrawFn, cls: type) -> Instr:
        w = draw(what)
        name = draw(st.sampled_from(SIGNALS if w == "signal" else COUNTERS))
        if cls is GinWait:
            return GinWait(w, name, draw(ints))
        if cls is GinRead:
            return GinRead(w, draw(ptx_regs), name, draw(st.booleans()))
        return GinReset(w, name)

    return st.one_of(
        gin_put(),
        st.builds(GinSignal, contexts, signal_spec(None, False), options),
        st.builds(GinFlush, contexts),
        st.builds(GinGet, contexts, locs(True), locs(True)),
        named(GinWait),
        named(GinRead),
        named(GinReset),
        st.builds(GinBarrier, contexts, st.sampled_from(["put", "get", "none"]), st.booleans()),
        shmem_call(),
    )


# --------------------------------------------------------------------------
# Conditions
# --------------------------------------------------------------------------


def terms(arch: str, nthreads: int) -> st.SearchStrategy[Term]:
    regs = st.sampled_from(X86_REGS) if arch == "X86" else st.sampled_from(["r0", "r1", "r5"])
    return st.one_of(
        st.builds(RegTerm, st.integers(0, nthreads - 1), regs),
        st.builds(LocTerm, locs(arch != "X86")),
        st.builds(ConstTerm, ints),
    )


def props(arch: str, nthreads: int) -> st.SearchStrategy[Prop]:
    t = terms(arch, nthreads)
    leaves = st.builds(Cmp, st.sampled_from(["=", "!="]), t, t) | st.builds(
        BoolConst, st.booleans()
    )

    def extend(children: st.SearchStrategy[Prop]) -> st.SearchStrategy[Prop]:
        many = st.lists(children, min_size=2, max_size=3).map(tuple)
        return st.builds(And, many) | st.builds(Or, many) | st.builds(Not, children)

    return st.recursive(leaves, extend, max_leaves=8)


# --------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------


@st.composite
def litmus_tests(draw: st.DrawFn) -> LitmusTest:
    arch = draw(st.sampled_from(["X86", "PTX", "GIN"]))
    gin = arch == "GIN"
    nthreads = draw(st.integers(1, 3))
    threads = []
    for index in range(nthreads):
        if arch == "X86":
            placement = Placement()
            body = tuple(draw(st.lists(x86_instr(), max_size=5)))
        else:
            if gin and draw(st.booleans()):
                placement = Placement(node=draw(st.integers(0, 1)), host=True)
            else:
                placement = Placement(
                    cta=draw(st.integers(0, 1)),
                    gpu=draw(st.integers(0, 2)),
                    node=draw(st.integers(0, 1)) if gin else None,
                )
            labels: set[str] = set()
            instrs: list[Instr] = []
            for instr in draw(st.lists(ptx_instr(gin), max_size=6)):
                if isinstance(instr, Label):
                    if instr.name in labels:
                        continue
                    labels.add(instr.name)
                instrs.append(instr)
            body = tuple(instrs) + (Label(END),)
        threads.append(Thread(index, placement, body))
    init: list[InitItem] = [
        InitLoc(draw(locs(gin)), draw(ints)) for _ in range(draw(st.integers(0, 2)))
    ]
    regs = X86_REGS if arch == "X86" else ["r0", "r1"]
    init += [
        InitReg(draw(st.integers(0, nthreads - 1)), draw(st.sampled_from(regs)),
                draw(ints | locs(gin)))
        for _ in range(draw(st.integers(0, 2)))
    ]
    if gin:
        init += [SignalDecl(s) for s in SIGNALS] + [CounterDecl(c) for c in COUNTERS]
        init += [HostDecl("h", draw(ints)), WindowDecl("W", draw(st.booleans()), ("f", "g"))]
    meta = [Meta("Generator", "hypothesis (v1)")]
    if draw(st.booleans()):
        meta.append(Meta("Expect", "gin-api:Forbidden,gin-gdaki+pcie-ro:Allowed"))
    doc = draw(st.none() | st.sampled_from(["", "a doc", "two\nlines // with (* *)"]))
    locations = tuple(draw(st.lists(terms(arch, nthreads).filter(
        lambda t: not isinstance(t, ConstTerm)), max_size=3)))
    filt = draw(st.none() | props(arch, nthreads))
    quantifiers: list[Quantifier] = ["exists", "~exists", "forall"]
    quantifier = draw(st.sampled_from(quantifiers))
    condition = Condition(quantifier, draw(props(arch, nthreads)))
    test = LitmusTest(arch, "T+rand.1", doc, tuple(meta), tuple(_once(init)),  # type: ignore[arg-type]
                      tuple(threads), locations, filt, condition)
    return _observable(test)


def _once(init: list[InitItem]) -> list[InitItem]:
    """The init items without a second initialisation of a location or register (an
    error, docs/input-rules.md)."""
    seen: set[object] = set()
    out: list[InitItem] = []
    for item in init:
        key = ((item.loc.name, item.loc.rank) if isinstance(item, InitLoc)
               else (item.thread, item.reg) if isinstance(item, InitReg) else id(item))
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


def _observable(test: LitmusTest) -> LitmusTest:
    """``test`` with an init item for each register and location the condition, filter
    and locations list name that no instruction writes or accesses (naming one would be
    an error, docs/input-rules.md)."""
    written = {t.index: set(registers_written(t)) for t in test.threads}
    for item in test.init:
        if isinstance(item, InitReg):
            written[item.thread].add(item.reg)
    named = set(locations_named(test))
    extra: list[InitItem] = []
    roots: list[Term | Prop] = [*test.locations, test.condition.prop]
    if test.filter is not None:
        roots.append(test.filter)
    while roots:
        node = roots.pop()
        if isinstance(node, (And, Or)):
            roots.extend(node.args)
        elif isinstance(node, Not):
            roots.append(node.arg)
        elif isinstance(node, Cmp):
            roots.extend((node.lhs, node.rhs))
        elif isinstance(node, RegTerm) and node.reg not in written[node.thread]:
            written[node.thread].add(node.reg)
            extra.append(InitReg(node.thread, node.reg, 0))
        elif isinstance(node, LocTerm) and node.loc.name not in named:
            named.add(node.loc.name)
            extra.append(InitLoc(LocRef(node.loc.name), 0))
    return replace(test, init=test.init + tuple(extra))


# The number of examples comes from the suite's hypothesis profile (tests/conftest.py).
@settings(suppress_health_check=[HealthCheck.too_slow])
@given(litmus_tests())
def test_print_parse_round_trip(test: LitmusTest) -> None:
    text = print_litmus(test)
    assert parse_litmus(text, "<printed>") == test, text


@pytest.mark.parametrize("dialect", ["x86", "ptx"])
def test_project_strategies_round_trip(dialect: str) -> None:
    """The project's own generator (gdrcheck.strategies), when present, round-trips too."""
    strategies = pytest.importorskip("gdrcheck.strategies")

    @settings(suppress_health_check=[HealthCheck.too_slow])
    @given(strategies.litmus_tests(dialect))
    def check(test: LitmusTest) -> None:
        text = print_litmus(test)
        # That generator may build an And/Or of one argument, which no text spells:
        # it prints as its argument.
        cond = replace(test.condition, prop=_collapse(test.condition.prop))
        expected = replace(test, condition=cond,
                           filter=None if test.filter is None else _collapse(test.filter))
        assert parse_litmus(text, "<printed>") == expected, text

    check()


def _collapse(prop: Prop) -> Prop:
    """``prop`` with every And/Or of a single argument replaced by that argument."""
    if isinstance(prop, (And, Or)):
        args = tuple(_collapse(p) for p in prop.args)
        return args[0] if len(args) == 1 else type(prop)(args)
    if isinstance(prop, Not):
        return Not(_collapse(prop.arg))
    return prop
