"""Lowering of GIN and NVSHMEM device calls into events (docs/lowering.md).

Every call becomes the same events whatever the backend; the models
(specs/gin-*.cat, specs/nvshmem-*.cat) give them their orders. An operation
(put, put_value, signal, get, NVSHMEM put/p/put_signal/signal_op/atomic_add/get)
is:

- an ``ISSUE`` fence event in the issuing thread's program order, carrying the
  operation's kind (``PUT GET SIGOP AMOOP``), its release scopes
  (``GIVEN_THREAD|CTA|GPU|SYS``, ``REQ_GPU|SYS``), ``AGG`` and, for NVSHMEM,
  ``BLOCKING``;
- a ``PXY`` event: the rank's CPU proxy taking the descriptor (only the proxy
  models give it a meaning);
- the NIC's accesses, one agent per queue (rank, context, peer), outside the
  thread's po, all strong at system scope (``RLX SYS``):
  ``NR`` reads (the source words at the issuer, ``LCL``; a get's remote words at
  the peer, ``RSP``), ``NW`` writes (at the peer, ``RSP``, or a get's local
  words, ``LCL``) whose value is the matching read's (a data edge), the signal
  ``SIG`` (a read-modify-write on the peer's signal word: ``STRONG|WEAK|LEGACY``,
  ``IDX|VA``, ``INC|ADD|SET``), ``AMO`` (NVSHMEM atomic_add), the counter
  ``CTR`` (a read-modify-write at the issuer) and the local completion ``LC``;
  writes and atomics at a peer carry the registration of their target: ``SO``
  (strict: signal tables, counters, ``window W strict``) or ``RO`` (a data
  window NCCL registers relaxed-capable; the whole NVSHMEM symmetric heap);
- the static relations ``op`` (same operation), ``qp``, ``sctx``, ``speer``
  (engine/base.py).

Markers: ``FLUSH`` (gin.flush), ``FLUSHREQ`` (gin.flush_async) and ``REQWAIT``
(gin.wait), which share the request's ``op``, ``QUIET``, ``SHFENCE`` (NVSHMEM). GIN waits
are acquire reads at system scope (``GWAIT``) whose value must satisfy the
condition; NVSHMEM's are volatile reads (``GWAIT RLX SYS VOL``, ``WAITUNTIL`` or
``SIGWAITUNTIL``), and shmem.wait_until adds the ``__threadfence()`` it ends with
(``F SC GPU SYNCAPI``); resets are relaxed system-scope stores of 0 (``RESET``). A GIN
barrier (and shmem.barrier_all) is lowered as NCCL implements it (R-GIN-15):
each rank signals every rank, itself included, with a legacy SignalInc on the
barrier's context(s), then waits for everyone's signal; at level ``get`` it
flushes afterwards. Its signals carry ``BARSIG`` (and ``BARNONE`` at level
none).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import field

from gdrcheck.dataclass_cache import dataclass
from gdrcheck.errors import NOPOS, LitmusError, Pos, UnsupportedError
from gdrcheck.litmus import ast as A
from gdrcheck.lower.builder import PathState
from gdrcheck.lower.program import BinOp, CmpExpr, Expr, ReadVal, WaitSite

SHMEM_CTX = "shmem"
SCOPE_TAG = {"thread": "GIVEN_THREAD", "cta": "GIVEN_CTA", "gpu": "GIVEN_GPU",
             "sys": "GIVEN_SYS"}
CMP = {">=": "ge", "==": "eq", "!=": "ne", ">": "gt", "<": "lt", "<=": "le"}


@dataclass
class World:
    """What the init block and the thread placements say about the machine."""

    ranks: list[int]
    node_of: dict[int, int | None]
    contexts: list[str]
    signals: frozenset[str]
    counters: frozenset[str]
    hosts: frozenset[str]
    strict: frozenset[str]  # window members registered NCCL_WIN_STRICT_ORDERING
    only_on: dict[str, set[int]]  # names declared on some ranks only (buf@0 = 1)
    windows: dict[str, tuple[str, ...]] = field(default_factory=dict)  # window -> members
    path: str | None = None
    source: str | None = None
    next_op: int = 0
    barrier_gen: dict[tuple[int, str], int] = field(default_factory=dict)
    # (thread, request name) -> (operation id, context, instruction) of gin.flush_async
    requests: dict[tuple[int, str], tuple[int, str, int]] = field(default_factory=dict)
    # line window -> its members' byte offsets in one 128-byte aligned line
    lines: dict[str, tuple[int, ...]] = field(default_factory=dict)

    def new_op(self) -> int:
        self.next_op += 1
        return self.next_op

    def loc(self, ref: A.LocRef, rank: int | None) -> str:
        """The canonical name ``x@k`` of ``ref`` named by a thread of ``rank``."""
        k = ref.rank if ref.rank is not None else rank
        if k is None:
            raise UnsupportedError(
                f"'{ref.name}' needs a rank here: write {ref.name}@k", pos=ref.pos)
        if k not in self.ranks:
            raise UnsupportedError(f"there is no rank {k} in this test", pos=ref.pos)
        if ref.name in self.only_on and k not in self.only_on[ref.name]:
            where = ", ".join(str(r) for r in sorted(self.only_on[ref.name]))
            raise UnsupportedError(
                f"'{ref.name}' is declared on rank {where} only, not on rank {k}", pos=ref.pos)
        return f"{ref.name}@{k}"


def _scope_tags(opts: A.GinOptions) -> set[str]:
    return {SCOPE_TAG[opts.given or "thread"], "REQ_SYS" if opts.required == "sys" else "REQ_GPU"}


@dataclass
class _Op:
    """Emits the events of one operation on one queue."""

    st: PathState
    world: World
    family: str  # GIN | SHMEM
    ctx: str
    peer: int
    op: int
    label: str
    pos: object

    @property
    def rank(self) -> int:
        r = self.st.place.gpu
        assert r is not None
        return r

    @property
    def agent(self) -> str:
        return f"nic{self.rank}.{self.ctx}.{self.peer}"

    def _kw(self) -> dict[str, object]:
        return {"op": self.op, "rank": self.rank, "ctx": self.ctx, "peer": self.peer,
                "pos": self.pos}

    @property
    def cta_tags(self) -> set[str]:
        """NVSHMEM operations carry the parity of the issuing thread's CTA id: NVSHMEM
        3.4.5 picks the RC QP to a PE by CTA id modulo IBGDA_NUM_RC_PER_PE (2 by
        default), and nvshmem-ibgda's variant ibgda-qp-per-cta reads it."""
        if self.family != "SHMEM":
            return set()
        return {"CTAODD" if (self.st.place.cta or 0) % 2 else "CTAEVEN"}

    def issue(self, tags: set[str]) -> None:
        self.st.emit("F", None, {self.family, "ISSUE"} | tags | self.cta_tags, self.label,
                     **self._kw())  # type: ignore[arg-type]
        self.st.emit("F", None, {self.family, "PXY"} | self.cta_tags, f"{self.label} / proxy",
                     agent=f"proxy{self.rank}", **self._kw())  # type: ignore[arg-type]

    def nic(self, kind: str, loc: str | None, tags: set[str], what: str,
            value: Expr | None = None) -> ReadVal | None:
        base = {self.family, "NIC"} | tags | self.cta_tags
        if kind in ("R", "W"):
            base |= {"RLX", "SYS"}
        ev = self.st.emit(kind, loc, base, f"{self.label} / {what}", value=value,
                          scope="sys" if kind in ("R", "W") else None, agent=self.agent,
                          **self._kw())  # type: ignore[arg-type]
        return ReadVal(ev.eid) if kind == "R" else None

    def rmw(self, loc: str, tags: set[str], what: str, update: Callable[[Expr], Expr]) -> None:
        r = self.nic("R", loc, tags | {"ATOM"}, f"{what} R")
        assert r is not None
        w = self.st.emit("W", loc, {self.family, "NIC", "RLX", "SYS", "ATOM"} | tags
                         | self.cta_tags,
                         f"{self.label} / {what} W", value=update(r), scope="sys",
                         agent=self.agent, **self._kw())  # type: ignore[arg-type]
        self.st.builder.rmw.add((r.eid, w.eid))
        self.st.builder.data.add((r.eid, w.eid))

    def local_completion(self) -> None:
        self.nic("F", None, {"LC"}, "local completion")


