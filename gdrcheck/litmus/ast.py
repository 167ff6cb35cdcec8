"""The litmus AST: what the parser produces and the lowering consumes.

One AST serves the three dialects (X86, PTX, GIN). Instruction nodes are
dialect-specific; everything else (metadata, init, conditions) is shared.
Every node that can be wrong carries a :class:`Pos` for error messages.
All nodes are frozen dataclasses, so two parses of one text compare equal
(``pos`` fields are excluded from comparison).
"""

from __future__ import annotations

import functools
from dataclasses import field, fields
from typing import Literal

from gdrcheck.dataclass_cache import dataclass
from gdrcheck.errors import NOPOS, Pos


def _pos() -> Pos:
    return field(default=NOPOS, compare=False, repr=False)  # type: ignore[return-value]


# --------------------------------------------------------------------------
# Values, registers, locations
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Const:
    value: int
    pos: Pos = _pos()


@dataclass(frozen=True)
class Reg:
    """A thread-local register (``EAX``, ``r1``)."""

    name: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class LocRef:
    """A memory location: ``x`` (this rank's x) or ``x@k`` (rank k's x, GIN)."""

    name: str
    rank: int | None = None
    pos: Pos = _pos()

    def __str__(self) -> str:
        return self.name if self.rank is None else f"{self.name}@{self.rank}"


Value = Const | Reg


# --------------------------------------------------------------------------
# X86 instructions (herd7's X86 syntax)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class X86Mem:
    """``[x]``: a memory operand."""

    loc: LocRef
    pos: Pos = _pos()


X86Operand = Const | Reg | X86Mem


@dataclass(frozen=True)
class X86Mov:
    """``MOV dst,src``: a load (reg <- mem), store (mem <- reg/imm) or move."""

    dst: X86Operand
    src: X86Operand
    pos: Pos = _pos()


@dataclass(frozen=True)
class X86Mfence:
    pos: Pos = _pos()


@dataclass(frozen=True)
class X86Xchg:
    """``XCHG a,b``: with a memory operand, a locked read-modify-write."""

    a: X86Operand
    b: X86Operand
    pos: Pos = _pos()


@dataclass(frozen=True)
class X86Locked:
    """``LOCK ADD [x],v`` / ``LOCK XADD [x],r`` / ``LOCK CMPXCHG [x],r`` /
    ``LOCK INC [x]`` / ``LOCK DEC [x]``: atomic read-modify-writes.

    ``op`` is the upper-case mnemonic without LOCK; ``src`` is None for INC/DEC.
    CMPXCHG compares with EAX, as on x86.
    """

    op: str
    dst: X86Operand
    src: X86Operand | None
    pos: Pos = _pos()


X86Instr = X86Mov | X86Mfence | X86Xchg | X86Locked


# --------------------------------------------------------------------------
# PTX instructions (Dartagnan's PTX dialect; also used in GIN tests)
# --------------------------------------------------------------------------

Sem = Literal["weak", "relaxed", "acquire", "release", "acq_rel", "sc", "volatile"]
Scope = Literal["cta", "cluster", "gpu", "sys"]
"""PTX ISA §8.5 (Scope): ``.cluster`` is the set of threads of the CTAs of one cluster
(docs/ptx-clusters.md)."""


Proxy = Literal["generic", "surface", "texture", "constant"]
"""The proxy of a memory instruction (PTX ISA §8.6; Dartagnan's PTX 7.5 tests)."""


@dataclass(frozen=True)
class PtxLoad:
    """``ld{.sem}{.scope} r, x``; ``ld r, v`` (no sem) is a register move.

    ``proxy``: ``suld`` reads through the surface proxy, ``tld`` through the texture
    proxy, ``ld.const`` (Dartagnan: ``cold``) through the constant proxy."""

    sem: Sem
    scope: Scope | None
    dst: Reg
    loc: LocRef
    pos: Pos = _pos()
    proxy: Proxy = "generic"


@dataclass(frozen=True)
class PtxStore:
    """``st{.sem}{.scope} x, v``."""

    sem: Sem
    scope: Scope | None
    loc: LocRef
    value: Value
    pos: Pos = _pos()
    proxy: Proxy = "generic"  # sust: the surface proxy


