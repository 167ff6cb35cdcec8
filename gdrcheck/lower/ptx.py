"""Lowering of the PTX dialect (Dartagnan's, and the PTX part of GIN tests).

Event tags (the sets a cat model sees):

- semantics: ``WEAK``, ``RLX``, ``ACQ``, ``REL`` on memory events; ``.volatile``
  is ``.relaxed.sys`` (PTX ISA) and also tagged ``VOL``; fences carry ``SC``
  and ``ACQ_REL`` (a ``fence.sc`` is also a ``fence.acq_rel``, PTX ISA
  "Memory Consistency Model"), ``ACQ_REL``, or ``ACQ`` / ``REL`` for the
  PTX 8.6 one-directional fences; ``membar.{cta,gl,sys}`` is
  ``fence.sc.{cta,gpu,sys}``;
- scopes: ``CTA``, ``GPU``, ``SYS`` on strong operations and fences;
- read-modify-writes (``atom``, ``red``): a read and a write linked by ``rmw``,
  both tagged ``ATOM``; ``.acquire`` makes the read ``ACQ``, ``.release`` the
  write ``REL``, ``.acq_rel`` both, and the other half is ``RLX``;
  a ``cas`` whose comparison fails has no write;
- CTA barriers: ``bar.cta.sync`` is an arrival event (``BAR``, ``ARRIVE``)
  followed by a wait event (``BAR``, ``WAIT``); ``bar.cta.arrive`` is the
  arrival alone. The operands name the barrier: ``bar.cta.sync a`` is barrier
  (a), ``bar.cta.sync a, b`` is barrier (a, b) and ``bar.cta.sync a, b, c``
  is barrier (a, b) with a quorum of c threads — the reading that makes
  Dartagnan's Barrier and named-barrier tests come out as its expected table
  says (docs/ptx-barriers.md).

Proxies and the async proxy (PTX ISA §8.2, §8.6, §8.9.1.1; docs/models.md, ptx75):

- an event's ``loc`` is its memory location (physical: an alias ``y @ generic aliases
  x`` names x's location) and ``vloc`` its virtual address when that differs (``y``);
  a ``surface``/``texture``/``constant`` alias is the same virtual address as its
  target, used by another proxy (NVlabs/mixedproxy's ``virtually aliases``);
- proxy tags: ``SUR`` (sust, suld), ``TEX`` (tld), ``CON`` (ld.const / cold), ``ASYNC``
  (bulk copies); untagged memory events are generic. ``SHARED``: a shared-memory word,
  one copy per CTA (location ``s:ctaC``, or ``s:gpuG.ctaC`` off GPU 0);
- proxy fences are ``PROXY`` plus their kind: ``PFALIAS PFSUR PFTEX PFCON``, and
  ``PFASYNC`` with the state spaces it orders, ``PFSHARED`` and/or ``PFGLOBAL``;
- a TMA load ``cp.async.bulk s, x, mb`` is, on the async agent of the thread (not in
  its program order): a read of x and a write of s (``ASYNC``), the implicit
  generic-async proxy fence that follows completion (``PFIMPLICIT``, ISA §9.7.9.25.2)
  and the complete-tx on mb: an ``MBCTX`` read-modify-write adding one transaction;
  a TMA store ``cp.async.bulk x, s``: a read of s and a write of x (``ASYNC``);
- the static relation ``aob`` orders asynchronous events: the thread's earlier events
  before each async read and write (§8.9.1.1: "ordered after prior instructions"),
  an operation's read before its write, both before its implicit fence and its
  complete-tx (and only those: the complete-tx "does not transitively establish
  ordering with respect to prior instructions"), and the events of the bulk groups
  a ``cp.async.bulk.wait_group`` completes before that wait;
- an mbarrier is a shared word counting ``MBAR_UNIT`` per arrival, minus the
  transactions an ``arrive.expect_tx`` expects, plus one per completed transaction:
  arrive and complete-tx are read-modify-writes on it (``MBARRIVE``, release at CTA
  scope by default), and the thread's k-th ``mbarrier.wait`` is an acquire read that
  blocks until phase k is complete, i.e. the word is at least
  ``MBAR_UNIT * arrivals * (k + 1)`` (``MBWAIT``);
- ``mbarrier.init mb`` is a weak write of 0 to the CTA's copy of mb (``MBINIT
  SHARED``; PTX ISA §9.7.13.15.9: phase 0, no arrivals pending beyond the declared
  count); ``fence.mbarrier_init.release.cluster`` is a fence ``MBINITF`` (CTA scope, as
  the complete-tx: no clusters are modelled), a release restricted to the thread's
  earlier inits (ISA §9.7.13.4): not ``REL``, so that it orders nothing else
  (specs/ptx75-cause.cat, docs/ptx-pdl-mbarrier.md).

Programmatic dependent launch (PTX ISA §9.7.13.13; docs/ptx-pdl-mbarrier.md): a thread
placed ``grid N`` belongs to the N-th kernel of one stream (unplaced: grid 0), each
launched with programmatic stream serialization; ``griddepcontrol.wait`` is a fence
``GDWAIT`` and ``griddepcontrol.launch_dependents`` a marker ``GDLAUNCH``; the static
relation ``gdw`` links every event of every thread of an earlier grid to each
``GDWAIT`` of a later grid (:func:`grid_dependencies`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import field

from gdrcheck.dataclass_cache import dataclass
from gdrcheck.errors import UnsupportedError
from gdrcheck.litmus import ast as A
from gdrcheck.litmus.instructions import ClusterLayout, cluster_layout
from gdrcheck.lower.builder import PathState, Placement, ProgramBuilder
from gdrcheck.lower.program import BinOp, CmpExpr, Expr, Ite, ReadVal

SCOPE_TAG = {"cta": "CTA", "cluster": "CLUSTER", "gpu": "GPU", "sys": "SYS"}
PROXY_TAG = {"generic": None, "surface": "SUR", "texture": "TEX", "constant": "CON"}
FENCE_TAGS = {
    "proxy.alias": {"PFALIAS"},
    "proxy.surface": {"PFSUR"},
    "proxy.texture": {"PFTEX"},
    "proxy.constant": {"PFCON"},
    "proxy.async": {"PFASYNC", "PFSHARED", "PFGLOBAL"},
    "proxy.async.global": {"PFASYNC", "PFGLOBAL"},
    "proxy.async.shared::cta": {"PFASYNC", "PFSHARED"},
    "proxy.async.shared::cluster": {"PFASYNC", "PFSHARED"},
}
MBAR_UNIT = 1024
"""What one arrival adds to an mbarrier's word (more than the transactions a phase
expects in any litmus test)."""


@dataclass(frozen=True)
class Memory:
    """The memory of a PTX test: locations, virtual aliases, shared words, mbarriers."""

    physical: dict[str, str] = field(default_factory=dict)  # name -> its location's name
    virtual: dict[str, str] = field(default_factory=dict)  # name -> its virtual address
    shared: dict[str, int] = field(default_factory=dict)  # shared word -> initial value
    mbarriers: dict[str, int] = field(default_factory=dict)  # mbarrier -> arrivals/phase
    ranked: bool = False  # a GIN test: global locations are x@k (resolved by the dialect)
    layout: ClusterLayout = field(default_factory=lambda: ClusterLayout({}, {}))
    mapped: dict[tuple[int, str], tuple[str, int]] = field(default_factory=dict)
    """(thread, mapa destination) -> (the shared word it maps, the CTA rank in the cluster)."""
    cluster_threads: dict[tuple[int, object], int] = field(default_factory=dict)
    """(gpu, cluster key) -> the test's threads in that cluster (barrier.cluster's count)."""

    def _clusters(self, test: A.Test) -> None:
        """The clusters, the mapa names and the thread count of each cluster."""
        layout = cluster_layout(test.threads)
        self.layout.members.update(layout.members)
        self.layout.cluster_of.update(layout.cluster_of)
        for th in test.threads:
            if th.placement.host:
                continue
            gpu, cta = th.placement.gpu or 0, th.placement.cta or 0
            key = self._cluster_key(gpu, cta)
            self.cluster_threads[key] = self.cluster_threads.get(key, 0) + 1
            for ins in th.instrs:
                if isinstance(ins, A.PtxMapa):
                    self.mapped[(th.index, ins.dst)] = (ins.target.name, ins.rank)

    def _cluster_key(self, gpu: int, cta: int) -> tuple[int, object]:
        k = self.layout.cluster_of.get((gpu, cta))
        return (gpu, ("cta", cta) if k is None else k)

    def target(self, thread: int, name: str) -> str:
        """The shared word ``name`` is, or maps (a mapa destination of ``thread``)."""
        return self.mapped.get((thread, name), (name, 0))[0]

    def cluster_barrier(self, place: Placement) -> str:
        """The word that counts the arrivals at barrier.cluster of the thread's cluster
        (docs/ptx-clusters.md): ``barrier.cluster:clusterK`` (``:ctaC`` for a CTA launched
        without a cluster; ``gpuG.`` before it off GPU 0, ``@G`` after it in a GIN test)."""
        gpu, cta = place.gpu or 0, place.cta or 0
        k = self.layout.cluster_of.get((gpu, cta))
        word = f"cta{cta}" if k is None else f"cluster{k}"
        if self.ranked:
            return f"barrier.cluster:{word}@{gpu}"
        return f"barrier.cluster:{word}" if gpu == 0 else f"barrier.cluster:gpu{gpu}.{word}"

    def cluster_size(self, place: Placement) -> int:
        """How many threads of the test are in the thread's cluster."""
        return self.cluster_threads[self._cluster_key(place.gpu or 0, place.cta or 0)]

    @staticmethod
    def of(test: A.Test) -> Memory:
        mem = Memory()
        mem._clusters(test)
        for item in test.init:
            if isinstance(item, A.InitLoc):
                mem.physical[str(item.loc)] = str(item.loc)
                mem.virtual[str(item.loc)] = str(item.loc)
            elif isinstance(item, A.AliasDecl):
                mem.physical[item.name] = mem.physical.get(item.target, item.target)
                # a generic alias is a second virtual address; a surface, texture or
                # constant reference uses its target's address through another proxy
                mem.virtual[item.name] = (item.name if item.proxy == "generic"
                                          else mem.virtual.get(item.target, item.target))
            elif isinstance(item, A.SharedDecl):
                mem.shared[item.name] = item.value
            elif isinstance(item, A.MbarrierDecl):
                mem.mbarriers[item.name] = item.count
        return mem

    @staticmethod
    def of_gin(test: A.Test) -> Memory:
        """The shared words and mbarriers of a GIN test (its global locations are the
        ranks' memory, x@k, named by the GIN lowering; virtual aliases are PTX only)."""
        mem = Memory(ranked=True)
        mem._clusters(test)
        for item in test.init:
            if isinstance(item, A.AliasDecl):
                raise UnsupportedError("virtual aliases are supported in PTX tests only",
                                       test.path, item.pos, test.source)
            if isinstance(item, A.SharedDecl):
                mem.shared[item.name] = item.value
            elif isinstance(item, A.MbarrierDecl):
                mem.mbarriers[item.name] = item.count
        return mem

    def is_shared(self, name: str) -> bool:
        return name in self.shared or name in self.mbarriers

    def copy(self, name: str, place: Placement) -> str:
        """The CTA's copy of a shared word (on rank k in a GIN test: s:ctaC@k)."""
        if self.ranked:
            return f"{name}:cta{place.cta or 0}@{place.gpu or 0}"
        return shared_copy(name, place)

    @staticmethod
    def shared_name(loc: str) -> str | None:
        """The shared word a location is a CTA copy of, if it is one."""
        return loc.split(":", 1)[0] if ":" in loc else None

    def locate(self, ref: A.LocRef, place: Placement,
               thread: int = -1) -> tuple[str, str | None]:
        """The location of ``ref`` for thread ``thread`` at ``place``, and its virtual
        address when that differs. A mapa destination names the copy of its shared word in
        the CTA of its rank in the thread's cluster (PTX ISA mapa, shared::cluster)."""
        name = str(ref)
        if (thread, name) in self.mapped:
            word, rank = self.mapped[(thread, name)]
            gpu = place.gpu or 0
            peer = self.layout.ctas(gpu, place.cta or 0)[rank]
            return self.copy(word, Placement(peer, place.gpu, place.node, place.cluster)), None
        if self.is_shared(name):
            return self.copy(name, place), None
        loc = self.physical.get(name, name)
        va = self.virtual.get(name, name)
        return loc, (va if va != loc else None)