def _registration(world: World, loc_name: str, family: str) -> str:
    name = loc_name.rsplit("@", 1)[0]
    if family == "SHMEM":
        return "RO"  # the symmetric heap is one registration (R-IBGDA-6)
    if name in world.signals or name in world.counters or name in world.strict:
        return "SO"
    return "RO"


def _signal(o: _Op, spec: A.SignalSpec | None, *, strength: str | None = None,
            legacy: bool = False, target: str | None = None, amount: int = 1,
            explicit: bool = False, extra: set[str] | None = None) -> None:
    if spec is not None:
        loc = o.world.loc(spec.target, o.peer)
        kind = spec.kind
        amount, explicit = spec.amount, spec.explicit_amount
        if kind == "va":
            tags = {"VA", "LEGACY"}
        elif kind == "legacy":
            tags = {"IDX", "LEGACY"}
        else:
            tags = {"IDX", "STRONG" if kind == "strong" else "WEAK"}
    else:
        assert target is not None
        loc = target
        tags = {"IDX", "LEGACY" if legacy else (strength or "STRONG")}
    reg = "SO" if target is not None else _registration(o.world, loc, o.family)
    tags |= {"SIG", "RSP", reg,
             "ADD" if explicit else "INC"} | (extra or set())
    o.rmw(loc, tags, f"signal {loc}", lambda r: BinOp("add", r, amount))


