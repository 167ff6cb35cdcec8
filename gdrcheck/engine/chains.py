"""Read-modify-write chains: what Atomicity implies for a location written only by RMWs.

A fan-in where n senders each bump ONE shared signal is a location whose every write
but the initial one is the write of a read-modify-write. Left to itself, the z3
engine sees n! coherence orders and, for each, an rf edge per RMW, and proves each
order inconsistent on its own: the release sequence through the chain ("observation
order", ISA §8.9.2, a ``let rec`` in ptx75-defs.cat) is an induction over the chain
that a SAT solver cannot learn once for all orders (the fan-in of 8 senders timed out
at 60 s; issue 18). This module proves, before the encoding, three facts that every
consistent execution of such a test satisfies, so that the engine can state them:

1. **Adjacency**: each RMW of the chain reads the write immediately before its own in
   coherence order. It follows from the model's own Atomicity check and from values
   being well founded (the engine's rf | data acyclicity). Atomicity is *found*, not
   assumed: for every RMW (r, w), every candidate source s and every chain write w'
   that could lie between them, the prover of gdrcheck/engine/implied.py must show
   that an unconditional ``empty E`` check of the model surely has (r, w) in E when r
   reads s and co(s, w'), co(w', w). Then no RMW reads from across another write; and
   none reads a write coherence-after its own: the sources, followed from any write,
   must end at the initial write (values are well founded), and only the coherence
   first RMW may read it; the first RMW that read "from the future" would leave a path
   that enters the ordered prefix from above, skipping a write (Atomicity).
2. **Counting**: when every write of the chain adds a constant to what its read
   returned, by (1) the value an RMW reads is the initial value plus the increments of
   the RMWs coherence-before it: a sum over coherence pairs, not a chain of equalities.
3. **Observation along the chain**: for a ``let rec`` binding X of the model, if its
   body surely relates w_a to r_b when r_b reads w_a (the base case) and surely relates
   w_a to r_b when X relates w_a to r_c and w_c to r_b (the step: the prover assumes
   only those two pairs of X), then by (1) and induction over the chain X(w_a, r_b)
   holds whenever co(w_a, w_b). For ptx75's observation order that is "a write is
   observed by every later RMW of the chain" (the release sequence), stated directly.

Only chains whose events all execute, that the model's checks cover, are used; the
engine states the facts only when it prunes (``prune=True``: the verdict's encoding,
not explain's, which looks at candidates that fail the axioms). The proofs have their
own work budget (:data:`MAX_STEPS`): past it, no chains (the encoding is as before).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass
from typing import Any

from gdrcheck.cat.values import Pair
from gdrcheck.engine.implied import Axiom, GiveUp, Hyp, Prover, RecBinding, Work
from gdrcheck.lower.program import BinOp, Program, ReadVal

MIN_RMWS = 3
"""Shorter chains have at most 2 orders: the solver needs no help."""

MAX_STEPS = 3_000_000
"""Prover evaluations for all chains of one program before they are given up (about
3 s: 8 RMWs take 0.27 M, 12 take 1.0 M, 16 take 2.3 M)."""


@dataclass(frozen=True)
class RmwChain:
    """A location written only by read-modify-writes (besides its initial write)."""

    loc: str
    init: int
    """The initial write's event."""
    rmws: tuple[Pair, ...]
    """(read, write) of each RMW."""
    adds: tuple[int, ...] | None
    """Each write's increment (write = read + increment), or None when some write is not
    such an addition."""
    observed: tuple[tuple[int, str], ...]
    """(id of a ``let rec`` statement, binding name): X(w_a, r_b) whenever co(w_a, w_b)."""
    axioms: tuple[str, ...]
    """The checks the adjacency follows from."""


def _increment(prog: Program, r: int, w: int) -> int | None:
    v = prog.events[w].value
    if not isinstance(v, BinOp) or v.op != "add":
        return None
    if v.left == ReadVal(r) and isinstance(v.right, int):
        return v.right
    if v.right == ReadVal(r) and isinstance(v.left, int):
        return v.left
    return None