def shared_copy(name: str, place: Placement) -> str:
    """The CTA's copy of a shared-memory word."""
    if place.gpu in (None, 0):
        return f"{name}:cta{place.cta or 0}"
    return f"{name}:gpu{place.gpu}.cta{place.cta or 0}"

COND = {"eq": "eq", "ne": "ne", "lt": "lt", "le": "le", "gt": "gt", "ge": "ge"}


def value(st: PathState, v: A.Value) -> Expr:
    if isinstance(v, A.Const):
        return v.value
    return st.reg(v.name)


def _mem_tags(sem: str, scope: str | None, kind: str) -> tuple[set[str], str | None]:
    if sem == "volatile":
        return {"RLX", "VOL", "SYS"}, "sys"
    if sem == "weak":
        return {"WEAK"}, None
    tag = {"relaxed": "RLX", "acquire": "ACQ", "release": "REL"}.get(sem)
    if tag is None:
        raise UnsupportedError(f"'.{sem}' is not a semantics of a {kind}")
    assert scope is not None
    return {tag, SCOPE_TAG[scope]}, scope


def _rmw_tags(sem: str, scope: str) -> tuple[set[str], set[str]]:
    s = SCOPE_TAG[scope]
    read_sem = "ACQ" if sem in ("acquire", "acq_rel") else "RLX"
    write_sem = "REL" if sem in ("release", "acq_rel") else "RLX"
    if sem not in ("relaxed", "acquire", "release", "acq_rel"):
        raise UnsupportedError(f"'.{sem}' is not a semantics of an atomic operation")
    return {read_sem, s, "ATOM"}, {write_sem, s, "ATOM"}