def _words(world: World, ref: A.LocRef) -> list[A.LocRef]:
    """A put of a window moves each of its words (R-IB-4: in no particular order)."""
    members = world.windows.get(ref.name)
    if members is None:
        return [ref]
    return [A.LocRef(m, ref.rank, ref.pos) for m in members]


def _line_order(st: PathState, placed: list[tuple[int, int]]) -> None:
    """``line-order``: the words one RDMA WRITE puts into a 128-byte line window, lower
    address first (a static relation; the models decide whether placement follows it:
    ib-rc.cat, variants ll128-x86-pcie and gh200-c2c)."""
    pairs = st.builder.relations.setdefault("line-order", set())
    for off_a, a in placed:
        pairs.update((a, b) for off_b, b in placed if off_a < off_b)


def _local(ref: A.LocRef, rank: int | None, what: str) -> None:
    """A get's destination and a put's source are in the issuer's own memory."""
    if ref.rank is not None and rank is not None and ref.rank != rank:
        raise LitmusError(f"{what} is in the issuing rank's own memory: write {ref.name}, "
                          f"not {ref.name}@{ref.rank} (this thread is on rank {rank})",
                          pos=ref.pos)


def _into_signal(world: World, loc_name: str) -> set[str]:
    """``SIGMEM`` on a data write into a declared signal or counter word."""
    name = loc_name.rsplit("@", 1)[0]
    return {"SIGMEM"} if name in world.signals or name in world.counters else set()


def _put(st: PathState, world: World, ins: A.GinPut, label: str) -> None:
    rank = st.place.gpu
    if isinstance(ins.src, A.LocRef):
        _local(ins.src, rank, "the source of a put")
    dsts = _words(world, ins.dst)
    peer_ref = world.loc(dsts[0], rank)
    peer = int(peer_ref.rsplit("@", 1)[1])
    o = _Op(st, world, "GIN", ins.ctx, peer, world.new_op(), label, ins.pos)
    tags = {"PUT"} | _scope_tags(ins.options) | ({"AGG"} if ins.options.aggregate else set())
    o.issue(tags)
    srcs: list[A.LocRef] | None = None
    if isinstance(ins.src, A.LocRef):
        srcs = _words(world, ins.src)
        if len(srcs) != len(dsts):
            raise UnsupportedError(
                f"the source has {len(srcs)} word(s) and the destination {len(dsts)}",
                pos=ins.pos)
    offsets = world.lines.get(ins.dst.name)
    placed: list[tuple[int, int]] = []  # (byte offset, write event) of a line window's words
    for i, dref in enumerate(dsts):
        dst = world.loc(dref, rank)
        if srcs is not None:
            src = world.loc(srcs[i], rank)
            v: Expr | None = o.nic("R", src, {"NR", "LCL"}, f"read {src}")
        else:
            assert isinstance(ins.src, A.Const)
            v = ins.src.value
        line = set() if offsets is None else {"LINE", "HALF0" if offsets[i] < 64 else "HALF1"}
        o.nic("W", dst, {"NW", "RSP", _registration(world, dst, "GIN")} | _into_signal(world, dst)
              | line, f"write {dst}", value=v)
        if offsets is not None:
            placed.append((offsets[i], st.builder.events[-1].eid))
    _line_order(st, placed)
    if ins.signal is not None:
        _signal(o, ins.signal)
    o.local_completion()
    if ins.counter is not None:
        c = world.loc(A.LocRef(ins.counter), rank)
        o.rmw(c, {"CTR", "LCL", "SO"}, f"counter {c}", lambda r: BinOp("add", r, 1))