def _atomic(prog: Program, static: Mapping[str, Any], checks: Sequence[Axiom],
            rmws: Sequence[Pair], init: int, work: Work) -> list[str] | None:
    """The checks that rule out, for every RMW, a read from across another chain write;
    None when some case is not proved."""
    used: list[Axiom] = []
    writes = [w for _, w in rmws]
    for r, w in rmws:
        for s in [init, *(x for x in writes if x != w)]:
            for mid in writes:
                if mid in (s, w):
                    continue
                hyp = Hyp(co=frozenset({(s, mid), (mid, w)}), rf={r: s})
                prover = Prover(prog, static, hyp, work)
                # the checks that did it before first: usually one does it every time
                order = [*used, *(ax for ax in checks if ax not in used)]
                found = next((ax for ax in order if prover.must(ax.expr, ax.env, (r, w))),
                             None)
                if found is None:
                    return None
                if found not in used:
                    used.append(found)
    return [ax.name for ax in used]


def _observed(prog: Program, static: Mapping[str, Any], rec: RecBinding,
              rmws: Sequence[Pair], work: Work) -> bool:
    """Does the binding relate each chain write to every later RMW's read, by induction
    over the chain (the base case and the step, each proved for every pair/triple)?"""
    body, env = rec.binding.expr, rec.env
    for _, wa in rmws:
        for rb, wb in rmws:
            if wa == wb:
                continue
            base = Prover(prog, static, Hyp(rf={rb: wa}), work)
            if not base.must(body, env, (wa, rb)):
                return False
            for rc, wc in rmws:
                if wc in (wa, wb):
                    continue
                step = Prover(prog, static,
                               Hyp(rel={rec.opaque: frozenset({(wa, rc), (wc, rb)})}), work)
                if not step.must(body, env, (wa, rb)):
                    return False
    return True


def rmw_chains(prog: Program, checks: Sequence[Axiom], recs: Sequence[RecBinding],
               static: Mapping[str, Any], executes: Set[int],
               tick: Callable[[], None] | None = None) -> tuple[RmwChain, ...]:
    """The RMW chains of ``prog`` that the model's unconditional ``checks`` make
    adjacent (``executes``: the events that execute in every candidate)."""
    try:
        return _chains(prog, checks, recs, static, executes, Work(tick, MAX_STEPS))
    except GiveUp:
        return ()


def _chains(prog: Program, checks: Sequence[Axiom], recs: Sequence[RecBinding],
            static: Mapping[str, Any], executes: Set[int], work: Work
            ) -> tuple[RmwChain, ...]:
    ev = prog.events
    empties = [c for c in checks if c.kind == "empty"]
    if not empties:
        return ()
    read_of = {w: r for r, w in prog.rmw}
    writes_at: dict[str, list[int]] = {}
    for e in ev:
        if e.kind == "W" and e.loc is not None:
            writes_at.setdefault(e.loc, []).append(e.eid)
    data = set(prog.data)
    out: list[RmwChain] = []
    for loc, ws in writes_at.items():
        inits = [w for w in ws if ev[w].is_init]
        real = [w for w in ws if not ev[w].is_init]
        if len(inits) != 1 or len(real) < MIN_RMWS or any(w not in read_of for w in real):
            continue
        rmws = tuple((read_of[w], w) for w in real)
        if any(ev[r].loc != loc or (r, w) not in data or r not in executes
               or w not in executes for r, w in rmws):
            continue
        axioms = _atomic(prog, static, empties, rmws, inits[0], work)
        if axioms is None:
            continue
        incs = [_increment(prog, r, w) for r, w in rmws]
        adds = None if any(c is None for c in incs) else tuple(c for c in incs if c is not None)
        observed = tuple((id(rec.stmt), rec.binding.name) for rec in recs
                         if _observed(prog, static, rec, rmws, work))
        out.append(RmwChain(loc, inits[0], rmws, adds, observed, tuple(axioms)))
    return tuple(out)
