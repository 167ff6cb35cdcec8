"""The cat interpreter, generic over concrete and symbolic relations.

The interpreter walks a model's statements once per candidate (explicit
engine) or once per test (z3 engine). Everything that differs between the two
— transitive closures, recursive definitions, naming sub-terms — goes through
a :class:`Backend`; the relational operators themselves are shared and work
on :class:`~gdrcheck.cat.values.SetV` / :class:`~gdrcheck.cat.values.RelV`.

Two optional modes, both off by default (the engines' ordinary path):

- *symbolic variants* (``symbolic_variants``, used by ``gdrcheck sweep``): the
  variants named in the map are z3 Boolean constants instead of fixed choices.
  ``if "v" then A else B end`` evaluates both branches; each name either branch
  binds gets the value ``(c ∧ A-value) ∪ (¬c ∧ B-value)`` pair by pair, and a
  check inside a branch is guarded by the branch's condition
  (:attr:`CheckResult.guard`). A condition whose branches give identical values
  introduces nothing, so :attr:`Evaluation.used_variants` lists only the
  variants that can change a formula;
- *recording* (``record=True``, used by ``gdrcheck explain``): every ``let``
  binding is kept with the environment it was evaluated in
  (:attr:`Evaluation.bindings`), and every check with its expression and
  environment, so that a relation can be taken apart pair by pair afterwards.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import z3

    from gdrcheck.cat.demand import Demands
else:
    from gdrcheck.lazy import z3  # imported on first use (a fast start)

from gdrcheck.cat import ast as C
from gdrcheck.cat.values import Formula, FunV, Pair, RelV, SetV, Value, f_and, f_not, f_or
from gdrcheck.dataclass_cache import dataclass
from gdrcheck.errors import CatError, Pos


class Backend(Protocol):
    """What the interpreter needs from an engine."""

    def closure(self, r: RelV, exact: bool = True,
                sources: frozenset[int] | None = None) -> RelV:
        """The transitive closure r+; ``exact=False``: a relation that contains r+ and may
        be larger, where every use of it is antitone (gdrcheck/cat/polarity.py);
        ``sources``: only its pairs from these events are needed (gdrcheck/cat/demand.py;
        None: all)."""
        ...

    def letrec(self, names: Sequence[str], evaluate: Any, key: int | None = None) -> list[RelV]:
        """The least fixpoint of ``evaluate(values) -> values`` (one per name); ``key``
        names the statement (its id), for what an engine knows of it."""
        ...

    def name(self, v: Value, hint: str) -> Value:
        """Give a let-bound value's uncertain entries names (Tseitin); may return v."""
        ...


@dataclass
class CheckResult:
    """A check of the model, evaluated: the engine turns it into a constraint."""

    kind: C.CheckKind
    negated: bool
    flag: bool
    name: str
    value: SetV | RelV
    pos: Pos
    guard: Formula = True
    """When the check applies: ``True``, or (symbolic variants) the conditions of the
    ``if`` branches it sits in."""
    expr: C.Expr | None = None
    """The checked expression (recording mode only)."""
    env: dict[str, Any] | None = None
    """The environment the expression was evaluated in (recording mode only)."""


@dataclass
class BindingTrace:
    """One ``let`` (or ``let rec``) binding as evaluated (recording mode)."""

    name: str
    binding: C.Binding
    stmt: C.Let | C.LetRec
    env: dict[str, Any]
    """The environment the binding's expression was evaluated in (for ``let rec``: the
    one after the fixpoint)."""
    value: Value


@dataclass
class Shown:
    name: str
    value: RelV


@dataclass
class Evaluation:
    checks: list[CheckResult] = field(default_factory=list)
    shown: list[Shown] = field(default_factory=list)
    env: dict[str, Any] = field(default_factory=dict)
    bindings: list[BindingTrace] = field(default_factory=list)
    """Recording mode: every binding in evaluation order."""
    used_variants: set[str] = field(default_factory=set)
    """Symbolic variants: the variants whose conditions changed some value or guard a
    check that can fail (or fire)."""


# --------------------------------------------------------------------------
# Relational operators (shared by both engines)
# --------------------------------------------------------------------------


Tick = Callable[[], None]
"""A time limit's poll: called now and then in long loops, it raises when the time is
up (the interpreter knows nothing more of it)."""

