"""Hypothesis strategies for random GIN-dialect litmus tests (GIN or NVSHMEM calls
mixed with PTX loads and stores), for differential testing of the GIN models::

    from hypothesis import given
    from gdrcheck.gin_strategies import gin_tests

    @given(gin_tests("gin", max_ops=5))
    def test_something(test): ...

Each rank has one thread (``P<k>@cta 0,gpu k,node k``), data words ``x`` and ``y``
on every rank, a source word ``buf`` holding ``k+1`` on rank k, a signal ``S`` and a
counter ``C`` (or, for NVSHMEM, a plain word ``S`` used as a signal). Tests are
drawn as text and parsed, so every drawn test is one a user could write.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from hypothesis import strategies as st

from gdrcheck.litmus import ast as A
from gdrcheck.litmus import parse_litmus

__all__ = ["gin_tests", "gin_programs", "GinProgram", "strengthenings", "GIN_OPS", "SHMEM_OPS"]

GIN_OPS = ("put", "put_sig", "put_value", "signal", "flush", "wait", "read_signal",
           "get", "load", "store")
SHMEM_OPS = ("put_nbi", "put", "put_signal", "signal_op", "atomic_add", "fence", "quiet",
             "wait", "get_nbi", "load", "store")


@st.composite
def _gin_op(draw: st.DrawFn, rank: int, ranks: int, regs: list[str]) -> str:
    peer = draw(st.integers(0, ranks - 1))
    ctx = draw(st.sampled_from(["c0", "c1"]))
    loc = draw(st.sampled_from(["x", "y"]))
    kind = draw(st.sampled_from(GIN_OPS))
    if kind == "put":
        ctr = draw(st.booleans())
        return f"gin.put {ctx}, {loc}@{peer}, buf" + (", ctr=C" if ctr else "")
    if kind == "put_sig":
        sig = draw(st.sampled_from(["sig=S", "wsig=S", "sig=S+2"]))
        return f"gin.put {ctx}, {loc}@{peer}, buf, {sig}"
    if kind == "put_value":
        return f"gin.put_value {ctx}, {loc}@{peer}, {draw(st.integers(1, 3))}"
    if kind == "signal":
        weak = draw(st.booleans())
        return f"gin.signal {ctx}, S@{peer}" + (", weak" if weak else "")
    if kind == "flush":
        return f"gin.flush {ctx}"
    if kind == "wait":
        return f"gin.wait_signal S, {draw(st.integers(1, 2))}"
    if kind == "read_signal":
        reg = f"r{len(regs)}"
        regs.append(reg)
        return f"gin.read_signal {reg}, S"
    if kind == "get":
        return f"gin.get {ctx}, y, x@{peer}"
    if kind == "load":
        reg = f"r{len(regs)}"
        regs.append(reg)
        sem = draw(st.sampled_from(["relaxed.sys", "acquire.sys", "weak"]))
        return f"ld.{sem} {reg}, {loc}" if sem != "weak" else f"ld {reg}, {loc}"
    assert kind == "store"
    sem = draw(st.sampled_from(["relaxed.sys", "release.sys", "weak"]))
    target = draw(st.sampled_from(["buf", loc]))
    v = draw(st.integers(5, 6))
    return f"st.{sem} {target}, {v}" if sem != "weak" else f"st {target}, {v}"


@st.composite
def _shmem_op(draw: st.DrawFn, rank: int, ranks: int, regs: list[str]) -> str:
    peer = draw(st.integers(0, ranks - 1))
    loc = draw(st.sampled_from(["x", "y"]))
    kind = draw(st.sampled_from(SHMEM_OPS))
    if kind in ("put_nbi", "put"):
        return f"shmem.{kind} {loc}@{peer}, buf"
    if kind == "put_signal":
        nbi = draw(st.sampled_from(["put_signal", "put_signal_nbi"]))
        return f"shmem.{nbi} {loc}@{peer}, buf, S, 1, add"
    if kind == "signal_op":
        return f"shmem.signal_op S@{peer}, 1, add"
    if kind == "atomic_add":
        return f"shmem.atomic_add {loc}@{peer}, 1"
    if kind in ("fence", "quiet"):
        return f"shmem.{kind}"
    if kind == "wait":
        return f"shmem.wait_until S, >=, {draw(st.integers(1, 2))}"
    if kind == "get_nbi":
        return f"shmem.get_nbi y, x@{peer}"
    if kind == "load":
        reg = f"r{len(regs)}"
        regs.append(reg)
        sem = draw(st.sampled_from(["relaxed.sys", "acquire.sys"]))
        return f"ld.{sem} {reg}, {loc}"
    sem = draw(st.sampled_from(["relaxed.sys", "release.sys"]))
    return f"st.{sem} buf, {draw(st.integers(5, 6))}"


@dataclass(frozen=True)
class GinProgram:
    """A random GIN-dialect program as text pieces: one column of instructions per
    rank (thread ``P<k>`` on gpu k, node k), and the condition's terms."""

    family: Literal["gin", "shmem"]
    columns: tuple[tuple[str, ...], ...]
    terms: tuple[str, ...]
    name: str = "random"

    def text(self) -> str:
        ranks = len(self.columns)
        depth = max(1, max(len(c) for c in self.columns))
        header = " | ".join(f"P{k}@cta 0,gpu {k},node {k}" for k in range(ranks))
        rows = [" | ".join(c[i] if i < len(c) else "" for c in self.columns) + " ;"
                for i in range(depth)]
        bufs = " ".join(f"buf@{k} = {k + 1};" for k in range(ranks))
        decl = "S : signal; C : counter;" if self.family == "gin" else "S = 0;"
        cond = " /\\ ".join(self.terms)
        return (f"GIN {self.name}\n{{ x = 0; y = 0; {bufs} {decl} }}\n {header} ;\n"
                + "".join(f" {r}\n" for r in rows) + f"exists ({cond})\n")

    def test(self) -> A.Test:
        return parse_litmus(self.text(), f"{self.name}.litmus")


