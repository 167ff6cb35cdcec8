"""What the picture of one result shows (``--graph``): the execution, its title, the
model's relations on it (``--show all``) and the edges to draw in bold (a cycle of
``gdrcheck explain``). :mod:`gdrcheck.report.graph` turns a :class:`Drawing` into DOT.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field
from typing import TYPE_CHECKING

from gdrcheck.analysis.check import chosen_variants

if TYPE_CHECKING:
    from gdrcheck.analysis.explain import Explanation
    from gdrcheck.analysis.liveness import HangExplanation

from gdrcheck.analysis.models import ModelSpec, get_model
from gdrcheck.analysis.options import DEFAULT_OPTIONS, CheckOptions
from gdrcheck.cat import ast as C
from gdrcheck.cat.values import Pair, RelV
from gdrcheck.dataclass_cache import dataclass
from gdrcheck.engine.result import Result, Witness
from gdrcheck.litmus import ast as A
from gdrcheck.lower import lower
from gdrcheck.lower.program import Program

SYNC_STEPS = ("sync", "sc", "sync-barrier")
"""Drawn by ``--show all`` (when the model has no show statements), with the members of
``gin-hb`` and ``ghb``."""
UNION_NAMES = ("gin-hb", "ghb")
SKIP = frozenset({"po", "rf", "co", "fr", "rfe", "rfi", "coe", "coi", "fre", "fri"})


@dataclass
class Drawing:
    """One execution to draw."""

    program: Program
    execution: Witness
    title: str
    relations: dict[str, list[Pair]] = field(default_factory=dict)
    """Further named relations (``--show all``)."""
    highlight: list[tuple[int, int, str]] = field(default_factory=list)
    """Edges ``(from, to, label)`` drawn in bold: a cycle."""
    hidden: frozenset[int] = frozenset()
    """Events not drawn: those of sets the model never names (a CPU proxy's events
    under a model that has no proxy), so their lanes do not appear empty."""
    arrival: list[Pair] = field(default_factory=list)
    """The model's arrival order (``arrive``) on the drawn execution, reduced to its
    immediate steps: the order in which the responder's accesses reach memory."""
    overtakes: list[tuple[int, int, str]] = field(default_factory=list)
    """``(later, earlier, reason)``: accesses posted in one order (``posted-before``)
    that the model lets arrive in the other, with the relation that permits it
    (``pcie-pass``: Relaxed Ordering; ``ib-unordered``: the wire)."""
    unordered: list[tuple[int, int, str]] = field(default_factory=list)
    """``(first, second, why)``: pairs of an allowed outcome that nothing orders and
    whose order would forbid it (``gdrcheck explain``: :class:`~gdrcheck.analysis.
    explain.Unordered`), dashed and labelled ``unordered: why``."""
    stuck: list[int] = field(default_factory=list)
    """The reads a thread repeats forever in a Hang (the liveness question), in bold."""



def _union_members(e: C.Expr) -> list[str]:
    if isinstance(e, C.Var):
        return [e.name]
    if isinstance(e, C.Binary) and e.op in ("|", "++"):
        return _union_members(e.left) + _union_members(e.right)
    return []


def model_relations(prog: Program, w: Witness, stmts: Sequence[C.Stmt],
                    variants: frozenset[str], path_of: object = None
                    ) -> dict[str, list[Pair]]:
    """What ``--show all`` draws: the model's ``show`` relations on ``w``, or else its
    synchronisation steps (module docstring); only non-empty ones."""
    from gdrcheck.engine.replay import evaluate, frame_of_witness  # only when drawing

    ev, _ = evaluate(prog, frame_of_witness(prog, w), stmts, variants, path_of)
    out: dict[str, list[Pair]] = {}
    if ev.shown:
        for sh in ev.shown:
            pairs = sorted(k for k in sh.value.m if k[0] != k[1])
            if pairs:
                out[sh.name] = pairs
        return out
    names: list[str] = [n for n in SYNC_STEPS]
    for t in ev.bindings:
        if t.name in UNION_NAMES:
            names.extend(m for m in _union_members(t.binding.expr) if m not in names)
    for n in names:
        v = ev.env.get(n)
        if n in SKIP or not isinstance(v, RelV):
            continue
        pairs = sorted(k for k in v.m if k[0] != k[1])
        if pairs:
            out[n] = pairs
    return out



