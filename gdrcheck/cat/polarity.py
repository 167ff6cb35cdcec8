"""Which closures of a model may be encoded one-sided: a polarity analysis of cat.

An engine encodes a closure ``t = r+`` over the candidate executions as a least
fixpoint: ``t(a,b)`` holds iff ``r(a,b)`` or ``t(a,c) & r(c,b)`` (gdrcheck/engine/
backends.py). The *closure direction* (the body implies the pair) says ``t ⊇ r+``;
the *justification direction* (the pair implies its body, with ranks against
self-justifying cycles) says ``t ⊆ r+``, and costs a rank integer per uncertain pair.

The second half is needed only where a larger ``t`` could make some query true that is
false for ``r+``. When every use of ``t`` reaches the model's axioms (``acyclic``,
``irreflexive``, ``empty``: each says a relation has no pair, a cycle or a loop) through
monotone operators only, a larger ``t`` can only rule executions out: every solution of
the one-sided encoding with ``t ⊋ r+`` stays a solution with ``t = r+``, and every
execution consistent under ``r+`` is a solution. The set of consistent executions, and
so every verdict, state, unsat core, sweep region and liveness answer, is unchanged.
Dartagnan restricts its encoding the same way (its relation analysis keeps only the
"active" direction of a relation that occurs positively; Ponce-de-León et al., "Dartagnan:
SMT-based Violation Witness Validation", and the Dat3M sources'
``RelationAnalysis``/``WmmEncoder``).

The analysis follows every value abstractly: each relation or set is the set of
closure sites it depends on, each with a sign (+ monotone, - antitone: under the right of
``\\`` or under ``~``). A site is *antitone-safe* when it reaches checks only with sign +
and only through non-negated axioms; a flag (its firing is a query of its own), a
negated check (``~empty``: a promise that something exists) or a sign - makes it exact.
Variant conditions are taken both ways (every branch's uses count); functions are
followed into their bodies at each application; ``let rec`` bindings to their fixpoint.
Sites are the ``r+`` and ``r*`` nodes of the model's syntax tree, by identity.

The analysis knows which built-in sets and relations are empty for the test at hand
(``empty``): an operator that makes its result empty then (``[S]; r`` with S empty,
``r & s`` with either empty, a product with an empty factor) carries no dependency, so a
flag about an event kind the test does not have (a signal reset, an mbarrier
initialisation) does not force a closure to be exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeAlias

from gdrcheck.cat import ast as C

Deps: TypeAlias = frozenset[tuple[int, int]]
"""(site id, sign) pairs: the closures a value depends on, and how."""

NONE: Deps = frozenset()


@dataclass(frozen=True)
class _Fun:
    """A user function (or several, one per variant branch that defines it)."""

    alts: tuple[tuple[tuple[str, ...], C.Expr, dict[str, object]], ...]


AbsValue: TypeAlias = "Deps | _Fun"


def _flip(d: Deps) -> Deps:
    return frozenset((s, -sign) for s, sign in d)


class _Empty:
    """The abstract value of a relation or set that is empty in every execution."""


EMPTY = _Empty()


class _Analysis:
    def __init__(self) -> None:
        self.sites: set[int] = set()
        self.exact: set[int] = set()

    # -- statements -------------------------------------------------------

    def run(self, stmts: Sequence[C.Stmt], env: dict[str, object]) -> None:
        for st in stmts:
            if isinstance(st, C.Let):
                vals = [(b.name, self._bind(b, env)) for b in st.bindings]
                env.update(vals)
            elif isinstance(st, C.LetRec):
                self._letrec(st, env)
            elif isinstance(st, C.Check):
                d = self._deps(self.eval(st.expr, env))
                if st.flag or st.negated:
                    self.exact.update(s for s, _ in d)
                else:
                    self.exact.update(s for s, sign in d if sign < 0)
            elif isinstance(st, C.IfVariant):
                env_t, env_f = dict(env), dict(env)
                self.run(st.then, env_t)
                self.run(st.otherwise, env_f)
                for k in set(env_t) | set(env_f):
                    env[k] = _merge(env_t.get(k, env.get(k)), env_f.get(k, env.get(k)))

    def _bind(self, b: C.Binding, env: dict[str, object]) -> object:
        if b.params is not None:
            return _Fun(((b.params, b.expr, dict(env)),))
        return self.eval(b.expr, env)

    def _letrec(self, st: C.LetRec, env: dict[str, object]) -> None:
        names = [b.name for b in st.bindings]
        cur: list[Deps] = [NONE for _ in names]
        while True:
            local = dict(env)
            local.update(zip(names, cur, strict=True))
            new = [cur[i] | self._deps(self.eval(b.expr, local))
                   for i, b in enumerate(st.bindings)]
            if new == cur:
                break
            cur = new
        env.update(zip(names, cur, strict=True))

    # -- expressions ------------------------------------------------------

    def _deps(self, v: object) -> Deps:
        if isinstance(v, (_Fun, _Empty)):
            return NONE  # a function used as a value: the interpreter refuses it
        assert isinstance(v, frozenset)
        return v

    def eval(self, e: C.Expr, env: dict[str, object]) -> object:
        if isinstance(e, C.Var):
            return env.get(e.name, NONE)
        if isinstance(e, C.Empty):
            return EMPTY
        if isinstance(e, C.Binary):
            va, vb = self.eval(e.left, env), self.eval(e.right, env)
            a_empty, b_empty = va is EMPTY, vb is EMPTY
            if e.op in (";", "&", "*") and (a_empty or b_empty):
                return EMPTY
            if e.op == "\\" and a_empty:
                return EMPTY
            if e.op in ("|", "++") and a_empty and b_empty:
                return EMPTY
            a, b = self._deps(va), self._deps(vb)
            return a | (_flip(b) if e.op == "\\" else b)
        if isinstance(e, C.Unary):
            va = self.eval(e.arg, env)
            a = self._deps(va)
            if e.op == "~":
                return _flip(a)
            if va is EMPTY and e.op in ("+", "^-1"):
                return EMPTY
            if e.op in ("+", "*"):
                self.sites.add(id(e))
                return a | {(id(e), 1)}
            return a
        if isinstance(e, C.Bracket):
            return self.eval(e.arg, env)
        if isinstance(e, C.App):
            return self._apply(e, env)
        return NONE

    def _apply(self, e: C.App, env: dict[str, object]) -> object:
        vals = [self.eval(a, env) for a in e.args]
        args: list[object] = [v if v is EMPTY else self._deps(v) for v in vals]
        f = env.get(e.func)
        if not isinstance(f, _Fun):
            # a built-in (domain, range, fencerel: monotone) or an error the interpreter
            # reports; either way the result depends on the arguments as they are
            if e.func in ("domain", "range", "fencerel") and all(v is EMPTY for v in vals):
                return EMPTY
            return frozenset().union(*(self._deps(v) for v in args))
        out: Deps = NONE
        for params, body, fenv in f.alts:
            local = dict(fenv)
            local.update(zip(params, args, strict=False))
            out |= self._deps(self.eval(body, local))
        return out


def _merge(a: object, b: object) -> object:
    if a is b:
        return a
    if a is EMPTY or a is None:
        return b if b is not None else EMPTY
    if b is EMPTY or b is None:
        return a
    if isinstance(a, _Fun) or isinstance(b, _Fun):
        alts = (a.alts if isinstance(a, _Fun) else ()) + (b.alts if isinstance(b, _Fun) else ())
        return _Fun(alts)
    return (a or NONE) | (b or NONE)  # type: ignore[operator]


_CACHE: dict[tuple[int, frozenset[str]], tuple[Sequence[C.Stmt], frozenset[int]]] = {}


def one_sided_closures(stmts: Sequence[C.Stmt], empty: frozenset[str] = frozenset()
                       ) -> frozenset[int]:
    """The ids of the ``+``/``*`` nodes of ``stmts`` whose closures only ever reach
    non-negated axioms monotonically: they may be encoded in the closure direction alone
    (see the module's documentation). ``empty``: the built-in names whose value is empty
    in every execution of the test."""
    key = (id(stmts), empty)
    known = _CACHE.get(key)
    if known is not None and known[0] is stmts:  # a model's statements are loaded once
        return known[1]
    an = _Analysis()
    an.run(stmts, dict.fromkeys(empty, EMPTY))
    out = frozenset(an.sites - an.exact)
    _CACHE[key] = (stmts, out)
    return out
