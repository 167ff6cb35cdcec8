"""Coherence and reads-from facts that a model's own axioms imply, for one test.

The z3 engine leaves every coherence pair and every rf edge of a candidate open, and
the may/must analysis of the cat values (gdrcheck/cat/values.py) then sees a closure
over coherence (PTX's ``co-ptx+``) as uncertain everywhere: cubic in the number of
writes to one location. Most of those candidates are ruled out by an acyclicity axiom
at once, by a cycle of two edges; this module finds such axioms and the candidates
they rule out, *before* the encoding, so that the engine does not build them:

- **coherence follows po-loc**: for writes w1, w2 of one thread to one location, w1
  before w2 in program order, when an unconditional check ``acyclic E`` of the model
  surely has (w1, w2) in E (a po-loc edge) and surely has (w2, w1) in E whenever
  co(w2, w1) holds, every consistent execution orders co(w1, w2). (x86-TSO's uniproc
  ``po-loc | rf | co | fr``, SC's ``po | rf | co | fr``, PTX's SC-per-Location
  ``(morally-strong & (rf | co-ptx | fr-ptx)) | po-loc``: two writes related by program
  order are morally strong, ASPLOS'19 §3.1.)
- **reads-from candidates**: a read cannot read a write of its own thread that comes
  later in program order (rf against po-loc), nor a write that is coherence-before the
  nearest same-location write before it in its thread (fr against po-loc): both close a
  cycle of two edges of such an E.

"Surely" is decided from the model's text, not assumed: a proof procedure over the cat
expression of the check (:class:`Prover`) answers "is the pair in E in every candidate
where its events execute (and the hypothesis holds)" by the structure of E, answering
"not known" for anything it does not understand (a ``let rec``, a fixpoint, a function
of the candidate relations it cannot see through). A model with no such axiom gets no
facts, and its candidates are encoded as before. Only checks that apply
unconditionally are used: not flags, not negated, and in the branches of ``if variant``
chosen for the run.

Pruning these candidates does not change which executions are consistent, so
verdicts, flags and final states are unchanged. An unsat core may then miss the axiom
that did the pruning: :attr:`Facts.axioms` names it, and the engine adds it to the
axioms it reports (the explicit engine reports every check that a candidate of the
outcome fails, so it names them too).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gdrcheck.cat import ast as C
from gdrcheck.cat.values import FunV, Pair, RelV, SetV
from gdrcheck.lower.program import Program


@dataclass(frozen=True)
class Facts:
    """What every consistent execution of a test satisfies, by the model's axioms."""

    co: frozenset[Pair] = frozenset()
    """(w1, w2): co(w1, w2) in every consistent execution where both execute
    (transitively closed)."""
    no_rf: frozenset[Pair] = frozenset()
    """(w, r): rf(w, r) in no consistent execution."""
    chain: frozenset[Pair] = frozenset()
    """The pairs of :attr:`co` between consecutive writes (their closure is ``co``)."""
    axioms: tuple[str, ...] = ()
    """The checks these follow from."""


NO_FACTS = Facts()


# --------------------------------------------------------------------------
# The model's unconditional acyclicity checks, with their definitions
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Thunk:
    expr: C.Expr
    env: Mapping[str, Any]


@dataclass(frozen=True)
class _Fun:
    params: tuple[str, ...]
    body: C.Expr
    env: Mapping[str, Any]


class _Opaque:
    """A name the prover does not look into: a ``let rec`` binding (one object per
    binding, so that a hypothesis can name it: :attr:`Hyp.rel`)."""

    def __init__(self, name: str) -> None:
        self.name = name


@dataclass(frozen=True)
class Axiom:
    name: str
    expr: C.Expr
    env: Mapping[str, Any]
    kind: str = "acyclic"


@dataclass(frozen=True)
class RecBinding:
    """One binding of a ``let rec`` as the interpreter evaluates it: ``stmt`` (the
    statement object: the engine's key for it), the binding, and the environment its
    body sees (every binding of the statement bound to its :class:`_Opaque`)."""

    stmt: C.LetRec
    binding: C.Binding
    env: Mapping[str, Any]
    opaque: _Opaque


def _vcond(c: C.VCond, variants: frozenset[str]) -> bool:
    if isinstance(c, C.VName):
        return c.name in variants
    if isinstance(c, C.VNot):
        return not _vcond(c.arg, variants)
    if isinstance(c, C.VAnd):
        return _vcond(c.left, variants) and _vcond(c.right, variants)
    return _vcond(c.left, variants) or _vcond(c.right, variants)