@dataclass(frozen=True)
class PtxAtom:
    """``atom.sem.scope.op r, x, v{, v2}``; op in add/sub/.../exch/cas.

    For ``cas``: ``operands = (expected, new)``; otherwise ``(v,)``.
    """

    sem: Sem
    scope: Scope
    op: str
    dst: Reg
    loc: LocRef
    operands: tuple[Value, ...]
    pos: Pos = _pos()


@dataclass(frozen=True)
class PtxRed:
    """``red.sem.scope.op x, v``: an atomic update with no result."""

    sem: Sem
    scope: Scope
    op: str
    loc: LocRef
    value: Value
    pos: Pos = _pos()


@dataclass(frozen=True)
class PtxAsyncStore:
    """``cp.async.bulk x, v``: a bulk (TMA) copy into global ``x`` of a shared-memory
    buffer holding ``v``, performed by the async proxy (PTX ISA §8.9.1.1). A litmus
    shorthand for ``cp.async.bulk.global.shared::cta.bulk_group [x], [smem], n``."""

    loc: LocRef
    value: Value
    pos: Pos = _pos()


@dataclass(frozen=True)
class PtxAsyncWait:
    """``cp.async.bulk.wait_group N``: wait until the thread's bulk copies are complete;
    ``cp.async.bulk.wait_group.read N``: only until they have read their sources."""

    groups: int = 0
    pos: Pos = _pos()
    read: bool = False


@dataclass(frozen=True)
class PtxBulkLoad:
    """``cp.async.bulk s, x, mb``: a TMA load of global ``x`` into shared ``s``,
    performed by the async proxy and completing one transaction on mbarrier ``mb``
    (``cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes``; docs/litmus-format.md
    §6.1)."""

    dst: LocRef
    src: LocRef
    mbar: LocRef
    pos: Pos = _pos()


@dataclass(frozen=True)
class PtxBulkStore:
    """``cp.async.bulk x, s``: a TMA store of shared ``s`` into global ``x`` by the
    async proxy, completed through bulk groups (``cp.async.bulk.global.shared::cta.
    bulk_group``)."""

    dst: LocRef
    src: LocRef
    pos: Pos = _pos()


@dataclass(frozen=True)
class PtxBulkCommit:
    """``cp.async.bulk.commit_group``: close the thread's current bulk group."""

    pos: Pos = _pos()


@dataclass(frozen=True)
class PtxMbarArrive:
    """``mbarrier.arrive{.expect_tx}{.release|.relaxed}{.cta} mb{, N}``: arrive on
    ``mb`` (after raising the phase's expected transactions by ``expect_tx``)."""

    mbar: LocRef
    sem: Literal["release", "relaxed"] = "release"
    expect_tx: int | None = None
    pos: Pos = _pos()
    scope: Literal["cta", "cluster"] = "cta"  # .scope (PTX ISA mbarrier.arrive; default .cta)


@dataclass(frozen=True)
class PtxMbarWait:
    """``mbarrier.wait{.acquire|.relaxed}{.cta} mb``: block until the current phase of
    ``mb`` completes (the thread's k-th wait on ``mb`` waits for phase k)."""

    mbar: LocRef
    sem: Literal["acquire", "relaxed"] = "acquire"
    pos: Pos = _pos()
    scope: Literal["cta", "cluster"] = "cta"  # .scope (PTX ISA mbarrier.try_wait; default .cta)


@dataclass(frozen=True)
class PtxMbarInit:
    """``mbarrier.init{.shared{::cta}}.b64 mb{, N}``: initialise the CTA's copy of ``mb``
    (phase 0, ``N`` expected arrivals: the count of its declaration; PTX ISA
    §9.7.13.15.9). A declared mbarrier that some thread initialises is uninitialised
    until then (docs/ptx-pdl-mbarrier.md)."""

    mbar: LocRef
    count: int | None = None  # as written; the declaration's count when omitted
    pos: Pos = _pos()


