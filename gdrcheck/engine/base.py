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
  lowering's own static relations (``aob``, ``mmi``), and the candidate orders ``fso`` and
  ``syncbar``;
- functions: ``domain``, ``range``, ``fencerel``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import z3
else:
    from gdrcheck.lazy import z3  # imported on first use (a fast start)

from gdrcheck.cat.interp import builtin_functions, inverse, seq
from gdrcheck.cat.values import Formula, Pair, RelV, SetV, f_and, f_or
from gdrcheck.dataclass_cache import dataclass
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
    "LINE", "HALF0", "HALF1",  # the words of a 128-byte line window (issue 28 item 4)
    # host-initiated RDMA and kernel boundaries (gdrcheck/lower/host.py)
    "VERBS", "IMM", "HMEM", "RCQE", "CQPOLL", "WAITSEND", "LAUNCH", "KSYNC", "FLUSHRDMA",
    "SWAIT", "SWFLUSH",
    # the async proxy (cp.async.bulk)
    "ASYNC", "ASYNCWAIT",
    # PTX 7.5+ proxies, shared memory, mbarriers (gdrcheck/lower/ptx.py)
    "SUR", "TEX", "CON", "SHARED", "PFALIAS", "PFSUR", "PFTEX", "PFCON", "PFASYNC",
    "PFSHARED", "PFGLOBAL", "PFIMPLICIT", "MBAR", "MBARRIVE", "MBWAIT", "MBCTX",
    # mbarrier.init and its fence; griddepcontrol (gdrcheck/lower/ptx.py)
    "MBINIT", "MBINITF", "GDWAIT", "GDLAUNCH",
    # clusters: the .cluster scope, barrier.cluster, st.async / red.async (lower/ptx.py)
    "CLUSTER", "CBAR", "CBARRIVE", "CBWAIT", "STASYNC",
    # the read half of an atomic reduction (red, multimem.red): no acquire pattern (§8.8)
    "RED",
    # multimem per-copy events (gdrcheck/lower/multimem.py)
    "MM", "MMPLAIN",
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
    if a.gpu is None or b.gpu is None:
        return False  # a CPU thread or a NIC is in no GPU's (or CTA's) scope
    if scope == "gpu":
        return a.gpu == b.gpu
    if scope == "cta":
        return a.gpu == b.gpu and a.cta == b.cta
    if scope == "cluster":  # PTX ISA §8.5: the threads of the CTAs of one cluster
        if a.gpu != b.gpu:
            return False
        if a.cluster is None or b.cluster is None:  # a CTA launched without a cluster
            return a.cluster is None and b.cluster is None and a.cta == b.cta
        return a.cluster == b.cluster
    return False


TICK_EVERY = 256
"""Entries built between two looks at the time limit."""


