"""Differential tests: the z3 engine against the explicit enumerator.

The explicit engine enumerates every candidate execution and evaluates the cat
model on each (herd7's method); the z3 engine solves for them all at once. On
any test they must give the same verdict and the same set of final states. The
random programs come from :func:`gdrcheck.strategies.litmus_tests`: up to 4
threads and 12 events (memory accesses and fences, an RMW or a bar.sync
counting two). The fast properties favour small programs and cap the explicit
enumeration; the ``slow`` ones (``python -m pytest -m slow tests/engine``) draw
the full size range.

The regression examples at the end pin the verdicts of classic tests to their
published ones, under both engines.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.engine.result import Result
from gdrcheck.litmus import ast as A
from gdrcheck.strategies import count_events, litmus_tests

MAX_THREADS = 4
MAX_EVENTS = 12
# The explicit engine costs about 0.1 ms a candidate: 4000 keeps an example
# under half a second; the slow sweep allows ten times more.
FAST_CAP = 4_000
SLOW_CAP = 40_000


# --------------------------------------------------------------------------
# The oracle
# --------------------------------------------------------------------------


def _term(t: A.Term, state: dict[str, int]) -> int:
    if isinstance(t, A.ConstTerm):
        return t.value
    return state[str(t)]


def _holds(p: A.Prop, state: dict[str, int]) -> bool:
    """The condition's proposition on one final state (independent of the engines)."""
    if isinstance(p, A.Cmp):
        eq = _term(p.lhs, state) == _term(p.rhs, state)
        return eq if p.op == "=" else not eq
    if isinstance(p, A.And):
        return all(_holds(a, state) for a in p.args)
    if isinstance(p, A.Or):
        return any(_holds(a, state) for a in p.args)
    if isinstance(p, A.Not):
        return not _holds(p.arg, state)
    assert isinstance(p, A.BoolConst)
    return p.value


def _verdict_from_states(test: A.Test, states: set[tuple[tuple[str, int], ...]]) -> str:
    """herd's verdict, recomputed from the final states alone."""
    sat = [_holds(test.condition.prop, dict(s)) for s in states]
    pos, neg = any(sat), not all(sat)
    if test.condition.quantifier == "forall":
        return "Required" if not neg else "Allowed" if pos else "Forbidden"
    return "Allowed" if pos else "Forbidden"


def run_both(test: A.Test, model: str) -> tuple[Result, Result]:
    """Check ``test`` under ``model`` with both engines and assert they agree."""
    smt = check_test(test, model, options=CheckOptions(engine="smt", states=True))
    exp = check_test(test, model, options=CheckOptions(engine="explicit", states=True))
    assert smt.states is not None and exp.states is not None
    s_states, e_states = set(smt.states), set(exp.states)
    assert smt.verdict == exp.verdict, (
        f"{model}: smt says {smt.verdict}, explicit says {exp.verdict}\n"
        f"only smt: {sorted(s_states - e_states)}\nonly explicit: {sorted(e_states - s_states)}"
    )
    assert s_states == e_states, (
        f"{model}: final states differ\nonly smt: {sorted(s_states - e_states)}\n"
        f"only explicit: {sorted(e_states - s_states)}"
    )
    assert (smt.positive, smt.negative) == (exp.positive, exp.negative)
    assert len(smt.states) == len(s_states), "smt lists a final state twice"
    # and both agree with the states they list
    assert exp.verdict == _verdict_from_states(test, e_states)
    return smt, exp


# --------------------------------------------------------------------------
# Random programs
# --------------------------------------------------------------------------

FAST: dict[str, Any] = dict(max_threads=MAX_THREADS, max_events=MAX_EVENTS, prefer_small=True,
                            max_candidates=FAST_CAP)
SLOW: dict[str, Any] = dict(max_threads=MAX_THREADS, max_events=MAX_EVENTS,
                            max_candidates=SLOW_CAP)

slow_settings = settings(
    max_examples=max(200, settings().max_examples),
    suppress_health_check=[HealthCheck.too_slow],
    deadline=None,
)


@pytest.mark.parametrize("model", ["x86tso", "sc"])
@given(test=litmus_tests("x86", **FAST))
def test_x86_engines_agree(model: str, test: A.Test) -> None:
    assert count_events(test) <= MAX_EVENTS
    run_both(test, model)