def loc_name(loc: A.LocRef) -> str:
    return str(loc)


_ASYNC_INSTRS = (A.PtxBulkLoad, A.PtxBulkStore, A.PtxMbarArrive, A.PtxMbarWait, A.PtxMbarInit,
                 A.PtxMapa, A.PtxClusterBarrier, A.PtxStoreAsync)
CLUSTER_BARRIER = "barrier.cluster"
"""The key of barrier.cluster in a path's wait counts (AsyncState.waits)."""


def step(
    st: PathState, ins: A.Instr, label: str, labels: dict[str, int],
    resolve: Callable[[A.LocRef], str] = loc_name, memory: Memory | None = None,
) -> Iterator[PathState]:
    here = st.pc
    st.pc += 1

    def where(ref: A.LocRef) -> tuple[str, str | None, set[str]]:
        """Location, virtual address and state-space tags of ``ref``."""
        shared = memory is not None and memory.is_shared(memory.target(st.thread, str(ref)))
        if memory is None or (memory.ranked and not shared):
            return resolve(ref), None, set()
        loc, va = memory.locate(ref, st.place, st.thread)
        return loc, va, ({"SHARED"} if shared else set())

    if memory is None and isinstance(ins, _ASYNC_INSTRS):
        raise UnsupportedError("mbarriers and TMA copies are supported in PTX tests only",
                               pos=ins.pos)
    if isinstance(ins, A.PtxLoad):
        tags, scope = _mem_tags(ins.sem, ins.scope, "load")
        if "REL" in tags:
            raise UnsupportedError("a load cannot be '.release'", pos=ins.pos)
        loc, va, space = where(ins.loc)
        ptag = PROXY_TAG[ins.proxy]
        st.regs[ins.dst.name] = st.read(loc, tags | space | ({ptag} if ptag else set()), label,
                                        scope=scope, pos=ins.pos, vloc=va)
    elif isinstance(ins, A.PtxStore):
        tags, scope = _mem_tags(ins.sem, ins.scope, "store")
        if "ACQ" in tags:
            raise UnsupportedError("a store cannot be '.acquire'", pos=ins.pos)
        loc, va, space = where(ins.loc)
        ptag = PROXY_TAG[ins.proxy]
        st.emit("W", loc, tags | space | ({ptag} if ptag else set()), label,
                value=value(st, ins.value), scope=scope, pos=ins.pos, vloc=va)
    elif isinstance(ins, (A.PtxAtom, A.PtxRed)):
        loc, va, space = where(ins.loc)
        yield from _rmw(st, ins, label, loc, space, va)
        return
    elif isinstance(ins, A.PtxAsyncStore):
        # the async proxy's write (PTX ISA 8.9.1.1: ordered after the thread's prior
        # instructions, not part of its program order: the models decide)
        loc, va, space = where(ins.loc)
        w = st.emit("W", loc, {"WEAK", "ASYNC"} | space, label, value=value(st, ins.value),
                    pos=ins.pos, vloc=va)
        st.asyncs.groups[-1].append(w.eid)
    elif isinstance(ins, A.PtxBulkLoad):
        assert memory is not None
        _bulk_load(st, ins, label, memory, where)
    elif isinstance(ins, A.PtxBulkStore):
        _bulk_store(st, ins, label, where)
    elif isinstance(ins, A.PtxBulkCommit):
        st.asyncs.groups.append([])
    elif isinstance(ins, A.PtxMbarArrive):
        # the mbarrier may be a peer CTA's (a mapa name: a remote arrive, shared::cluster);
        # .scope is .cta (the default) or .cluster (PTX ISA mbarrier.arrive)
        loc, _, _ = where(ins.mbar)
        sem = "REL" if ins.sem == "release" else "RLX"
        tags = {SCOPE_TAG[ins.scope], "ATOM", "MBAR", "MBARRIVE", "SHARED"}
        rv = st.read(loc, tags | {"RLX"}, label, scope=ins.scope, pos=ins.pos)
        add = MBAR_UNIT - (ins.expect_tx or 0)
        w = st.emit("W", loc, tags | {sem}, label, value=BinOp("add", rv, add), scope=ins.scope,
                    pos=ins.pos)
        st.builder.rmw.add((rv.eid, w.eid))
    elif isinstance(ins, A.PtxMbarWait):
        assert memory is not None
        loc, _, _ = where(ins.mbar)
        name = str(ins.mbar)
        phase = st.asyncs.waits.get(name, 0)
        st.asyncs.waits[name] = phase + 1
        sem = "ACQ" if ins.sem == "acquire" else "RLX"
        rv = st.read(loc, {sem, SCOPE_TAG[ins.scope], "MBAR", "MBWAIT", "SHARED"}, label,
                     scope=ins.scope, pos=ins.pos)
        need = MBAR_UNIT * memory.mbarriers[name] * (phase + 1)
        if st.assume(CmpExpr("ge", rv, need)):
            yield st
        return
    elif isinstance(ins, A.PtxMbarInit):
        assert memory is not None
        name = str(ins.mbar)
        if ins.count is not None and ins.count != memory.mbarriers[name]:
            raise UnsupportedError(
                f"{name!r} is declared with {memory.mbarriers[name]} arrivals per phase: "
                f"write 'mbarrier.init {name}, {memory.mbarriers[name]}' (or no count)",
                pos=ins.pos)
        loc, _, _ = where(ins.mbar)
        st.emit("W", loc, {"WEAK", "MBINIT", "SHARED"}, label, value=0, pos=ins.pos)
    elif isinstance(ins, A.PtxMapa):
        pass  # an address computation: the accesses through it name the peer's copy
    elif isinstance(ins, A.PtxClusterBarrier):
        assert memory is not None
        yield from _cluster_barrier(st, ins, label, memory)
        return
    elif isinstance(ins, A.PtxStoreAsync):
        _store_async(st, ins, label, where)
    elif isinstance(ins, A.PtxGridDep):
        tag = "GDWAIT" if ins.action == "wait" else "GDLAUNCH"
        st.emit("F", None, {tag}, label, pos=ins.pos)
    elif isinstance(ins, A.PtxAsyncWait):
        # docs/litmus-format.md §7.3: the open group is committed before a wait; then every
        # committed group but the ins.groups most recent ones is complete
        # (PTX ISA cp.async.bulk.wait_group: the completed operations have read their
        # sources and written their destinations, the writes made visible to the
        # executing thread; with .read, only the source reads are waited for)
        groups = st.asyncs.groups
        if groups[-1]:
            groups.append([])
        committed = groups[:-1]
        keep = max(len(committed) - ins.groups, 0)
        done = [e for g in committed[:keep] for e in g]
        if ins.read:
            done = [e for e in done if st.builder.events[e].kind == "R"]
        else:
            st.asyncs.groups = committed[keep:] + [groups[-1]]
        w = st.emit("F", None, {"ASYNCWAIT"}, label, pos=ins.pos)
        st.builder.relations["aob"].update((e, w.eid) for e in done)
    elif isinstance(ins, A.PtxFence):
        if ins.kind == "mbarrier_init.release.cluster":
            st.emit("F", None, {"MBINITF", "CLUSTER"}, label, scope="cluster", pos=ins.pos)
        elif ins.kind.startswith("proxy"):
            st.emit("F", None, {"PROXY"} | FENCE_TAGS.get(ins.kind, set()), label, pos=ins.pos)
        else:
            kind_tags = {
                "sc": {"SC", "ACQ_REL"},
                "acq_rel": {"ACQ_REL"},
                "acquire": {"ACQ"},
                "release": {"REL"},
            }.get(ins.kind)
            if kind_tags is None or ins.scope is None:
                raise UnsupportedError(f"unsupported fence 'fence.{ins.kind}'", pos=ins.pos)
            st.emit("F", None, kind_tags | {SCOPE_TAG[ins.scope]}, label, scope=ins.scope,
                    pos=ins.pos)
    elif isinstance(ins, A.PtxBarrier):
        ops = [value(st, v) for v in ins.operands]
        if not ops:
            raise UnsupportedError("a barrier needs an id", pos=ins.pos)
        quorum: int | None = None
        if len(ops) >= 3:
            q = ops[2]
            if not isinstance(q, int):
                raise UnsupportedError("a barrier's thread count must be a constant",
                                       pos=ins.pos)
            quorum = q
        bid = tuple(ops[:2])
        st.emit("F", None, {"BAR", "ARRIVE", "CTA"}, label, scope="cta", pos=ins.pos,
                barrier_id=bid, quorum=quorum)
        if ins.mode == "sync":
            st.emit("F", None, {"BAR", "WAIT", "CTA"}, label, scope="cta", pos=ins.pos,
                    barrier_id=bid, quorum=quorum)
    elif isinstance(ins, A.LocalOp):
        args = [value(st, v) for v in ins.args]
        if ins.op == "mov":
            st.regs[ins.dst.name] = args[0]
        else:
            st.regs[ins.dst.name] = BinOp(ins.op, args[0], args[1])
    elif isinstance(ins, A.Setp):  # no branch: the predicate is a value, 1 or 0
        cond = CmpExpr(COND[ins.cond], value(st, ins.a), value(st, ins.b))
        st.regs[ins.dst.name] = Ite(cond, 1, 0)
    elif isinstance(ins, A.Selp):  # no branch: the path goes on whatever c holds
        # kept as written, like add's BinOp: an event whose value uses it depends on
        # the reads of a, b and c (syntactic dependencies, as herd's), however it folds
        pred = CmpExpr("ne", value(st, ins.c), 0)
        st.regs[ins.dst.name] = Ite(pred, value(st, ins.a), value(st, ins.b))
    elif isinstance(ins, A.Label):
        pass
    elif isinstance(ins, A.Goto):
        st.pc = _target(labels, ins.target, ins)
    elif isinstance(ins, A.Branch):
        target = _target(labels, ins.target, ins)
        fork = st.fork(CmpExpr(COND[ins.cond], value(st, ins.a), value(st, ins.b)))
        if fork is True:
            st.pc = target
        elif fork is False:
            pass
        else:
            taken, fallthrough = fork
            taken.pc = target
            fallthrough.pc = here + 1
            yield fallthrough
            yield taken
            return
    else:
        raise UnsupportedError(
            f"instruction not supported in this dialect: {type(ins).__name__}", pos=ins.pos
        )
    yield st