@dataclass(frozen=True)
class PtxMapa:
    """``mapa.shared::cluster a, s, N``: ``a`` names the copy of the shared word (or
    mbarrier) ``s`` in the CTA of rank ``N`` of the thread's cluster (PTX ISA, mapa; the
    ``shared::cluster`` state space). ``a`` is then a location operand of ld, st, atom,
    red, st.async, red.async and mbarrier.arrive (docs/ptx-clusters.md)."""

    dst: str
    target: LocRef
    rank: int
    pos: Pos = _pos()


@dataclass(frozen=True)
class PtxClusterBarrier:
    """``barrier.cluster.arrive{.release|.relaxed}{.aligned}`` and
    ``barrier.cluster.wait{.acquire}{.aligned}`` (PTX ISA §9.7.13.3; defaults .release and
    .acquire)."""

    action: Literal["arrive", "wait"]
    sem: Literal["release", "relaxed", "acquire"]
    pos: Pos = _pos()


@dataclass(frozen=True)
class PtxStoreAsync:
    """``st.async{.weak}.shared::cluster.mbarrier::complete_tx::bytes a, v, mb`` and
    ``red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.OP a, v, mb``
    (``op`` set): an asynchronous store (reduction) into a CTA's shared memory whose
    completion is a complete-tx on the mbarrier ``mb`` of that CTA (PTX ISA st.async,
    red.async; docs/ptx-clusters.md)."""

    loc: LocRef
    value: Value
    mbar: LocRef
    op: str | None = None  # None: st.async; else red.async's operation
    pos: Pos = _pos()


@dataclass(frozen=True)
class PtxGridDep:
    """``griddepcontrol.launch_dependents`` / ``griddepcontrol.wait`` (PTX ISA
    §9.7.13.13): programmatic dependent launch between the grids of one stream
    (placement ``grid N``; docs/ptx-pdl-mbarrier.md)."""

    action: Literal["launch_dependents", "wait"]
    pos: Pos = _pos()


@dataclass(frozen=True)
class PtxFence:
    """``fence.sc.gpu``, ``fence.acq_rel.cta``, ``membar.gl`` (== fence.sc.gpu),
    ``fence.proxy.async`` (kind="proxy.async", scope None)."""

    kind: str  # "sc" | "acq_rel" | "acquire" | "release" | "proxy.<name>"
    #            | "mbarrier_init.release.cluster" (PTX ISA §9.7.13.4, .op_restrict)
    scope: Scope | None
    pos: Pos = _pos()


@dataclass(frozen=True)
class PtxBarrier:
    """``bar.cta.sync a{, b{, c}}``, ``bar.cta.arrive a{, b}``, ``barrier.cta.*``,
    ``bar.sync`` (CTA is implied).

    ``operands`` are kept as written (constants or registers); their meaning
    (barrier id, instance, quorum) is fixed by the lowering.
    """

    mode: Literal["sync", "arrive"]
    operands: tuple[Value, ...]
    pos: Pos = _pos()


@dataclass(frozen=True)
class LocalOp:
    """Register arithmetic: ``add r1, r2, 1`` (op in add/sub/mul/div/and/or/xor/mov)."""

    op: str
    dst: Reg
    args: tuple[Value, ...]
    pos: Pos = _pos()


@dataclass(frozen=True)
class Setp:
    """``setp.CmpOp{.type} p, a, b`` (PTX ISA §9.7.6.2): ``p`` := 1 when ``a CmpOp b``
    holds, else 0 (cond in eq/ne/lt/le/gt/ge). The dialect has no predicate registers: the
    predicate is an ordinary register holding 0 or 1 (docs/litmus-format.md §7.2)."""

    cond: str
    dst: Reg
    a: Value
    b: Value
    pos: Pos = _pos()


@dataclass(frozen=True)
class Selp:
    """``selp{.type} d, a, b, c`` (PTX ISA §9.7.6.3): ``d`` := ``c ? a : b``, where the
    predicate ``c`` (a register, or a constant) holds when it is not 0. No branch: the
    value is chosen, the path does not split."""

    dst: Reg
    a: Value
    b: Value
    c: Value
    pos: Pos = _pos()


@dataclass(frozen=True)
class Label:
    name: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class Branch:
    """``beq a, b, LC01`` (cond in eq/ne/lt/le/gt/ge)."""

    cond: str
    a: Value
    b: Value
    target: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class Goto:
    target: str
    pos: Pos = _pos()


