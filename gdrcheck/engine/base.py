"""The built-in sets and relations a cat model sees, for one candidate frame.

Both engines describe a candidate execution (or, for z3, every candidate at
once) as a :class:`Frame`: which events may execute and when, and the
candidate relations rf, co, fso (the Fence-SC order) and syncbar (barrier
synchronisation). :func:`base_env` derives everything else.

Built-in names (herd7's plus the PTX ones):

- sets: ``_`` (all events), ``W R F M IW FW``, and one set per event tag:
  ``WEAK RLX ACQ REL ACQ_REL SC VOL CTA GPU SYS ATOM X MFENCE BAR ARRIVE WAIT
  PROXY INIT`` (empty when no event carries the tag);
- relations: ``po rf co fr loc ext int id rmw addr data ctrl po-loc rfe rfi
  coe coi fre fri``, the scope relations ``scta`` (same CTA), ``sgpu`` (same
  GPU), ``sr`` (each event's scope includes the other's thread: Dartagnan's
  same-scope relation), ``vloc`` (same location and same virtual address), the
  lowering's own static relations (``aob``), and the candidate orders ``fso`` and
  ``syncbar``;
- functions: ``domain``, ``range``, ``fencerel``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import z3

from gdrcheck.cat.interp import builtin_functions, inverse, seq
from gdrcheck.cat.values import Formula, Pair, RelV, SetV, f_and, f_or
from gdrcheck.lower.program import Alt, Event, Program

TAGS = (
    "WEAK", "RLX", "ACQ", "REL", "ACQ_REL", "SC", "VOL", "CTA", "GPU", "SYS", "ATOM", "X",
    "MFENCE", "BAR", "ARRIVE", "WAIT", "PROXY", "INIT",
    # GPU-initiated networking (gdrcheck/lower/gin.py)
    "GIN", "SHMEM", "ISSUE", "PXY", "PUT", "GET", "SIGOP", "AMOOP", "AGG", "BLOCKING",
    "GIVEN_THREAD", "GIVEN_CTA", "GIVEN_GPU", "GIVEN_SYS", "REQ_GPU", "REQ_SYS",
    "NIC", "NR", "NW", "SIG", "AMO", "CTR", "LC", "RSP", "LCL", "RO", "SO",
    "STRONG", "WEAK", "LEGACY", "IDX", "VA", "INC", "ADD", "SET", "BARSIG", "BARNONE",
    "FLUSH", "QUIET", "SHFENCE", "GWAIT", "RESET", "SIGMEM",
    "FLUSHREQ", "REQWAIT", "WAITUNTIL", "SIGWAITUNTIL", "SYNCAPI", "CTAEVEN", "CTAODD",
    # the async proxy (cp.async.bulk)
    "ASYNC", "ASYNCWAIT",
    # PTX 7.5+ proxies, shared memory, mbarriers (gdrcheck/lower/ptx.py)
    "SUR", "TEX", "CON", "SHARED", "PFALIAS", "PFSUR", "PFTEX", "PFCON", "PFASYNC",
    "PFSHARED", "PFGLOBAL", "PFIMPLICIT", "MBAR", "MBARRIVE", "MBWAIT", "MBCTX",
)


@dataclass
class Frame:
    program: Program
    exec: dict[int, Formula]  # events that may execute -> when
    rf: dict[Pair, Formula]
    co: dict[Pair, Formula]
    fw: dict[int, Formula]  # co-last writes
    fso: dict[Pair, Formula] = field(default_factory=dict)
    syncbar: dict[Pair, Formula] = field(default_factory=dict)


def _in_scope(scope: str | None, a: Event, b: Event) -> bool:
    """Does the scope of ``a`` include the thread of ``b``?"""
    if scope is None:
        return False
    if scope == "sys":
        return True
    if b.is_init or a.is_init:
        return False
    if scope == "gpu":
        return a.gpu == b.gpu
    if scope == "cta":
        return a.gpu == b.gpu and a.cta == b.cta
    return False


def selector_var(name: str) -> z3.BoolRef:
    """The Boolean of one candidate edit of ``gdrcheck fix`` (an event's guard, an
    attribute's alternative: gdrcheck/analysis/fix_shared.py)."""
    return z3.Bool(f"sel!{name}")


def choices(e: Event) -> list[tuple[Formula, Event | Alt]]:
    """When ``e`` has which attributes (tags, scope, ctx, agent): its own when none of
    its alternatives' selectors is on, else that alternative's (at most one is on)."""
    if not e.alts:
        return [(True, e)]
    sels = [selector_var(a.selector) for a in e.alts]
    return [(z3.And([z3.Not(x) for x in sels]), e),
            *((x, a) for x, a in zip(sels, e.alts, strict=True))]


def _any(fs: list[Formula]) -> Formula | None:
    """The disjunction of ``fs``; None for none (never)."""
    return f_or(fs) if fs else None


def when(e: Event, pred: Callable[[Event | Alt], bool],
          cs: list[tuple[Formula, Event | Alt]] | None = None) -> Formula | None:
    """When the attributes of ``e`` satisfy ``pred`` (None: never); ``cs``: its
    :func:`choices`, when known."""
    if not e.alts:
        return True if pred(e) else None
    cs = choices(e) if cs is None else cs
    hits = [c for c, attrs in cs if pred(attrs)]
    if len(hits) == len(cs):
        return True  # whichever alternative is on
    return _any(hits)


def base_env(frame: Frame, tick: Callable[[], None] | None = None) -> dict[str, Any]:
    """The built-in sets and relations of ``frame``; ``tick`` is called between
    relations (it raises when the time is up). An event's tags, scope, context and
    agent may depend on selectors (:attr:`Event.alts`, gdrcheck fix)."""
    prog = frame.program
    ex = frame.exec
    evs = [prog.events[i] for i in ex]
    alts = {e.eid: choices(e) for e in evs if e.alts}

    def s(pred: Any) -> SetV:
        return SetV({e.eid: ex[e.eid] for e in evs if pred(e)})

    def tagged(tag: str) -> SetV:
        out: dict[int, Formula] = {}
        for e in evs:
            f = when(e, lambda x: tag in x.tags, alts.get(e.eid))
            if f is not None:
                out[e.eid] = f_and(ex[e.eid], f)
        return SetV(out)

    def pair(a: int, b: int) -> Formula:
        return f_and(ex[a], ex[b])

    def rel(pairs: Iterable[Pair]) -> RelV:
        if tick is not None:
            tick()
        return RelV({(a, b): pair(a, b) for a, b in pairs if a in ex and b in ex})

    def attr_rel(ids_a: list[int], ids_b: list[int],
                 pred: Callable[[Event, Event | Alt, Event, Event | Alt], bool]) -> RelV:
        """Pairs whose attributes satisfy ``pred`` (with alternatives: when they do)."""
        if tick is not None:
            tick()
        out: dict[Pair, Formula] = {}
        for a in ids_a:
            ea = prog.events[a]
            for b in ids_b:
                eb = prog.events[b]
                if not ea.alts and not eb.alts:
                    if pred(ea, ea, eb, eb):
                        out[(a, b)] = pair(a, b)
                    continue
                combos = [(f_and(ca, cb), pred(ea, xa, eb, xb))
                          for ca, xa in alts.get(a, [(True, ea)])
                          for cb, xb in alts.get(b, [(True, eb)])]
                if all(hit for _, hit in combos):
                    out[(a, b)] = pair(a, b)  # whichever alternatives are on
                    continue
                f = _any([c for c, hit in combos if hit])
                if f is not None:
                    out[(a, b)] = f_and(pair(a, b), f)
        return RelV(out)

    universe = s(lambda e: True)
    env: dict[str, Any] = {
        "_": universe,
        "W": s(lambda e: e.kind == "W"),
        "R": s(lambda e: e.kind == "R"),
        "F": s(lambda e: e.kind == "F"),
        "M": s(lambda e: e.kind in ("R", "W")),
        "IW": s(lambda e: e.is_init),
        "FW": SetV(dict(frame.fw)),
    }
    extra = {t for e in evs for t in e.tags} | {t for e in evs for a in e.alts for t in a.tags}
    for tag in [*TAGS, *sorted(extra - set(TAGS))]:
        env[tag] = tagged(tag)

    # po: a is an ancestor of b on b's path; b executing implies a does, unless a has a
    # guard of its own (gdrcheck fix)
    po: dict[Pair, Formula] = {}
    for e in evs:
        if e.is_init:
            continue
        for a in prog.ancestors(e.eid):
            if a in ex:
                po[(a, e.eid)] = pair(a, e.eid) if prog.events[a].guard else ex[e.eid]
    po_r = RelV(po)
    env["po"] = po_r
    env["rf"] = RelV(dict(frame.rf))
    env["co"] = RelV(dict(frame.co))
    env["fr"] = seq(inverse(env["rf"]), env["co"])
    env["fso"] = RelV(dict(frame.fso))
    env["syncbar"] = RelV(dict(frame.syncbar))

    ids = [e.eid for e in evs]
    same_loc = [(a, b) for a in ids for b in ids
                if prog.events[a].loc is not None and prog.events[a].loc == prog.events[b].loc]
    env["loc"] = rel(same_loc)
    # same virtual address (PTX ISA §8.2): an event's vloc, or its location
    va = {e.eid: e.vloc or e.loc for e in evs}
    env["vloc"] = rel((a, b) for a, b in same_loc if va[a] == va[b])
    env["aob"] = RelV({})
    for name, pairs in prog.relations.items():  # a dialect's own static relations
        env[name] = rel(pairs)
    env["id"] = RelV({(a, a): ex[a] for a in ids})
    env["int"] = attr_rel(ids, ids, lambda ea, xa, eb, xb: (ea.thread, xa.agent)
                          == (eb.thread, xb.agent))
    env["ext"] = attr_rel(ids, ids, lambda ea, xa, eb, xb: (ea.thread, xa.agent)
                          != (eb.thread, xb.agent))
    _gin_relations(prog, ids, env, rel, attr_rel)
    env["rmw"] = rel(prog.rmw)
    env["data"] = rel(prog.data)
    env["addr"] = rel(prog.addr)
    env["ctrl"] = rel(prog.ctrl)
    env["scta"] = rel((a, b) for a in ids for b in ids if _same(prog, a, b, "cta"))
    env["sgpu"] = rel((a, b) for a in ids for b in ids if _same(prog, a, b, "gpu"))
    env["sr"] = attr_rel(ids, ids, lambda ea, xa, eb, xb: _in_scope(xa.scope, ea, eb)
                         and _in_scope(xb.scope, eb, ea))

    from gdrcheck.cat.interp import inter

    def restrict(r: RelV, name: str) -> RelV:
        return inter(r, env[name])  # type: ignore[return-value]

    env["po-loc"] = restrict(po_r, "loc")
    env["rfe"] = restrict(env["rf"], "ext")
    env["rfi"] = restrict(env["rf"], "int")
    env["coe"] = restrict(env["co"], "ext")
    env["coi"] = restrict(env["co"], "int")
    env["fre"] = restrict(env["fr"], "ext")
    env["fri"] = restrict(env["fr"], "int")
    env.update(builtin_functions(po_r, universe))
    return env


def _gin_relations(prog: Program, ids: list[int], env: dict[str, Any],
                   rel: Any, attr_rel: Any) -> None:
    """The static relations of GIN and NVSHMEM operations (gdrcheck/lower/gin.py):

    - ``op``: two events of one API operation;
    - ``qp``: events of operations on one queue (rank, context, peer);
    - ``sctx``: events of one rank on one context (operations and markers);
    - ``speer``: events of operations of one rank to one peer, any context;
    - ``own``: a memory event and an event of the GPU that owns its memory.
    """
    evs = prog.events
    with_op = [i for i in ids if evs[i].op is not None]
    with_ctx = [i for i in ids if evs[i].ctx is not None
                or any(a.ctx is not None for a in evs[i].alts)]
    env["op"] = rel((a, b) for a in with_op for b in with_op if evs[a].op == evs[b].op)
    # the context may depend on a selector (gdrcheck fix: a put moved to its signal's)
    env["qp"] = attr_rel(with_op, with_op, lambda ea, xa, eb, xb: (ea.rank, xa.ctx, ea.peer)
                         == (eb.rank, xb.ctx, eb.peer))
    env["sctx"] = attr_rel(with_ctx, with_ctx, lambda ea, xa, eb, xb: xa.ctx is not None
                           and (ea.rank, xa.ctx) == (eb.rank, xb.ctx))
    env["speer"] = rel((a, b) for a in with_op for b in with_op
                       if (evs[a].rank, evs[a].peer) == (evs[b].rank, evs[b].peer))
    mems = [i for i in ids if evs[i].mem is not None]
    gpu_evs = [i for i in ids if not evs[i].agent and evs[i].gpu is not None]
    env["own"] = rel((a, b) for a in mems for b in gpu_evs if evs[a].mem == evs[b].gpu)


def _same(prog: Program, a: int, b: int, level: str) -> bool:
    ea, eb = prog.events[a], prog.events[b]
    if ea.is_init or eb.is_init or ea.gpu is None or eb.gpu is None:
        return False
    if level == "gpu":
        return ea.gpu == eb.gpu
    return ea.gpu == eb.gpu and ea.cta == eb.cta