@pytest.mark.parametrize("model", ["ptx", "sc"])
@given(test=litmus_tests("ptx", **FAST))
def test_ptx_engines_agree(model: str, test: A.Test) -> None:
    assert count_events(test) <= MAX_EVENTS
    run_both(test, model)


@pytest.mark.parametrize("model", ["ptx", "sc"])
@settings(max_examples=max(60, settings().max_examples))
@given(test=litmus_tests("ptx", ops={"load", "store", "select", "fence"}, **FAST))
def test_ptx_select_engines_agree(model: str, test: A.Test) -> None:
    # setp and selp (no branch): both engines evaluate the conditional value the same
    assert count_events(test) <= MAX_EVENTS
    run_both(test, model)


@pytest.mark.slow
@pytest.mark.parametrize("model", ["x86tso", "sc"])
@slow_settings
@given(test=litmus_tests("x86", **SLOW))
def test_x86_engines_agree_large(model: str, test: A.Test) -> None:
    assert count_events(test) <= MAX_EVENTS
    run_both(test, model)


@pytest.mark.slow
@pytest.mark.parametrize("model", ["ptx", "sc"])
@slow_settings
@given(test=litmus_tests("ptx", **SLOW))
def test_ptx_engines_agree_large(model: str, test: A.Test) -> None:
    assert count_events(test) <= MAX_EVENTS
    run_both(test, model)


def _check_shape(test: A.Test, max_threads: int, max_events: int,
                 kinds: tuple[type, ...] | None = None) -> None:
    """What litmus_tests promises about every test it draws."""
    assert 1 <= len(test.threads) <= max_threads
    assert count_events(test) <= max_events
    written: set[tuple[int, str]] = set()
    bars: dict[tuple[int | None, int | None], set[int]] = {}
    for th in test.threads:
        assert th.instrs, "every thread has an instruction"
        labels = [i.name for i in th.instrs if isinstance(i, A.Label)]
        assert len(labels) == len(set(labels))
        open_branch: str | None = None
        for k, ins in enumerate(th.instrs):
            if kinds is not None and not isinstance(ins, (A.X86Mov, A.LocalOp, A.Label)):
                assert isinstance(ins, kinds), ins
            if isinstance(ins, A.Branch):  # forward, to a label of this thread
                assert ins.target in [i.name for i in th.instrs[k + 1:]
                                      if isinstance(i, A.Label)]
                open_branch = ins.target
            elif isinstance(ins, A.Label) and ins.name == open_branch:
                open_branch = None
            elif isinstance(ins, A.PtxBarrier):
                assert open_branch is None, "no barrier under a branch"
            for f in ("dst", "a", "b", "src"):
                r = getattr(ins, f, None)
                if isinstance(r, A.Reg):
                    written.add((th.index, r.name.upper() if test.arch == "X86" else r.name))
        n = sum(isinstance(i, A.PtxBarrier) for i in th.instrs)
        bars.setdefault((th.placement.gpu, th.placement.cta), set()).add(n)
    for counts in bars.values():  # per CTA: everyone or no one, the same number of times
        assert len(counts) == 1, counts
    for t in _prop_terms(test.condition.prop) + list(test.locations):
        if isinstance(t, A.RegTerm):
            assert (t.thread, t.reg) in written, f"{t} is never written"


def _prop_terms(p: A.Prop) -> list[A.Term]:
    if isinstance(p, A.Cmp):
        return [p.lhs, p.rhs]
    if isinstance(p, (A.And, A.Or)):
        return [t for a in p.args for t in _prop_terms(a)]
    if isinstance(p, A.Not):
        return _prop_terms(p.arg)
    return []


@given(test=litmus_tests("x86", max_threads=3, max_events=7,
                         ops={"load", "store_reg", "xadd"}))
def test_strategy_x86_shape(test: A.Test) -> None:
    _check_shape(test, 3, 7, (A.X86Mov, A.X86Locked))
    assert all(i.op == "XADD" for th in test.threads for i in th.instrs
               if isinstance(i, A.X86Locked))


@given(test=litmus_tests("ptx", **SLOW))
def test_strategy_ptx_shape(test: A.Test) -> None:
    _check_shape(test, MAX_THREADS, MAX_EVENTS)