# --------------------------------------------------------------------------
# Multimem: NVLink SHARP multicast objects (docs/litmus-format.md §11; PTX ISA §8.2.3,
# §9.7.9.14). M names a multicast object declared in the init block; each
# instruction accesses every copy bound to it (gdrcheck/lower/multimem.py).
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class MultimemStore:
    """``multimem.st{.weak|.relaxed|.release}{.scope} M, v``: one store to each copy."""

    sem: Sem
    scope: Scope | None
    mc: LocRef
    value: Value
    pos: Pos = _pos()


@dataclass(frozen=True)
class MultimemRed:
    """``multimem.red{.relaxed|.release}{.scope}.add M, v``: one atomic add on each copy
    (PTX ISA: .relaxed and .sys by default)."""

    sem: Sem
    scope: Scope
    op: str
    mc: LocRef
    value: Value
    pos: Pos = _pos()


@dataclass(frozen=True)
class MultimemLdReduce:
    """``multimem.ld_reduce{.weak|.relaxed|.acquire}{.scope}.{add|min|max} r, M``: reads
    each copy; ``r`` is the reduction of the values read."""

    sem: Sem
    scope: Scope | None
    op: str
    dst: Reg
    mc: LocRef
    pos: Pos = _pos()


MultimemInstr = MultimemStore | MultimemRed | MultimemLdReduce


PtxInstr = (
    PtxLoad | PtxStore | PtxAtom | PtxRed | PtxFence | PtxBarrier | LocalOp | Setp | Selp | Label
    | Branch | Goto | PtxAsyncStore | PtxAsyncWait | PtxBulkLoad | PtxBulkStore | PtxBulkCommit
    | PtxMbarArrive | PtxMbarWait | PtxMbarInit | PtxGridDep | PtxMapa | PtxClusterBarrier
    | PtxStoreAsync | MultimemStore | MultimemRed | MultimemLdReduce
)


# --------------------------------------------------------------------------
# GIN / NVSHMEM device calls (docs/litmus-format.md §9, §4.3)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class SignalSpec:
    """A remote action bundled with a put or given to ``gin.signal``.

    kind: "strong" (SignalInc/SignalAdd on an indexed signal), "weak",
    or "va" (a VA signal on a window location). ``amount`` is 1 for Inc.
    """

    kind: Literal["strong", "weak", "va", "legacy"]
    target: LocRef  # signal name (indexed) or window location (VA), rank = peer
    amount: int = 1
    explicit_amount: bool = False  # written as S+k (SignalAdd) rather than S (SignalInc)
    pos: Pos = _pos()


@dataclass(frozen=True)
class GinOptions:
    """Keyword options of put / put_value / signal."""

    given: str | None = None  # thread|cta|gpu|sys
    required: str | None = None  # gpu|sys
    aggregate: bool = False


@dataclass(frozen=True)
class GinPut:
    """``gin.put c0, x@1, buf{, sig=..|wsig=..|vsig=..}{, ctr=C}{, opts}``;
    ``gin.put_value c0, x@1, 7`` has ``src`` a Const."""

    ctx: str
    dst: LocRef
    src: LocRef | Const
    signal: SignalSpec | None = None
    counter: str | None = None
    options: GinOptions = GinOptions()
    pos: Pos = _pos()


@dataclass(frozen=True)
class GinSignal:
    """``gin.signal c0, S@1{+k}{, weak|va}{, opts}``."""

    ctx: str
    signal: SignalSpec
    options: GinOptions = GinOptions()
    pos: Pos = _pos()


@dataclass(frozen=True)
class GinFlush:
    ctx: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class GinFlushAsync:
    """``gin.flush_async c0, rq``: ncclGin::flushAsync (NCCL 2.30.3+), a flush whose
    completion is the request ``rq``."""

    ctx: str
    request: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class GinWaitRequest:
    """``gin.wait rq``: ncclGin::wait(request), block until ``rq`` completes."""

    request: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class GinGet:
    """``gin.get c0, buf, x@1``: read x@1 into local buf."""

    ctx: str
    dst: LocRef
    src: LocRef
    pos: Pos = _pos()


