"""Engine back ends for the cat interpreter: concrete sets and z3 formulas.

:class:`ConcreteBackend` evaluates a model on one candidate execution (the
explicit enumerator). :class:`SymbolicBackend` evaluates it once over all
candidates, producing z3 terms for the uncertain pairs only:

- closures are *ranked least fixpoints*: ``t(a,b)`` holds iff ``r(a,b)`` or
  ``t(a,c) & r(c,b)`` with ``rank(a,c) < rank(a,b)`` — the ranks rule out
  self-justifying cycles, so t is exactly r+; when the may-graph of r is
  acyclic no ranks are needed; pairs reachable through certain edges are
  certain;
- ``let rec`` uses the same ranked encoding over all its bindings;
- acyclicity uses integer clocks, only inside strongly connected components
  of the may-graph (an edge between components cannot close a cycle).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    import z3
else:
    from gdrcheck.lazy import z3  # imported on first use (a fast start)

from gdrcheck.cat.interp import CheckResult
from gdrcheck.cat.values import Formula, Pair, RelV, SetV, Value, f_and, f_and_all, f_or, to_z3
from gdrcheck.engine.graphs import is_acyclic, strongly_connected_components

# --------------------------------------------------------------------------
# Concrete
# --------------------------------------------------------------------------


def concrete_closure(pairs: set[Pair] | dict[Pair, Formula],
                     tick: Callable[[], None] | None = None,
                     sources: frozenset[int] | None = None) -> set[Pair]:
    """r+ of a graph given by its edges: a search from each node (``tick``, a time
    limit's poll, is called every few hundred steps of the searches); ``sources``: from
    these nodes only."""
    succ: dict[int, set[int]] = {}
    for a, b in pairs:
        succ.setdefault(a, set()).add(b)
    out: set[Pair] = set()
    work = 0
    for start in succ:
        if sources is not None and start not in sources:
            continue
        seen: set[int] = set()
        stack = list(succ[start])
        while stack:
            x = stack.pop()
            if x in seen:
                continue
            seen.add(x)
            nxt = succ.get(x, ())
            stack.extend(nxt)
            work += len(nxt) + 1
            if tick is not None and work >= 256:
                work = 0
                tick()
        out.update((start, x) for x in seen)
    return out


class ConcreteBackend:
    def closure(self, r: RelV, exact: bool = True,
                sources: frozenset[int] | None = None) -> RelV:
        return RelV(dict.fromkeys(concrete_closure(r.m), True))  # type: ignore[arg-type]

    def letrec(self, names: Sequence[str], evaluate: Callable[..., list[RelV]],
               key: int | None = None) -> list[RelV]:
        values = [RelV() for _ in names]
        while True:
            new = evaluate(values)
            if all(set(n.m) == set(o.m) for n, o in zip(new, values, strict=True)):
                return new
            values = new

    def name(self, v: Value, hint: str) -> Value:
        return v


def concrete_check(c: CheckResult) -> bool:
    """Does the check hold (for a flag: does the flag fire)?"""
    keys = c.value.m.keys()
    if c.kind == "empty":
        ok = not keys
    elif c.kind == "irreflexive":
        ok = not any(a == b for a, b in keys)  # type: ignore[misc]
    else:
        ok = is_acyclic(keys)  # type: ignore[arg-type]
    return ok != c.negated


# --------------------------------------------------------------------------
# Symbolic
# --------------------------------------------------------------------------


def _occurring(f: z3.ExprRef, wanted: dict[int, tuple[z3.BoolRef, z3.ArithRef]]
               ) -> list[tuple[z3.BoolRef, z3.ArithRef]]:
    """The entries of ``wanted`` (by z3 id) whose constant occurs in ``f``, in the order
    of ``wanted``: one walk over the term's DAG, each shared sub-term once."""
    seen: set[int] = set()
    found: set[int] = set()
    stack = [f]
    while stack:
        e = stack.pop()
        i = e.get_id()
        if i in seen:
            continue
        seen.add(i)
        if i in wanted:
            found.add(i)
        elif e.num_args():
            stack.extend(e.children())
    return [v for i, v in wanted.items() if i in found]


Lemmas: TypeAlias = "Mapping[int, Mapping[str, Sequence[tuple[Pair, z3.BoolRef]]]]"
"""By ``let rec`` statement (its id) and binding name: pairs the binding holds when the
condition does, in every consistent execution (gdrcheck/engine/chains.py)."""


def _relation_key(r: RelV) -> tuple[object, ...]:
    """A relation's pairs and formulas, hashable: z3 shares structurally equal terms, so
    equal formulas have equal ids (the same relation built twice has one key)."""
    return tuple(sorted((p, True if f is True else z3.BoolRef.get_id(f))  # type: ignore[arg-type]
                        for p, f in r.m.items()))


class SymbolicBackend:
    def __init__(self, tick: Callable[[], None] | None = None,
                 lemmas: Lemmas | None = None,
                 po: RelV | None = None, parent: Mapping[int, int] | None = None) -> None:
        self.po = po
        """The program's po (the built-in), when it is the ancestor order of each thread's
        event tree with the formula of its later event (no gdrcheck-fix guards): then
        ``parent`` (event -> its nearest po-predecessor) generates it, and a closure
        ``(A; po?)+`` is built over A and po's immediate steps (:meth:`after_po`)."""
        self.parent = dict(parent or {})
        self._after: dict[tuple[object, ...], RelV] = {}
        self.defs: list[z3.BoolRef] = []
        self._n = itertools.count()
        self._tick = tick  # called now and then in long loops: raises when time is up
        self._lemmas: Lemmas = lemmas or {}
        self._closures: dict[tuple[tuple[object, ...], bool, frozenset[int] | None], RelV] = {}

    def _every(self, i: int, n: int = 16) -> None:
        if self._tick is not None and i % n == 0:
            self._tick()

    def fresh_bool(self, hint: str) -> z3.BoolRef:
        return z3.Bool(f"{hint}!{next(self._n)}")

    def fresh_int(self, hint: str) -> z3.ArithRef:
        return z3.Int(f"{hint}!{next(self._n)}")

    def name(self, v: Value, hint: str) -> Value:
        if isinstance(v, (SetV, RelV)):
            m = {}
            for i, (k, f) in enumerate(v.m.items()):
                self._every(i)
                if f is True or z3.is_const(f):
                    m[k] = f
                else:
                    x = self.fresh_bool(hint)
                    self.defs.append(x == f)
                    m[k] = x
            return type(v)(m)  # type: ignore[arg-type]
        return v

    def closure(self, r: RelV, exact: bool = True,
                sources: frozenset[int] | None = None) -> RelV:
        if r.is_concrete():
            return ConcreteBackend().closure(r)
        # the same relation closed twice (a model that spells one closure in two
        # definitions: ptx75-cause.cat's cause-base and ppcb-generic) is encoded once; z3
        # shares structurally equal terms, so equal formulas have equal ids. An exact
        # closure serves a one-sided request too, not the other way round.
        key = _relation_key(r)
        for ex in (True, False) if not exact else (True,):
            for src in (sources, None) if sources is not None else (None,):
                known = self._closures.get((key, ex, src))
                if known is not None:
                    return known
        out = self._closure(r, exact, sources)
        self._closures[(key, exact, sources)] = out
        return out

    def _closure(self, r: RelV, exact: bool = True,
                 sources: frozenset[int] | None = None) -> RelV:
        """r+ as a least fixpoint; ``exact=False``: the closure direction alone (the body
        implies the pair), for a closure whose every use is antitone
        (gdrcheck/cat/polarity.py): no ranks, no justification. ``sources``: its pairs
        from these events only (each pair's body refers to pairs of the same source)."""
        certain = concrete_closure({k for k, f in r.m.items() if f is True}, self._tick)
        may = concrete_closure(r.m, self._tick, sources)
        acyclic = is_acyclic(r.m, self._tick)
        t: dict[Pair, Formula] = {}
        for p in may:
            t[p] = True if p in certain else self.fresh_bool("tc")
        pred = r.pred()
        rank: dict[Pair, z3.ArithRef] = {}
        for i, ((a, b), v) in enumerate(t.items()):
            self._every(i, 1)
            if v is True:
                continue
            direct = r.m.get((a, b))
            steps = []
            for c, f in pred.get(b, ()):
                tac = t.get((a, c))
                if tac is not None:
                    steps.append((tac, f, (a, c)))
            body_terms: list[Formula] = [] if direct is None else [direct]
            body_terms += [f_and(tac, f) for tac, f, _ in steps]
            body = to_z3(f_or(body_terms)) if body_terms else z3.BoolVal(False)
            if not exact:
                self.defs.append(z3.Implies(body, v))
                continue
            if acyclic:
                self.defs.append(v == body)
                continue
            # closure direction: the body implies the pair
            self.defs.append(z3.Implies(body, v))
            # justification direction, with ranks
            rk = rank.setdefault((a, b), self.fresh_int("rk"))
            just: list[Formula] = [] if direct is None else [direct]
            for tac, f, ac in steps:
                if tac is True:
                    just.append(f)
                else:
                    rac = rank.setdefault(ac, self.fresh_int("rk"))
                    just.append(f_and_all([tac, f, rac < rk]))
            self.defs.append(z3.Implies(v, to_z3(f_or(just)) if just else z3.BoolVal(False)))
        return RelV(t)

    def po_imm(self) -> RelV | None:
        """po's immediate steps (parent(b), b), each with po's formula for the pair."""
        if self.po is None:
            return None
        return RelV({(p, b): self.po.m[(p, b)] for b, p in self.parent.items()
                     if (p, b) in self.po.m})

    def after_po(self, a: RelV, step: RelV, sources: frozenset[int] | None) -> RelV:
        """See :meth:`_after_po`; the same closure asked twice (ptx75-cause.cat spells it
        in cause-base and ppcb-generic, each with its own demanded targets) is built once,
        for every target."""
        key = (_relation_key(a), sources)
        known = self._after.get(key)
        if known is None:
            known = self._after[key] = self._after_po(a, step, sources)
        return known

    def _after_po(self, a: RelV, step: RelV, sources: frozenset[int] | None) -> RelV:
        """``(a; po?)+`` in the closure direction alone (for an antitone use,
        gdrcheck/cat/polarity.py), as the pairs reached by an ``a`` edge and then any
        ``a`` edges and immediate po steps (``step`` = a | po's immediate steps):
        ``(a; po?)+ = a; (a | po)* = a; (a | imm(po))*`` since po is transitive and, on
        each path of a thread, the closure of its immediate steps (the formula of a pair
        of po, its later event's, implies each step's between them). Each pair's body
        has one term per ``a`` edge into its target and one for the po step into it,
        where the closure of ``a; po?`` has one per event that reaches its target in
        one ``a; po?`` step. ``sources``: from these events only."""
        succ: dict[int, list[int]] = {}
        for x, y in step.m:
            succ.setdefault(x, []).append(y)
        certain_succ: dict[int, list[int]] = {}
        for (x, y), f in step.m.items():
            if f is True:
                certain_succ.setdefault(x, []).append(y)
        first: dict[int, list[tuple[int, Formula]]] = {}
        for (x, y), f in a.m.items():
            if sources is None or x in sources:
                first.setdefault(x, []).append((y, f))

        def reach(starts: list[int], nxt: dict[int, list[int]]) -> set[int]:
            seen = set(starts)
            stack = list(starts)
            while stack:
                x = stack.pop()
                for y in nxt.get(x, ()):
                    if y not in seen:
                        seen.add(y)
                        stack.append(y)
            return seen

        t: dict[Pair, Formula] = {}
        for i, (x, outs) in enumerate(first.items()):
            self._every(i, 4)
            sure = reach([y for y, f in outs if f is True], certain_succ)
            for y in reach([y for y, _ in outs], succ):
                t[(x, y)] = True if y in sure else self.fresh_bool("tc")
        pred = step.pred()
        for i, ((x, y), v) in enumerate(t.items()):
            self._every(i, 64)
            if v is True:
                continue
            terms: list[Formula] = []
            d = a.m.get((x, y))
            if d is not None:
                terms.append(d)
            for c, f in pred.get(y, ()):
                tc = t.get((x, c))
                if tc is not None:
                    terms.append(f_and(tc, f))
            if terms:
                self.defs.append(z3.Implies(to_z3(f_or(terms)), v))
        return RelV(t)

    def letrec(self, names: Sequence[str], evaluate: Callable[..., list[RelV]],
               key: int | None = None) -> list[RelV]:
        # 1. may sets: iterate with every pair assumed possible
        may: list[set[Pair]] = [set() for _ in names]
        while True:
            vals = evaluate([RelV(dict.fromkeys(m, True)) for m in may])
            new = [set(v.m) for v in vals]
            if new == may:
                break
            may = [a | b for a, b in zip(may, new, strict=True)]
        # 2. one variable and one rank per may pair
        if self._tick is not None:
            self._tick()
        var = [{p: self.fresh_bool(f"{n}") for p in m} for n, m in zip(names, may, strict=True)]
        rnk = [{p: self.fresh_int(f"{n}_rk") for p in m} for n, m in zip(names, may, strict=True)]
        bodies = evaluate([RelV(dict(v)) for v in var])  # type: ignore[arg-type]
        # each variable's rank, by the variable's z3 id
        ranked = {var[i][p].get_id(): (var[i][p], rnk[i][p])
                  for i in range(len(names)) for p in may[i]}
        for i in range(len(names)):
            for j, p in enumerate(may[i]):
                self._every(j, 1)
                v = var[i][p]
                f = bodies[i].m.get(p)
                fz = to_z3(f)
                self.defs.append(z3.Implies(fz, v))
                r = rnk[i][p]
                # x -> x & rank(x) < rank(p), for the variables of the body only (a
                # substitution of every variable in every body was quadratic)
                subst = [(x, z3.And(x, rx < r)) for x, rx in _occurring(fz, ranked)]
                self.defs.append(z3.Implies(v, z3.substitute(fz, *subst) if subst else fz))
        # 3. what every consistent execution holds besides (chains.py; key: the statement)
        given = self._lemmas.get(key, {}) if key is not None else {}
        for i, n in enumerate(names):
            for p, cond in given.get(n, ()):
                if p in var[i]:
                    self.defs.append(z3.Implies(cond, var[i][p]))
        return [RelV(dict(v)) for v in var]  # type: ignore[arg-type]

    # -- checks -----------------------------------------------------------

    def holds(self, c: CheckResult) -> z3.BoolRef:
        """A formula: the check holds (for a flag: the flag fires)."""
        m = c.value.m
        if c.kind == "empty":
            nonempty = to_z3(f_or(m.values())) if m else z3.BoolVal(False)
            return nonempty if c.negated else z3.Not(nonempty)
        if c.kind == "irreflexive":
            diag = [f for (a, b), f in m.items() if a == b]  # type: ignore[misc]
            refl = to_z3(f_or(diag)) if diag else z3.BoolVal(False)
            return refl if c.negated else z3.Not(refl)
        assert isinstance(c.value, RelV)
        if c.negated:
            t = self.closure(c.value)
            diag = [f for (a, b), f in t.m.items() if a == b]
            return to_z3(f_or(diag)) if diag else z3.BoolVal(False)
        return self.acyclic(c.value, c.name)

    def acyclic(self, r: RelV, hint: str) -> z3.BoolRef:
        clock: dict[int, z3.ArithRef] = {}
        comps = list(strongly_connected_components(r.m, self._tick))
        comp_of = {x: c for c, comp in enumerate(comps) if len(comp) > 1 for x in comp}
        # the edges inside each component of several nodes, in one pass over the edges
        # (not one pass per component)
        inside: dict[int, list[tuple[Pair, Formula]]] = {}
        for i, ((a, b), f) in enumerate(r.m.items()):
            self._every(i, 256)
            ca = comp_of.get(a)
            if ca is not None and ca == comp_of.get(b):
                inside.setdefault(ca, []).append(((a, b), f))
        conj: list[z3.BoolRef] = []
        for c, comp in enumerate(comps):
            if len(comp) == 1:
                (x,) = comp
                f = r.m.get((x, x))
                if f is not None:
                    conj.append(z3.Not(to_z3(f)))
                continue
            for x in comp:
                clock[x] = self.fresh_int(f"clk_{hint}")
            for j, ((a, b), f) in enumerate(inside.get(c, ())):
                self._every(j, 64)
                lt = clock[a] < clock[b]
                conj.append(lt if f is True else z3.Implies(f, lt))
        if not conj:
            return z3.BoolVal(True)
        return z3.And(conj)