@given(test=litmus_tests("ptx", max_threads=2, max_events=6, ops={"load", "atom", "branch"}))
def test_strategy_ptx_ops(test: A.Test) -> None:
    _check_shape(test, 2, 6, (A.PtxLoad, A.PtxAtom, A.Branch))


@given(test=litmus_tests("ptx", max_threads=2, max_events=6, ops={"load", "select"}))
def test_strategy_ptx_select(test: A.Test) -> None:
    _check_shape(test, 2, 6, (A.PtxLoad, A.PtxStore, A.Setp, A.Selp))
    for th in test.threads:  # each selp reads the predicate the setp before it wrote
        for prev, ins in zip(th.instrs, th.instrs[1:], strict=False):
            if isinstance(ins, A.Selp):
                assert isinstance(prev, A.Setp) and ins.c == prev.dst


# --------------------------------------------------------------------------
# Regression examples with published verdicts
# --------------------------------------------------------------------------

P, R, L, C = A.Placement, A.Reg, A.LocRef, A.Const


def _mem(x: str) -> A.X86Mem:
    return A.X86Mem(L(x))


def _eq(t: A.Term, v: int) -> A.Cmp:
    return A.Cmp("=", t, A.ConstTerm(v))


def _reg(thread: int, name: str) -> A.RegTerm:
    return A.RegTerm(thread, name)


def _test(arch: A.Arch, name: str, threads: list[tuple[A.Placement, tuple[A.Instr, ...]]],
          *conj: A.Prop, quantifier: A.Quantifier = "exists") -> A.Test:
    ths = tuple(A.Thread(i, p, ins) for i, (p, ins) in enumerate(threads))
    return A.Test(arch, name, None, (), (), ths, (), None,
                  A.Condition(quantifier, A.And(tuple(conj))))


def _sb_x86(fence: bool) -> A.Test:
    def th(w: str, r: str) -> tuple[A.Placement, tuple[A.Instr, ...]]:
        mid: tuple[A.Instr, ...] = (A.X86Mfence(),) if fence else ()
        return P(), (A.X86Mov(_mem(w), C(1)), *mid, A.X86Mov(R("EAX"), _mem(r)))

    return _test("X86", "SB" + ("+mfences" if fence else ""), [th("x", "y"), th("y", "x")],
                 _eq(_reg(0, "EAX"), 0), _eq(_reg(1, "EAX"), 0))


def _mp_x86() -> A.Test:
    return _test("X86", "MP", [
        (P(), (A.X86Mov(_mem("x"), C(1)), A.X86Mov(_mem("y"), C(1)))),
        (P(), (A.X86Mov(R("EAX"), _mem("y")), A.X86Mov(R("EBX"), _mem("x")))),
    ], _eq(_reg(1, "EAX"), 1), _eq(_reg(1, "EBX"), 0))


def _iriw_x86() -> A.Test:
    def reader(a: str, b: str) -> tuple[A.Placement, tuple[A.Instr, ...]]:
        return P(), (A.X86Mov(R("EAX"), _mem(a)), A.X86Mfence(), A.X86Mov(R("EBX"), _mem(b)))

    return _test("X86", "IRIW+mfences", [
        (P(), (A.X86Mov(_mem("x"), C(1)),)), (P(), (A.X86Mov(_mem("y"), C(1)),)),
        reader("x", "y"), reader("y", "x"),
    ], _eq(_reg(2, "EAX"), 1), _eq(_reg(2, "EBX"), 0),
       _eq(_reg(3, "EAX"), 1), _eq(_reg(3, "EBX"), 0))


def _tas_lock_x86() -> A.Test:
    """Test-and-set: both threads XCHG 1 into l; both reading 0 would break mutual
    exclusion."""
    def th() -> tuple[A.Placement, tuple[A.Instr, ...]]:
        return P(), (A.X86Mov(R("EAX"), C(1)), A.X86Xchg(_mem("l"), R("EAX")))

    return _test("X86", "TAS-lock", [th(), th()], _eq(_reg(0, "EAX"), 0), _eq(_reg(1, "EAX"), 0))


def _mp_ptx() -> A.Test:
    return _test("PTX", "MP+rel+acq-gpu", [
        (P(cta=0, gpu=0), (A.PtxStore("weak", None, L("x"), C(1)),
                           A.PtxStore("release", "gpu", L("y"), C(1)))),
        (P(cta=1, gpu=0), (A.PtxLoad("acquire", "gpu", R("r1"), L("y")),
                           A.PtxLoad("weak", None, R("r2"), L("x")))),
    ], _eq(_reg(1, "r1"), 1), _eq(_reg(1, "r2"), 0))