@dataclass(frozen=True)
class GinWait:
    """``gin.wait_signal S, 1`` / ``gin.wait_counter C, 1`` (blocks until >= value).

    With ``base``, the threshold is that register of the thread plus ``value``
    (``gin.wait_signal S, r0+2``: NCCL's ``waitSignal(..., readSignal(S) + n)``)."""

    what: Literal["signal", "counter"]
    name: str
    value: int
    va: bool = False  # a VA signal: a window location, not a declared signal
    pos: Pos = _pos()
    base: Reg | None = None


@dataclass(frozen=True)
class GinRead:
    """``gin.read_signal{.relaxed} r0, S`` / ``gin.read_counter r0, C``."""

    what: Literal["signal", "counter"]
    dst: Reg
    name: str
    relaxed: bool = False
    va: bool = False  # a VA signal: a window location, not a declared signal
    pos: Pos = _pos()


@dataclass(frozen=True)
class GinReset:
    """``gin.reset_signal S`` / ``gin.reset_counter C``."""

    what: Literal["signal", "counter"]
    name: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class GinBarrier:
    """``gin.barrier c0, put|get|none{, all}``."""

    ctx: str
    kind: Literal["put", "get", "none"]
    all_contexts: bool = False
    pos: Pos = _pos()


@dataclass(frozen=True)
class ShmemCall:
    """An NVSHMEM device call (docs/litmus-format.md §10).

    ``op`` is the call name without the ``shmem.`` prefix (put, put_nbi, p,
    put_signal, put_signal_nbi, signal_op, atomic_add, atomic_set, get, get_nbi, fence,
    quiet, barrier_all, sync_all, wait_until, signal_wait_until). Fields not used by an op are
    None.
    """

    op: str
    dst: LocRef | None = None
    src: LocRef | None = None
    value: int | None = None
    signal: LocRef | None = None
    signal_value: int | None = None
    signal_op: Literal["add", "set"] | None = None
    cmp: str | None = None  # wait_until, signal_wait_until: >=, ==, !=, >, <, <=
    reg: Reg | None = None  # p: the value is this register (``value`` is then None)
    pos: Pos = _pos()


GinInstr = (
    GinPut | GinSignal | GinFlush | GinFlushAsync | GinWaitRequest | GinGet | GinWait | GinRead
    | GinReset | GinBarrier | ShmemCall
)

# --------------------------------------------------------------------------
# Host-initiated RDMA and kernel boundaries (docs/litmus-format.md §12; GPUDirect RDMA
# without GPU initiation). Host threads post verbs and launch or wait for kernels.
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class HostVerb:
    """``ibv.write q0, x@1, buf`` / ``ibv.write_imm q0, x@1, buf`` (RDMA WRITE, with
    immediate data: it completes a receive at the target) / ``ibv.atomic_add q0, f@1, 1``
    (RDMA fetch-and-add). ``src`` is None for the atomic, ``value`` None for the writes."""

    op: Literal["write", "write_imm", "atomic_add"]
    qp: str  # q0, q1, ...: the node's queue pair N to the destination's node
    dst: LocRef
    src: LocRef | None = None
    value: int | None = None
    pos: Pos = _pos()


@dataclass(frozen=True)
class HostWaitCompletion:
    """``ibv.wait_send q0`` (every earlier WR of this thread on q0 has its send CQE) /
    ``ibv.wait_recv q0`` (one more write_imm on q0 toward this node has arrived)."""

    kind: Literal["send", "recv"]
    qp: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class CudaLaunch:
    """``cuda.launch P1``: start the ``launched`` GPU thread P1 (a kernel boundary)."""

    thread: int
    pos: Pos = _pos()


@dataclass(frozen=True)
class CudaSync:
    """``cuda.sync P1``: block until P1 has finished (cudaStreamSynchronize)."""

    thread: int
    pos: Pos = _pos()


@dataclass(frozen=True)
class CudaFlushRdma:
    """``cuda.flush_rdma``: cuFlushGPUDirectRDMAWrites."""

    pos: Pos = _pos()


@dataclass(frozen=True)
class StreamWaitValue:
    """``stream.wait_value f, >=, 1{, flush}``: before the first instruction of a
    ``launched`` thread, the GPU's front end waits for ``f`` (cuStreamWaitValue32), with
    CU_STREAM_WAIT_VALUE_FLUSH when ``flush``."""

    name: str
    cmp: str  # >=, ==, !=, >, <, <=
    value: int
    flush: bool = False
    pos: Pos = _pos()