TICK_EVERY = 256
"""Entries between two polls of the time limit in the operators' loops."""


def _nothing() -> None:
    return None


def union(a: SetV | RelV, b: SetV | RelV, tick: Tick | None = None) -> SetV | RelV:
    a, b = _coerce(a, b)
    poll = tick or _nothing
    m: dict[Any, Formula] = dict(a.m)
    for i, (k, f) in enumerate(b.m.items()):
        if not i % TICK_EVERY:
            poll()
        g = m.get(k)
        m[k] = f if g is None else f_or([g, f])
    return type(a)(m)


def inter(a: SetV | RelV, b: SetV | RelV, tick: Tick | None = None) -> SetV | RelV:
    a, b = _coerce(a, b)
    poll = tick or _nothing
    small, big = (a, b) if len(a.m) <= len(b.m) else (b, a)
    m: dict[Any, Formula] = {}
    big_m: dict[Any, Formula] = big.m
    for i, (k, f) in enumerate(small.m.items()):
        if not i % TICK_EVERY:
            poll()
        g = big_m.get(k)
        if g is not None:
            m[k] = f_and(f, g)
    return type(a)(m)


def diff(a: SetV | RelV, b: SetV | RelV, tick: Tick | None = None) -> SetV | RelV:
    a, b = _coerce(a, b)
    poll = tick or _nothing
    m: dict[Any, Formula] = {}
    b_m: dict[Any, Formula] = b.m
    for i, (k, f) in enumerate(a.m.items()):
        if not i % TICK_EVERY:
            poll()
        g = b_m.get(k)
        if g is None:
            m[k] = f
        elif g is not True:
            m[k] = f_and(f, f_not(g))
    return type(a)(m)


def seq(a: RelV, b: RelV, tick: Tick | None = None) -> RelV:
    poll = tick or _nothing
    succ = b.succ()
    poll()
    acc: dict[Pair, list[Formula]] = {}
    work = 0
    for (x, y), f in a.m.items():
        nxt = succ.get(y, ())
        work += len(nxt) + 1
        if work >= TICK_EVERY:
            work = 0
            poll()
        for z, g in nxt:
            acc.setdefault((x, z), []).append(f_and(f, g))
    out: dict[Pair, Formula] = {}
    for i, (k, fs) in enumerate(acc.items()):
        if not i % TICK_EVERY:
            poll()
        out[k] = f_or(fs)
    return RelV(out)


def restrict(v: SetV | RelV, d: tuple[frozenset[int] | None, frozenset[int] | None]
             ) -> SetV | RelV:
    """``v`` less what a demand (gdrcheck/cat/demand.py) leaves out: a relation's pairs
    outside sources x targets, a set's elements outside both."""
    src, dst = d
    if isinstance(v, RelV):
        return RelV({(a, b): f for (a, b), f in v.m.items()
                     if (src is None or a in src) and (dst is None or b in dst)})
    keep = None if src is None or dst is None else src | dst
    if keep is None:
        return v
    return SetV({x: f for x, f in v.m.items() if x in keep})


def cart(a: SetV, b: SetV, tick: Tick | None = None) -> RelV:
    poll = tick or _nothing
    m: dict[Pair, Formula] = {}
    bs = list(b.m.items())
    work = 0
    for x, f in a.m.items():
        work += len(bs)
        if work >= TICK_EVERY:
            work = 0
            poll()
        for y, g in bs:
            m[(x, y)] = f_and(f, g)
    return RelV(m)


def inverse(r: RelV) -> RelV:
    return RelV({(b, a): f for (a, b), f in r.m.items()})


def ident(s: SetV) -> RelV:
    return RelV({(x, x): f for x, f in s.m.items()})


def domain(r: RelV, tick: Tick | None = None) -> SetV:
    poll = tick or _nothing
    acc: dict[int, list[Formula]] = {}
    for i, ((a, _b), f) in enumerate(r.m.items()):
        if not i % TICK_EVERY:
            poll()
        acc.setdefault(a, []).append(f)
    return SetV({k: f_or(fs) for k, fs in acc.items()})


def range_(r: RelV, tick: Tick | None = None) -> SetV:
    return domain(inverse(r), tick)