def grid_dependencies(b: ProgramBuilder, test: A.Test) -> None:
    """The static relation ``gdw``: every event of a thread of grid j to each
    ``griddepcontrol.wait`` of a thread of grid k > j ("wait until all prerequisite grids
    in flight have completed and all the memory operations from the prerequisite grids
    are performed and made visible", PTX ISA §9.7.13.13). Empty without grids."""
    grid = {t.index: t.placement.grid or 0 for t in test.threads}
    waits = [e for e in b.events if "GDWAIT" in e.tags]
    b.relations["gdw"] = {
        (e.eid, w.eid) for w in waits for e in b.events
        if e.thread >= 0 and grid.get(e.thread, 0) < grid.get(w.thread, 0)}


def _target(labels: dict[str, int], name: str, ins: A.Goto | A.Branch) -> int:
    if name not in labels:
        raise UnsupportedError(f"label {name} is not defined in this thread", pos=ins.pos)
    return labels[name]


def _bulk_load(st: PathState, ins: A.PtxBulkLoad, label: str, memory: Memory,
               where: Callable[[A.LocRef], tuple[str, str | None, set[str]]]) -> None:
    """A TMA load: async read of global x, async write of shared s, the implicit
    generic-async proxy fence, the complete-tx on the mbarrier (see the module doc)."""
    prior = st.before()
    src, src_va, _ = where(ins.src)
    dst, _, _ = where(ins.dst)
    mb, _, _ = where(ins.mbar)
    r = st.emit("R", src, {"WEAK", "ASYNC"}, label, pos=ins.pos, agent="async", vloc=src_va)
    w = st.emit("W", dst, {"WEAK", "ASYNC", "SHARED"}, label, value=ReadVal(r.eid),
                pos=ins.pos, agent="async")
    f = st.emit("F", None, {"PROXY", "PFASYNC", "PFSHARED", "PFGLOBAL", "PFIMPLICIT"}, label,
                pos=ins.pos, agent="async")
    tags = {"CLUSTER", "ATOM", "MBAR", "MBCTX", "SHARED"}
    cr = st.emit("R", mb, tags | {"RLX"}, label, scope="cluster", pos=ins.pos, agent="async")
    cw = st.emit("W", mb, tags | {"REL"}, label, value=BinOp("add", ReadVal(cr.eid), 1),
                 scope="cluster", pos=ins.pos, agent="async")
    st.builder.rmw.add((cr.eid, cw.eid))
    aob = st.builder.relations["aob"]
    aob.update((p, e.eid) for p in prior for e in (r, w))
    ops = [r.eid, w.eid, f.eid, cr.eid, cw.eid]
    aob.update((a, b) for i, a in enumerate(ops) for b in ops[i + 1:])