AGENT_SETS = {"PXY": "proxy"}
"""Tags of agent events that are drawn only when the model names the set."""

POSTED = "posted-before"
ARRIVAL = "arrive"
PASSES = (("pcie-pass", "may overtake: Relaxed Ordering (pcie-pass)"),
          ("ib-unordered", "may overtake: unordered on the wire (ib-unordered)"))
"""The implementation models' ordering of a responder's accesses (specs/ib-rc.cat,
specs/pcie.cat): ``arrive = (ib-order \\ pcie-pass)+`` with ``ib-order =
posted-before \\ ib-unordered``. A pair posted in order but not in ``arrive`` is one
the later access may overtake; the relation that removed it says why."""


def _names(node: object, out: set[str]) -> set[str]:
    """Every name a cat statement or expression mentions."""
    if isinstance(node, C.Var):
        out.add(node.name)
    elif isinstance(node, list | tuple):
        for x in node:
            _names(x, out)
    elif hasattr(node, "__dataclass_fields__"):
        for f in node.__dataclass_fields__:
            _names(getattr(node, f), out)
    return out


def model_names(stmts: Sequence[C.Stmt]) -> frozenset[str]:
    """The names (sets, relations) the model's statements mention."""
    return frozenset(_names(list(stmts), set()))


def hidden_events(prog: Program, w: Witness, names: frozenset[str]) -> frozenset[int]:
    """The events of ``w`` whose agent set (``PXY``) the model never names."""
    unused = {t for t in AGENT_SETS if t not in names}
    return frozenset(e.eid for e in w.events
                     if e.agent and unused & set(prog.events[e.eid].tags))


def _pairs(env: dict[str, object], name: str) -> set[Pair] | None:
    v = env.get(name)
    if not isinstance(v, RelV):
        return None
    return {k for k in v.m if k[0] != k[1]}


def _reduced(pairs: set[Pair]) -> list[Pair]:
    """The immediate steps of a transitive relation (drop a->c when a->b->c)."""
    succ: dict[int, set[int]] = {}
    for a, b in pairs:
        succ.setdefault(a, set()).add(b)
    return sorted((a, b) for a, b in pairs
                  if not any(b in succ.get(m, ()) for m in succ.get(a, ()) if m != b))


def ordering_of(prog: Program, w: Witness, stmts: Sequence[C.Stmt],
                variants: frozenset[str], path_of: object = None
                ) -> tuple[list[Pair], list[tuple[int, int, str]]]:
    """The arrival order and the overtakes the model allows on ``w`` (:data:`PASSES`);
    empty for a model without an arrival order."""
    from gdrcheck.engine.replay import evaluate, frame_of_witness

    ev, _ = evaluate(prog, frame_of_witness(prog, w), stmts, variants, path_of)
    env: dict[str, object] = dict(ev.env)
    arrive = _pairs(env, ARRIVAL)
    posted = _pairs(env, POSTED)
    if arrive is None or posted is None:
        return [], []
    overtakes: list[tuple[int, int, str]] = []
    passing = [(_pairs(env, rel) or set(), why) for rel, why in PASSES]
    for a, b in sorted(posted - arrive):
        why = next((why for pairs, why in passing if (a, b) in pairs), None)
        if why is not None:
            overtakes.append((b, a, why))
    # an atomic's read and write both pass: keep the write when both are there
    writes = {(a, prog.events[b].op) for b, a, _ in overtakes if prog.events[b].kind == "W"}
    overtakes = [(b, a, why) for b, a, why in overtakes
                 if prog.events[b].kind == "W" or (a, prog.events[b].op) not in writes]
    return _reduced(arrive), overtakes


