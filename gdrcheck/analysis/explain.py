"""``gdrcheck explain``: why a model forbids an outcome, as cycles of named edges.

For an outcome no consistent execution reaches (a Forbidden verdict, or the violation
of a Required one), the z3 engine's unsat core names the checks that rule it out
(``Rejected-by``). For each of them, explain

1. asks z3 for a *candidate execution* that reaches the outcome and satisfies every
   other check of the model (the query with that one check's tracking literal left
   out); when the core's checks only rule the outcome out together, one candidate
   with all of them left out serves for each;
2. runs the model on that execution concretely (the cat interpreter with the
   concrete back end, in recording mode: :mod:`gdrcheck.engine.replay`) and takes
   the check's relation apart: a shortest cycle for ``acyclic``, a shortest
   reflexive pair for ``irreflexive``, a shortest pair for ``empty`` (closed into a
   cycle by the base relation, co or po, that contradicts it, when there is one);
3. expands every derived edge along the model's definitions down to *named* steps.
   A ``let``-bound relation is a step (it is not expanded) when the comment above it
   cites a rule id (``R-GIN-3``, ``R-PCIE-1``, ...: the comments of its paragraph) and
   it is not a plain union of names (``gin-hb`` is expanded whatever its comment),
   when it is recursive, when its definition filters or inverts (``&``, ``\\``,
   ``^-1``, ``*`` on sets, ``~``, a function), or when it renames or restricts a
   single relation (``[M]; po; [X]``); unions, sequences and closures of several
   relations are expanded (``cause``, ``cause-base``, ``gin-hb``, ``ghb``). Built-ins
   (po, rf, co, fr, ...) are steps. Among several derivations the shortest wins
   (ties: the first alternative of a union, the smallest event id).

A model's refinement of a base relation named after it (``fr-ptx``, ``co-ptx``)
is printed under the base name, with its own name in parentheses. For an outcome
that is reached, explain gives the witness execution and why the outcome can happen
(:mod:`gdrcheck.analysis.unordered`: the pairs its cycle needs ordered, which of them
the model leaves unordered, and the strengthenings that would order them).
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import z3

from gdrcheck.analysis.check import check_test, prepare
from gdrcheck.analysis.models import ModelSpec
from gdrcheck.analysis.options import DEFAULT_OPTIONS, CheckOptions
from gdrcheck.cat import ast as C
from gdrcheck.cat.interp import BindingTrace, CheckResult, Evaluation, Interpreter
from gdrcheck.cat.loader import LoadedModel, _top_comments
from gdrcheck.cat.values import Pair, RelV, SetV, Value
from gdrcheck.engine.backends import concrete_check
from gdrcheck.engine.deadline import Deadline, Expired
from gdrcheck.engine.replay import evaluate, frame_of_witness, witness_of_model
from gdrcheck.engine.result import Result, Verdict, Witness
from gdrcheck.engine.smt import Query, build_query, query_solver
from gdrcheck.litmus import ast as A
from gdrcheck.lower import lower
from gdrcheck.lower.program import Program

if TYPE_CHECKING:
    from gdrcheck.analysis.liveness import HangExplanation
    from gdrcheck.analysis.unordered import WhyAllowed

RULE_ID = re.compile(r"\bR-[A-Z]+-[0-9]+\b")

BASE_NAMES = ("po", "rf", "co", "fr")
"""Base relations a model's refinement may be printed as (fr-ptx as fr)."""

FILTERS = frozenset({
    "loc", "vloc", "ext", "int", "id", "sr", "scta", "sgpu", "own", "op", "qp", "sctx",
    "speer", "morally-strong",
})
"""Relations that, in an intersection, only restrict the other side."""

SAME_ADDRESS = "vloc"
"""The one filter a derivation looks through (``r & vloc`` is taken apart as r)."""