def _gin_signal(st: PathState, world: World, ins: A.GinSignal, label: str) -> None:
    target = world.loc(ins.signal.target, st.place.gpu)
    peer = int(target.rsplit("@", 1)[1])
    o = _Op(st, world, "GIN", ins.ctx, peer, world.new_op(), label, ins.pos)
    o.issue({"SIGOP"} | _scope_tags(ins.options)
            | ({"AGG"} if ins.options.aggregate else set()))
    _signal(o, ins.signal)
    o.local_completion()


def _get(st: PathState, world: World, family: str, ctx: str, dst_ref: A.LocRef,
         src_ref: A.LocRef, label: str, pos: object, blocking: bool) -> None:
    rank = st.place.gpu
    _local(dst_ref, rank, "the destination of a get")
    src = world.loc(src_ref, rank)
    dst = world.loc(dst_ref, rank)
    peer = int(src.rsplit("@", 1)[1])
    o = _Op(st, world, family, ctx, peer, world.new_op(), label, pos)
    o.issue({"GET"} | ({"BLOCKING"} if blocking else set()))
    v = o.nic("R", src, {"NR", "RSP"}, f"read {src}")
    o.nic("W", dst, {"NW", "LCL"} | (_into_signal(world, dst) if family == "GIN" else set()),
          f"write {dst}", value=v)
    o.local_completion()


def _wait(st: PathState, loc: str, cmp: str, value: Expr, label: str, pos: object,
          family: str, relaxed: bool = False, extra: set[str] | None = None
          ) -> Iterator[PathState]:
    tags = {family, "GWAIT", "RLX" if relaxed else "ACQ", "SYS"} | (extra or set())
    r = st.read(loc, tags, label, scope="sys", pos=pos, rank=st.place.gpu)  # type: ignore[arg-type]
    # gin.step has moved pc past the call already: pc is the call's 1-based row
    site = WaitSite(st.thread, st.pc, label, pos if isinstance(pos, Pos) else NOPOS)
    # the wait polls its own read only: a threshold in a register was read once, before
    if st.assume(CmpExpr(cmp, r, value), site, polled=(r.eid,)):
        yield st


def _barrier(st: PathState, world: World, family: str, contexts: list[str], level: str,
             label: str, pos: object) -> Iterator[PathState]:
    """NCCL's barrier session (R-GIN-15), NVSHMEM's barrier_all: signal every rank,
    then wait for every rank's signal."""
    rank = st.place.gpu
    assert rank is not None
    extra = {"BARSIG"} | ({"BARNONE"} if level == "none" else set())
    for ctx in contexts:
        key = (st.thread, f"{family}.{ctx}")
        gen = world.barrier_gen.get(key, 0) + 1
        world.barrier_gen[key] = gen
        for peer in world.ranks:
            o = _Op(st, world, family, ctx, peer, world.new_op(), f"{label} (signal {peer})", pos)
            o.issue({"SIGOP", "GIVEN_THREAD", "REQ_GPU"})
            _signal(o, None, legacy=True, target=f"bar.{ctx}.r{rank}@{peer}", extra=extra)
            o.local_completion()
    states = [st]
    for ctx in contexts:
        gen = world.barrier_gen[(st.thread, f"{family}.{ctx}")]
        for peer in world.ranks:
            nxt: list[PathState] = []
            for s in states:
                nxt.extend(_wait(s, f"bar.{ctx}.r{peer}@{rank}", "ge", gen,
                                 f"{label} (wait {peer})", pos, family))
            states = nxt
    if level == "get":
        for s in states:
            for ctx in contexts:
                s.emit("F", None, {family, "FLUSH"}, f"{label} (flush)", pos=pos,  # type: ignore[arg-type]
                       rank=rank, ctx=ctx)
    yield from states