def _cluster_barrier(st: PathState, ins: A.PtxClusterBarrier, label: str,
                     memory: Memory) -> Iterator[PathState]:
    """barrier.cluster (PTX ISA §9.7.13.3; docs/ptx-clusters.md) on a word of the cluster
    that counts arrivals: an arrive is an atomic add of one at cluster scope (its write
    ``REL`` by default, ``RLX`` with ``.relaxed``), a thread's k-th wait an acquire read at
    cluster scope that blocks until every thread of the test in the cluster has arrived
    k + 1 times. Tags ``CBAR`` with ``CBARRIVE`` or ``CBWAIT``."""
    loc = memory.cluster_barrier(st.place)
    if ins.action == "arrive":
        tags = {"CLUSTER", "ATOM", "CBAR", "CBARRIVE"}
        rv = st.read(loc, tags | {"RLX"}, label, scope="cluster", pos=ins.pos)
        w = st.emit("W", loc, tags | {"REL" if ins.sem == "release" else "RLX"}, label,
                    value=BinOp("add", rv, 1), scope="cluster", pos=ins.pos)
        st.builder.rmw.add((rv.eid, w.eid))
        yield st
        return
    phase = st.asyncs.waits.get(CLUSTER_BARRIER, 0)
    st.asyncs.waits[CLUSTER_BARRIER] = phase + 1
    rv = st.read(loc, {"ACQ", "CLUSTER", "CBAR", "CBWAIT"}, label, scope="cluster",
                 pos=ins.pos)
    if st.assume(CmpExpr("ge", rv, memory.cluster_size(st.place) * (phase + 1))):
        yield st


