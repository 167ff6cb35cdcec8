"""What the picture of one result shows (``--graph``): the execution, its title, the
model's relations on it (``--show all``) and the edges to draw in bold (a cycle of
``gdrcheck explain``). :mod:`gdrcheck.report.graph` turns a :class:`Drawing` into DOT.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from gdrcheck.analysis.check import chosen_variants
from gdrcheck.analysis.models import ModelSpec, get_model
from gdrcheck.analysis.options import DEFAULT_OPTIONS, CheckOptions
from gdrcheck.cat import ast as C
from gdrcheck.cat.values import Pair, RelV
from gdrcheck.engine.result import Result, Witness
from gdrcheck.litmus import ast as A
from gdrcheck.lower import lower
from gdrcheck.lower.program import Program

SHOW = ("witness", "all")
"""``--show``: the execution alone, or with the model's relations."""

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



def drawing_of(test: A.Test, model: str | ModelSpec, res: Result,
               variants: Sequence[str] = (), show: str = "witness",
               options: CheckOptions = DEFAULT_OPTIONS) -> Drawing | None:
    """The picture of one result of ``gdrcheck check``: its witness, or, when the
    outcome is forbidden, the candidate execution of ``gdrcheck explain`` with the
    first cycle in bold. None when there is nothing to draw (Unknown)."""
    from gdrcheck.analysis.explain import explain  # only when drawing (start-up time)

    spec = ModelSpec.of(model)
    prog = lower(test, options.unroll)
    w = res.witness
    highlight: list[tuple[int, int, str]] = []
    title = f"{test.name} under {res.model}: {res.verdict}"
    if res.positive is False or (test.condition.quantifier == "forall"
                                 and res.negative is False):
        x = explain(test, spec, variants, options)
        cyc = next((c for c in x.cycles if c.edges and c.execution is not None), None)
        if cyc is not None:
            w = cyc.execution
            highlight = [(e.src, e.dst, e.label()) for e in cyc.edges]
            title += f" (a candidate execution: {cyc.axiom} fails)"
    if w is None:
        return None
    relations: dict[str, list[Pair]] = {}
    if show == "all":
        loaded = get_model(spec.name, options.include_dirs)
        relations = model_relations(prog, w, loaded.stmts,
                                    chosen_variants(test, spec, variants))
    return Drawing(prog, w, title, relations, highlight)