def _pairs_by(ids: Iterable[int], key: Callable[[int], Hashable | None]) -> Iterator[Pair]:
    """Every ordered pair (a, b) of ``ids`` with the same key (an event whose key is None
    is in no pair), in the order of a scan of ``ids`` x ``ids``: one pass to group, then
    each event's group, not a test of all |ids|^2 pairs."""
    keys: list[tuple[int, Hashable]] = []
    groups: dict[Hashable, list[int]] = {}
    for i in ids:
        k = key(i)
        if k is not None:
            keys.append((i, k))
            groups.setdefault(k, []).append(i)
    for a, k in keys:
        for b in groups[k]:
            yield a, b


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
    env["fr"] = seq(inverse(env["rf"]), env["co"], tick)
    env["fso"] = RelV(dict(frame.fso))
    env["syncbar"] = RelV(dict(frame.syncbar))

    from gdrcheck.cat.interp import inter

    def restrict(r: RelV, name: str) -> RelV:
        return inter(r, env[name], tick)  # type: ignore[return-value]

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
    poll = tick if tick is not None else _no_tick
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
        poll()
        m: dict[Pair, Formula] = {}
        for i, (a, b) in enumerate(pairs):
            if i % TICK_EVERY == 0:
                poll()
            if a in ex and b in ex:
                m[(a, b)] = pair(a, b)
        return RelV(m)

    def attr_rel(ids_a: list[int], ids_b: list[int],
                 pred: Callable[[Event, Event | Alt, Event, Event | Alt], bool]) -> RelV:
        """Pairs whose attributes satisfy ``pred`` (with alternatives: when they do)."""
        poll()
        out: dict[Pair, Formula] = {}
        for a in ids_a:
            poll()
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
    }
    if alts:  # attributes that depend on selectors (gdrcheck fix)
        extra = {t for e in evs for t in e.tags} | {t for e in evs for a in e.alts for t in a.tags}
        for tag in [*TAGS, *sorted(extra - set(TAGS))]:
            env[tag] = tagged(tag)
    else:
        by_tag: dict[str, dict[int, Formula]] = {tag: {} for tag in TAGS}
        for e in evs:
            for t in e.tags:
                by_tag.setdefault(t, {})[e.eid] = ex[e.eid]
        for tag, members in by_tag.items():
            env[tag] = SetV(members)
    # the events of CPU (host) threads: no GPU, no agent (docs/litmus-format.md §12)
    env["CPU"] = s(lambda e: not e.is_init and not e.agent and e.gpu is None)
    poll()

    # po: a is an ancestor of b on b's path; b executing implies a does, unless a has a
    # guard of its own (gdrcheck fix)
    po: dict[Pair, Formula] = {}
    for e in evs:
        if e.is_init:
            continue
        poll()
        for a in prog.ancestors(e.eid):
            if a in ex:
                po[(a, e.eid)] = pair(a, e.eid) if prog.events[a].guard else ex[e.eid]
    po_r = RelV(po)
    env["po"] = po_r

    ids = [e.eid for e in evs]
    events = prog.events
    # same location; and same virtual address (PTX ISA §8.2): an event's vloc, or its
    # location
    env["loc"] = rel(_pairs_by(ids, lambda i: events[i].loc))
    env["vloc"] = rel(_pairs_by(
        ids, lambda i: None if events[i].loc is None
        else (events[i].loc, events[i].vloc or events[i].loc)))
    env["aob"] = RelV({})
    env["kstart"] = RelV({})  # kernel boundaries (lower/host.py), empty without them
    env["kend"] = RelV({})
    env["mmi"] = RelV({})  # multimem: events of different copies of one instruction
    env["gdw"] = RelV({})  # grid dependencies (lower/ptx.py), empty without grids
    env["line-order"] = RelV({})  # words of one RDMA WRITE into a line window (lower/gin.py)
    for name, pairs in prog.relations.items():  # a dialect's own static relations
        env[name] = rel(pairs)
    env["id"] = RelV({(a, a): ex[a] for a in ids})

    def agent(i: int) -> tuple[int, str]:
        return (events[i].thread, events[i].agent)

    if alts:
        env["int"] = attr_rel(ids, ids, lambda ea, xa, eb, xb: (ea.thread, xa.agent)
                              == (eb.thread, xb.agent))
        env["ext"] = attr_rel(ids, ids, lambda ea, xa, eb, xb: (ea.thread, xa.agent)
                              != (eb.thread, xb.agent))
    else:
        env["int"] = rel(_pairs_by(ids, agent))
        env["ext"] = rel((a, b) for a in ids for b in ids if agent(a) != agent(b))
    _gin_relations(prog, ids, env, rel, attr_rel if alts else None)
    env["rmw"] = rel(prog.rmw)
    env["data"] = rel(prog.data)
    env["addr"] = rel(prog.addr)
    env["ctrl"] = rel(prog.ctrl)

    def place(i: int, level: str) -> tuple[int | None, ...] | None:
        e = events[i]
        if e.is_init or e.gpu is None:
            return None
        return (e.gpu,) if level == "gpu" else (e.gpu, e.cta)

    env["scta"] = rel(_pairs_by(ids, lambda i: place(i, "cta")))
    env["sgpu"] = rel(_pairs_by(ids, lambda i: place(i, "gpu")))
    if alts:
        env["sr"] = attr_rel(ids, ids, lambda ea, xa, eb, xb: _in_scope(xa.scope, ea, eb)
                             and _in_scope(xb.scope, eb, ea))
    else:
        env["sr"] = rel(_same_scope_pairs(prog, ids, poll))

    from gdrcheck.cat.interp import inter

    def restrict(r: RelV, name: str) -> RelV:
        return inter(r, env[name], tick)  # type: ignore[return-value]

    env["po-loc"] = restrict(po_r, "loc")
    env.update(builtin_functions(po_r, universe, tick))
    return env


def _no_tick() -> None:
    return None


def _same_scope_pairs(prog: Program, ids: list[int], tick: Callable[[], None]
                      ) -> Iterator[Pair]:
    """sr: pairs whose scopes include each other's thread (Dartagnan's same-scope
    relation). Only events with a scope take part."""
    events = prog.events
    scoped = [i for i in ids if events[i].scope in ("sys", "gpu", "cluster", "cta")]
    for a in scoped:
        tick()
        ea = events[a]
        for b in scoped:
            eb = events[b]
            if _in_scope(ea.scope, ea, eb) and _in_scope(eb.scope, eb, ea):
                yield a, b


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
    env["op"] = rel(_pairs_by(with_op, lambda i: evs[i].op))
    if attr_rel is not None:
        # the context may depend on a selector (gdrcheck fix: a put moved to its signal's)
        env["qp"] = attr_rel(with_op, with_op, lambda ea, xa, eb, xb:
                             (ea.rank, xa.ctx, ea.peer) == (eb.rank, xb.ctx, eb.peer))
        env["sctx"] = attr_rel(with_ctx, with_ctx, lambda ea, xa, eb, xb: xa.ctx is not None
                               and (ea.rank, xa.ctx) == (eb.rank, xb.ctx))
    else:
        env["qp"] = rel(_pairs_by(with_op, lambda i: (evs[i].rank, evs[i].ctx, evs[i].peer)))
        env["sctx"] = rel(_pairs_by(with_ctx, lambda i: (evs[i].rank, evs[i].ctx)))
    env["speer"] = rel(_pairs_by(with_op, lambda i: (evs[i].rank, evs[i].peer)))
    mems = [i for i in ids if evs[i].mem is not None]
    gpu_of: dict[int, list[int]] = {}
    for i in ids:
        g = evs[i].gpu
        if not evs[i].agent and g is not None:
            gpu_of.setdefault(g, []).append(i)
    env["own"] = rel((a, b) for a in mems for b in gpu_of.get(evs[a].mem, ()))  # type: ignore[arg-type]