HostInstr = HostVerb | HostWaitCompletion | CudaLaunch | CudaSync | CudaFlushRdma | StreamWaitValue

Instr = X86Instr | PtxInstr | GinInstr | HostInstr


# --------------------------------------------------------------------------
# Threads and placement
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Placement:
    """``P0@cta 0,gpu 0`` (PTX), ``P0@cta 0,gpu 1,node 0`` (GIN), ``P3@host,node 0``,
    ``P1@cta 0,gpu 1,node 1,launched`` (started by a host's ``cuda.launch``, §6.3)."""

    cta: int | None = None
    gpu: int | None = None
    node: int | None = None
    host: bool = False
    launched: bool = False  # a GPU thread started by a host's cuda.launch (§6.3)
    grid: int | None = None  # the N-th kernel of one stream, launched with PDL (None: 0)
    cluster: int | None = None  # the thread block cluster of the CTA (None: the CTA alone)


@dataclass(frozen=True)
class Thread:
    index: int  # the N of PN (or column index when the header is a bare PN)
    placement: Placement
    instrs: tuple[Instr, ...]
    pos: Pos = _pos()

    @property
    def name(self) -> str:
        return f"P{self.index}"


# --------------------------------------------------------------------------
# Init block
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class InitLoc:
    """``x = 1;`` / ``int x = 1;`` / ``x@1 = 5;`` / ``[x] = 1``."""

    loc: LocRef
    value: int
    pos: Pos = _pos()


@dataclass(frozen=True)
class InitReg:
    """``0:EAX = 1;`` / ``P1:r1 = 0;`` ; value is an int or a location (address)."""

    thread: int
    reg: str
    value: int | LocRef
    pos: Pos = _pos()


@dataclass(frozen=True)
class SignalDecl:
    """``S : signal;``"""

    name: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class CounterDecl:
    """``C : counter;``"""

    name: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class HostDecl:
    """``h : host = 0;``"""

    name: str
    value: int
    pos: Pos = _pos()


@dataclass(frozen=True)
class WindowDecl:
    """``window W strict = {f, g};``; ``window L line = {d, f : 120};`` (one 128-byte
    aligned line: ``offsets`` are the members' byte offsets in it)."""

    name: str
    strict: bool
    members: tuple[str, ...]
    pos: Pos = _pos()
    line: bool = False
    offsets: tuple[int, ...] = ()


@dataclass(frozen=True)
class AliasDecl:
    """``y @ generic aliases x;`` (a second virtual address of x's memory location:
    PTX ISA §8.2.2) or ``s @ surface aliases x;`` / ``texture`` / ``constant`` (a
    surface, texture or constant reference to x's virtual address), as in Dartagnan's
    PTX 7.5 tests (NVlabs/mixedproxy: ``physically aliases`` / ``virtually aliases``)."""

    name: str
    proxy: Proxy
    target: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class SharedDecl:
    """``s : shared = 0;``: a word of shared memory; every CTA has its own copy."""

    name: str
    value: int = 0
    pos: Pos = _pos()


@dataclass(frozen=True)
class MbarrierDecl:
    """``mb : mbarrier 2;``: an mbarrier in each CTA's shared memory expecting
    ``count`` arrivals per phase."""

    name: str
    count: int
    pos: Pos = _pos()


@dataclass(frozen=True)
class MulticastDecl:
    """``multicast M = inbox;`` (``target``: M is bound to inbox on every rank of the
    node) or ``multicast M = {x@0, x@2};`` (``copies``: the listed copies, one node)."""

    name: str
    target: str | None = None
    copies: tuple[LocRef, ...] = ()
    pos: Pos = _pos()


InitItem = (
    InitLoc | InitReg | SignalDecl | CounterDecl | HostDecl | WindowDecl | AliasDecl | SharedDecl
    | MbarrierDecl | MulticastDecl
)