def drawing_of(test: A.Test, model: str | ModelSpec, res: Result,
               variants: Sequence[str] = (), show: str = "witness",
               options: CheckOptions = DEFAULT_OPTIONS,
               explanation: Explanation | None = None) -> Drawing | None:
    """The picture of one result of ``gdrcheck check``: its witness, or, when the
    outcome is forbidden, the candidate execution of ``gdrcheck explain`` with the
    first cycle in bold. None when there is nothing to draw (Unknown).
    ``explanation``: the result's explanation when the caller has it already."""
    from gdrcheck.analysis.explain import explain  # only when drawing (start-up time)

    spec = ModelSpec.of(model)
    w = res.witness
    highlight: list[tuple[int, int, str]] = []
    title = f"{test.name} under {res.model}: {res.verdict}"
    if res.positive is False or (test.condition.quantifier == "forall"
                                 and res.negative is False):
        x = explanation or explain(test, spec, variants, options)
        cyc = next((c for c in x.cycles if c.edges and c.execution is not None), None)
        if cyc is not None:
            w = cyc.execution
            highlight = [(e.src, e.dst, e.label()) for e in cyc.edges]
            title += f" (a candidate execution: {cyc.axiom} fails)"
    unordered: list[tuple[int, int, str]] = []
    if explanation is not None and explanation.why is not None and w is not None \
            and explanation.witness is w:
        for p in explanation.why.pairs:
            if p.status != "ordered":
                why = p.why[0].split(":")[0].split(" (")[0] if p.why else p.status
                unordered.append((p.first, p.second, f"{p.status}: {why}"))
    if w is None:
        return None  # nothing to draw: lower the test only when there is
    prog = lower(test, options.unroll)
    relations: dict[str, list[Pair]] = {}
    loaded = get_model(spec.name, options.include_dirs)
    chosen = chosen_variants(test, spec, variants)
    if show == "all":
        relations = model_relations(prog, w, loaded.stmts, chosen)
    arrival, overtakes = ordering_of(prog, w, loaded.stmts, chosen)
    hidden = hidden_events(prog, w, model_names(loaded.stmts))
    return Drawing(prog, w, title, relations, highlight, hidden, arrival, overtakes,
                   unordered)


def hang_drawing(test: A.Test, h: HangExplanation, options: CheckOptions = DEFAULT_OPTIONS
                 ) -> Drawing | None:
    """The picture of a Hang (``gdrcheck explain --liveness --graph``): the stuck
    execution, each read a thread repeats forever in bold, the write it keeps reading
    (``rf (forever)``) and the writes coherence puts before it (``co``) in the
    highlight colour. None when there is no stuck execution."""
    w = h.witness
    if w is None or h.answer != "Hang":
        return None
    prog = lower(test, options.unroll)
    highlight: list[tuple[int, int, str]] = []
    stuck: list[int] = []
    for s in h.stuck:
        for k in s.kept:
            stuck.append(k.read)
            highlight.append((k.source, k.read, "rf (forever)"))
            highlight.extend((a, b, "co (the last write)") for a, b in
                             zip(k.co, k.co[1:], strict=False) if b == k.source)
    where = "; ".join(f"P{s.site.thread} {'spins' if s.kind == 'spin' else 'waits'} "
                      f"forever at row {s.site.row}" for s in h.stuck)
    loaded = get_model(ModelSpec.of(h.model).name, options.include_dirs)
    hidden = hidden_events(prog, w, model_names(loaded.stmts))
    return Drawing(prog, w, f"{test.name} under {h.model}: Hang ({where})",
                   highlight=list(dict.fromkeys(highlight)), hidden=hidden, stuck=stuck)