def step(st: PathState, world: World, ins: A.Instr, label: str) -> Iterator[PathState]:
    """Lower one GIN or NVSHMEM call (the PTX ones go to lower/ptx.py)."""
    st.pc += 1
    rank = st.place.gpu
    if rank is None:
        raise UnsupportedError("GIN and NVSHMEM calls are made by GPU threads "
                               "(place the thread on a gpu)", pos=ins.pos)
    if isinstance(ins, A.GinPut):
        _put(st, world, ins, label)
    elif isinstance(ins, A.GinSignal):
        _gin_signal(st, world, ins, label)
    elif isinstance(ins, A.GinGet):
        _get(st, world, "GIN", ins.ctx, ins.dst, ins.src, label, ins.pos, blocking=False)
    elif isinstance(ins, A.GinFlush):
        st.emit("F", None, {"GIN", "FLUSH"}, label, pos=ins.pos, rank=rank, ctx=ins.ctx)
    elif isinstance(ins, A.GinFlushAsync):
        key = (st.thread, ins.request)
        known = world.requests.get(key)
        if known is not None and known[2] != st.pc:
            raise UnsupportedError(f"request {ins.request!r} is set by two gin.flush_async "
                                   "calls of this thread: name them apart", pos=ins.pos)
        if known is None:
            known = (world.new_op(), ins.ctx, st.pc)
            world.requests[key] = known
        st.emit("F", None, {"GIN", "FLUSHREQ"}, label, pos=ins.pos, rank=rank, ctx=ins.ctx,
                op=known[0])
    elif isinstance(ins, A.GinWaitRequest):
        req = world.requests.get((st.thread, ins.request))
        if req is None:
            raise UnsupportedError(f"gin.wait {ins.request}: no gin.flush_async of this "
                                   "thread sets that request before it", pos=ins.pos)
        st.emit("F", None, {"GIN", "REQWAIT"}, label, pos=ins.pos, rank=rank, ctx=req[1],
                op=req[0])
    elif isinstance(ins, A.GinWait):
        loc = world.loc(A.LocRef(ins.name), rank)
        least: Expr = ins.value
        if ins.base is not None:  # gin.wait_signal S, r0+2: the register's value plus 2
            base = st.reg(ins.base.name)
            least = BinOp("add", base, ins.value) if ins.value else base
        yield from _wait(st, loc, "ge", least, label, ins.pos, "GIN",
                         extra={"VA"} if ins.va else set())
        return
    elif isinstance(ins, A.GinRead):
        loc = world.loc(A.LocRef(ins.name), rank)
        tags = {"GIN", "GWAIT", "RLX" if ins.relaxed else "ACQ", "SYS"}
        if ins.va:
            tags.add("VA")
        st.regs[ins.dst.name] = st.read(loc, tags, label, scope="sys", pos=ins.pos,
                                        rank=rank)  # type: ignore[arg-type]
    elif isinstance(ins, A.GinReset):
        loc = world.loc(A.LocRef(ins.name), rank)
        st.emit("W", loc, {"GIN", "RESET", "RLX", "SYS"}, label, value=0, scope="sys",
                pos=ins.pos, rank=rank)
    elif isinstance(ins, A.GinBarrier):
        ctxs = list(world.contexts) if ins.all_contexts else [ins.ctx]
        yield from _barrier(st, world, "GIN", ctxs, ins.kind, label, ins.pos)
        return
    elif isinstance(ins, A.ShmemCall):
        yield from _shmem(st, world, ins, label)
        return
    else:
        raise UnsupportedError(f"not a GIN or NVSHMEM call: {type(ins).__name__}", pos=ins.pos)
    yield st