# --------------------------------------------------------------------------
# Conditions
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class RegTerm:
    """``0:EAX`` / ``P1:r0``."""

    thread: int
    reg: str
    pos: Pos = _pos()

    def __str__(self) -> str:
        return f"{self.thread}:{self.reg}"


@dataclass(frozen=True)
class LocTerm:
    """``x``, ``[x]``, ``x@1``."""

    loc: LocRef
    pos: Pos = _pos()

    def __str__(self) -> str:
        return str(self.loc)


@dataclass(frozen=True)
class ConstTerm:
    value: int
    pos: Pos = _pos()

    def __str__(self) -> str:
        return str(self.value)


Term = RegTerm | LocTerm | ConstTerm


@dataclass(frozen=True)
class Cmp:
    """``lhs = rhs`` / ``lhs == rhs`` (op "=") or ``lhs != rhs`` (op "!=")."""

    op: Literal["=", "!="]
    lhs: Term
    rhs: Term
    pos: Pos = _pos()


@dataclass(frozen=True)
class And:
    args: tuple[Prop, ...]


@dataclass(frozen=True)
class Or:
    args: tuple[Prop, ...]


@dataclass(frozen=True)
class Not:
    arg: Prop


@dataclass(frozen=True)
class BoolConst:
    """``true`` / ``false``."""

    value: bool


Prop = Cmp | And | Or | Not | BoolConst

Quantifier = Literal["exists", "~exists", "forall"]


@dataclass(frozen=True)
class Condition:
    quantifier: Quantifier
    prop: Prop
    pos: Pos = _pos()


# --------------------------------------------------------------------------
# The test
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Meta:
    """A ``Key=Value`` metadata line."""

    key: str
    value: str
    pos: Pos = _pos()
    value_pos: Pos = _pos()  # where the value (stripped) starts

    def items(self) -> list[tuple[str, Pos]]:
        """The comma-separated items of the value, stripped, each at its position."""
        out: list[tuple[str, Pos]] = []
        offset = 0
        for raw in self.value.split(","):
            item = raw.strip()
            lead = len(raw) - len(raw.lstrip())
            if item:
                col = self.value_pos.col + offset + lead if self.value_pos.line else 0
                out.append((item, Pos(self.value_pos.line, col)))
            offset += len(raw) + 1
        return out


@dataclass(frozen=True)
class Expectation:
    """One entry of ``Expect=``: ``model{+variant}*:Verdict``."""

    model: str
    variants: tuple[str, ...]
    verdict: str  # Allowed | Forbidden | Required | Undefined
    pos: Pos = _pos()


Arch = Literal["X86", "PTX", "GIN"]


@dataclass(frozen=True)
class Layout:
    """Where a parsed test's parts lie in its source text (offsets into ``Test.source``):
    what ``gdrcheck fix`` needs to edit the user's own text rather than re-print it.
    Valid only for the text the test was parsed from."""

    init: tuple[int, int]
    """The offsets of the init block's ``{`` and ``}``."""
    items: tuple[tuple[int, int], ...]
    """Each init item's text (start, end), in the order of ``Test.init``."""
    rows: tuple[tuple[tuple[int, int], ...], ...]
    """The thread table's rows, the header row first: each cell's (start, end), the
    end of the last one at the row's ``;``."""
    places: tuple[tuple[int, ...], ...]
    """Per thread, the row of each of its instructions (its column is the thread's)."""
    condition: int
    """Where the condition (or ``locations``/``filter``) starts."""