# --------------------------------------------------------------------------
# What explain answers
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Edge:
    """One step of a cycle: ``src -relation-> dst``."""

    src: int
    dst: int
    relation: str
    rules: tuple[str, ...] = ()
    via: str | None = None
    """The model's own name when the step is printed under a base name (fr-ptx)."""
    detail: tuple[Edge, ...] = ()
    """The step's own definition, one level down, when that takes two steps or more
    (gdr-seen: arrive then nic-sync)."""

    def label(self) -> str:
        via = f" ({self.via})" if self.via else ""
        rules = f" ({', '.join(self.rules)})" if self.rules else ""
        return f"{self.relation}{via}{rules}"


@dataclass
class AxiomCycle:
    """Why one check of the core rejects the outcome, on one candidate execution."""

    axiom: str
    kind: str  # acyclic | irreflexive | empty
    check: str  # the check as written: "irreflexive (rf | fr-ptx); cause"
    edges: list[Edge]
    closed: bool  # the edges form a cycle (else a path whose ends the check relates)
    execution: Witness | None
    note: str | None = None  # when no cycle could be shown
    side: list[Edge] = field(default_factory=list)
    """For an ``empty`` check of an intersection: the same pair in the other operand."""
    in_core: bool = True
    """False for a check outside the unsat core that also rules the outcome out (it
    had to be left out too to find a candidate execution)."""

    @property
    def events(self) -> list[int]:
        return [e.src for e in self.edges]


@dataclass
class Explanation:
    test: str
    file: str | None
    model: str
    condition: A.Condition
    quantifier: str
    verdict: Verdict
    outcome: str | None
    """The proposition explained: ``P`` or ``~P`` (None: the outcome is reached)."""
    axioms: list[str]
    flags: list[str]
    cycles: list[AxiomCycle] = field(default_factory=list)
    witness: Witness | None = None
    """The witness of a reached outcome."""
    reason: str | None = None
    result: Result | None = None
    why: WhyAllowed | None = None
    """For a reached outcome: the orders it needs that the model does not give."""
    hang: HangExplanation | None = None
    """The liveness question's answer and, for a Hang, the stuck execution in words
    (``--liveness``, or a ``Liveness=`` entry for the model: docs/liveness.md)."""


# --------------------------------------------------------------------------
# Rule ids from the comments of the model's files
# --------------------------------------------------------------------------


def _offset(text: str, line: int, col: int) -> int:
    off = 0
    for _ in range(line - 1):
        nxt = text.find("\n", off)
        if nxt < 0:
            return len(text)
        off = nxt + 1
    return off + max(col - 1, 0)


def _paragraph_comments(text: str, offset: int,
                        spans: list[tuple[int, int, str]]) -> list[str]:
    """The comments in the paragraph that ends at ``offset`` (back to the previous
    blank line outside a comment)."""
    start = 0
    for m in re.finditer(r"\n[ \t]*(?=\n)", text[:offset]):
        p = m.start()
        if not any(a <= p < b for a, b, _ in spans):
            start = p
    return [body for a, b, body in spans if b > start and a < offset]


def rule_ids(model: LoadedModel) -> dict[int, tuple[str, ...]]:
    """``id(stmt)`` of every ``let`` / ``let rec`` -> the rule ids its comments cite."""
    spans_of: dict[str, list[tuple[int, int, str]]] = {}
    out: dict[int, tuple[str, ...]] = {}

    def walk(stmts: Sequence[C.Stmt]) -> None:
        for st in stmts:
            if isinstance(st, C.IfVariant):
                walk(st.then)
                walk(st.otherwise)
            elif isinstance(st, (C.Let, C.LetRec)):
                src = model.source_of(st)
                key = str(src.path)
                if key not in spans_of:
                    spans_of[key] = [(o, o + len(body) + 4, body)
                                     for o, body in _top_comments(src.text)]
                off = _offset(src.text, st.pos.line, st.pos.col)
                ids: list[str] = []
                for body in _paragraph_comments(src.text, off, spans_of[key]):
                    ids.extend(i for i in RULE_ID.findall(body) if i not in ids)
                out[id(st)] = tuple(ids)

    walk(model.stmts)
    return out