def _shmem(st: PathState, world: World, ins: A.ShmemCall, label: str) -> Iterator[PathState]:
    rank = st.place.gpu
    op = ins.op
    if op in ("fence", "quiet"):
        st.emit("F", None, {"SHMEM", "SHFENCE" if op == "fence" else "QUIET"}, label,
                pos=ins.pos, rank=rank, ctx=SHMEM_CTX)
        yield st
        return
    if op == "barrier_all":
        st.emit("F", None, {"SHMEM", "QUIET"}, f"{label} (quiet)", pos=ins.pos, rank=rank,
                ctx=SHMEM_CTX)
        yield from _barrier(st, world, "SHMEM", [SHMEM_CTX], "put", label, ins.pos)
        return
    if op == "sync_all":
        # nvshmem_sync_all: the barrier alone, without the quiet of barrier_all
        # (OpenSHMEM 1.5 shmem_sync: it "does not return until all other PEs ... have
        # called" it, and unlike shmem_barrier_all it does not complete earlier
        # operations). Lowered as barrier_all's signals and waits.
        yield from _barrier(st, world, "SHMEM", [SHMEM_CTX], "put", label, ins.pos)
        return
    if op in ("wait_until", "signal_wait_until"):
        assert ins.signal is not None and ins.cmp is not None and ins.value is not None
        loc = world.loc(ins.signal, rank)
        # NVIDIA/nvshmem@2d7d25f src/include/device/nvshmem_defines.h:566-571
        # (nvshmem_X_wait_until): nvshmemi_wait_until, a spin on a volatile load
        # (non_abi/device/wait/nvshmemi_wait_until_apis.cuh:138), then
        # nvshmemi_transfer_syncapi_update_mem, whose first step is __threadfence()
        # (non_abi/device/pt-to-pt/transfer_device.cuh.in:57), i.e. fence.sc.gpu.
        # nvshmem_defines.h:583-586 (nvshmem_signal_wait_until): the same spin, then
        # `return *sig_addr`, with no fence. The read is volatile (RLX SYS VOL, as
        # ld.volatile); which of the two is an acquire is the models' business.
        kind = "WAITUNTIL" if op == "wait_until" else "SIGWAITUNTIL"
        for s in _wait(st, loc, CMP[ins.cmp], ins.value, label, ins.pos, "SHMEM",
                       relaxed=True, extra={"VOL", kind}):
            if op == "wait_until":
                s.emit("F", None, {"SC", "ACQ_REL", "GPU", "SYNCAPI"},
                       f"{label} (__threadfence)", scope="gpu", pos=ins.pos)
            yield s
        return
    if op in ("get", "get_nbi"):
        assert ins.dst is not None and ins.src is not None
        _get(st, world, "SHMEM", SHMEM_CTX, ins.dst, ins.src, label, ins.pos,
             blocking=op == "get")
        yield st
        return
    target_ref = ins.dst if ins.dst is not None else ins.signal
    assert target_ref is not None
    target = world.loc(target_ref, rank)
    peer = int(target.rsplit("@", 1)[1])
    o = _Op(st, world, "SHMEM", SHMEM_CTX, peer, world.new_op(), label, ins.pos)
    if op in ("put", "put_nbi", "put_signal", "put_signal_nbi"):
        assert ins.src is not None
        o.issue({"PUT"} | ({"BLOCKING"} if op in ("put", "put_signal") else set()))
        src = world.loc(ins.src, rank)
        v = o.nic("R", src, {"NR", "LCL"}, f"read {src}")
        o.nic("W", target, {"NW", "RSP", "RO"}, f"write {target}", value=v)
        if op.startswith("put_signal"):
            assert ins.signal is not None and ins.signal_value is not None
            _shmem_signal(o, world.loc(ins.signal, rank), ins.signal_value,
                          ins.signal_op or "add", {"WEAK"})
    elif op == "p":
        # the value is a constant or the thread's register (nvshmem_TYPE_p takes it by
        # value: NVIDIA/nvshmem@2d7d25f src/include/non_abi/device/common/
        # nvshmemi_common_device.cuh:449-459); like a put's source it is read at the call
        value: Expr = st.reg(ins.reg.name) if ins.reg is not None else _const(ins.value)
        o.issue({"PUT", "BLOCKING"})
        o.nic("W", target, {"NW", "RSP", "RO"}, f"write {target}", value=value)
    elif op == "signal_op":
        assert ins.signal_value is not None
        o.issue({"SIGOP"})
        _shmem_signal(o, target, ins.signal_value, ins.signal_op or "add", {"WEAK"})
    elif op == "atomic_add":
        assert ins.value is not None
        o.issue({"AMOOP"})
        amount = ins.value
        o.rmw(target, {"AMO", "RSP", "RO"}, f"atomic add {target}",
              lambda r: BinOp("add", r, amount))
    elif op == "atomic_set":
        # nvshmem_TYPE_atomic_set: a non-fetching AMO, NVSHMEMI_AMO_SET (NVIDIA/nvshmem@2d7d25f
        # src/include/device/nvshmem_defines.h:1213-1221), which IBGDA posts as an RDMA
        # masked compare-and-swap, like a signal's SET (non_abi/device/pt-to-pt/
        # ibgda_device.cuh:1333-1350): the same AMO read-modify-write, writing the value
        assert ins.value is not None
        o.issue({"AMOOP"})
        new = ins.value
        o.rmw(target, {"AMO", "RSP", "RO"}, f"atomic set {target}", lambda r: new)
    else:
        raise UnsupportedError(f"unsupported NVSHMEM call shmem.{op}", pos=ins.pos)
    o.local_completion()
    yield st


def _const(v: int | None) -> int:
    assert v is not None
    return v


def _shmem_signal(o: _Op, loc: str, value: int, sig_op: str, tags: set[str]) -> None:
    all_tags = tags | {"SIG", "IDX", "RSP", "RO", "ADD" if sig_op == "add" else "SET"}
    if sig_op == "add":
        o.rmw(loc, all_tags, f"signal {loc}", lambda r: BinOp("add", r, value))
    else:
        o.rmw(loc, all_tags, f"signal {loc}", lambda r: value)
