"""Read-modify-write chains (gdrcheck/engine/chains.py): found where the model's
Atomicity covers every RMW of a location, not found where it does not, and never a
different verdict or set of final states from the explicit enumerator (which states no
facts) or from the z3 engine without them."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gdrcheck.analysis.check import check_test, prepare
from gdrcheck.analysis.options import DEFAULT_OPTIONS, CheckOptions
from gdrcheck.engine.explicit import candidate_bound
from gdrcheck.engine.smt import SmtEngine, encode_candidates
from gdrcheck.gen.families import family
from gdrcheck.litmus import ast as A
from gdrcheck.litmus import parse_litmus
from gdrcheck.lower import lower


def _ptx(name: str, threads: list[list[str]], cond: str, init: str) -> A.Test:
    """A PTX test, thread i in CTA i of GPU 0."""
    width = max(len(t) for t in threads)
    cols = [t + [""] * (width - len(t)) for t in threads]
    head = " | ".join(f"P{i}@cta {i},gpu 0" for i in range(len(threads)))
    rows = "\n".join(" " + " | ".join(c[j] for c in cols) + " ;" for j in range(width))
    return parse_litmus(f"PTX {name}\n{{ {init} }}\n {head} ;\n{rows}\n{cond}\n",
                        f"{name}.litmus")


def _fan_in(n: int, k: int, count: int | None = None) -> A.Test:
    name, text = family("gin-fan-in-shared", n, "gin", k)
    if count is not None:  # the receiver waits for fewer increments than there are
        text = text.replace(f"gin.wait_signal S, {n} ", f"gin.wait_signal S, {count} ")
        name = f"{name}-wait{count}"
    return parse_litmus(text, f"{name}.litmus")


def _chains(test: A.Test, model: str):  # noqa: ANN202
    _, loaded, chosen = prepare(test, model)
    return encode_candidates(lower(test), (loaded.stmts, chosen)).chains


def _agree(test: A.Test, model: str, options: CheckOptions = DEFAULT_OPTIONS) -> str:
    """Both engines (and z3 without the chain facts) give one verdict and one set of
    final states."""
    smt = check_test(test, model, options=options.overlay(engine="smt", states=True))
    exp = check_test(test, model, options=options.overlay(engine="explicit", states=True))
    assert smt.verdict == exp.verdict, (test.name, model, smt.verdict, exp.verdict)
    assert smt.states == exp.states, (test.name, model)
    _, loaded, chosen = prepare(test, model)
    plain = SmtEngine(chains=False).run(lower(test), loaded.stmts, chosen, test, model,
                                        states=True)
    assert plain.verdict == smt.verdict and plain.states == smt.states, (test.name, model)
    return str(smt.verdict)


INCS = [["atom.relaxed.gpu.add r0, x, 1"]] * 3


def test_a_chain_of_gpu_scope_increments() -> None:
    """Three .gpu increments in three CTAs of one GPU: pairwise morally strong, so
    Atomicity (ASPLOS'19 §4, axiom Atomicity) covers every one: the chain is found, and
    no two increments read the same value (Atom+add-rlx-gpus, Dat3M, for three)."""
    test = _ptx("Atom3", INCS, "exists (0:r0 = 0 /\\ 1:r0 = 0)", "x=0;")
    (ch,) = _chains(test, "ptx")
    assert len(ch.rmws) == 3 and ch.adds == (1, 1, 1) and ch.axioms == ("Atomicity",)
    assert [name for _, name in ch.observed] == ["observation"]
    assert _agree(test, "ptx") == "Forbidden"
    assert _agree(_ptx("Atom3-sum", INCS, "exists (x = 3)", "x=0;"), "ptx") == "Allowed"
    assert _agree(_ptx("Atom3-lost", INCS, "exists (x = 2)", "x=0;"), "ptx") == "Forbidden"


def test_cta_scope_increments_of_different_ctas_are_no_chain() -> None:
    """.cta RMWs of different CTAs are not morally strong: Atomicity does not relate
    them and an update can be lost (Atom+add-rlx-ctas, Dat3M PTXv6_0-expected.csv)."""
    incs = [["atom.relaxed.cta.add r0, x, 1"]] * 3
    test = _ptx("Atom3cta", incs, "exists (x = 1)", "x=0;")
    assert _chains(test, "ptx") == ()
    assert _agree(test, "ptx") == "Allowed"


def test_a_plain_write_breaks_the_chain() -> None:
    threads = [*INCS, ["st.relaxed.gpu x, 5"]]
    test = _ptx("Atom3W", threads, "exists (0:r0 = 5 /\\ 1:r0 = 5)", "x=0;")
    assert _chains(test, "ptx") == ()
    assert _agree(test, "ptx") == "Forbidden"


def test_exchanges_give_adjacency_without_counting() -> None:
    threads = [["atom.relaxed.gpu.exch r0, x, 1"], ["atom.relaxed.gpu.exch r0, x, 2"],
               ["atom.relaxed.gpu.add r0, x, 1"]]
    (ch,) = _chains(_ptx("Xchg3", threads, "exists (x = 0)", "x=0;"), "ptx")
    assert ch.adds is None
    for cond in ("exists (0:r0 = 0 /\\ 1:r0 = 0)", "exists (x = 3)",
                 "exists (2:r0 = 2 /\\ x = 3)", "exists (0:r0 = 2 /\\ 1:r0 = 1)"):
        _agree(_ptx("Xchg3", threads, cond, "x=0;"), "ptx")


def test_release_sequence_through_the_chain() -> None:
    """MP+rel+rmw+acq-gpu (Dat3M, observation through RMW chains) with two RMWs between
    the release and the acquire: the acquire that reads the third increment sees x."""
    threads = [["st.weak y, 1", "red.release.gpu.add x, 1"],
               ["atom.relaxed.gpu.add r0, x, 1"], ["atom.relaxed.gpu.add r0, x, 1"],
               ["ld.acquire.gpu r1, x", "ld.weak r2, y"]]
    init = "x=0; y=0;"
    test = _ptx("MP+rel+rmw2+acq", threads, "exists (3:r1 = 3 /\\ 3:r2 = 0)", init)
    (ch,) = _chains(test, "ptx")
    assert [name for _, name in ch.observed] == ["observation"]
    assert _agree(test, "ptx") == "Forbidden"
    # reading 2, the release may be the increment still to come: y may be 0
    early = _ptx("MP+rel+rmw2+acq-2", threads, "exists (3:r1 = 2 /\\ 3:r2 = 0)", init)
    assert _agree(early, "ptx") == "Allowed"
    assert _agree(test, "ptx75") == "Forbidden"


def test_a_model_without_atomicity_gets_no_chain(tmp_path: Path) -> None:
    """Without an Atomicity check, two increments may both read 0 (a lost update): the
    chain facts would forbid that, so none are stated."""
    cat = tmp_path / "noatom.cat"
    cat.write_text('"SC without atomicity"\nlet com = rf | co | fr\n'
                   'acyclic po | com as sc\nempty [W] & [R] as nothing\n')
    test = _ptx("Atom3", INCS, "exists (0:r0 = 0 /\\ 1:r0 = 0)", "x=0;")
    assert _chains(test, str(cat)) == ()
    assert _agree(test, str(cat)) == "Allowed"
    assert _agree(test, "sc") == "Forbidden"


@pytest.mark.parametrize("model", ["gin-api", "gin-gdaki", "gin-proxy"])
def test_shared_signal_fan_in(model: str) -> None:
    """n senders bump one strong signal after their puts (R-GIN-3); the receiver that
    reads the count n has every word; one that reads fewer may miss a sender's."""
    test = _fan_in(3, 1)
    (ch,) = _chains(test, model)
    assert len(ch.rmws) == 3 and ch.adds == (1, 1, 1)
    assert _agree(test, model) == "Forbidden"
    assert _agree(_fan_in(3, 1, count=2), model) == "Allowed"


def test_fan_in_eight_by_eight_is_decided() -> None:
    """The issue-18 shape (8 senders x 8 puts, one signal): Unknown at 60 s before."""
    res = check_test(_fan_in(8, 8), "gin-api", options=DEFAULT_OPTIONS.overlay(timeout=60))
    assert res.verdict == "Forbidden"


# --------------------------------------------------------------------------
# Random programs around a chain: the facts never change an answer
# --------------------------------------------------------------------------

_RMW = st.sampled_from([
    "atom.relaxed.gpu.add {r}, x, 1", "atom.acquire.gpu.add {r}, x, 2",
    "atom.release.sys.add {r}, x, 1", "atom.acq_rel.gpu.add {r}, x, 1",
    "atom.relaxed.gpu.exch {r}, x, 7", "atom.relaxed.cta.add {r}, x, 1",
    "red.relaxed.gpu.add x, 1", "red.release.gpu.add x, 3"])
_OTHER = st.sampled_from([
    "st.weak y, 1", "st.release.gpu y, 2", "ld.relaxed.gpu {r}, y", "ld.acquire.gpu {r}, y",
    "fence.acq_rel.gpu", "fence.sc.gpu", "ld.acquire.gpu {r}, x", "ld.weak {r}, y"])


@st.composite
def _chain_tests(draw: st.DrawFn) -> A.Test:
    nthreads = draw(st.integers(3, 4))
    threads: list[list[str]] = []
    regs: list[str] = []
    for t in range(nthreads):
        body = [draw(_RMW)] if t < 3 else []  # at least three RMWs of x
        body += draw(st.lists(st.one_of(_RMW, _OTHER), max_size=2 if t < 3 else 3))
        if len(body) > 1 and draw(st.booleans()):
            body = body[::-1]
        cells = []
        for i, ins in enumerate(body):
            reg = f"r{i}"
            if "{r}" in ins:
                regs.append(f"{t}:{reg}")
            cells.append(ins.format(r=reg))
        threads.append(cells)
    atoms = [f"{r} = {draw(st.integers(0, 4))}" for r in
             draw(st.lists(st.sampled_from(regs), max_size=2, unique=True))] if regs else []
    if draw(st.booleans()) or not atoms:
        atoms.append(f"x = {draw(st.integers(0, 9))}")
    cond = "exists (" + " /\\ ".join(atoms) + ")"
    return _ptx("ChainRandom", threads, cond, "x=0; y=0;")


CAP = 3_000
"""Candidate executions the enumerator may visit per example (about 0.1 ms each)."""


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(test=_chain_tests(), model=st.sampled_from(["ptx", "ptx75", "sc"]))
def test_random_programs_around_a_chain(test: A.Test, model: str) -> None:
    assume(candidate_bound(lower(test)) <= CAP)
    _agree(test, model)


def test_x86_locked_increments() -> None:
    """Three LOCK ADDs of different threads: x86-TSO's atomic check (herd's x86tso.cat,
    ``empty rmw & (fre; coe)``) covers them, so the chain is found; no update is lost
    (Intel SDM Vol.3A §8.1.2.2, locked instructions are atomic)."""
    text = ("X86 LockAdd3\n{{ x=0; }}\n P0 | P1 | P2 ;\n"
            " LOCK ADD [x],$1 | LOCK ADD [x],$1 | LOCK ADD [x],$1 ;\n"
            " MOV EAX,[x] | | ;\nexists (x = {v} /\\ 0:EAX = {r})\n")
    for v, r in ((3, 1), (2, 1), (3, 3)):
        test = parse_litmus(text.format(v=v, r=r), "LockAdd3.litmus")
        for model in ("x86tso", "sc"):
            assert len(_chains(test, model)) == 1
            _agree(test, model)