# --------------------------------------------------------------------------
# cat expressions as text
# --------------------------------------------------------------------------

_PREC = {"|": 1, "++": 2, ";": 3, "\\": 4, "&": 5, "*": 6}


def cat_text(e: C.Expr, outer: int = 0) -> str:
    """The expression in cat syntax, with the parentheses precedence needs."""
    if isinstance(e, C.Var):
        return e.name
    if isinstance(e, C.Empty):
        return "0"
    if isinstance(e, C.Bracket):
        return f"[{cat_text(e.arg)}]"
    if isinstance(e, C.App):
        return f"{e.func}({', '.join(cat_text(a) for a in e.args)})"
    if isinstance(e, C.Unary):
        if e.op == "~":
            s = "~" + cat_text(e.arg, 7)
            return s if outer <= 7 else f"({s})"
        return cat_text(e.arg, 8) + e.op
    p = _PREC[e.op]
    if e.op in ("\\", "&") and any(isinstance(x, C.Binary) and x.op in ("\\", "&")
                                    and x.op != e.op for x in (e.left, e.right)):
        p = 9  # herd's manual and parser disagree on these two: parenthesise
    if e.op == "\\":  # left-associative
        left, right = cat_text(e.left, p), cat_text(e.right, p + 1)
    elif e.op == "*":  # non-associative
        left, right = cat_text(e.left, p + 1), cat_text(e.right, p + 1)
    else:  # right-associative
        left, right = cat_text(e.left, p + 1), cat_text(e.right, p)
    s = f"{left}; {right}" if e.op == ";" else f"{left} {e.op} {right}"
    return s if outer <= _PREC[e.op] else f"({s})"


def check_text(kind: str, negated: bool, e: C.Expr | None) -> str:
    return f"{'~' if negated else ''}{kind} {cat_text(e) if e is not None else '?'}"


# --------------------------------------------------------------------------
# Taking a relation apart
# --------------------------------------------------------------------------

Path = tuple[Edge, ...]


def _is_same_address(e: C.Expr) -> bool:
    return isinstance(e, C.Var) and e.name == SAME_ADDRESS


def _structural(e: C.Expr) -> bool:
    """Unions, sequences, closures of names (brackets of any set allowed), and their
    restriction to one virtual address (``r & vloc``: ptx75's ppcb-generic)."""
    if isinstance(e, (C.Var, C.Empty, C.Bracket)):
        return True
    if isinstance(e, C.Binary):
        if e.op == "&":
            return ((_is_same_address(e.right) and _structural(e.left))
                    or (_is_same_address(e.left) and _structural(e.right)))
        return e.op in ("|", "++", ";") and _structural(e.left) and _structural(e.right)
    if isinstance(e, C.Unary):
        return e.op in ("+", "*", "?") and _structural(e.arg)
    return False


def _rel_names(e: C.Expr) -> list[str]:
    if isinstance(e, C.Var):
        return [e.name]
    if isinstance(e, C.Binary):
        return _rel_names(e.left) + _rel_names(e.right)
    if isinstance(e, C.Unary):
        return _rel_names(e.arg)
    return []


def _name_union(e: C.Expr) -> bool:
    """``a | b | c``: a union of names (gin-hb), expanded even when it cites rules."""
    if not (isinstance(e, C.Binary) and e.op in ("|", "++")):
        return False

    def names(x: C.Expr) -> bool:
        if isinstance(x, C.Binary) and x.op in ("|", "++"):
            return names(x.left) and names(x.right)
        return isinstance(x, (C.Var, C.Empty))

    return names(e)


def _has_closure(e: C.Expr) -> bool:
    if isinstance(e, C.Unary):
        return e.op in ("+", "*") or _has_closure(e.arg)
    if isinstance(e, C.Binary):
        return _has_closure(e.left) or _has_closure(e.right)
    return False