def _lb_ptx(data: bool) -> A.Test:
    """LB+datas (42 out of thin air) or LB+weaks (stores of constants)."""
    def th(r: str, src: str, dst: str) -> tuple[A.Placement, tuple[A.Instr, ...]]:
        val: A.Value = R(r) if data else C(1)
        return P(cta=int(r[-1]) - 1, gpu=0), (A.PtxLoad("weak", None, R(r), L(src)),
                                               A.PtxStore("weak", None, L(dst), val))

    v = 42 if data else 1
    return _test("PTX", "LB+datas" if data else "LB+weaks",
                 [th("r1", "x", "y"), th("r2", "y", "x")],
                 _eq(_reg(0, "r1"), v), _eq(_reg(1, "r2"), v))


def _iriw_ptx() -> A.Test:
    def reader(cta: int, a: str, b: str) -> tuple[A.Placement, tuple[A.Instr, ...]]:
        return P(cta=cta, gpu=0), (A.PtxLoad("relaxed", "gpu", R("r1"), L(a)),
                                   A.PtxFence("sc", "gpu"),
                                   A.PtxLoad("relaxed", "gpu", R("r2"), L(b)))

    return _test("PTX", "IRIW+fence.sc.gpus", [
        (P(cta=0, gpu=0), (A.PtxStore("relaxed", "gpu", L("x"), C(1)),)),
        (P(cta=1, gpu=0), (A.PtxStore("relaxed", "gpu", L("y"), C(1)),)),
        reader(2, "x", "y"), reader(3, "y", "x"),
    ], _eq(_reg(2, "r1"), 1), _eq(_reg(2, "r2"), 0), _eq(_reg(3, "r1"), 1), _eq(_reg(3, "r2"), 0))


def _cas_lock_ptx() -> A.Test:
    """A loop-free spin lock: each thread tries atom.acquire.gpu.cas l 0->1 once; on
    success it increments x (weak accesses) and unlocks with st.release.gpu l, 0.
    Outcome: both got the lock and x ends at 1 (an update lost)."""
    def th(cta: int) -> tuple[A.Placement, tuple[A.Instr, ...]]:
        return P(cta=cta, gpu=0), (
            A.PtxAtom("acquire", "gpu", "cas", R("r0"), L("l"), (C(0), C(1))),
            A.Branch("ne", R("r0"), C(0), "LC00"),
            A.PtxLoad("weak", None, R("r1"), L("x")),
            A.LocalOp("add", R("r2"), (R("r1"), C(1))),
            A.PtxStore("weak", None, L("x"), R("r2")),
            A.PtxStore("release", "gpu", L("l"), C(0)),
            A.Label("LC00"),
        )

    return _test("PTX", "CAS-lock", [th(0), th(1)],
                 _eq(_reg(0, "r0"), 0), _eq(_reg(1, "r0"), 0), _eq(A.LocTerm(L("x")), 1))


BAR = A.PtxBarrier("sync", (C(0),))


def _sb_bar_ptx(uses: int = 1) -> A.Test:
    """SB between two threads of one CTA, with ``uses`` x ``bar.cta.sync 0`` between
    each thread's store and load."""
    def th(w: str, r: str) -> tuple[A.Placement, tuple[A.Instr, ...]]:
        return P(cta=0, gpu=0), (A.PtxStore("weak", None, L(w), C(1)), *(BAR,) * uses,
                                 A.PtxLoad("weak", None, R("r0"), L(r)))

    return _test("PTX", f"SB+bar{uses}", [th("x", "y"), th("y", "x")],
                 _eq(_reg(0, "r0"), 0), _eq(_reg(1, "r0"), 0))