def acyclic_axioms(stmts: Sequence[C.Stmt], variants: frozenset[str]) -> list[Axiom]:
    """The checks ``acyclic E as name`` that apply to every execution under ``variants``,
    each with the definitions it sees (as the interpreter binds them)."""
    return [a for a in model_checks(stmts, variants)[0] if a.kind == "acyclic"]


def model_checks(stmts: Sequence[C.Stmt], variants: frozenset[str]
                 ) -> tuple[list[Axiom], list[RecBinding]]:
    """The checks ``acyclic E`` and ``empty E`` that apply to every execution under
    ``variants`` (not flags, not negated, in the chosen branches), each with the
    definitions it sees, and the ``let rec`` bindings met on the way."""
    out: list[Axiom] = []
    recs: list[RecBinding] = []

    def run(body: Sequence[C.Stmt], env: dict[str, Any]) -> dict[str, Any]:
        for st in body:
            if isinstance(st, C.Let):
                new = dict(env)
                for b in st.bindings:  # simultaneous: each sees the names before
                    new[b.name] = (_Fun(b.params, b.expr, env) if b.params is not None
                                   else _Thunk(b.expr, env))
                env = new
            elif isinstance(st, C.LetRec):
                env = dict(env)
                opaque = [_Opaque(b.name) for b in st.bindings]
                for b, o in zip(st.bindings, opaque, strict=True):
                    env[b.name] = o
                recs.extend(RecBinding(st, b, env, o)
                            for b, o in zip(st.bindings, opaque, strict=True))
            elif isinstance(st, C.Check):
                if st.kind in ("acyclic", "empty") and not st.negated and not st.flag:
                    name = st.name or f"{st.kind}@{st.pos.line}"
                    out.append(Axiom(name, st.expr, env, st.kind))
            elif isinstance(st, C.IfVariant):
                env = run(st.then if _vcond(st.cond, variants) else st.otherwise, env)
        return env

    run(stmts, {})
    return out, recs


# --------------------------------------------------------------------------
# The prover
# --------------------------------------------------------------------------


@dataclass
class Hyp:
    """What a query assumes of the candidate: coherence pairs, rf edges (read ->
    write), on top of the coherence facts already established."""

    co: frozenset[Pair] = frozenset()
    rf: Mapping[int, int] = field(default_factory=dict)
    known_co: frozenset[Pair] = frozenset()
    rel: Mapping[_Opaque, frozenset[Pair]] = field(default_factory=dict)
    """Pairs assumed in a ``let rec`` binding (an induction hypothesis)."""

    def events(self) -> set[int]:
        out = {x for p in self.co for x in p}
        for r, w in self.rf.items():
            out.update((r, w))
        for pairs in self.rel.values():
            out.update(x for p in pairs for x in p)
        return out


_CANDIDATE_EXT = {"rfe": ("rf", "ext"), "rfi": ("rf", "int"), "coe": ("co", "ext"),
                  "coi": ("co", "int"), "fre": ("fr", "ext"), "fri": ("fr", "int")}


class GiveUp(Exception):
    """The prover's work budget is spent: no facts (pruning is optional, so this is
    sound; only the verdict's speed depends on it)."""


class Work:
    """The prover's work: ``tick`` (the check's deadline) every 256 steps, and at most
    ``max_steps`` steps (default :data:`MAX_STEPS`) per program: past it, :class:`GiveUp`
    (big programs are encoded unpruned)."""

    def __init__(self, tick: Callable[[], None] | None = None,
                 max_steps: int | None = None) -> None:
        self.tick = tick
        self.steps = 0
        self.max_steps = MAX_STEPS if max_steps is None else max_steps

    def step(self) -> None:
        self.steps += 1
        if self.steps % 256 == 0:
            if self.tick is not None:
                self.tick()
            if self.steps > self.max_steps:
                raise GiveUp


MAX_STEPS = 200_000
"""Prover evaluations per program before the pruning is given up (about 0.5 s)."""