class Deriver:
    """Derivations of pairs of one concrete evaluation, in named steps."""

    def __init__(self, ev: Evaluation, interp: Interpreter,
                 rules: dict[int, tuple[str, ...]]) -> None:
        self.interp = interp
        self.base = interp.base
        self.rules_of_stmt = rules
        self.origin: dict[tuple[str, int], BindingTrace] = {}
        for t in ev.bindings:
            self.origin.setdefault((t.name, id(t.value)), t)
        self._val: dict[tuple[int, int], Value] = {}
        self._memo: dict[tuple[int, int, int, int], Path] = {}
        self._active: set[int] = set()
        self._unfolding: list[str] = []  # the names whose definitions are being derived
        self._step_trace: dict[tuple[int, int, str], BindingTrace] = {}

    # -- values -----------------------------------------------------------

    def value(self, e: C.Expr, env: dict[str, Any]) -> Value:
        key = (id(e), id(env))
        v = self._val.get(key)
        if v is None:
            v = self.interp.eval(e, env)
            self._val[key] = v
        return v

    def _rel(self, e: C.Expr, env: dict[str, Any]) -> RelV:
        v = self.value(e, env)
        if isinstance(v, RelV):
            return v
        return RelV()

    # -- names ------------------------------------------------------------

    def trace(self, name: str, env: dict[str, Any]) -> BindingTrace | None:
        v = env.get(name)
        if v is None:
            return None
        return self.origin.get((name, id(v)))

    def rules(self, t: BindingTrace) -> tuple[str, ...]:
        own = self.rules_of_stmt.get(id(t.stmt), ())
        if own:
            return own
        e = t.binding.expr
        if isinstance(e, C.Var) and e.name != t.name:  # an alias: the rules of its target
            tt = self.trace(e.name, t.env)
            if tt is not None and tt is not t:
                return self.rules(tt)
        return ()

    def is_step(self, t: BindingTrace) -> bool:
        if isinstance(t.stmt, C.LetRec) or t.binding.params is not None:
            return True
        e = t.binding.expr
        if self.rules(t) and not _name_union(e):
            return True
        if not _structural(e):
            return True
        return not (_has_closure(e) or len(set(_rel_names(e)) - {SAME_ADDRESS}) >= 2)

    def atom(self, name: str, t: BindingTrace | None, a: int, b: int) -> Edge:
        if t is None:
            return Edge(a, b, name)
        self._step_trace[(a, b, name)] = t
        rules = self.rules(t)
        builtin = self.base.get(name)
        if isinstance(builtin, RelV) and (a, b) in builtin.m:
            rules = ()  # a model's redefinition of a built-in, on one of its pairs
        if not rules:
            for base in BASE_NAMES:
                if name.startswith(base + "-"):
                    bv = self.base.get(base)
                    sv = t.value
                    if (isinstance(bv, RelV) and isinstance(sv, RelV)
                            and all(k in bv.m for k in sv.m)):
                        return Edge(a, b, base, (), name)
        return Edge(a, b, name, rules)

    # -- derivations ------------------------------------------------------

    def derive(self, e: C.Expr, env: dict[str, Any], a: int, b: int) -> Path:
        """A shortest derivation of ``(a, b)`` in ``e`` (which must contain it)."""
        key = (id(e), id(env), a, b)
        got = self._memo.get(key)
        if got is None:
            got = self._derive(e, env, a, b)
            if got is None:
                got = (Edge(a, b, cat_text(e)),)
            self._memo[key] = got
        return got

    def _has(self, e: C.Expr, env: dict[str, Any], a: int, b: int) -> bool:
        return (a, b) in self._rel(e, env).m

    def _derive(self, e: C.Expr, env: dict[str, Any], a: int, b: int) -> Path | None:
        if not self._has(e, env, a, b):
            return None
        if isinstance(e, C.Var):
            t = self.trace(e.name, env)
            if t is None or self.is_step(t) or id(t) in self._active:
                return (self.atom(e.name, t, a, b),)
            self._active.add(id(t))
            self._unfolding.append(e.name)
            try:
                return self.derive(t.binding.expr, t.env, a, b)
            finally:
                self._active.discard(id(t))
                self._unfolding.pop()
        if isinstance(e, C.Bracket):
            return () if a == b else None
        if isinstance(e, C.Binary):
            if e.op in ("|", "++"):
                opts = [self.derive(x, env, a, b) for x in (e.left, e.right)
                        if self._has(x, env, a, b)]
                # an earlier binding of the name being derived, taken whole (ptx75-cause.cat's
                # last ppcb gives back the first's pairs between generic operations), is
                # the answer only when no other alternative derives the pair
                told = [p for p in opts
                        if not (len(p) == 1 and p[0].relation in self._unfolding)]
                return min(told or opts, key=len) if opts else None
            if e.op == ";":
                left, right = self._rel(e.left, env), self._rel(e.right, env)
                best: Path | None = None
                mids = sorted({y for (x, y) in left.m if x == a and (y, b) in right.m})
                for c in mids:
                    p = self.derive(e.left, env, a, c) + self.derive(e.right, env, c, b)
                    if len(p) > 1:  # a step that relates an event to itself adds nothing
                        p = tuple(x for x in p if x.src != x.dst) or p[:1]
                    if best is None or len(p) < len(best):
                        best = p
                return best
            if e.op == "&":
                dl = self.derive(e.left, env, a, b)
                dr = self.derive(e.right, env, a, b)
                if _is_filter(dl):
                    return dr
                if _is_filter(dr):
                    return dl
                return dl if len(dl) >= len(dr) else dr
            if e.op == "\\":
                return self.derive(e.left, env, a, b)
            return None
        if isinstance(e, C.Unary):
            if e.op in ("?", "*") and a == b:
                return ()
            if e.op == "?":
                return self.derive(e.arg, env, a, b)
            if e.op in ("+", "*"):
                return self.closure_path(e.arg, env, a, b)
            if e.op == "^-1":
                inner = self.derive(e.arg, env, b, a)
                if len(inner) == 1:
                    x = inner[0]
                    return (Edge(a, b, x.relation + "^-1", x.rules, x.via),)
                return None
        return None

    def closure_path(self, r: C.Expr, env: dict[str, Any], a: int, b: int) -> Path | None:
        """A shortest path from a to b (at least one step) through pairs of r, each
        step derived (weight: its number of named steps)."""
        succ = self._rel(r, env).succ()
        tick = itertools.count()
        heap: list[tuple[int, int, int, Path]] = []
        for y, _ in sorted(succ.get(a, ()), key=lambda t: t[0]):
            p = self.derive(r, env, a, y)
            heapq.heappush(heap, (len(p), y, next(tick), p))
        done: set[int] = set()
        while heap:
            _d, x, _t, p = heapq.heappop(heap)
            if x == b:
                return p
            if x in done:
                continue
            done.add(x)
            for y, _ in sorted(succ.get(x, ()), key=lambda t: t[0]):
                if y in done and y != b:
                    continue
                q = p + self.derive(r, env, x, y)
                heapq.heappush(heap, (len(q), y, next(tick), q))
        return None

    # -- checks -----------------------------------------------------------

    def explain_check(self, c: CheckResult) -> tuple[list[Edge], bool, list[Edge]] | None:
        """The shortest violation of check ``c`` (which fails): (edges, closed, side),
        where side, for an ``empty`` check of an intersection, derives the same pair in
        the other operand."""
        got = self._explain_check(c)
        if got is None:
            return None
        edges, closed, pair = got
        side: list[Edge] = []
        if pair is not None and c.expr is not None and c.env is not None:
            e = c.expr
            while isinstance(e, C.Binary) and e.op == "\\":
                e = e.left
            if isinstance(e, C.Binary) and e.op == "&":
                for part in (e.left, e.right):
                    p = list(self.derive(part, c.env, *pair))
                    if p and p != edges[:len(p)] and not _is_filter(tuple(p)):
                        side = p
                        break
        if closed:
            edges = rotate(edges)
        return [self.with_detail(x) for x in edges], closed, side

    def with_detail(self, ed: Edge) -> Edge:
        t = self._step_trace.get((ed.src, ed.dst, ed.relation))
        if (t is None or ed.via is not None or isinstance(t.stmt, C.LetRec)
                or t.binding.params is not None or id(t) in self._active):
            return ed
        self._active.add(id(t))
        try:
            inner = self.derive(t.binding.expr, t.env, ed.src, ed.dst)
        finally:
            self._active.discard(id(t))
        inner = tuple(x for x in inner if x.src != x.dst)
        if len(inner) < 2:
            return ed
        return dataclasses.replace(ed, detail=inner)

    def _explain_check(self, c: CheckResult
                       ) -> tuple[list[Edge], bool, Pair | None] | None:
        """(edges, closed, the pair of an ``empty`` check)."""
        if c.expr is None or c.env is None:
            return None
        e, env = c.expr, c.env
        v = c.value
        if c.kind == "irreflexive":
            best: Path | None = None
            for (x, y) in sorted(v.m):  # type: ignore[misc]
                if x == y:
                    p = self.derive(e, env, x, x)
                    if best is None or len(p) < len(best):
                        best = p
            return None if best is None else (list(best), True, None)
        if c.kind == "acyclic":
            assert isinstance(v, RelV)
            best = None
            nodes = sorted({x for x, _ in v.m})
            for x in nodes:
                if (x, x) in v.m:
                    p = self.derive(e, env, x, x)
                else:
                    p = self.closure_path_over(e, env, v, x)  # type: ignore[assignment]
                    if p is None:
                        continue
                if best is None or len(p) < len(best):
                    best = p
            return None if best is None else (list(best), True, None)
        # empty: a shortest pair, closed by the base relation that contradicts it
        if isinstance(v, SetV):
            return None
        best_pair: tuple[Path, Edge | None, Pair] | None = None
        for (x, y) in sorted(v.m):
            p = self.derive(e, env, x, y)
            close = None if x == y else self._closing(y, x)
            cand = (p, close, (x, y))
            if best_pair is None or _rank(cand) < _rank(best_pair):
                best_pair = cand
        if best_pair is None:
            return None
        p, close, pair = best_pair
        edges = list(p) + ([close] if close is not None else [])
        return edges, close is not None or pair[0] == pair[1], pair

    def closure_path_over(self, e: C.Expr, env: dict[str, Any], v: RelV,
                          x: int) -> Path | None:
        """A shortest cycle through x in the relation ``e`` (value v)."""
        succ = v.succ()
        tick = itertools.count()
        heap: list[tuple[int, int, int, Path]] = []
        for y, _ in sorted(succ.get(x, ()), key=lambda t: t[0]):
            p = self.derive(e, env, x, y)
            heapq.heappush(heap, (len(p), y, next(tick), p))
        done: set[int] = set()
        while heap:
            _d, y, _t, p = heapq.heappop(heap)
            if y == x:
                return p
            if y in done:
                continue
            done.add(y)
            for z, _ in sorted(succ.get(y, ()), key=lambda t: t[0]):
                if z in done and z != x:
                    continue
                heapq.heappush(heap, (len(p) + len(self.derive(e, env, y, z)), z, next(tick),
                                      p + self.derive(e, env, y, z)))
        return None

    def _closing(self, a: int, b: int) -> Edge | None:
        for name in ("co", "po", "rf", "fr"):
            r = self.base.get(name)
            if isinstance(r, RelV) and (a, b) in r.m:
                return Edge(a, b, name)
        return None