REGRESSIONS = [
    # Intel SDM Vol.3A §8.2.3.4 Example 8-3; Owens, Sarkar, Sewell, "A better x86
    # memory model: x86-TSO", TPHOLs 2009: SB is allowed (store buffers). Lamport
    # 1979: forbidden under SC.
    pytest.param(_sb_x86(False), "x86tso", "Allowed", id="SB-x86tso"),
    pytest.param(_sb_x86(False), "sc", "Forbidden", id="SB-sc"),
    # Owens et al. TPHOLs 2009 / Intel SDM §8.2.3.9: MFENCE restores SC for SB.
    pytest.param(_sb_x86(True), "x86tso", "Forbidden", id="SB+mfences-x86tso"),
    # Intel SDM §8.2.3.2 Example 8-1; x86-TSO: MP is forbidden (FIFO store buffer).
    pytest.param(_mp_x86(), "x86tso", "Forbidden", id="MP-x86tso"),
    # Intel SDM §8.2.3.7 Example 8-7; x86-TSO is multi-copy atomic: IRIW forbidden.
    pytest.param(_iriw_x86(), "x86tso", "Forbidden", id="IRIW+mfences-x86tso"),
    pytest.param(_iriw_x86(), "sc", "Forbidden", id="IRIW+mfences-sc"),
    # Owens et al. TPHOLs 2009 §2: locked instructions (XCHG) are atomic: a
    # test-and-set lock cannot be taken twice.
    pytest.param(_tas_lock_x86(), "x86tso", "Forbidden", id="TAS-lock-x86tso"),
    # Lustig, Sahasrabuddhe, Giroux, "A Formal Analysis of the NVIDIA PTX Memory
    # Consistency Model", ASPLOS 2019, Fig. 5: MP with st.release.gpu / ld.acquire.gpu
    # across CTAs of one GPU is forbidden (axiom Causality).
    pytest.param(_mp_ptx(), "ptx", "Forbidden", id="MP+rel+acq-gpu-ptx"),
    pytest.param(_mp_ptx(), "sc", "Forbidden", id="MP+rel+acq-gpu-sc"),
    # ASPLOS'19 Fig. 8 (No-Thin-Air): LB with data dependencies cannot produce 42.
    pytest.param(_lb_ptx(True), "ptx", "Forbidden", id="LB+datas-ptx"),
    # ASPLOS'19 §5: without dependencies LB is allowed (no axiom makes po|rf acyclic);
    # Lamport 1979: forbidden under SC.
    pytest.param(_lb_ptx(False), "ptx", "Allowed", id="LB+weaks-ptx"),
    pytest.param(_lb_ptx(False), "sc", "Forbidden", id="LB+weaks-sc"),
    # ASPLOS'19 Fig. 7, axioms FenceSC and Causality: fence.sc.gpu between the reads
    # forbids IRIW among strong .gpu accesses.
    pytest.param(_iriw_ptx(), "ptx", "Forbidden", id="IRIW+fence.sc.gpus-ptx"),
    # ASPLOS'19 Fig. 7, axioms Atomicity (both CAS cannot read 0) and Causality (the
    # release unlock synchronises with the next acquire CAS): no lost update.
    pytest.param(_cas_lock_ptx(), "ptx", "Forbidden", id="CAS-lock-ptx"),
    pytest.param(_cas_lock_ptx(), "sc", "Forbidden", id="CAS-lock-sc"),
    # PTX ISA, "bar, barrier": memory accesses requested before bar.sync are performed
    # relative to all threads participating in the barrier; specs/ptx.cat
    # sync-barrier: SB across a CTA barrier is forbidden.
    pytest.param(_sb_bar_ptx(), "ptx", "Forbidden", id="SB+bar.sync-ptx"),
]


@pytest.mark.parametrize(("test", "model", "expected"), REGRESSIONS)
def test_regression(test: A.Test, model: str, expected: str) -> None:
    smt, _ = run_both(test, model)
    assert smt.verdict == expected


def test_barrier_reuse() -> None:
    # PTX ISA, "bar, barrier": once a barrier completes "the barrier is reinitialized
    # so that it can be immediately reused". Two __syncthreads() in a row must not
    # deadlock: the outcome r0 = r0 = 1 happens (and SB's 0/0 stays forbidden).
    test = _sb_bar_ptx(uses=2)
    both_one = A.And((_eq(_reg(0, "r0"), 1), _eq(_reg(1, "r0"), 1)))
    test = A.Test(test.arch, test.name, None, (), (), test.threads, (), None,
                  A.Condition("forall", both_one))
    smt, _ = run_both(test, "ptx")
    assert smt.states == [(("0:r0", 1), ("1:r0", 1))]
    assert smt.verdict == "Required"