class Prover:
    """``must``: the pair (or event) belongs to the expression in every candidate
    execution where its events execute and the hypothesis holds; ``never``: it belongs
    in none. Both answer False when they cannot tell (sound, not complete)."""

    def __init__(self, prog: Program, static: Mapping[str, Any], hyp: Hyp,
                 work: Work | None = None) -> None:
        self.prog = prog
        self.static = static
        self.hyp = hyp
        self.work = work if work is not None else Work()
        self.witnesses = hyp.events()
        self.memo: dict[tuple[Any, ...], bool] = {}
        self._keep: list[Any] = []  # the environments the memo's keys name, kept alive

    # -- candidate relations ------------------------------------------------

    def _writes_same_loc(self, a: int, b: int) -> bool:
        ea, eb = self.prog.events[a], self.prog.events[b]
        return ea.kind == "W" and eb.kind == "W" and ea.loc is not None and ea.loc == eb.loc

    def _co_must(self, a: int, b: int) -> bool:
        if (a, b) in self.hyp.co or (a, b) in self.hyp.known_co:
            return True
        ev = self.prog.events
        return (a != b and self._writes_same_loc(a, b) and ev[a].is_init
                and not ev[b].is_init)

    def _co_never(self, a: int, b: int) -> bool:
        if a == b or not self._writes_same_loc(a, b) or self.prog.events[b].is_init:
            return True
        return (b, a) in self.hyp.co or (b, a) in self.hyp.known_co

    def _rf_must(self, w: int, r: int) -> bool:
        return self.hyp.rf.get(r) == w

    def _rf_never(self, w: int, r: int) -> bool:
        ew, er = self.prog.events[w], self.prog.events[r]
        if ew.kind != "W" or er.kind != "R" or ew.loc is None or ew.loc != er.loc:
            return True
        if (r, w) in self.prog.rmw:  # an rmw does not read its own write
            return True
        return r in self.hyp.rf and self.hyp.rf[r] != w

    def _fr_must(self, r: int, w: int) -> bool:
        src = self.hyp.rf.get(r)
        return src is not None and self._co_must(src, w)

    def _fr_never(self, r: int, w: int) -> bool:
        er, ew = self.prog.events[r], self.prog.events[w]
        return er.kind != "R" or ew.kind != "W" or er.loc is None or er.loc != ew.loc

    def _candidate(self, name: str, a: int, b: int, must: bool) -> bool:
        if name in _CANDIDATE_EXT:
            base, part = _CANDIDATE_EXT[name]
            if must:
                return self._candidate(base, a, b, True) and self._static(part, (a, b), True)
            return self._candidate(base, a, b, False) or self._static(part, (a, b), False)
        if name == "co":
            return self._co_must(a, b) if must else self._co_never(a, b)
        if name == "rf":
            return self._rf_must(a, b) if must else self._rf_never(a, b)
        if name == "fr":
            return self._fr_must(a, b) if must else self._fr_never(a, b)
        return False  # fso, syncbar: not known

    def _static(self, name: str, key: Any, must: bool) -> bool:
        v = self.static.get(name)
        if isinstance(v, RelV):
            if not isinstance(key, tuple):
                return False
            return (key in v.m) if must else (key not in v.m)
        if isinstance(v, SetV):
            if isinstance(key, tuple):
                return False
            return (key in v.m) if must else (key not in v.m)
        return False

    # -- expressions ----------------------------------------------------------

    def must(self, e: C.Expr, env: Mapping[str, Any], key: Any) -> bool:
        return self._q(e, env, key, True)

    def never(self, e: C.Expr, env: Mapping[str, Any], key: Any) -> bool:
        return self._q(e, env, key, False)

    def _q(self, e: C.Expr, env: Mapping[str, Any], key: Any, must: bool) -> bool:
        mk = (id(e), id(env), key, must)
        got = self.memo.get(mk)
        if got is None:
            self.work.step()
            self.memo[mk] = False  # a query that needs itself is not known
            got = self._eval(e, env, key, must)
            self.memo[mk] = got
        return got

    def _eval(self, e: C.Expr, env: Mapping[str, Any], key: Any, must: bool) -> bool:
        q = self._q
        pair = isinstance(key, tuple)
        if isinstance(e, C.Var):
            bound = env.get(e.name)
            if isinstance(bound, _Thunk):
                return q(bound.expr, bound.env, key, must)
            if isinstance(bound, _Opaque):  # a let rec binding: only what is assumed
                return must and key in self.hyp.rel.get(bound, frozenset())
            if bound is not None:
                return False  # a function
            if e.name in ("rf", "co", "fr", "fso", "syncbar", *_CANDIDATE_EXT):
                return pair and self._candidate(e.name, key[0], key[1], must)
            if e.name == "FW":
                return False
            return self._static(e.name, key, must)
        if isinstance(e, C.Empty):
            return not must
        if isinstance(e, C.Binary):
            op = e.op
            if op in ("|", "++"):
                if must:
                    return q(e.left, env, key, True) or q(e.right, env, key, True)
                return q(e.left, env, key, False) and q(e.right, env, key, False)
            if op == "&":
                if must:
                    return q(e.left, env, key, True) and q(e.right, env, key, True)
                return q(e.left, env, key, False) or q(e.right, env, key, False)
            if op == "\\":
                if must:
                    return q(e.left, env, key, True) and q(e.right, env, key, False)
                return q(e.left, env, key, False) or q(e.right, env, key, True)
            if not pair:
                return False
            a, b = key
            if op == "*":
                if must:
                    return q(e.left, env, a, True) and q(e.right, env, b, True)
                return q(e.left, env, a, False) or q(e.right, env, b, False)
            if op == ";":
                if not must:  # no event between them: for each, one side never holds
                    return all(q(e.left, env, (a, c), False) or q(e.right, env, (c, b), False)
                               for c in range(len(self.prog.events)))
                return any(q(e.left, env, (a, c), True) and q(e.right, env, (c, b), True)
                           for c in self._through(a, b))
            return False
        if isinstance(e, C.Unary):
            if e.op == "~":
                return q(e.arg, env, key, not must)
            if not pair:
                return False
            a, b = key
            if e.op == "^-1":
                return q(e.arg, env, (b, a), must)
            if e.op == "?":
                if must:
                    return a == b or q(e.arg, env, key, True)
                return a != b and q(e.arg, env, key, False)
            if not must:
                return False
            if e.op == "*" and a == b:
                return True
            # r+ holds where r holds, or in two steps through a witness
            if q(e.arg, env, key, True):
                return True
            return any(q(e.arg, env, (a, c), True) and q(e.arg, env, (c, b), True)
                       for c in self._through(a, b) if c not in (a, b))
        if isinstance(e, C.Bracket):
            if not pair:
                return False
            a, b = key
            if must:
                return a == b and q(e.arg, env, a, True)
            return a != b or q(e.arg, env, a, False)
        if isinstance(e, C.App):
            return self._app(e, env, key, must)
        return False

    def _through(self, a: int, b: int) -> Iterable[int]:
        """The events a composition may pass through: those that surely execute when a
        and b do (a, b and the events the hypothesis names)."""
        seen = [a, b]
        seen += [c for c in sorted(self.witnesses) if c not in (a, b)]
        return seen

    def _app(self, e: C.App, env: Mapping[str, Any], key: Any, must: bool) -> bool:
        f = env.get(e.func)
        if isinstance(f, _Fun):
            if len(f.params) != len(e.args):
                return False
            local = dict(f.env)
            local.update((p, _Thunk(arg, env)) for p, arg in zip(f.params, e.args, strict=True))
            self._keep.append(local)
            return self._q(f.body, local, key, must)
        if f is not None:
            return False
        builtin = self.static.get(e.func)
        if not isinstance(builtin, FunV) or e.func != "fencerel" or len(e.args) != 1:
            return False
        if not must or not isinstance(key, tuple):
            return False
        # fencerel(S) = po; [S]; po: a fence of S between a and b on b's path (it
        # executes when b does)
        a, b = key
        po = self.static.get("po")
        if not isinstance(po, RelV):
            return False
        return any((a, f_) in po.m and self._q(e.args[0], env, f_, True)
                   for f_ in self.prog.ancestors(b))


