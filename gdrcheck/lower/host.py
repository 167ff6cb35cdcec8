"""Lowering of host-initiated RDMA and kernel boundaries (docs/litmus-format.md §12).

A host (CPU) thread posts InfiniBand verbs on its node's NIC and launches or waits for
GPU threads; this is GPUDirect RDMA without GPU initiation (docs/lowering.md,
docs/models.md, model ``gpudirect``). The events reuse the tags of the GIN lowering
(gdrcheck/lower/gin.py) where the meaning is the same, with the family tag ``VERBS``:

- ``ibv.write q, x@p, buf``: an ``ISSUE`` fence in the host's program order, then on
  the NIC's queue (agent ``nic.n<node>.<q>.n<peer node>``, no program order) an
  ``NR LCL`` read of buf and an ``NW RSP`` write of x@p carrying its value (``HMEM``
  when x is pinned host memory, ``SO``: ibv_reg_mr without
  IBV_ACCESS_RELAXED_ORDERING), then the send completion ``LC``;
- ``ibv.write_imm``: the same, and the receive completion at the target node: a
  read-modify-write (``RCQE RSP``) adding 1 to the word ``rcq.<q>.n<target node>``,
  the completion queue the target's ``ibv.wait_recv <q>`` polls;
- ``ibv.atomic_add q, f@p, v``: ``ISSUE AMOOP``, an ``AMO RSP`` read-modify-write of
  f@p, then ``LC``;
- ``ibv.wait_send q``: a ``WAITSEND`` marker (the model orders the send completions of
  the thread's earlier WRs on q before it);
- ``ibv.wait_recv q``: an acquire system-scope read (``CQPOLL ACQ SYS``) of
  ``rcq.<q>.n<node>``; the thread's k-th wait on q continues only where it reads at
  least k (a blocking wait: the other executions are cut, lower/program.py);
- ``cuda.launch P``: a ``LAUNCH`` marker; the static relation ``kstart`` links it to
  every event of thread P; ``cuda.sync P``: a ``KSYNC`` marker, and ``kend`` links every
  event of P to it; ``cuda.flush_rdma``: a ``FLUSHRDMA`` marker;
- ``stream.wait_value f, cmp, v{, flush}`` (first in a launched GPU thread): a relaxed
  system-scope read of the thread's own f (``SWAIT``, ``SWFLUSH`` with flush) that
  must satisfy the comparison (a blocking wait).

Queue pairs: ``qN`` of a host thread is its node's queue pair N to the destination's
node; the static ``qp`` relation (rank, context, peer) sees it as context
``qN.n<node>`` and peer ``<destination node>`` (engine/base.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import field

from gdrcheck.dataclass_cache import dataclass
from gdrcheck.errors import NOPOS, Pos, UnsupportedError
from gdrcheck.litmus import ast as A
from gdrcheck.lower.builder import PathState, ProgramBuilder
from gdrcheck.lower.gin import CMP, World
from gdrcheck.lower.program import BinOp, CmpExpr, Expr, ReadVal, WaitSite

HOST_INSTRS = (A.HostVerb, A.HostWaitCompletion, A.CudaLaunch, A.CudaSync, A.CudaFlushRdma,
               A.StreamWaitValue)
FAMILY = "VERBS"


@dataclass
class HostState:
    """What the host lowering records across threads: the launch and sync markers
    (for ``kstart`` and ``kend``) and how many receive waits each thread made per QP."""

    world: World
    launches: list[tuple[int, int]] = field(default_factory=list)  # (marker eid, thread)
    syncs: list[tuple[int, int]] = field(default_factory=list)
    recv_waits: dict[tuple[int, str], int] = field(default_factory=dict)


def _rank_of(name: str) -> int:
    return int(name.rsplit("@", 1)[1])


def _node_of_rank(world: World, rank: int, pos: Pos) -> int:
    node = world.node_of.get(rank)
    if node is None:
        raise UnsupportedError(
            f"the node of rank {rank} is not known: place a GPU thread on gpu {rank} with "
            "its node (e.g. P1@cta 0,gpu 1,node 1) so that a verb can reach it", pos=pos)
    return node


def host_loc(world: World, ref: A.LocRef, node: int | None) -> str:
    """``ref`` named by a host thread of ``node``: ``x@k`` as written, or a bare ``x``
    on the only rank the test places on that node."""
    if ref.rank is not None:
        return world.loc(ref, None)
    mine = sorted(k for k, n in world.node_of.items() if n is not None and n == node)
    if len(mine) != 1:
        where = "no rank" if not mine else f"ranks {', '.join(map(str, mine))}"
        raise UnsupportedError(
            f"'{ref.name}' needs a rank here: node {node} has {where}; write "
            f"{ref.name}@k", pos=ref.pos)
    return world.loc(ref, mine[0])


def _recv_cq(qp: str, node: int) -> str:
    """The receive completion queue of queue pair ``qp`` at ``node`` (a host word)."""
    return f"rcq.{qp}.n{node}"


@dataclass
class _Verb:
    st: PathState
    node: int
    qp: str
    peer_node: int
    op: int
    label: str
    pos: Pos

    @property
    def agent(self) -> str:
        return f"nic.n{self.node}.{self.qp}.n{self.peer_node}"

    def kw(self) -> dict[str, object]:
        return {"op": self.op, "rank": None, "ctx": f"{self.qp}.n{self.node}",
                "peer": self.peer_node, "pos": self.pos}

    def issue(self, tags: set[str]) -> None:
        self.st.emit("F", None, {FAMILY, "ISSUE"} | tags, self.label,
                     **self.kw())  # type: ignore[arg-type]

    def nic(self, kind: str, loc: str | None, tags: set[str], what: str,
            value: Expr | None = None) -> ReadVal | None:
        base = {FAMILY, "NIC"} | tags
        if kind in ("R", "W"):
            base |= {"RLX", "SYS"}
        ev = self.st.emit(kind, loc, base, f"{self.label} / {what}", value=value,
                          scope="sys" if kind in ("R", "W") else None, agent=self.agent,
                          **self.kw())  # type: ignore[arg-type]
        return ReadVal(ev.eid) if kind == "R" else None

    def rmw(self, loc: str, tags: set[str], what: str, amount: int) -> None:
        r = self.nic("R", loc, tags | {"ATOM"}, f"{what} R")
        assert r is not None
        w = self.st.emit("W", loc, {FAMILY, "NIC", "RLX", "SYS", "ATOM"} | tags,
                         f"{self.label} / {what} W", value=BinOp("add", r, amount),
                         scope="sys", agent=self.agent, **self.kw())  # type: ignore[arg-type]
        self.st.builder.rmw.add((r.eid, w.eid))
        self.st.builder.data.add((r.eid, w.eid))


def _verb(st: PathState, hs: HostState, ins: A.HostVerb, label: str) -> None:
    world = hs.world
    node = st.place.node
    if node is None:
        raise UnsupportedError("a host thread that posts verbs needs its node "
                               "(P2@host,node 0)", pos=ins.pos)
    dst = host_loc(world, ins.dst, node)
    peer_node = _node_of_rank(world, _rank_of(dst), ins.dst.pos)
    if peer_node == node:
        raise UnsupportedError(
            f"{dst} is on this host's own node {node}: a queue pair connects two nodes "
            "(loopback verbs are not modelled)", pos=ins.dst.pos)
    v = _Verb(st, node, ins.qp, peer_node, world.new_op(), label, ins.pos)
    reg = {"HMEM"} if dst.rsplit("@", 1)[0] in world.hosts else set()
    if ins.op == "atomic_add":
        assert ins.value is not None
        v.issue({"AMOOP"})
        v.rmw(dst, {"AMO", "RSP", "SO"} | reg, f"atomic add {dst}", ins.value)
        v.nic("F", None, {"LC"}, "send completion")
        return
    assert ins.src is not None
    src = host_loc(world, ins.src, node)
    src_node = world.node_of.get(_rank_of(src))
    if src_node is not None and src_node != node:
        raise UnsupportedError(
            f"the source of an RDMA write is on the posting node ({node}); {src} is on "
            f"node {src_node}", pos=ins.src.pos)
    v.issue({"PUT"} | ({"IMM"} if ins.op == "write_imm" else set()))
    value = v.nic("R", src, {"NR", "LCL"}, f"read {src}")
    v.nic("W", dst, {"NW", "RSP", "SO"} | reg, f"write {dst}", value=value)
    if ins.op == "write_imm":
        v.rmw(_recv_cq(ins.qp, peer_node), {"RCQE", "RSP"}, "receive completion", 1)
    v.nic("F", None, {"LC"}, "send completion")


def _wait(st: PathState, loc: str, cmp: str, value: int, tags: set[str], label: str,
          pos: Pos, scope: str = "sys") -> Iterator[PathState]:
    r = st.read(loc, {FAMILY} | tags, label, scope=scope, pos=pos, rank=st.place.gpu)
    # step has moved pc past the instruction already: pc is its 1-based row
    site = WaitSite(st.thread, st.pc, label, pos if isinstance(pos, Pos) else NOPOS)
    if st.assume(CmpExpr(cmp, r, value), site):
        yield st


def step(st: PathState, hs: HostState, ins: A.Instr, label: str) -> Iterator[PathState]:
    """Lower one host call (or a launched thread's stream wait)."""
    st.pc += 1
    marker = {"pos": ins.pos, "rank": None}
    if isinstance(ins, A.StreamWaitValue):
        loc = hs.world.loc(A.LocRef(ins.name, None, ins.pos), st.place.gpu)
        tags = {"SWAIT", "RLX", "SYS"} | ({"SWFLUSH"} if ins.flush else set())
        yield from _wait(st, loc, CMP[ins.cmp], ins.value, tags, label, ins.pos)
        return
    if isinstance(ins, A.HostVerb):
        _verb(st, hs, ins, label)
    elif isinstance(ins, A.HostWaitCompletion):
        node = st.place.node
        if node is None:
            raise UnsupportedError("a host thread that waits for completions needs its node "
                                   "(P2@host,node 0)", pos=ins.pos)
        if ins.kind == "send":
            st.emit("F", None, {FAMILY, "WAITSEND"}, label, ctx=f"{ins.qp}.n{node}",
                    **marker)  # type: ignore[arg-type]
        else:
            key = (st.thread, ins.qp)
            k = hs.recv_waits.get(key, 0) + 1
            hs.recv_waits[key] = k
            yield from _wait(st, _recv_cq(ins.qp, node), "ge", k, {"CQPOLL", "ACQ", "SYS"},
                             label, ins.pos)
            return
    elif isinstance(ins, A.CudaLaunch):
        ev = st.emit("F", None, {FAMILY, "LAUNCH"}, label, **marker)  # type: ignore[arg-type]
        hs.launches.append((ev.eid, ins.thread))
    elif isinstance(ins, A.CudaSync):
        ev = st.emit("F", None, {FAMILY, "KSYNC"}, label, **marker)  # type: ignore[arg-type]
        hs.syncs.append((ev.eid, ins.thread))
    elif isinstance(ins, A.CudaFlushRdma):
        st.emit("F", None, {FAMILY, "FLUSHRDMA"}, label, **marker)  # type: ignore[arg-type]
    else:
        raise UnsupportedError(f"not a host call: {type(ins).__name__}", pos=ins.pos)
    yield st


def kernel_boundaries(b: ProgramBuilder, hs: HostState) -> None:
    """The static relations of kernel boundaries: ``kstart`` from a ``cuda.launch`` to
    every event of the thread it starts, ``kend`` from every event of a thread to a
    ``cuda.sync`` waiting for it (both empty in tests without them)."""
    kstart: set[tuple[int, int]] = set()
    kend: set[tuple[int, int]] = set()
    for marker, thread in hs.launches:
        kstart |= {(marker, e.eid) for e in b.events if e.thread == thread}
    for marker, thread in hs.syncs:
        kend |= {(e.eid, marker) for e in b.events if e.thread == thread}
    b.relations["kstart"] = kstart
    b.relations["kend"] = kend