def _coerce(a: SetV | RelV, b: SetV | RelV) -> tuple[SetV | RelV, SetV | RelV]:
    if type(a) is type(b):
        return a, b
    # the polymorphic empty value (0 / {}) adapts to the other operand
    if not a.m:
        return type(b)(), b
    if not b.m:
        return a, type(a)()
    raise TypeError("mixing an event set and a relation")


# --------------------------------------------------------------------------
# The interpreter
# --------------------------------------------------------------------------


class Interpreter:
    def __init__(
        self,
        base: dict[str, Any],
        backend: Backend,
        variants: frozenset[str],
        path_of: Any = None,
        *,
        symbolic_variants: Mapping[str, z3.BoolRef] | None = None,
        record: bool = False,
        tick: Callable[[], None] | None = None,
        one_sided: frozenset[int] = frozenset(),
        demands: Demands | None = None,
    ) -> None:
        self.base = base
        self.one_sided = one_sided  # closure nodes (ids) that may be one-sided: polarity.py
        self.demands = demands  # the pairs each binding and closure must keep: demand.py
        self.backend = backend
        self.variants = variants
        self.path_of = path_of  # Stmt -> (path, source), for error messages
        self.symbolic = dict(symbolic_variants or {})
        self.record = record
        self.tick = tick  # called before each statement: raises when time is up

    # -- errors -----------------------------------------------------------

    def _err(self, msg: str, pos: Pos, node: Any = None) -> CatError:
        path, source = (None, None)
        if self.path_of is not None and node is not None:
            path, source = self.path_of(node)
        return CatError(msg, path, pos, source)

    # -- statements -------------------------------------------------------

    def run(self, stmts: Sequence[C.Stmt]) -> Evaluation:
        ev = Evaluation(env=dict(self.base))
        self._run(stmts, ev, ev.env, True)
        return ev

    def _run(self, stmts: Sequence[C.Stmt], ev: Evaluation, env: dict[str, Any],
             guard: Formula = True, gnames: tuple[str, ...] = ()) -> None:
        for st in stmts:
            if self.tick is not None:
                self.tick()
            self._current = st
            if isinstance(st, C.Let):
                before = dict(env) if self.record else env
                vals = [(b.name, self._bind(b, env)) for b in st.bindings]
                for (name, v), b in zip(vals, st.bindings, strict=True):
                    env[name] = v
                    if self.record:
                        ev.bindings.append(BindingTrace(name, b, st, before, v))
            elif isinstance(st, C.LetRec):
                self._letrec(st, env)
                if self.record:
                    after = dict(env)
                    ev.bindings.extend(BindingTrace(b.name, b, st, after, env[b.name])
                                       for b in st.bindings)
            elif isinstance(st, C.Check):
                v = self.eval(st.expr, env)
                if isinstance(v, FunV):
                    raise self._err("a check needs a set or a relation", st.pos, st)
                if st.kind in ("acyclic", "irreflexive") and not isinstance(v, RelV):
                    if v.m:
                        raise self._err(f"'{st.kind}' needs a relation", st.pos, st)
                    v = RelV()
                name = st.name or f"{'~' if st.negated else ''}{st.kind}@{st.pos.line}"
                res = CheckResult(st.kind, st.negated, st.flag, name, v, st.pos, guard)
                if self.record:
                    res.expr, res.env = st.expr, dict(env)
                if guard is not True and v.m:
                    ev.used_variants.update(gnames)
                ev.checks.append(res)
            elif isinstance(st, C.IfVariant):
                c = self._vcond_formula(st.cond)
                if isinstance(c, bool):
                    self._run(st.then if c else st.otherwise, ev, env, guard, gnames)
                else:
                    self._if_symbolic(st, c, ev, env, guard, gnames)
            elif isinstance(st, C.Show):
                if st.unshow:
                    continue
                if st.expr is not None:
                    v = self.eval(st.expr, env)
                    if isinstance(v, RelV):
                        ev.shown.append(Shown(st.names[0], v))
                else:
                    for n in st.names:
                        shown = env.get(n)
                        if isinstance(shown, RelV):
                            ev.shown.append(Shown(n, shown))
            elif isinstance(st, (C.VariantDecl, C.Include)):
                continue
            else:  # pragma: no cover - the parser produces nothing else
                raise self._err(f"unsupported statement {type(st).__name__}", Pos(), st)

    # -- symbolic variants --------------------------------------------------

    def _if_symbolic(self, st: C.IfVariant, c: z3.BoolRef, ev: Evaluation,
                     env: dict[str, Any], guard: Formula, gnames: tuple[str, ...]) -> None:
        """Both branches, merged: see the module docstring."""
        names = tuple(sorted(set(_cond_names(st.cond)) & set(self.symbolic)))
        inner = tuple(sorted({*gnames, *names}))
        env_t, env_f = dict(env), dict(env)
        self._run(st.then, ev, env_t, f_and(guard, c), inner)
        self._run(st.otherwise, ev, env_f, f_and(guard, z3.Not(c)), inner)
        changed = [k for k in env_t if env_t[k] is not env.get(k)]
        changed += [k for k in env_f if env_f[k] is not env.get(k) and k not in changed]
        for k in changed:
            a, b = env_t.get(k, env.get(k)), env_f.get(k, env.get(k))
            merged, differs = self._merge(k, c, a, b, st)
            if differs:
                ev.used_variants.update(names)
            env[k] = merged

    def _merge(self, name: str, c: z3.BoolRef, a: Value | None, b: Value | None,
               st: C.IfVariant) -> tuple[Value, bool]:
        """``a`` where c holds, ``b`` where it does not; and whether they differ."""
        if a is b and a is not None:
            return a, False
        if isinstance(a, FunV) or isinstance(b, FunV):
            raise self._err(f"'{name}' is a function defined differently under a variant "
                            "condition: not supported with symbolic variants", st.pos, st)
        if a is None:
            a = type(b)()  # type: ignore[misc]
        if b is None:
            b = type(a)()
        assert isinstance(a, (SetV, RelV)) and isinstance(b, (SetV, RelV))
        try:
            a, b = _coerce(a, b)
        except TypeError:
            raise self._err(f"'{name}' is a set under one variant condition and a relation "
                            "under the other", st.pos, st) from None
        if same_value(a, b):
            return a, False
        m: dict[Any, Formula] = {}
        a_m: dict[Any, Formula] = a.m
        b_m: dict[Any, Formula] = b.m
        for k in list(a_m) + [k for k in b_m if k not in a_m]:
            fa, fb = a_m.get(k), b_m.get(k)
            if fb is None:
                m[k] = f_and(c, fa)  # type: ignore[arg-type]
            elif fa is None:
                m[k] = f_and(z3.Not(c), fb)
            elif _same_formula(fa, fb):
                m[k] = fa
            else:
                m[k] = z3.If(c, _z3(fa), _z3(fb))
        return self.backend.name(type(a)(m), name), True  # type: ignore[arg-type]

    def _vcond_formula(self, c: C.VCond) -> bool | z3.BoolRef:
        """The condition: a Python bool when no symbolic variant decides it."""
        if isinstance(c, C.VName):
            if c.name in self.variants:
                return True
            return self.symbolic.get(c.name, False)
        if isinstance(c, C.VNot):
            a = self._vcond_formula(c.arg)
            return (not a) if isinstance(a, bool) else z3.Not(a)
        left = self._vcond_formula(c.left)
        right = self._vcond_formula(c.right)
        if isinstance(c, C.VAnd):
            if left is False or right is False:
                return False
            if left is True:
                return right
            if right is True:
                return left
            return z3.And(left, right)
        if left is True or right is True:
            return True
        if left is False:
            return right
        if right is False:
            return left
        return z3.Or(left, right)

    def _bind(self, b: C.Binding, env: dict[str, Any]) -> Value:
        if b.params is not None:
            return FunV(b.name, b.params, b.expr, dict(env))  # herd: closures capture
        v = self.eval(b.expr, env)
        if isinstance(v, (SetV, RelV)):
            d = self.demands.bindings.get(id(b)) if self.demands is not None else None
            if d is not None:
                v = restrict(v, d)
            return self.backend.name(v, b.name)
        return v

    def _letrec(self, st: C.LetRec, env: dict[str, Any]) -> None:
        names = [b.name for b in st.bindings]
        for b in st.bindings:
            if b.params is not None:
                raise self._err("recursive functions are not supported", b.pos, st)

        def evaluate(values: Sequence[RelV]) -> list[RelV]:
            if self.tick is not None:
                self.tick()
            local = dict(env)
            local.update(zip(names, values, strict=True))
            out: list[RelV] = []
            for b in st.bindings:
                v = self.eval(b.expr, local)
                if isinstance(v, SetV):
                    if v.m:
                        raise self._err("'let rec' defines relations only", b.pos, st)
                    v = RelV()
                if not isinstance(v, RelV):
                    raise self._err("'let rec' defines relations only", b.pos, st)
                out.append(v)
            return out

        for name, v in zip(names, self.backend.letrec(names, evaluate, key=id(st)),
                           strict=True):
            env[name] = v

    # -- expressions ------------------------------------------------------

    def eval(self, e: C.Expr, env: dict[str, Any]) -> Value:
        try:
            return self._eval(e, env)
        except TypeError as err:
            raise self._err(f"type error: {err}", getattr(e, "pos", Pos()), self._current) from None

    def _eval(self, e: C.Expr, env: dict[str, Any]) -> Value:
        if self.tick is not None:
            self.tick()
        if isinstance(e, C.Var):
            if e.name not in env:
                raise self._err(f"unbound name '{e.name}'", e.pos, self._current)
            return env[e.name]
        if isinstance(e, C.Empty):
            return RelV()
        if isinstance(e, C.Binary):
            a = self._eval(e.left, env)
            b = self._eval(e.right, env)
            if isinstance(a, FunV) or isinstance(b, FunV):
                raise self._err(f"'{e.op}' applied to a function", e.pos, self._current)
            if e.op in ("|", "++"):
                return union(a, b, self.tick)
            if e.op == "&":
                return inter(a, b, self.tick)
            if e.op == "\\":
                return diff(a, b, self.tick)
            if e.op == ";":
                ra, rb = _as_rel(a), _as_rel(b)
                if ra is None or rb is None:
                    raise self._err("';' needs two relations (write [S] for a set)", e.pos,
                                    self._current)
                return seq(ra, rb, self.tick)
            if e.op == "*":
                if not isinstance(a, SetV) or not isinstance(b, SetV):
                    if not a.m or not b.m:
                        return RelV()
                    raise self._err("'*' (cartesian product) needs two sets", e.pos,
                                    self._current)
                return cart(a, b, self.tick)
        if isinstance(e, C.Unary):
            if e.op == "+" and id(e) in self.one_sided:
                t = self._after_po(e, env)
                if t is not None:
                    return t
            a = self._eval(e.arg, env)
            if isinstance(a, FunV):
                raise self._err(f"'{e.op}' applied to a function", e.pos, self._current)
            if e.op == "~":
                u = env["_"]
                if isinstance(a, SetV):
                    return diff(u, a, self.tick)
                return diff(cart(u, u, self.tick), a, self.tick)
            r = _as_rel(a)
            if r is None:
                raise self._err(f"'{e.op}' needs a relation", e.pos, self._current)
            if e.op == "^-1":
                return inverse(r)
            if e.op in ("+", "*"):
                d = self.demands.closures.get(id(e)) if self.demands is not None else None
                t = self.backend.closure(r, exact=id(e) not in self.one_sided,
                                         sources=None if d is None else d[0])
                if d is not None:
                    t = restrict(t, d)  # type: ignore[assignment]
                return t if e.op == "+" else union(t, ident(env["_"]), self.tick)
            if e.op == "?":
                return union(r, ident(env["_"]), self.tick)
        if isinstance(e, C.Bracket):
            a = self._eval(e.arg, env)
            if isinstance(a, RelV) and not a.m:
                return RelV()
            if not isinstance(a, SetV):
                raise self._err("[S] needs a set", e.pos, self._current)
            return ident(a)
        if isinstance(e, C.App):
            return self._apply(e, env)
        raise self._err(f"unsupported expression {type(e).__name__}", Pos(), self._current)

    def _after_po(self, e: C.Unary, env: dict[str, Any]) -> RelV | None:
        """``(A; B?)+`` where B is the program's po on every pair the closure can use:
        built over A and po's immediate steps (SymbolicBackend.after_po), else None (the
        closure is built as any other)."""
        arg = e.arg
        po = getattr(self.backend, "po", None)
        if (po is None or not isinstance(arg, C.Binary) or arg.op != ";"
                or not isinstance(arg.right, C.Unary) or arg.right.op != "?"):
            return None
        a, b = _as_rel(self._eval(arg.left, env)), _as_rel(self._eval(arg.right.arg, env))
        if a is None or b is None or not _is_po_after(a, b, po):
            return None
        imm = self.backend.po_imm()  # type: ignore[attr-defined]
        step = union(a, imm, self.tick)
        d = self.demands.closures.get(id(e)) if self.demands is not None else None
        t = self.backend.after_po(a, step, None if d is None else d[0])  # type: ignore[attr-defined]
        return t if d is None else restrict(t, d)  # type: ignore[return-value]

    def _apply(self, e: C.App, env: dict[str, Any]) -> Value:
        f = env.get(e.func)
        if not isinstance(f, FunV):
            raise self._err(f"'{e.func}' is not a function", e.pos, self._current)
        args = [self._eval(a, env) for a in e.args]
        if f.py is not None:
            try:
                return f.py(*args)
            except TypeError as err:
                raise self._err(f"{e.func}: {err}", e.pos, self._current) from None
        if len(args) != len(f.params):
            raise self._err(
                f"'{e.func}' takes {len(f.params)} argument(s), got {len(args)}", e.pos,
                self._current,
            )
        local = dict(f.env or {})
        local.update(zip(f.params, args, strict=True))
        return self._eval(f.body, local)