_RED_ASYNC_OP = {"add": "add", "min": "min", "max": "max", "and": "and", "or": "or",
                 "xor": "xor"}


def _store_async(st: PathState, ins: A.PtxStoreAsync, label: str,
                 where: Callable[[A.LocRef], tuple[str, str | None, set[str]]]) -> None:
    """st.async / red.async (PTX ISA; docs/ptx-clusters.md): an asynchronous weak write
    (st.async) or relaxed cluster-scope read-modify-write (red.async) of a shared word of a
    CTA of the cluster, in the generic proxy, not in program order (ordered after the
    thread's earlier events, aob), then a complete-tx of one transaction on the mbarrier
    of that CTA, release at cluster scope, ordered after the write only (aob)."""
    prior = st.before()
    loc, _, space = where(ins.loc)
    mb, _, _ = where(ins.mbar)
    data: list[int] = []
    if ins.op is None:
        w = st.emit("W", loc, {"WEAK", "STASYNC"} | space, label, value=value(st, ins.value),
                    pos=ins.pos, agent="async")
        data.append(w.eid)
    else:
        tags = {"CLUSTER", "ATOM", "STASYNC"} | space
        r = st.emit("R", loc, tags | {"RLX", "RED"}, label, scope="cluster", pos=ins.pos,
                    agent="async")
        w = st.emit("W", loc, tags | {"RLX"}, label,
                    value=BinOp(_RED_ASYNC_OP[ins.op], ReadVal(r.eid), value(st, ins.value)),
                    scope="cluster", pos=ins.pos, agent="async")
        st.builder.rmw.add((r.eid, w.eid))
        st.builder.data.add((r.eid, w.eid))
        data += [r.eid, w.eid]
    tags = {"CLUSTER", "ATOM", "MBAR", "MBCTX", "SHARED"}
    cr = st.emit("R", mb, tags | {"RLX"}, label, scope="cluster", pos=ins.pos, agent="async")
    cw = st.emit("W", mb, tags | {"REL"}, label, value=BinOp("add", ReadVal(cr.eid), 1),
                 scope="cluster", pos=ins.pos, agent="async")
    st.builder.rmw.add((cr.eid, cw.eid))
    aob = st.builder.relations["aob"]
    aob.update((p, e) for p in prior for e in data)
    ops = data + [cr.eid, cw.eid]
    aob.update((a, b) for i, a in enumerate(ops) for b in ops[i + 1:])