COMMUNICATION = frozenset({"rf", "fr", "co", "rfe", "rfi", "fre", "fri", "coe", "coi"})


def rotate(edges: list[Edge]) -> list[Edge]:
    """The cycle started so that it ends with a communication edge (rf, fr, co), at
    the smallest event id among such starts (herd's habit: po first, fr last)."""
    ends = [i for i, e in enumerate(edges) if e.relation in COMMUNICATION]
    if not ends:
        starts = list(range(len(edges)))
    else:
        starts = [(i + 1) % len(edges) for i in ends]
    best = min(starts, key=lambda i: (edges[i].src, i))
    return edges[best:] + edges[:best]


def _rank(c: tuple[Path, Edge | None, Pair]) -> tuple[int, int]:
    p, close, _ = c
    return (0 if close is not None else 1, len(p))


def _is_filter(p: Path) -> bool:
    return len(p) == 1 and (p[0].relation in FILTERS or p[0].via in FILTERS)


# --------------------------------------------------------------------------
# explain
# --------------------------------------------------------------------------


def _check_index(lit: z3.BoolRef) -> int:
    return int(str(lit).split("!")[1])


def explain(
    test: A.Test,
    model: str | ModelSpec,
    variants: Sequence[str] = (),
    options: CheckOptions = DEFAULT_OPTIONS,
    reasons: bool = True,
) -> Explanation:
    """Why ``test``'s outcome is forbidden under ``model`` (or the witness that
    reaches it and, with ``reasons``, why: :func:`gdrcheck.analysis.unordered.
    why_allowed`). Raises :class:`~gdrcheck.errors.InputError` as check_test does.
    ``options.timeout`` bounds the whole explanation (the check and the queries after
    it); when it runs out, ``reason`` says so and the cycles found until then stay."""
    options = options.overlay(states=False)
    deadline = Deadline(options.timeout)
    res = check_test(test, model, variants, options, deadline)
    quant = test.condition.quantifier
    out = Explanation(test.name, test.path, res.model, test.condition, quant, res.verdict,
                      None, list(res.axioms), list(res.flags), result=res)
    if res.live is not None:
        out.hang = _hang(test, model, variants, options, deadline, res.model)
    if res.verdict == Verdict.UNKNOWN:
        out.reason = res.reason
        return out
    if quant == "forall" and res.negative is False:
        outcome = "~P"
    elif res.positive is False:
        outcome = "P"
    else:
        out.witness = res.witness
        if reasons and res.witness is not None and res.verdict == Verdict.ALLOWED:
            from gdrcheck.analysis.unordered import why_allowed

            try:
                prog = lower(test, options.unroll, deadline.tick)
                out.why = why_allowed(test, ModelSpec.of(model), variants, res.witness,
                                      prog, options, explain, deadline)
            except Expired:
                out.reason = "timeout while explaining why the outcome is allowed"
        return out
    out.outcome = outcome
    _, loaded, chosen = prepare(test, model, variants, options)
    path_of = loaded.path_of
    try:
        prog = lower(test, options.unroll, deadline.tick)
        q = build_query(prog, loaded.stmts, chosen, test, path_of, deadline=deadline)
    except Expired:
        out.reason = "timeout while explaining"
        return out
    s = query_solver(q)
    target = q.prop if outcome == "P" else z3.Not(q.prop)
    lits = q.axiom_lits
    core = [a for a in out.axioms if a in lits]
    if not core:
        if deadline.check(s, *lits.values(), target) != z3.unsat:
            out.reason = ("timeout while explaining" if deadline.expired()
                          else "the solver did not confirm the verdict")
            return out
        got = {str(x) for x in s.unsat_core()}
        core = [n for n, lit in lits.items() if str(lit) in got]
        out.axioms = core
    rules = rule_ids(loaded)

    def kind_of(name: str) -> str:
        return str(q.checks[_check_index(lits[name])].kind)

    # a minimal subset of the core that still rules the outcome out (z3's core is not
    # minimal): each of its checks is violated by any candidate meeting the others
    needed = list(core)
    for name in list(needed):
        rest = [lits[n] for n in needed if n != name]
        if deadline.check(s, *rest, target) == z3.unsat:
            needed.remove(name)
    done: set[str] = set()
    for name in needed:
        if name in done:
            continue
        # leave out this check, and whichever other checks outside the minimal set the
        # outcome still runs into, until a candidate execution reaches the outcome
        dropped = [name]
        while True:
            others = [lit for n, lit in lits.items() if n not in dropped]
            a = deadline.check(s, *others, target)
            if a != z3.unsat:
                break
            got = {str(x) for x in s.unsat_core()}
            more = [n for n, lit in lits.items()
                    if str(lit) in got and n not in dropped and n not in needed]
            if not more:
                break
            dropped.extend(more)
        if a != z3.sat:
            out.cycles.append(AxiomCycle(name, kind_of(name), "", [], False, None,
                                         "no candidate execution found"))
            done.add(name)
            continue
        wanted = [(n, _check_index(lits[n])) for n in dropped if n not in done]
        for cyc in _cycle_of(q, s.model(), prog, loaded, chosen, path_of, rules, wanted):
            if cyc.axiom != name and cyc.note:
                continue  # another check left out that this execution happens to meet
            cyc.in_core = cyc.axiom in core
            out.cycles.append(cyc)
            done.add(cyc.axiom)
    for name in core:
        if name not in needed:
            out.cycles.append(AxiomCycle(
                name, kind_of(name), "", [], False, None,
                "not needed: the other checks rule the outcome out without it"))
    order = {n: i for i, n in enumerate(core)}
    out.cycles.sort(key=lambda c: order.get(c.axiom, len(order)))
    if deadline.expired():
        out.reason = "timeout while explaining (what is shown was found before it)"
    return out