def _same_entry(f: Formula, g: Formula) -> bool:
    if f is True or g is True:
        return f is g
    return f.as_ast().value == g.as_ast().value  # type: ignore[union-attr]


def _is_po_after(a: RelV, b: RelV, po: RelV) -> bool:
    """b is po on every pair ``a; b?`` can use: each of b's pairs is po's with po's
    formula, and from each event a reaches, b has every pair po has."""
    for k, f in b.m.items():
        g = po.m.get(k)
        if g is None or not _same_entry(f, g):
            return False
    reached = {y for _, y in a.m}
    count: dict[int, int] = {}
    for x, _ in b.m:
        if x in reached:
            count[x] = count.get(x, 0) + 1
    for x, _ in po.m:
        if x in reached:
            count[x] = count.get(x, 0) - 1
    return all(c == 0 for c in count.values())


def _cond_names(c: C.VCond) -> list[str]:
    if isinstance(c, C.VName):
        return [c.name]
    if isinstance(c, C.VNot):
        return _cond_names(c.arg)
    return _cond_names(c.left) + _cond_names(c.right)


def _z3(f: Formula) -> z3.BoolRef:
    return z3.BoolVal(True) if f is True else f  # type: ignore[return-value]


def _same_formula(a: Formula, b: Formula) -> bool:
    if a is True or b is True:
        return a is b
    return bool(a.eq(b))  # type: ignore[union-attr]