# --------------------------------------------------------------------------
# The facts
# --------------------------------------------------------------------------


def _two_cycle(prog: Program, static: Mapping[str, Any], axioms: Sequence[Axiom],
               forward: Pair, back: Pair, hyp: Hyp, work: Work | None = None) -> str | None:
    """The first axiom whose E surely has ``forward`` (unconditionally) and ``back``
    (under ``hyp``): the candidates of ``hyp`` fail it."""
    plain = Prover(prog, static, Hyp(known_co=hyp.known_co), work)
    assumed = Prover(prog, static, hyp, work)
    for ax in axioms:
        if plain.must(ax.expr, ax.env, forward) and assumed.must(ax.expr, ax.env, back):
            return ax.name
    return None


def _closure(pairs: set[Pair]) -> set[Pair]:
    succ: dict[int, set[int]] = {}
    for a, b in pairs:
        succ.setdefault(a, set()).add(b)
    out: set[Pair] = set()
    for start in succ:
        stack, seen = list(succ[start]), set()
        while stack:
            x = stack.pop()
            if x not in seen:
                seen.add(x)
                stack.extend(succ.get(x, ()))
        out.update((start, x) for x in seen)
    return out


def implied_facts(prog: Program, stmts: Sequence[C.Stmt], variants: frozenset[str],
                  static: Mapping[str, Any], tick: Callable[[], None] | None = None
                  ) -> Facts:
    """The coherence and rf facts of ``prog`` that the model ``stmts`` implies
    (``static``: the static built-in names, :func:`gdrcheck.engine.base.static_env`).
    ``tick``: the check's deadline (its Expired goes through); past :data:`MAX_STEPS`
    prover steps, no facts."""
    try:
        return _implied_facts(prog, stmts, variants, static, Work(tick))
    except GiveUp:
        return NO_FACTS