def _bulk_store(st: PathState, ins: A.PtxBulkStore, label: str,
                where: Callable[[A.LocRef], tuple[str, str | None, set[str]]]) -> None:
    """A TMA store: async read of shared s, async write of global x, in the thread's
    open bulk group."""
    prior = st.before()
    src, _, _ = where(ins.src)
    dst, dst_va, _ = where(ins.dst)
    r = st.emit("R", src, {"WEAK", "ASYNC", "SHARED"}, label, pos=ins.pos, agent="async")
    w = st.emit("W", dst, {"WEAK", "ASYNC"}, label, value=ReadVal(r.eid), pos=ins.pos,
                agent="async", vloc=dst_va)
    aob = st.builder.relations["aob"]
    aob.update((p, e.eid) for p in prior for e in (r, w))
    aob.add((r.eid, w.eid))
    st.asyncs.groups[-1].extend([r.eid, w.eid])


def _rmw(st: PathState, ins: A.PtxAtom | A.PtxRed, label: str,
         loc: str, space: set[str] | None = None,
         va: str | None = None) -> Iterator[PathState]:
    rtags, wtags = _rmw_tags(ins.sem, ins.scope)
    if isinstance(ins, A.PtxRed):  # PTX ISA §8.8: its strong read forms no acquire pattern
        rtags.add("RED")
    rtags |= space or set()
    wtags |= space or set()
    rv = st.read(loc, rtags, label, scope=ins.scope, pos=ins.pos, vloc=va)
    if isinstance(ins, A.PtxAtom):
        st.regs[ins.dst.name] = rv
        operands = [value(st, v) for v in ins.operands]
        op = ins.op
    else:
        operands = [value(st, ins.value)]
        op = ins.op
    if op == "cas":
        if len(operands) != 2:
            raise UnsupportedError("atom.cas needs a compare value and a new value", pos=ins.pos)
        fork = st.fork(CmpExpr("eq", rv, operands[0]))
        branches = [(st, fork)] if isinstance(fork, bool) else [(fork[0], True), (fork[1], False)]
        for s, equal in branches:
            if equal:
                w = s.emit("W", loc, wtags, label, value=operands[1], scope=ins.scope,
                           pos=ins.pos, vloc=va)
                s.builder.rmw.add((rv.eid, w.eid))
            yield s
        return
    if op == "exch":
        new: Expr = operands[0]
    elif op in ("inc", "dec"):
        new = BinOp("add" if op == "inc" else "sub", rv, 1)
    elif op in ("add", "sub", "mul", "div", "and", "or", "xor", "min", "max"):
        new = BinOp(op, rv, operands[0])
    else:
        raise UnsupportedError(f"unsupported atomic operation '{op}'", pos=ins.pos)
    w = st.emit("W", loc, wtags, label, value=new, scope=ins.scope, pos=ins.pos, vloc=va)
    st.builder.rmw.add((rv.eid, w.eid))
    st.builder.data.add((rv.eid, w.eid))
    yield st