def same_value(a: SetV | RelV, b: SetV | RelV) -> bool:
    """The same entries with (syntactically) the same conditions."""
    if type(a) is not type(b) or a.m.keys() != b.m.keys():
        return False
    b_m: dict[Any, Formula] = b.m
    return all(_same_formula(f, b_m[k]) for k, f in a.m.items())


def _as_rel(v: Value) -> RelV | None:
    if isinstance(v, RelV):
        return v
    if isinstance(v, SetV) and not v.m:
        return RelV()
    return None


def builtin_functions(po: RelV, universe: SetV, tick: Tick | None = None
                      ) -> dict[str, FunV]:
    """domain, range, fencerel — the built-in functions of herd's stdlib. ``tick``: the
    time limit's poll, for their loops."""

    def fencerel(s: Value) -> RelV:
        if not isinstance(s, SetV):
            raise TypeError("fencerel needs a set")
        # po ∩ (_ × S), then ; po: the pairs of po ending in S, without building _ × S
        poll = tick or _nothing
        into: dict[Pair, Formula] = {}
        for i, ((a, b), f) in enumerate(po.m.items()):
            if not i % TICK_EVERY:
                poll()
            g, u = s.m.get(b), universe.m.get(a)
            if g is not None and u is not None:
                into[(a, b)] = f_and(f, f_and(u, g))
        return seq(RelV(into), po, tick)

    def dom(r: Value) -> SetV:
        if not isinstance(r, RelV):
            raise TypeError("domain needs a relation")
        return domain(r, tick)

    def rng(r: Value) -> SetV:
        if not isinstance(r, RelV):
            raise TypeError("range needs a relation")
        return range_(r, tick)

    return {
        "domain": FunV("domain", py=dom),
        "range": FunV("range", py=rng),
        "fencerel": FunV("fencerel", py=fencerel),
    }
