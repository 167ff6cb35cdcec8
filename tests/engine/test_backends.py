"""The symbolic back end against the concrete one: closures (ranked least
fixpoints), let rec and acyclicity give exactly the concrete answers."""

from __future__ import annotations

import itertools
import random

import pytest
import z3

from gdrcheck.cat.interp import CheckResult, seq, union
from gdrcheck.cat.values import RelV, SetV
from gdrcheck.engine.backends import ConcreteBackend, SymbolicBackend, concrete_closure
from gdrcheck.errors import Pos

Guards = dict[tuple[int, int], z3.BoolRef]


def _random_graph(seed: int, n: int = 5, p: float = 0.35) -> tuple[RelV, Guards]:
    rng = random.Random(seed)
    m: dict = {}
    guards: dict[tuple[int, int], z3.BoolRef] = {}
    for a, b in itertools.product(range(n), repeat=2):
        if rng.random() < p:
            if rng.random() < 0.3:
                m[(a, b)] = True
            else:
                g = z3.Bool(f"e_{seed}_{a}_{b}")
                guards[(a, b)] = g
                m[(a, b)] = g
    return RelV(m), guards


def _determined(defs: list, fixed: list, term: z3.BoolRef, expected: bool) -> bool:
    s = z3.Solver()
    s.add(defs)
    s.add(fixed)
    s.add(term != z3.BoolVal(expected))
    return s.check() == z3.unsat


@pytest.mark.parametrize("seed", range(12))
def test_ranked_closure_is_exactly_the_transitive_closure(seed: int) -> None:
    r, guards = _random_graph(seed)
    back = SymbolicBackend()
    t = back.closure(r)
    rng = random.Random(seed + 100)
    for _ in range(4):
        assign = {k: rng.random() < 0.5 for k in guards}
        edges = {k for k, f in r.m.items() if f is True or assign.get(k, False)}
        want = concrete_closure(edges)
        fixed = [g == z3.BoolVal(assign[k]) for k, g in guards.items()]
        for p in itertools.product(range(5), repeat=2):
            f = t.m.get(p)
            if f is None:
                assert p not in want
                continue
            term = z3.BoolVal(True) if f is True else f
            assert _determined(back.defs, fixed, term, p in want), (seed, p)


@pytest.mark.parametrize("seed", range(6))
def test_let_rec_is_the_least_fixpoint(seed: int) -> None:
    r, guards = _random_graph(seed, n=4)
    back = SymbolicBackend()

    def body(vals: list[RelV]) -> list[RelV]:
        (t,) = vals
        return [union(r, seq(t, t))]  # type: ignore[list-item]

    (t,) = back.letrec(["t"], body)
    conc = ConcreteBackend()
    rng = random.Random(seed)
    for _ in range(3):
        assign = {k: rng.random() < 0.5 for k in guards}
        edges = RelV({k: True for k, f in r.m.items() if f is True or assign.get(k, False)})
        (want,) = conc.letrec(["t"], lambda v, e=edges: [union(e, seq(v[0], v[0]))])
        fixed = [g == z3.BoolVal(assign[k]) for k, g in guards.items()]
        for p, f in t.m.items():
            term = z3.BoolVal(True) if f is True else f
            assert _determined(back.defs, fixed, term, p in want.m)


@pytest.mark.parametrize("seed", range(8))
def test_acyclic_matches_concrete(seed: int) -> None:
    r, guards = _random_graph(seed, n=5, p=0.3)
    back = SymbolicBackend()
    holds = back.holds(CheckResult("acyclic", False, False, "a", r, Pos()))
    rng = random.Random(seed)
    from gdrcheck.engine.backends import concrete_check

    for _ in range(4):
        assign = {k: rng.random() < 0.5 for k in guards}
        edges = RelV({k: True for k, f in r.m.items() if f is True or assign.get(k, False)})
        want = concrete_check(CheckResult("acyclic", False, False, "a", edges, Pos()))
        s = z3.Solver()
        s.add(back.defs)
        s.add([g == z3.BoolVal(assign[k]) for k, g in guards.items()])
        s.add(holds)
        assert (s.check() == z3.sat) == want


def test_empty_and_irreflexive_on_sets_and_relations() -> None:
    back = SymbolicBackend()
    x = z3.Bool("x")
    s_nonempty = back.holds(CheckResult("empty", True, False, "n", SetV({1: x}), Pos()))
    assert z3.simplify(z3.substitute(s_nonempty, (x, z3.BoolVal(True)))) == z3.BoolVal(True)
    irr = back.holds(CheckResult("irreflexive", False, False, "i", RelV({(1, 1): x}), Pos()))
    assert z3.simplify(z3.substitute(irr, (x, z3.BoolVal(True)))) == z3.BoolVal(False)
