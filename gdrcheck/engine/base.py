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

from gdrcheck.cat.interp import builtin_functions, inverse, seq
from gdrcheck.cat.values import Formula, Pair, RelV, SetV, f_and
from gdrcheck.lower.program import Event, Program

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


CANDIDATE_NAMES = frozenset({"rf", "co", "fr", "fso", "syncbar", "FW", "rfe", "rfi", "coe",
                             "coi", "fre", "fri"})
"""The built-in names that depend on the candidate relations (the others are static:
fixed by the program and by which events execute)."""


def base_env(frame: Frame, tick: Callable[[], None] | None = None,
             static: dict[str, Any] | None = None) -> dict[str, Any]:
    """The built-in sets and relations of ``frame``; ``tick`` is called between
    relations (it raises when the time is up). ``static``: :func:`static_env` of the
    frame's program and execution formulas, when already computed."""
    env = dict(static) if static is not None else static_env(frame.program, frame.exec, tick)
    env["FW"] = SetV(dict(frame.fw))
    env["rf"] = RelV(dict(frame.rf))
    env["co"] = RelV(dict(frame.co))
    env["fr"] = seq(inverse(env["rf"]), env["co"])
    env["fso"] = RelV(dict(frame.fso))
    env["syncbar"] = RelV(dict(frame.syncbar))

    from gdrcheck.cat.interp import inter

    def restrict(r: RelV, name: str) -> RelV:
        return inter(r, env[name])  # type: ignore[return-value]

    env["rfe"] = restrict(env["rf"], "ext")
    env["rfi"] = restrict(env["rf"], "int")
    env["coe"] = restrict(env["co"], "ext")
    env["coi"] = restrict(env["co"], "int")
    env["fre"] = restrict(env["fr"], "ext")
    env["fri"] = restrict(env["fr"], "int")
    return env


def static_env(prog: Program, ex: dict[int, Formula],
               tick: Callable[[], None] | None = None) -> dict[str, Any]:
    """The built-in sets and relations that do not depend on the candidate relations
    (every name but :data:`CANDIDATE_NAMES`), for the events that may execute (``ex``:
    event -> when). An entry of a pair holds whenever both its events execute."""
    evs = [prog.events[i] for i in ex]

    def s(pred: Any) -> SetV:
        return SetV({e.eid: ex[e.eid] for e in evs if pred(e)})

    def pair(a: int, b: int) -> Formula:
        return f_and(ex[a], ex[b])

    def rel(pairs: Iterable[Pair]) -> RelV:
        if tick is not None:
            tick()
        return RelV({(a, b): pair(a, b) for a, b in pairs if a in ex and b in ex})

    universe = s(lambda e: True)
    env: dict[str, Any] = {
        "_": universe,
        "W": s(lambda e: e.kind == "W"),
        "R": s(lambda e: e.kind == "R"),
        "F": s(lambda e: e.kind == "F"),
        "M": s(lambda e: e.kind in ("R", "W")),
        "IW": s(lambda e: e.is_init),
    }
    for tag in TAGS:
        env[tag] = s(lambda e, t=tag: t in e.tags)
    for tag in {t for e in evs for t in e.tags} - set(TAGS):
        env[tag] = s(lambda e, t=tag: t in e.tags)

    # po: a is an ancestor of b on b's path; b executing implies a does.
    po: dict[Pair, Formula] = {}
    for e in evs:
        if e.is_init:
            continue
        for a in prog.ancestors(e.eid):
            if a in ex:
                po[(a, e.eid)] = ex[e.eid]
    po_r = RelV(po)
    env["po"] = po_r

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
    def agent(e: Event) -> tuple[int, str]:
        return (e.thread, e.agent)

    env["int"] = rel((a, b) for a in ids for b in ids
                     if agent(prog.events[a]) == agent(prog.events[b]))
    env["ext"] = rel((a, b) for a in ids for b in ids
                     if agent(prog.events[a]) != agent(prog.events[b]))
    _gin_relations(prog, ids, env, rel)
    env["rmw"] = rel(prog.rmw)
    env["data"] = rel(prog.data)
    env["addr"] = rel(prog.addr)
    env["ctrl"] = rel(prog.ctrl)
    env["scta"] = rel((a, b) for a in ids for b in ids if _same(prog, a, b, "cta"))
    env["sgpu"] = rel((a, b) for a in ids for b in ids if _same(prog, a, b, "gpu"))
    env["sr"] = rel(
        (a, b) for a in ids for b in ids
        if _in_scope(prog.events[a].scope, prog.events[a], prog.events[b])
        and _in_scope(prog.events[b].scope, prog.events[b], prog.events[a])
    )

    from gdrcheck.cat.interp import inter

    env["po-loc"] = inter(po_r, env["loc"])
    env.update(builtin_functions(po_r, universe))
    return env


def _gin_relations(prog: Program, ids: list[int], env: dict[str, Any],
                   rel: Any) -> None:
    """The static relations of GIN and NVSHMEM operations (gdrcheck/lower/gin.py):

    - ``op``: two events of one API operation;
    - ``qp``: events of operations on one queue (rank, context, peer);
    - ``sctx``: events of one rank on one context (operations and markers);
    - ``speer``: events of operations of one rank to one peer, any context;
    - ``own``: a memory event and an event of the GPU that owns its memory.
    """
    evs = prog.events
    with_op = [i for i in ids if evs[i].op is not None]
    with_ctx = [i for i in ids if evs[i].ctx is not None]
    env["op"] = rel((a, b) for a in with_op for b in with_op if evs[a].op == evs[b].op)
    env["qp"] = rel((a, b) for a in with_op for b in with_op
                    if (evs[a].rank, evs[a].ctx, evs[a].peer)
                    == (evs[b].rank, evs[b].ctx, evs[b].peer))
    env["sctx"] = rel((a, b) for a in with_ctx for b in with_ctx
                      if (evs[a].rank, evs[a].ctx) == (evs[b].rank, evs[b].ctx))
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
