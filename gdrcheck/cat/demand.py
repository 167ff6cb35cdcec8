"""Which pairs of each relation of a model can reach a check: an endpoint demand analysis.

The z3 engine evaluates a model over every candidate execution at once, so each
relation holds a formula for each pair that may belong to it. Most pairs of a large
relation may never reach a check: PTX's causality order relates every event to every
later one, barrier arrivals and NIC issue events included, while the axioms read it
only between memory operations (Coherence, Causality) and between fence.sc events
(Fence-SC). Dartagnan restricts its encoding in the same way to the "active set" of each
relation (Ponce-de-León et al., the Dat3M sources' ``RelationAnalysis``).

The analysis runs per test, before the evaluation, on the model's syntax and the may-sets
of the built-in names:

1. *Shapes* (forward): each expression's value gets an over-approximation of its domain
   and range (event sets; ``None`` is every event), from the built-in values and the
   operators (``a;b`` goes from a's domain to b's range, ``a & b`` intersects, ...).
2. *Demands* (backward, from the checks to the definitions): each expression gets the
   sources and targets of the pairs that can matter. ``irreflexive X`` needs X's pairs
   ``(e, e)`` only; ``empty`` and ``acyclic`` need all of X. A sequence ``a;b`` needed on
   S × D needs a on S × dom(b) and b on rng(a) × D; union and complement pass the demand
   on, an intersection and the right of a difference within the other side's shape;
   ``r^-1`` swaps it; ``domain(r)`` needs r's pairs from the set's demand. A closure
   needs all of its argument, and is computed only from its demanded sources. Every use
   of a name adds to its definition's demand. A user function's application is followed
   through a copy of its body (its parameters stand for the arguments, its other names
   for what they named where it was defined); ``let rec`` and anything else the
   analysis does not follow get every pair.
3. The z3 engine then keeps, of each ``let`` value, the pairs in its demand, and builds
   each closure from its demanded sources only (gdrcheck/cat/interp.py).

Each expression's value is then exact on its demanded pairs (by induction over the
operators above), so every check's formula is the same as without the analysis: the
candidate executions, the consistent ones and every answer are unchanged.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from gdrcheck.cat import ast as C

Ends: TypeAlias = "frozenset[int] | None"
"""A set of events; None: every event."""

Demand: TypeAlias = "tuple[Ends, Ends]"
"""(sources, targets) of the pairs needed; for a set, (elements, elements)."""

EVERY: Demand = (None, None)
NOTHING: Demand = (frozenset(), frozenset())


def _union(a: Ends, b: Ends) -> Ends:
    return None if a is None or b is None else a | b


def _inter(a: Ends, b: Ends) -> Ends:
    if a is None:
        return b
    if b is None:
        return a
    return a & b


def _join(a: Demand, b: Demand) -> Demand:
    return (_union(a[0], b[0]), _union(a[1], b[1]))


@dataclass
class Demands:
    """What the z3 engine may leave out: per ``let`` binding (by id) and per closure node
    (by id), the (sources, targets) of the pairs to keep."""

    bindings: dict[int, Demand] = field(default_factory=dict)
    closures: dict[int, Demand] = field(default_factory=dict)


@dataclass(frozen=True)
class _Fun:
    """A user function: its parameters, body and the names it captured."""

    params: tuple[str, ...]
    body: C.Expr
    env: dict[str, Any] = field(hash=False, compare=False)


_FUN = _Fun((), C.Empty(), {})


def _copy(e: C.Expr) -> C.Expr:
    """A copy of an expression with new nodes (each application of a function is
    analysed on its own copy of the body)."""
    if isinstance(e, C.Binary):
        return dataclasses.replace(e, left=_copy(e.left), right=_copy(e.right))
    if isinstance(e, (C.Unary, C.Bracket)):
        return dataclasses.replace(e, arg=_copy(e.arg))
    if isinstance(e, C.App):
        return dataclasses.replace(e, args=tuple(_copy(a) for a in e.args))
    return dataclasses.replace(e)
_Shape: TypeAlias = "tuple[Ends, Ends]"
_TOP: _Shape = (None, None)


class _Analysis:
    def __init__(self, base: dict[str, Any]) -> None:
        self.base_shape: dict[str, _Shape] = {}
        for name, v in base.items():
            m = getattr(v, "m", None)
            if not isinstance(m, dict):
                continue
            keys = list(m)
            if keys and isinstance(keys[0], tuple):
                self.base_shape[name] = (frozenset(a for a, _ in keys),
                                         frozenset(b for _, b in keys))
            else:
                s = frozenset(keys)
                self.base_shape[name] = (s, s)
        self.shape: dict[int, _Shape] = {}  # expression node id -> its shape
        self.refs: dict[int, tuple[int, ...]] = {}  # Var node id -> the binding ids it reads
        self.demand: dict[int, Demand] = {}  # binding id -> accumulated demand
        self.closures: dict[int, Demand] = {}
        self.everything: set[int] = set()  # bindings whose every pair is needed
        self.inlined: dict[int, tuple[C.Expr, list[tuple[int, C.Expr]]]] = {}
        """An application (node id) -> the copy of its function's body, and each
        argument's key and expression."""
        self._keys = iter(range(-1, -10**9, -1))  # keys of arguments: negative ids

    # -- forward: shapes and name resolution ---------------------------------

    def forward(self, stmts: Sequence[C.Stmt], env: dict[str, Any]) -> None:
        for st in stmts:
            if isinstance(st, C.Let):
                new: list[tuple[str, Any]] = []
                for b in st.bindings:
                    if b.params is not None:
                        new.append((b.name, _Fun(b.params, b.expr, dict(env))))
                    else:
                        new.append((b.name, ((id(b),), self.fwd(b.expr, env))))
                env.update(new)
            elif isinstance(st, C.LetRec):
                # every pair of a let rec is needed; its shape is a fixpoint of its
                # bodies' shapes (a few rounds, else every event)
                shapes: list[_Shape] = [(frozenset(), frozenset()) for _ in st.bindings]
                for _ in range(8):
                    local = dict(env)
                    local.update((b.name, ((id(b),), sh))
                                 for b, sh in zip(st.bindings, shapes, strict=True))
                    new_shapes = [self.fwd(b.expr, local) for b in st.bindings]
                    grown = [(_union(a[0], n[0]), _union(a[1], n[1]))
                             for a, n in zip(shapes, new_shapes, strict=True)]
                    if grown == shapes:
                        break
                    shapes = grown
                else:
                    shapes = [_TOP for _ in st.bindings]
                local = dict(env)
                for b, sh in zip(st.bindings, shapes, strict=True):
                    local[b.name] = ((id(b),), sh)
                    self.everything.add(id(b))
                for b in st.bindings:
                    self._opaque(b.expr, local)
                env.update((b.name, ((id(b),), sh))
                           for b, sh in zip(st.bindings, shapes, strict=True))
            elif isinstance(st, C.Check):
                self.fwd(st.expr, env)
            elif isinstance(st, C.IfVariant):
                env_t, env_f = dict(env), dict(env)
                self.forward(st.then, env_t)
                self.forward(st.otherwise, env_f)
                for k in set(env_t) | set(env_f):
                    env[k] = self._merge(env_t.get(k, env.get(k)), env_f.get(k, env.get(k)))

    def _merge(self, a: Any, b: Any) -> Any:
        """A name after a variant condition: what either branch bound."""
        if a is b:
            return a
        if isinstance(a, _Fun) or isinstance(b, _Fun):
            # a function defined differently under a variant: not followed, whatever it
            # reads is needed whole
            for f in (a, b):
                if isinstance(f, _Fun):
                    self._opaque(f.body, f.env)
            return _FUN
        if a is None or b is None:
            return a or b
        return (a[0] + b[0], (_union(a[1][0], b[1][0]), _union(a[1][1], b[1][1])))

    def _opaque(self, e: C.Expr, env: dict[str, Any]) -> None:
        """An expression the analysis does not follow (a function's body, a let rec's):
        every name it reads is needed whole."""
        if isinstance(e, C.Var):
            got = env.get(e.name)
            if isinstance(got, tuple):
                self.everything.update(got[0])
        elif isinstance(e, C.Binary):
            self._opaque(e.left, env)
            self._opaque(e.right, env)
        elif isinstance(e, (C.Unary, C.Bracket)):
            self._opaque(e.arg, env)
        elif isinstance(e, C.App):
            for a in e.args:
                self._opaque(a, env)

    def fwd(self, e: C.Expr, env: dict[str, Any]) -> _Shape:
        s = self._fwd(e, env)
        self.shape[id(e)] = s
        return s

    def _fwd(self, e: C.Expr, env: dict[str, Any]) -> _Shape:
        if isinstance(e, C.Var):
            got = env.get(e.name)
            if isinstance(got, tuple):
                self.refs[id(e)] = got[0]
                return got[1]
            return self.base_shape.get(e.name, _TOP)
        if isinstance(e, C.Empty):
            return (frozenset(), frozenset())
        if isinstance(e, C.Binary):
            a, b = self.fwd(e.left, env), self.fwd(e.right, env)
            if e.op in ("|", "++"):
                return (_union(a[0], b[0]), _union(a[1], b[1]))
            if e.op == "&":
                return (_inter(a[0], b[0]), _inter(a[1], b[1]))
            if e.op == "\\":
                return a
            if e.op in (";", "*"):
                if any(x is not None and not x for x in (*a, *b)):
                    return (frozenset(), frozenset())  # a side with no pair: none
                return (a[0], b[1]) if e.op == ";" else (a[0], b[0])
            return _TOP
        if isinstance(e, C.Unary):
            a = self.fwd(e.arg, env)
            if e.op == "^-1":
                return (a[1], a[0])
            if e.op == "+":
                return a
            return _TOP  # r?, r*, ~r: the identity or the complement, every event
        if isinstance(e, C.Bracket):
            a = self.fwd(e.arg, env)
            return (a[0], a[0])
        if isinstance(e, C.App):
            shapes = [self.fwd(x, env) for x in e.args]
            f = env.get(e.func)
            if isinstance(f, _Fun) and f is not _FUN and len(f.params) == len(e.args):
                body = _copy(f.body)
                local = dict(f.env)
                args = []
                for p, x, sh in zip(f.params, e.args, shapes, strict=True):
                    key = next(self._keys)
                    args.append((key, x))
                    local[p] = ((key,), sh)
                self.inlined[id(e)] = (body, args)
                return self.fwd(body, local)
            if f is None and e.func == "domain" and len(shapes) == 1:
                return (shapes[0][0], shapes[0][0])
            if f is None and e.func == "range" and len(shapes) == 1:
                return (shapes[0][1], shapes[0][1])
            for x in e.args:
                self._opaque(x, env)
            return _TOP
        return _TOP

    # -- backward: demands ------------------------------------------------

    def backward(self, stmts: Sequence[C.Stmt]) -> None:
        for st in reversed(stmts):
            if isinstance(st, C.Let):
                for b in st.bindings:
                    if b.params is None:
                        d = EVERY if id(b) in self.everything else self.demand.get(id(b))
                        if d is not None:
                            self.push(b.expr, d)
            elif isinstance(st, C.Check):
                if st.kind == "irreflexive" and not st.negated:
                    s = self.shape.get(id(st.expr), _TOP)
                    both = _inter(s[0], s[1])
                    self.push(st.expr, (both, both))
                else:
                    self.push(st.expr, EVERY)
            elif isinstance(st, C.IfVariant):
                self.backward(st.otherwise)
                self.backward(st.then)

    def push(self, e: C.Expr, d: Demand) -> None:
        if isinstance(e, C.Var):
            for key in self.refs.get(id(e), ()):
                old = self.demand.get(key)
                self.demand[key] = d if old is None else _join(old, d)
            return
        if isinstance(e, C.Binary):
            if e.op == ";":
                a = self.shape.get(id(e.left), _TOP)
                b = self.shape.get(id(e.right), _TOP)
                if _inter(d[0], a[0]) == frozenset() or _inter(d[1], b[1]) == frozenset():
                    self.push(e.left, NOTHING)  # no demanded pair can come out
                    self.push(e.right, NOTHING)
                    return
                # the middle events: b's sources; after an identity [X], the demanded
                # sources in X themselves (and the same on the other side)
                mid_a = _inter(b[0], d[1]) if isinstance(e.right, C.Bracket) else b[0]
                mid_b = _inter(a[1], d[0]) if isinstance(e.left, C.Bracket) else a[1]
                self.push(e.left, (d[0], mid_a))
                self.push(e.right, (mid_b, d[1]))
            elif e.op == "*":
                self.push(e.left, (d[0], d[0]))
                self.push(e.right, (d[1], d[1]))
            elif e.op == "&":  # a pair of both: within the other's shape too
                a = self.shape.get(id(e.left), _TOP)
                b = self.shape.get(id(e.right), _TOP)
                self.push(e.left, (_inter(d[0], b[0]), _inter(d[1], b[1])))
                self.push(e.right, (_inter(d[0], a[0]), _inter(d[1], a[1])))
            elif e.op == "\\":  # the right side matters only within the left's shape
                a = self.shape.get(id(e.left), _TOP)
                self.push(e.left, d)
                self.push(e.right, (_inter(d[0], a[0]), _inter(d[1], a[1])))
            else:  # | ++: the same pairs of both
                self.push(e.left, d)
                self.push(e.right, d)
            return
        if isinstance(e, C.Unary):
            if e.op == "^-1":
                self.push(e.arg, (d[1], d[0]))
            elif e.op in ("?", "~"):
                self.push(e.arg, d)
            else:  # r+ and r*: every pair of r; the closure from the demanded sources
                old = self.closures.get(id(e))
                self.closures[id(e)] = d if old is None else _join(old, d)
                self.push(e.arg, EVERY)
            return
        if isinstance(e, C.Bracket):
            both = _inter(d[0], d[1])
            self.push(e.arg, (both, both))
            return
        if isinstance(e, C.App):
            inl = self.inlined.get(id(e))
            if inl is not None:
                body, args = inl
                self.push(body, d)
                for key, x in args:
                    got = self.demand.get(key)
                    if got is not None:
                        self.push(x, got)
                return
            if e.func == "domain" and len(e.args) == 1 and id(e.args[0]) in self.shape:
                self.push(e.args[0], (d[0], None))
            elif e.func == "range" and len(e.args) == 1 and id(e.args[0]) in self.shape:
                self.push(e.args[0], (None, d[0]))
            else:
                for x in e.args:
                    self.push(x, EVERY)


def demands(stmts: Sequence[C.Stmt], base: dict[str, Any]) -> Demands:
    """The demand of every ``let`` binding and closure of ``stmts`` for a test whose
    built-in names have the values ``base`` (see the module's documentation)."""
    an = _Analysis(base)
    an.forward(stmts, {})
    an.backward(stmts)
    out = Demands()
    for key, d in an.demand.items():
        if key not in an.everything and d != EVERY:
            out.bindings[key] = d
    for key, d in an.closures.items():
        if d != EVERY:
            out.closures[key] = d
    return out