@st.composite
def gin_programs(draw: st.DrawFn, family: Literal["gin", "shmem"] = "gin", ranks: int = 2,
                 max_ops: int = 5) -> GinProgram:
    """A random program (see :class:`GinProgram`) with ``ranks`` ranks and at most
    ``max_ops`` calls and PTX accesses in all."""
    n = draw(st.integers(2, max_ops))
    owner = [draw(st.integers(0, ranks - 1)) for _ in range(n)]
    regs: list[list[str]] = [[] for _ in range(ranks)]
    cols: list[list[str]] = [[] for _ in range(ranks)]
    op = _gin_op if family == "gin" else _shmem_op
    for r in owner:
        cols[r].append(draw(op(r, ranks, regs[r])))
    terms = [f"{k}:{r} = {draw(st.integers(0, 2))}" for k in range(ranks) for r in regs[k]]
    terms.append(f"{draw(st.sampled_from(['x', 'y']))}@{draw(st.integers(0, ranks - 1))}"
                 f" = {draw(st.integers(0, 2))}")
    chosen = draw(st.lists(st.sampled_from(terms), min_size=1, max_size=2, unique=True))
    return GinProgram(family, tuple(tuple(c) for c in cols), tuple(chosen))


@st.composite
def gin_tests(draw: st.DrawFn, family: Literal["gin", "shmem"] = "gin", ranks: int = 2,
              max_ops: int = 5) -> A.Test:
    """A random GIN-dialect test (the parsed form of :func:`gin_programs`)."""
    return draw(gin_programs(family, ranks, max_ops)).test()


# --------------------------------------------------------------------------
# Strengthening (for the monotonicity law)
# --------------------------------------------------------------------------

_REWRITES: tuple[tuple[str, str], ...] = (
    ("wsig=S", "sig=S"),                   # weak -> strong bundled signal
    (", weak", ""),                        # weak -> strong bare signal
    ("ld.relaxed.sys", "ld.acquire.sys"),  # relaxed -> acquire
    ("st.relaxed.sys", "st.release.sys"),  # relaxed -> release
    ("ld r", "ld.relaxed.sys r"),          # weak -> strong load
    ("st buf", "st.relaxed.sys buf"),      # weak -> strong store
    ("gin.read_signal.relaxed", "gin.read_signal"),
    ("shmem.put_nbi", "shmem.put"),        # non-blocking -> blocking
    ("shmem.get_nbi", "shmem.get"),
    ("shmem.put_signal_nbi", "shmem.put_signal"),
)


def strengthenings(p: GinProgram) -> list[GinProgram]:
    """Every program one step stronger than ``p``: a weak signal made strong, an
    access made stronger, a non-blocking call made blocking, or a fence.sc.sys, a
    flush (GIN) or a quiet / fence (NVSHMEM) inserted. None adds an event a
    condition can observe, so the final states of the two are comparable."""
    out: list[GinProgram] = []
    cols = [list(c) for c in p.columns]
    for k, col in enumerate(cols):
        for i, ins in enumerate(col):
            for old, new in _REWRITES:
                if old in ins and not (old == "shmem.put_nbi" and "signal" in ins):
                    c2 = [list(c) for c in cols]
                    c2[k][i] = ins.replace(old, new, 1)
                    out.append(GinProgram(p.family, tuple(tuple(c) for c in c2), p.terms,
                                          p.name))
        extra = ["fence.sc.sys"] + (["gin.flush c0", "gin.flush c1"] if p.family == "gin"
                                    else ["shmem.quiet", "shmem.fence"])
        for i in range(len(col) + 1):
            for ins in extra:
                c2 = [list(c) for c in cols]
                c2[k].insert(i, ins)
                out.append(GinProgram(p.family, tuple(tuple(c) for c in c2), p.terms, p.name))
    return out
