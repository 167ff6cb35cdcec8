"""The liveness question's queries: can a thread wait or spin forever in a fair execution?

A program whose stuck leaves (a blocking wait's failing outcome, or the side-effect-free
last iteration of a loop at the ``--unroll`` bound: :class:`~gdrcheck.lower.program.Spin`)
are *relaxed* -- the execution is kept when a thread stops there -- has, for each stuck
thread, a finite prefix of an infinite execution in which the thread repeats its wait or
its iteration forever. That infinite execution is fair (GenMC's await termination,
Dartagnan's liveness property) when every read the stuck thread repeats reads the last
write to its location in coherence order (a fair scheduler and the eventual delivery of
every posted operation make every write visible sooner or later, so the last one is what
a thread polling forever ends up seeing) and a spinning iteration repeats itself exactly
(it ends with the registers it started with). Every other thread has then ended or is
stuck too, since every thread of an execution ends at one leaf.

One query, :func:`search`, in either engine (they must agree): is there a consistent
execution that reaches one of the *goal* leaves under its condition, while every *must*
leaf it reaches meets its condition. The conditions:

- ``REACH``: the leaf is reached;
- ``FAIR``: every polled read reads the last write to its location (but those in
  ``stale``: weak loads under the ``weak-poll`` variant), and a spin's iteration repeats
  itself;
- ``ESCAPE``: a spin's registers change over its last iteration (the loop goes on past
  the bound: that execution is not covered).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import z3

from gdrcheck.cat import ast as C
from gdrcheck.cat.values import f_and, f_or, to_z3
from gdrcheck.engine.base import Frame
from gdrcheck.engine.deadline import Deadline
from gdrcheck.engine.explicit import ExplicitEngine
from gdrcheck.engine.result import Witness
from gdrcheck.engine.smt import Query, build_query, query_solver, witness_of_model
from gdrcheck.litmus import ast as A
from gdrcheck.lower.program import Leaf, Program, eval_expr

REACH = "reach"
FAIR = "fair"
ESCAPE = "escape"


@dataclass(frozen=True)
class Reached:
    """A leaf that the found execution reaches, with the write each polled read reads."""

    leaf: Leaf
    reads: tuple[tuple[int, int], ...]
    """(read event, the write it reads from)."""


@dataclass
class Search:
    """The answer of one query."""

    answer: str
    """``Found``, ``None`` (no such execution) or ``Unknown`` (the time ran out)."""
    witness: Witness | None = None
    reached: tuple[Reached, ...] = ()
    """The goal and must leaves the execution reaches."""


Conditions = Mapping[int, tuple[Leaf, str]]
"""Leaves (by id) and the condition each must meet."""


def conditions(leaves: Sequence[Leaf], kind: str) -> dict[int, tuple[Leaf, str]]:
    return {id(lf): (lf, kind) for lf in leaves}


def _smt_condition(q: Query, lf: Leaf, kind: str, sources: dict[int, list[int]],
                   stale: frozenset[int] = frozenset()) -> z3.BoolRef:
    enc = q.enc
    if kind == REACH:
        return z3.BoolVal(True)
    same = [enc.value(a) == enc.value(b) for a, b in (lf.spin.same if lf.spin else ())]
    if kind == ESCAPE:
        return z3.Not(z3.And(same))
    fair = [to_z3(f_or([f_and(enc.rf_var[(w, r)], enc.frame.fw[w])
                        for w in sources.get(r, []) if w in enc.frame.fw]))
            for r in lf.polled() if r not in stale]
    return z3.And(fair + same)


def smt_search(prog: Program, stmts: Sequence[C.Stmt], variants: frozenset[str],
               test: A.Test, goals: Conditions, musts: Conditions, path_of: Any = None,
               deadline: Deadline | None = None, stale: frozenset[int] = frozenset()
               ) -> Search:
    """:func:`search` with z3."""
    deadline = deadline or Deadline(None)
    if not goals:
        return Search("None")
    q = build_query(prog, stmts, variants, test, path_of, deadline=deadline, prune=True)
    s = query_solver(q)
    enc = q.enc
    sources: dict[int, list[int]] = {}
    for (w, r) in enc.rf_var:
        sources.setdefault(r, []).append(w)
    for lf, kind in musts.values():
        s.add(z3.Implies(to_z3(enc.blocks[lf.block]),
                         _smt_condition(q, lf, kind, sources, stale)))
    goal = z3.Or([z3.And(to_z3(enc.blocks[lf.block]),
                         _smt_condition(q, lf, kind, sources, stale))
                  for lf, kind in goals.values()])
    a = deadline.check(s, *q.axiom_lits.values(), goal)
    if a == z3.unknown:
        return Search("Unknown")
    if a == z3.unsat:
        return Search("None")
    m = s.model()

    def true(f: Any) -> bool:
        return bool(z3.is_true(m.eval(to_z3(f), model_completion=True)))

    reached = []
    for key in dict.fromkeys([*goals, *musts]):
        lf = (goals.get(key) or musts[key])[0]
        if true(enc.blocks[lf.block]):
            reached.append(Reached(lf, tuple((r, w) for r in lf.polled()
                                             for w in sources.get(r, [])
                                             if true(enc.rf_var[(w, r)]))))
    return Search("Found", witness_of_model(q, m), tuple(reached))


def explicit_search(prog: Program, stmts: Sequence[C.Stmt], variants: frozenset[str],
                    test: A.Test, goals: Conditions, musts: Conditions, path_of: Any = None,
                    deadline: Deadline | None = None, stale: frozenset[int] = frozenset()
                    ) -> Search:
    """:func:`search` by enumeration (the reference for :func:`smt_search`)."""
    deadline = deadline or Deadline(None)
    if not goals:
        return Search("None")
    reached: list[Reached] = []

    def meets(frame: Frame, src: dict[int, int], vals: dict[int, int], lf: Leaf,
              kind: str) -> bool:
        if kind == REACH:
            return True
        same = all(eval_expr(a, vals) == eval_expr(b, vals)
                   for a, b in (lf.spin.same if lf.spin else ()))
        if kind == ESCAPE:
            return not same
        return same and all(frame.fw.get(src[r]) is True for r in lf.polled()
                            if r not in stale)

    def accept(frame: Frame, chosen: tuple[Leaf, ...], vals: dict[int, int]) -> bool:
        src = {r: w for (w, r), f in frame.rf.items() if f is True}
        if not any(id(lf) in goals and meets(frame, src, vals, lf, goals[id(lf)][1])
                   for lf in chosen):
            return False
        if any(id(lf) in musts and not meets(frame, src, vals, lf, musts[id(lf)][1])
               for lf in chosen):
            return False
        reached[:] = [Reached(lf, tuple((r, src[r]) for r in lf.polled()))
                      for lf in chosen if id(lf) in goals or id(lf) in musts]
        return True

    engine = ExplicitEngine()
    hit = engine.find(prog, stmts, variants, test, accept, path_of, deadline)
    if hit is None:
        return Search("Unknown" if engine.gave_up else "None")
    return Search("Found", hit, tuple(reached))


def search(engine: str, prog: Program, stmts: Sequence[C.Stmt], variants: frozenset[str],
           test: A.Test, goals: Conditions, musts: Conditions, path_of: Any = None,
           deadline: Deadline | None = None, stale: frozenset[int] = frozenset()) -> Search:
    """Is there a consistent execution of ``prog`` that reaches a goal leaf under its
    condition, every must leaf it reaches meeting its own? ``engine``: smt or explicit.
    ``stale``: polled reads exempt from reading the last write (the ``weak-poll``
    variant: a weak load may keep a stale value forever)."""
    run = explicit_search if engine == "explicit" else smt_search
    return run(prog, stmts, variants, test, goals, musts, path_of, deadline, stale)