def _hang(test: A.Test, model: str | ModelSpec, variants: Sequence[str],
          options: CheckOptions, deadline: Deadline, name: str) -> HangExplanation:
    """The liveness answer with its stuck execution (gdrcheck/analysis/liveness.py)."""
    from gdrcheck.analysis.liveness import HangExplanation, explain_hang, liveness

    _, loaded, chosen = prepare(test, model, variants, options)
    try:
        ans = liveness(test, loaded, chosen, options, deadline)
    except Expired:
        return HangExplanation(name, "Unknown", reason="the time limit ran out")
    return explain_hang(ans, test, name)


def _cycle_of(q: Query, m: z3.ModelRef, prog: Program, loaded: LoadedModel,
              chosen: frozenset[str], path_of: Any, rules: dict[int, tuple[str, ...]],
              wanted: list[tuple[str, int]]) -> list[AxiomCycle]:
    w = witness_of_model(q, m)
    frame = frame_of_witness(prog, w)
    ev, interp = evaluate(prog, frame, loaded.stmts, chosen, path_of)
    d = Deriver(ev, interp, rules)
    out: list[AxiomCycle] = []
    for name, idx in wanted:
        c = ev.checks[idx] if idx < len(ev.checks) else None
        if c is None or c.name != name.split("#")[0]:
            out.append(AxiomCycle(name, "?", "", [], False, w, "check not found"))
            continue
        text = check_text(c.kind, c.negated, c.expr)
        if concrete_check(c):
            out.append(AxiomCycle(name, c.kind, text, [], False, w,
                                  "holds on this candidate execution"))
            continue
        got = d.explain_check(c)
        if got is None:
            out.append(AxiomCycle(name, c.kind, text, [], False, w,
                                  "no cycle to show for this check"))
            continue
        edges, closed, side = got
        out.append(AxiomCycle(name, c.kind, text, edges, closed, w, side=side))
    return out