@dataclass(frozen=True)
class Test:
    arch: Arch
    name: str
    doc: str | None
    meta: tuple[Meta, ...]
    init: tuple[InitItem, ...]
    threads: tuple[Thread, ...]
    locations: tuple[Term, ...]
    filter: Prop | None
    condition: Condition
    path: str | None = field(default=None, compare=False)
    source: str | None = field(default=None, compare=False, repr=False)
    docs: tuple[str, ...] = ()
    """Every doc string of the header, in order (Dat3M writes a description, then a
    URL, ...); ``doc`` is their join with newlines. Give either one: the other follows."""
    layout: Layout | None = field(default=None, compare=False, repr=False)
    """Where the parts lie in ``source`` (the parser's; None for a test built in code)."""

    def __post_init__(self) -> None:
        if not self.docs and self.doc is not None:
            object.__setattr__(self, "docs", (self.doc,))
        elif self.docs and self.doc is None:
            object.__setattr__(self, "doc", "\n".join(self.docs))

    def meta_values(self, key: str) -> list[str]:
        return [m.value for m in self.meta if m.key == key]

    @property
    def variants(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.variant_items())

    def variant_items(self) -> list[tuple[str, Pos]]:
        """The names of the ``Variant=`` lines, each at its position."""
        return [item for m in self.meta if m.key == "Variant" for item in m.items()]

    def _entries(self, key: str) -> tuple[Expectation, ...]:
        """``key=model{+variant}*:Verdict, ...`` entries (the parser checks their syntax),
        each at its own position."""
        out: list[Expectation] = []
        for m in self.meta:
            if m.key != key:
                continue
            for item, pos in m.items():
                model_part, _, verdict = item.rpartition(":")
                names = model_part.split("+")
                out.append(Expectation(names[0], tuple(names[1:]), verdict,
                                       pos if pos.line else m.pos))
        return tuple(out)

    @functools.cached_property
    def expectations(self) -> tuple[Expectation, ...]:
        """Parsed ``Expect=`` entries (once per test: a file may hold thousands)."""
        return self._entries("Expect")

    @functools.cached_property
    def liveness_expectations(self) -> tuple[Expectation, ...]:
        """``Liveness=model{+variant}*:Hang|Live`` entries: whether some blocking wait
        may block forever under the model (docs/litmus-format.md §13; reported as Liveness
        lines)."""
        return self._entries("Liveness")

    @property
    def sources(self) -> tuple[str, ...]:
        out: list[str] = []
        for v in self.meta_values("Source"):
            out.extend(s.strip() for s in v.split(",") if s.strip())
        return tuple(out)


# --------------------------------------------------------------------------
# What a thread writes, what the instructions name
# --------------------------------------------------------------------------


def registers_written(thread: Thread) -> frozenset[str]:
    """The registers some instruction of ``thread`` writes (as the lowering does)."""
    out: set[str] = set()
    for ins in thread.instrs:
        if isinstance(ins, X86Mov) and isinstance(ins.dst, Reg):
            out.add(ins.dst.name.upper())
        elif isinstance(ins, X86Xchg):
            out |= {x.name.upper() for x in (ins.a, ins.b) if isinstance(x, Reg)}
        elif isinstance(ins, X86Locked):
            if ins.op in ("XADD", "XCHG") and isinstance(ins.src, Reg):
                out.add(ins.src.name.upper())
            if ins.op == "CMPXCHG":
                out.add("EAX")
        elif isinstance(ins, (PtxLoad, PtxAtom, LocalOp, Setp, Selp, GinRead,
                              MultimemLdReduce)):
            out.add(ins.dst.name)
    return frozenset(out)


def locations_named(test: Test) -> frozenset[str]:
    """The names of the locations the init block declares or an instruction accesses
    (a location is declared by its first use, as in herd)."""
    out: set[str] = set()
    for item in test.init:
        if isinstance(item, InitLoc):
            out.add(item.loc.name)
        elif isinstance(item, InitReg) and isinstance(item.value, LocRef):
            out.add(item.value.name)
        elif isinstance(item, (SignalDecl, CounterDecl, HostDecl)):
            out.add(item.name)
        elif isinstance(item, WindowDecl):
            out.update(item.members)
        elif isinstance(item, MulticastDecl):
            out.update(c.name for c in item.copies)
            if item.target is not None:
                out.add(item.target)
    for thread in test.threads:
        for ins in thread.instrs:
            out.update(_names_in(ins))
    return frozenset(out)


def _names_in(ins: Instr) -> set[str]:
    if isinstance(ins, (GinWait, GinRead, GinReset, StreamWaitValue)):
        return {ins.name}
    out: set[str] = set()
    if isinstance(ins, GinPut) and ins.counter is not None:
        out.add(ins.counter)
    for f in fields(ins):
        value = getattr(ins, f.name)
        if isinstance(value, LocRef):
            out.add(value.name)
        elif isinstance(value, X86Mem):
            out.add(value.loc.name)
        elif isinstance(value, SignalSpec):
            out.add(value.target.name)
    return out