def _implied_facts(prog: Program, stmts: Sequence[C.Stmt], variants: frozenset[str],
                   static: Mapping[str, Any], work: Work) -> Facts:
    ev = prog.events
    # the nearest same-location write before each event on its path
    prev_write: dict[int, int] = {}
    for e in ev:
        if e.is_init or e.loc is None or e.kind not in ("R", "W"):
            continue
        for a in prog.ancestors(e.eid):
            if ev[a].kind == "W" and ev[a].loc == e.loc:
                prev_write[e.eid] = a
                break
    later_write = {e.eid for e in ev if e.kind == "W" and e.parent is not None
                   and any(ev[a].kind == "R" and ev[a].loc == e.loc
                           for a in prog.ancestors(e.eid))}
    if not prev_write and not later_write:
        return NO_FACTS
    axioms = acyclic_axioms(stmts, variants)
    if not axioms:
        return NO_FACTS
    used: list[str] = []

    # 1. coherence along po-loc, pair by consecutive pair, then transitively
    forced: set[Pair] = set()
    for w2, w1 in prev_write.items():
        if ev[w2].kind != "W":
            continue
        found = _two_cycle(prog, static, axioms, (w1, w2), (w2, w1),
                           Hyp(co=frozenset({(w2, w1)})), work)
        if found is not None:
            forced.add((w1, w2))
            if found not in used:
                used.append(found)
    known = frozenset(_closure(forced))

    # 2. rf edges that close a two-edge cycle with po-loc
    writes_at: dict[str, list[int]] = {}
    for e in ev:
        if e.kind == "W" and e.loc is not None:
            writes_at.setdefault(e.loc, []).append(e.eid)
    rmw_partner = dict(prog.rmw)
    no_rf: set[Pair] = set()
    for r in ev:
        if r.kind != "R" or r.loc is None:
            continue
        cands = [w for w in writes_at.get(r.loc, []) if w != rmw_partner.get(r.eid)]
        near = prev_write.get(r.eid)
        if near is not None and ev[near].kind != "W":
            near = None
        pruned: list[tuple[int, str]] = []
        for w in cands:
            name: str | None = None
            hyp = Hyp(rf={r.eid: w}, known_co=known)
            if ev[w].thread == r.thread and not ev[w].is_init and r.eid in set(
                    prog.ancestors(w)):
                # a write after the read in its own thread: rf against po-loc
                name = _two_cycle(prog, static, axioms, (r.eid, w), (w, r.eid), hyp, work)
            elif near is not None and w != near and (ev[w].is_init or (w, near) in known):
                # overwritten, in coherence, by the write just before the read: fr
                # against po-loc
                name = _two_cycle(prog, static, axioms, (near, r.eid), (r.eid, near), hyp,
                                  work)
            if name is not None:
                pruned.append((w, name))
        if pruned and len(pruned) < len(cands):  # keep at least one source
            for w, name in pruned:
                no_rf.add((w, r.eid))
                if name not in used:
                    used.append(name)
    if not known and not no_rf:
        return NO_FACTS
    return Facts(known, frozenset(no_rf), frozenset(forced), tuple(used))
