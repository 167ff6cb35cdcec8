"""PTX litmus test → CUDA C++ kernel (litmus7's job, for GPUs; issues 6 and 14).

Every memory instruction is inline PTX with its exact semantics, scope and state space
(``ld.relaxed.gpu.global.s32``, ``st.release.sys.global.s32``, ``ld.shared.s32``,
``fence.proxy.async.shared::cta``, ``mbarrier.arrive.release.cta.shared::cta.b64``,
``cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes``, ...), so nothing
is left to the compiler.

Layout of one launch (MC Mutants / GPUHarbor style; issue 14 item 7):

- the test's threads are grouped by their ``cta``; launch block ``b`` (after the
  stress blocks) plays group ``b % G`` for the ``IPB`` instance slots
  ``(b / G) * IPB .. + IPB - 1``; in the block, thread ``t`` plays the group's
  ``t / IPB``-th litmus thread for slot ``t % IPB``;
- slot ``s`` of group ``g`` runs instance ``(a_g * s + b_g) mod n``, with ``a_g``
  coprime to ``n`` drawn afresh for every group and launch: the threads of one
  instance that sit in different CTAs are paired at random across the grid, so they
  land on different SMs; the threads of one CTA group share a block (and its shared
  memory) as the test says;
- each instance has its own global locations, ``stride`` words apart, laid out either
  instance-major (``layout 0``: an instance's locations side by side) or location-major
  (``layout 1``: all x, then all y);
- shared words and mbarriers are per block and per slot (one copy per CTA, as PTX
  ISA §5.1.5 says); every shared word is 16 bytes, the unit of a bulk copy;
- optional stress blocks hammer a scratch area while the test runs;
- optionally (``sync_limit > 0``) the threads of an instance meet at a bounded spin
  barrier before they run (bounded so that a partner not yet resident cannot hang
  the launch);
- an ``mbarrier`` wait spins on ``mbarrier.try_wait.parity`` (the thread's k-th wait
  on an mbarrier waits for phase k, as the lowering reads it) at most ``WAIT_LIMIT``
  times and at most ``WAIT_NS`` (2 ms) of the global timer, and a thread gives up
  after ``JUMP_LIMIT`` taken jumps (a spin loop whose partner is not resident, or a
  test that can hang); an instance whose thread gave up is flagged and left out of
  the histogram (``timeouts`` in the results).

Threads on several GPUs (``multi_gpu``, issue 7): one kernel per GPU, launched on it,
plays the groups (CTAs) the test places there (``group_first``, ``group_count``); each
global location lives on the GPU that owns it (``x@k`` on GPU k; a PTX test's locations
on its first GPU): each thread computes the address of every location once, before the
test, from ``lbase[owner]`` (``LP0``, ``LP1``, ...; peer memory over NVLink for the other
GPUs), so that no load of a base pointer sits between the test's accesses; the instance
barrier is one array on the first GPU (``atomicAdd_system``); each GPU writes its threads'
registers to its own ``out``, which the host adds up. A kernel for one GPU computes its
addresses as before (``LOC``, from ``locs``).

Thread block clusters (docs/ptx-clusters.md): a test that places CTAs in clusters runs
with ``__cluster_dims__(C, 1, 1)``, C the largest cluster of the test; the groups are laid
out cluster by cluster, C to a cluster (a smaller cluster's last ranks idle), so that
launch block ``b`` (after the stress blocks, rounded up to whole clusters) is rank ``b % C``
of its hardware cluster and plays the CTA of that rank of its test cluster; the CTAs of one
cluster play one instance slot together (the random pairing is per cluster). A ``mapa``
name is a register holding the peer's ``shared::cluster`` address of the slot's word
(``mapa.shared::cluster.u32``); ``barrier.cluster`` is the hardware barrier of the whole
cluster (every slot's threads: a stronger synchronisation than the test's, never a weaker
one). The blocks of a cluster meet at a cluster barrier after their shared words and
mbarriers are initialised and again before they exit (no CTA leaves while a peer may
still reach its shared memory). ``st.async`` writes a word as ``.v4.s32`` (16 bytes, one
transaction as a TMA copy's), ``red.async`` as ``.s32`` (4 bytes): an mbarrier that both
complete is refused.

Refused: CTA barriers (they would need the whole block),
surface/texture/constant accesses (they need texture or surface objects), final values
of shared words. A generic virtual alias ``y @ generic aliases x`` (PTX ISA §8.2.2)
reads and writes x's memory through a second virtual mapping of the same physical
memory (``ALOC``: the host maps the locations twice with the CUDA driver's virtual
memory calls, gdrcheck/hw/run.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gdrcheck.errors import UnsupportedError
from gdrcheck.litmus import ast as A
from gdrcheck.litmus.instructions import cluster_layout

SCOPES = {"cta": "cta", "cluster": "cluster", "gpu": "gpu", "sys": "sys"}
_CMP = {"eq": "==", "ne": "!=", "lt": "<", "gt": ">", "le": "<=", "ge": ">="}
_OPS = {"add": "+", "sub": "-", "mul": "*", "div": "/", "and": "&", "or": "|", "xor": "^"}
BULK_BYTES = 16  # one litmus word moved by a bulk copy: its smallest size (PTX ISA cp.async.bulk)
_PROXY_FENCES = {"proxy.async", "proxy.async.global", "proxy.async.shared::cta",
                 "proxy.alias"}


@dataclass
class Kernel:
    """The generated source and what the host needs to run it."""

    test: A.Test
    source: str
    locations: list[str]  # index -> global location name (instance-local slots)
    init: dict[str, int]
    regs: list[tuple[int, str]]  # (thread, register) output slots, in order
    groups: list[list[int]]  # cta group -> litmus thread indexes
    warps: int  # litmus threads per block (the largest group)
    shared: list[str] = field(default_factory=list)  # shared words (incl. copy buffers)
    mbarriers: list[str] = field(default_factory=list)
    bulk: bool = False  # uses cp.async.bulk: global locations must be 16-byte aligned
    aliases: dict[str, str] = field(default_factory=dict)  # generic virtual aliases
    notes: list[str] = field(default_factory=list)
    group_gpus: list[int] = field(default_factory=list)  # group -> GPU (0 .. gpus - 1)
    owners: list[int] = field(default_factory=list)  # location -> the GPU it lives on
    gpu_ids: list[int] = field(default_factory=list)  # GPU index -> the test's gpu number
    cluster: int = 1  # __cluster_dims__ of the launch: launch a multiple of this many blocks

    @property
    def gpus(self) -> int:
        """How many GPUs the kernel runs on (one kernel launch each)."""
        return max(1, len(self.gpu_ids))


def _sem(sem: str, scope: str | None, op: str) -> str:
    if sem == "weak":
        return op
    if sem == "volatile":
        return f"{op}.volatile"
    assert scope is not None
    return f"{op}.{sem}.{SCOPES[scope]}"


class _Gen:
    def __init__(self, test: A.Test) -> None:
        self.test = test
        self.locs: list[str] = []
        self.regs: list[tuple[int, str]] = []
        self.shared_names = {i.name for i in test.init if isinstance(i, A.SharedDecl)}
        self.mbar_count = {i.name: i.count for i in test.init
                           if isinstance(i, A.MbarrierDecl)}
        self.shared: list[str] = [i.name for i in test.init if isinstance(i, A.SharedDecl)]
        self.mbars: list[str] = list(self.mbar_count)
        self.bulk = False
        # mapa names per thread -> the shared word or mbarrier they map (docs/ptx-clusters.md)
        self.mapped: dict[int, dict[str, str]] = {
            th.index: {i.dst: i.target.name for i in th.instrs if isinstance(i, A.PtxMapa)}
            for th in test.threads}
        self.tx_unit = self._tx_units()
        self.aliases: dict[str, str] = {}  # generic virtual alias -> its target location
        for item in test.init:
            if isinstance(item, A.AliasDecl) and item.proxy == "generic":
                self.aliases[item.name] = item.target
            elif isinstance(item, A.AliasDecl):
                raise UnsupportedError(
                    f"gdrcheck hw cannot run {item.proxy} references "
                    f"({item.name} @ {item.proxy} aliases {item.target}): they need "
                    "texture, surface or constant objects", pos=item.pos)

    def _tx_units(self) -> dict[str, int]:
        """The bytes of one transaction on each mbarrier: a TMA copy or an st.async moves 16,
        a red.async 4; one mbarrier completed by both is refused."""
        units: dict[str, set[int]] = {}
        for th in self.test.threads:
            for ins in th.instrs:
                if isinstance(ins, A.PtxBulkLoad):
                    units.setdefault(ins.mbar.name, set()).add(BULK_BYTES)
                elif isinstance(ins, A.PtxStoreAsync):
                    name = self.mapped[th.index].get(ins.mbar.name, ins.mbar.name)
                    units.setdefault(name, set()).add(BULK_BYTES if ins.op is None else 4)
        for name, sizes in units.items():
            if len(sizes) > 1:
                raise UnsupportedError(
                    f"gdrcheck hw cannot count the transactions of {name}: it is completed by "
                    "red.async (4 bytes) and by 16-byte copies")
        return {name: sizes.pop() for name, sizes in units.items()}

    def is_mapped(self, ref: A.LocRef) -> bool:
        return ref.name in self.mapped.get(self.thread, {})

    def caddr(self, ref: A.LocRef) -> str:
        """A shared::cluster address: a mapa name's register, or the own CTA's address
        (the shared::cta window lies in the shared::cluster window)."""
        if self.is_mapped(ref):
            return f"a_{ref.name}"
        return self.maddr(ref) if ref.name in self.mbar_count else self.saddr(ref)

    rank: int | None = None  # GIN (stand-in mode): the rank of the thread being generated
    gdc = False  # a griddepcontrol.launch_dependents was generated
    thread = 0
    tmp = 0

    def loc(self, ref: A.LocRef) -> int:
        if ref.name in self.aliases:
            raise UnsupportedError(f"{ref.name} is an alias", pos=ref.pos)
        if ref.name in self.shared_names or ref.name in self.mbar_count:
            raise UnsupportedError(f"{ref.name} is shared memory: not a global location",
                                   pos=ref.pos)
        if self.test.arch == "GIN":
            k = ref.rank if ref.rank is not None else self.rank
            name = f"{ref.name}@{k}"
        elif ref.rank is not None:
            raise UnsupportedError("locations of other ranks (x@k) need a GIN test",
                                   pos=ref.pos)
        else:
            name = ref.name
        if name not in self.locs:
            self.locs.append(name)
        return self.locs.index(name)

    def is_shared(self, ref: A.LocRef) -> bool:
        return ref.name in self.shared_names

    def gaddr(self, ref: A.LocRef) -> str:
        if ref.name in self.aliases:  # the same memory through the second mapping
            if ref.rank is not None:
                raise UnsupportedError("aliases of other ranks' locations", pos=ref.pos)
            return f"ALOC({self.loc(A.LocRef(self.aliases[ref.name], None, ref.pos))})"
        return f"LOC({self.loc(ref)})"

    def saddr(self, ref: A.LocRef) -> str:
        return f"SADDR({self.shared.index(ref.name)})"

    def maddr(self, ref: A.LocRef) -> str:
        if ref.name not in self.mbar_count:
            raise UnsupportedError(f"{ref.name} is not an mbarrier", pos=ref.pos)
        return f"MADDR({self.mbars.index(ref.name)})"

    def val(self, v: A.Value) -> str:
        return str(v.value) if isinstance(v, A.Const) else f"r_{v.name}"

    def thread_body(self, th: A.Thread) -> list[str]:
        self.thread = th.index
        self.rank = th.placement.gpu or 0  # as the groups take it (a GIN thread without gpu)
        out: list[str] = []
        for ins in th.instrs:
            out.extend(self.instr(ins))
        return out

    def instr(self, ins: A.Instr) -> list[str]:
        if isinstance(ins, A.PtxLoad):
            if ins.proxy != "generic":
                raise UnsupportedError(f"gdrcheck hw cannot run {ins.proxy}-proxy loads",
                                       pos=ins.pos)
            op = _sem(ins.sem, ins.scope, "ld")
            if self.is_mapped(ins.loc):
                return [f'asm volatile("{op}.shared::cluster.s32 %0, [%1];" : '
                        f'"=r"(r_{ins.dst.name}) : "r"(a_{ins.loc.name}) : "memory");'
                        f"  // {_text(ins)}"]
            if self.is_shared(ins.loc):
                return [f'asm volatile("{op}.shared.s32 %0, [%1];" : "=r"(r_{ins.dst.name})'
                        f' : "r"({self.saddr(ins.loc)}) : "memory");  // {_text(ins)}']
            return [f'asm volatile("{op}.global.s32 %0, [%1];" : "=r"(r_{ins.dst.name}) '
                    f': "l"({self.gaddr(ins.loc)}) : "memory");  // {_text(ins)}']
        if isinstance(ins, A.PtxStore):
            if ins.proxy != "generic":
                raise UnsupportedError(f"gdrcheck hw cannot run {ins.proxy}-proxy stores",
                                       pos=ins.pos)
            op = _sem(ins.sem, ins.scope, "st")
            v = f'"r"((int)({self.val(ins.value)}))'
            if self.is_mapped(ins.loc):
                return [f'asm volatile("{op}.shared::cluster.s32 [%0], %1;" :: '
                        f'"r"(a_{ins.loc.name}), {v} : "memory");  // {_text(ins)}']
            if self.is_shared(ins.loc):
                return [f'asm volatile("{op}.shared.s32 [%0], %1;" :: '
                        f'"r"({self.saddr(ins.loc)}), {v} : "memory");  // {_text(ins)}']
            return [f'asm volatile("{op}.global.s32 [%0], %1;" :: "l"({self.gaddr(ins.loc)}), '
                    f'{v} : "memory");  // {_text(ins)}']
        if isinstance(ins, (A.PtxAtom, A.PtxRed)):
            return self.rmw(ins)
        if isinstance(ins, A.PtxFence):
            if ins.kind.startswith("proxy"):
                if ins.kind not in _PROXY_FENCES:
                    raise UnsupportedError(f"gdrcheck hw cannot run fence.{ins.kind}",
                                           pos=ins.pos)
                return [f'asm volatile("fence.{ins.kind};" ::: "memory");  // {_text(ins)}']
            assert ins.scope is not None
            return [f'asm volatile("fence.{ins.kind}.{SCOPES[ins.scope]};" ::: "memory");'
                    f"  // {_text(ins)}"]
        if isinstance(ins, A.PtxAsyncStore):
            # the shared buffer that holds v: written by this thread, made visible to the
            # async proxy, then copied by a bulk store (docs/litmus-format.md §7.3 shorthand)
            self.bulk = True
            buf = f"__cp{self.thread}_{self.tmp}"
            self.tmp += 1
            self.shared.append(buf)
            sa = f"SADDR({self.shared.index(buf)})"
            return [f'asm volatile("st.shared.s32 [%0], %1;" :: "r"({sa}), '
                    f'"r"((int)({self.val(ins.value)})) : "memory");',
                    'asm volatile("fence.proxy.async.shared::cta;" ::: "memory");',
                    'asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], '
                    f'{BULK_BYTES};" :: "l"({self.gaddr(ins.loc)}), "r"({sa}) : "memory");'
                    f"  // {_text(ins)}"]
        if isinstance(ins, A.PtxBulkLoad):
            self.bulk = True
            if not self.is_shared(ins.dst) or self.is_shared(ins.src):
                raise UnsupportedError("a TMA load copies global memory into shared memory",
                                       pos=ins.pos)
            return ['asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx'
                    f'::bytes [%0], [%1], {BULK_BYTES}, [%2];" :: "r"({self.saddr(ins.dst)}), '
                    f'"l"({self.gaddr(ins.src)}), "r"({self.maddr(ins.mbar)}) : "memory");'
                    f"  // {_text(ins)}"]
        if isinstance(ins, A.PtxBulkStore):
            self.bulk = True
            if self.is_shared(ins.dst) or not self.is_shared(ins.src):
                raise UnsupportedError("a TMA store copies shared memory into global memory",
                                       pos=ins.pos)
            return ['asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], '
                    f'{BULK_BYTES};" :: "l"({self.gaddr(ins.dst)}), '
                    f'"r"({self.saddr(ins.src)}) : "memory");  // {_text(ins)}']
        if isinstance(ins, A.PtxBulkCommit):
            return [f'asm volatile("cp.async.bulk.commit_group;" ::: "memory");'
                    f"  // {_text(ins)}"]
        if isinstance(ins, A.PtxAsyncWait):
            # docs/litmus-format.md §7.3: the open group is committed before a wait
            read = ".read" if ins.read else ""
            return ['asm volatile("cp.async.bulk.commit_group;" ::: "memory");',
                    f'asm volatile("cp.async.bulk.wait_group{read} {ins.groups};" ::: '
                    f'"memory");  // {_text(ins)}']
        if isinstance(ins, A.PtxMbarArrive):
            target = self.mapped[self.thread].get(ins.mbar.name, ins.mbar.name)
            tx = (ins.expect_tx or 0) * self.tx_unit.get(target, BULK_BYTES)
            base = (f"mbarrier.arrive{'.expect_tx' if ins.expect_tx is not None else ''}"
                    f".{ins.sem}.{ins.scope}")
            count = f", {tx}" if ins.expect_tx is not None else ""
            if self.is_mapped(ins.mbar):  # a peer CTA's mbarrier: no state is returned
                return [f'asm volatile("{base}.shared::cluster.b64 _, [%0]{count};" :: '
                        f'"r"(a_{ins.mbar.name}) : "memory");  // {_text(ins)}']
            m = self.maddr(ins.mbar)
            return ["{ unsigned long long st_; "
                    f'asm volatile("{base}.shared::cta.b64 %0, [%1]{count};" '
                    f': "=l"(st_) : "r"({m}) : "memory"); }}  // {_text(ins)}']
        if isinstance(ins, A.PtxMapa):
            k = (self.mbars.index(ins.target.name) if ins.target.name in self.mbar_count
                 else self.shared.index(ins.target.name))
            src = f"MADDR({k})" if ins.target.name in self.mbar_count else f"SADDR({k})"
            return [f'asm volatile("mapa.shared::cluster.u32 %0, %1, {ins.rank};" : '
                    f'"=r"(a_{ins.dst}) : "r"({src}));  // {_text(ins)}']
        if isinstance(ins, A.PtxClusterBarrier):
            return [f'asm volatile("barrier.cluster.{ins.action}.{ins.sem};" ::: "memory");'
                    f"  // {_text(ins)}"]
        if isinstance(ins, A.PtxStoreAsync):
            a, mb = self.caddr(ins.loc), self.caddr(ins.mbar)
            v = f'"r"((int)({self.val(ins.value)}))'
            if ins.op is None:
                return ['asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes'
                        '.v4.s32 [%0], {%1, %2, %2, %2}, [%3];" :: '
                        f'"r"({a}), {v}, "r"(0), "r"({mb}) : "memory");  // {_text(ins)}']
            typ = "b32" if ins.op in ("and", "or", "xor") else "s32"
            return ['asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::'
                    f'complete_tx::bytes.{ins.op}.{typ} [%0], %1, [%2];" :: '
                    f'"r"({a}), {v}, "r"({mb}) : "memory");  // {_text(ins)}']
        if isinstance(ins, A.PtxMbarWait):
            m = self.maddr(ins.mbar)
            k = self.mbars.index(ins.mbar.name)
            # bounded twice: at most WAIT_LIMIT tries and WAIT_NS of the GPU's global
            # timer (each try_wait may suspend the thread for a while: 2^22 of them on a
            # wait nothing satisfies ran over 120 s in the long fuzz run, issue 12)
            return ["{ unsigned ok_ = 0; long long n_ = 0; "
                    "unsigned long long t0_, t_; "
                    'asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0_)); t_ = t0_; '
                    f"unsigned par_ = (unsigned)(ph_{k}++) & 1u; "
                    "while (!ok_ && n_++ < WAIT_LIMIT && t_ - t0_ < WAIT_NS) { "
                    'asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.'
                    f'{ins.sem}.{ins.scope}.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }}" '
                    f': "=r"(ok_) : "r"({m}), "r"(par_) : "memory"); '
                    'asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t_)); } '
                    f"if (!ok_) timed_out = 1; }}  // {_text(ins)}"]
        if isinstance(ins, A.PtxGridDep):  # PTX ISA §9.7.13.13 (sm_90); gdrcheck/hw/pdl.py
            if ins.action == "wait":
                return [f'asm volatile("griddepcontrol.wait;" ::: "memory");  // {_text(ins)}']
            self.gdc = True  # a macro: pdl.py counts a block's triggers (many instances a CTA)
            return [f"GDC_LAUNCH_DEPENDENTS();  // {_text(ins)}"]
        if isinstance(ins, A.LocalOp):
            args = [self.val(v) for v in ins.args]
            if ins.op == "mov":
                return [f"r_{ins.dst.name} = {args[0]};"]
            return [f"r_{ins.dst.name} = {args[0]} {_OPS[ins.op]} {args[1]};"]
        if isinstance(ins, A.Setp):  # the predicate as a register of 0 or 1: C's comparison
            return [f"r_{ins.dst.name} = ({self.val(ins.a)} {_CMP[ins.cond]} "
                    f"{self.val(ins.b)}) ? 1 : 0;  // {_text(ins)}"]
        if isinstance(ins, A.Selp):  # c ? a : b, which nvcc compiles to selp (or a branch)
            return [f"r_{ins.dst.name} = ({self.val(ins.c)} != 0) ? {self.val(ins.a)} : "
                    f"{self.val(ins.b)};  // {_text(ins)}"]
        if isinstance(ins, A.Label):
            return [f"L{self.thread}_{ins.name}:;"]
        # every taken jump counts: a spin loop whose partner never comes (not yet
        # resident, or a test that can hang) gives up after JUMP_LIMIT jumps and flags
        # the instance, which is left out of the histogram
        jump = (f"{{ if (++jumps_ > JUMP_LIMIT) {{ timed_out = 1; goto Lend{self.thread}; }} "
                f"goto L{self.thread}_{{}}; }}")
        if isinstance(ins, A.Goto):
            return [jump.replace("{}", ins.target, 1)]
        if isinstance(ins, A.Branch):
            return [f"if ({self.val(ins.a)} {_CMP[ins.cond]} {self.val(ins.b)}) "
                    + jump.replace("{}", ins.target, 1)]
        raise UnsupportedError(f"gdrcheck hw cannot run {type(ins).__name__} "
                               "(CTA barriers and GIN calls are not supported)",
                               pos=ins.pos)

    def rmw(self, ins: A.PtxAtom | A.PtxRed) -> list[str]:
        if self.is_shared(ins.loc) or self.is_mapped(ins.loc):
            raise UnsupportedError("gdrcheck hw does not run atomics on shared memory",
                                   pos=ins.pos)
        addr = self.gaddr(ins.loc)
        base = f"{'atom' if isinstance(ins, A.PtxAtom) else 'red'}.{ins.sem}.{SCOPES[ins.scope]}"
        typ = "b32" if ins.op in ("exch", "cas", "and", "or", "xor") else "s32"
        if isinstance(ins, A.PtxRed):
            rop, rval = ins.op, self.val(ins.value)
            if rop == "sub":
                rop, rval = "add", f"-({rval})"
            if rop not in ("add", "and", "or", "xor", "min", "max", "inc", "dec"):
                raise UnsupportedError(f"PTX has no red.{ins.op}", pos=ins.pos)
            if ins.sem not in ("relaxed", "release"):
                # red takes .relaxed/.release only: an atom whose result is dropped
                abase = f"atom.{ins.sem}.{SCOPES[ins.scope]}"
                return ["{ int dropped; "
                        f'asm volatile("{abase}.global.{rop}.{typ} %0, [%1], %2;" : '
                        f'"=r"(dropped) : "l"({addr}), "r"((int)({rval})) : '
                        f'"memory"); }}  // {_text(ins)}']
            return [f'asm volatile("{base}.global.{rop}.{typ} [%0], %1;" :: '
                    f'"l"({addr}), "r"((int)({rval})) : "memory");'
                    f"  // {_text(ins)}"]
        ops = [self.val(v) for v in ins.operands]
        if ins.op == "cas":
            return [f'asm volatile("{base}.global.cas.b32 %0, [%1], %2, %3;" : '
                    f'"=r"(r_{ins.dst.name}) : "l"({addr}), "r"((int)({ops[0]})), '
                    f'"r"((int)({ops[1]})) : "memory");  // {_text(ins)}']
        op = ins.op if ins.op not in ("inc", "dec", "sub") else "add"
        arg = ops[0] if ops else ("1" if ins.op == "inc" else "-1")
        if ins.op == "sub":
            arg = f"-({arg})"
        if op not in ("add", "exch", "and", "or", "xor", "min", "max"):
            raise UnsupportedError(f"PTX has no atom.{ins.op}", pos=ins.pos)
        return [f'asm volatile("{base}.global.{op}.{typ} %0, [%1], %2;" : '
                f'"=r"(r_{ins.dst.name}) : "l"({addr}), "r"((int)({arg})) : '
                f'"memory");  // {_text(ins)}']


def _text(ins: A.Instr) -> str:
    from gdrcheck.litmus.printer import instr

    return instr(ins).replace("*/", "* /")


def _registers(th: A.Thread) -> list[str]:
    names: list[str] = []
    for ins in th.instrs:
        for f in ("dst",):
            r = getattr(ins, f, None)
            if isinstance(r, A.Reg) and r.name not in names:
                names.append(r.name)
        for f in ("value", "a", "b", "c"):
            v = getattr(ins, f, None)
            if isinstance(v, A.Reg) and v.name not in names:
                names.append(v.name)
        for v in getattr(ins, "operands", ()) or ():
            if isinstance(v, A.Reg) and v.name not in names:
                names.append(v.name)
        for v in getattr(ins, "args", ()) or ():
            if isinstance(v, A.Reg) and v.name not in names:
                names.append(v.name)
    return names


def generate(test: A.Test, stand_in: bool = False, ipb: int = 128,
             multi_gpu: bool = False) -> Kernel:
    """The CUDA source running ``test``, ``ipb`` instance slots per block. Without
    ``multi_gpu`` the test's threads must sit on one GPU. With ``stand_in``, a
    GIN-dialect test made of PTX instructions only (the LSA tests: loads and stores on
    x@k over NVLink) runs with one CTA standing in for each GPU and x@k as ordinary
    locations: NOT an NVLink run. With ``multi_gpu`` each GPU the test names gets its own
    launch and its locations (x@k on GPU k), the others reaching them as peer memory
    (issue 7)."""
    if test.arch not in ("PTX", "GIN"):
        raise UnsupportedError(f"gdrcheck hw runs PTX tests, not {test.arch}", test.path)
    if any(th.placement.grid for th in test.threads):
        raise UnsupportedError(
            "the test places threads in several grids of a stream (programmatic dependent "
            "launch, docs/ptx-pdl-mbarrier.md): gdrcheck/hw/pdl.py generates it, one launch "
            "per grid", test.path)
    gpus = {th.placement.gpu for th in test.threads} - {None}
    if not stand_in and not multi_gpu and (test.arch == "GIN" or len(gpus) > 1):
        raise UnsupportedError(
            "the test places threads on several GPUs (or is a GIN test): hw run runs each "
            "GPU's threads on a GPU of its own, --stand-in with one CTA per GPU on one GPU",
            test.path)
    try:
        g = _Gen(test)
    except UnsupportedError as err:
        raise err.with_context(test.path, test.source) from None
    for item in test.init:
        if isinstance(item, A.InitLoc) and (test.arch == "PTX" or item.loc.rank is not None):
            if item.loc.name in g.shared_names:
                continue
            g.loc(item.loc)
    ctas: dict[tuple[int, int], list[int]] = {}
    for i, th in enumerate(test.threads):
        key = (th.placement.gpu or 0, th.placement.cta if th.placement.cta is not None else 0)
        ctas.setdefault(key, []).append(i)
    groups = [ctas[k] for k in sorted(ctas)]
    several = multi_gpu and not stand_in
    layout = cluster_layout(test.threads)
    csize = 1
    if layout.clustered:
        if stand_in or len(gpus) > 1:
            raise UnsupportedError("gdrcheck hw runs thread block clusters on one GPU",
                                   test.path)
        several = False  # one GPU: the one-launch layout (run.py asks for multi_gpu always)
        csize = max(len(m) for m in layout.members.values())
        order: list[tuple[int, ...]] = []
        for key in sorted(ctas):
            members = layout.ctas(*key)
            if members not in order:
                order.append(members)
        gpu0 = sorted(ctas)[0][0]
        groups = [ctas[(gpu0, members[r])] if r < len(members) else []
                  for members in order for r in range(csize)]
    if several and g.aliases:
        raise UnsupportedError("generic virtual aliases on several GPUs", test.path)
    warps = max(len(gr) for gr in groups)
    bodies: list[str] = []
    init_regs: dict[tuple[int, str], int] = {}
    for item in test.init:
        if isinstance(item, A.InitReg) and isinstance(item.value, int):
            init_regs[(item.thread, item.reg)] = item.value
    for i, th in enumerate(test.threads):
        try:
            body = g.thread_body(th)
        except UnsupportedError as err:
            raise err.with_context(test.path, test.source) from None
        names = _registers(th)
        decl = [f"int r_{n} = {init_regs.get((th.index, n), 0)};" for n in names]
        decl += [f"unsigned a_{n} = 0;" for n in g.mapped[th.index]]
        decl += [f"int ph_{k} = 0;" for k in range(len(g.mbars))] + ["long long jumps_ = 0;"]
        outs = [f"Lend{th.index}:;"]
        for n in names:
            slot = len(g.regs)
            g.regs.append((th.index, n))
            outs.append(f"out[inst * NOUT + {slot}] = r_{n};")
        outs.append("if (timed_out) out[inst * NOUT + NREGS] = 1;")
        bodies.append(
            f"  if (role == {i}) {{  // P{th.index}\n"
            + "".join(f"    {x}\n" for x in decl + body + outs) + "  }\n")
    _observed_shared(test, g.shared_names | set(g.mbar_count))
    init: dict[str, int] = {}
    for item in test.init:
        if isinstance(item, A.InitLoc) and test.arch == "GIN":
            if item.loc.rank is not None:
                init[f"{item.loc.name}@{item.loc.rank}"] = item.value
            else:  # symmetric: every rank's copy
                for name in g.locs:
                    if name.rsplit("@", 1)[0] == item.loc.name:
                        init.setdefault(name, item.value)
        elif isinstance(item, A.InitLoc) and item.loc.name not in g.shared_names:
            init[item.loc.name] = item.value
    shared_init = {i.name: i.value for i in test.init if isinstance(i, A.SharedDecl)}
    for item in test.init:  # `s = v;` written in the init list for a shared word
        if isinstance(item, A.InitLoc) and item.loc.name in g.shared_names:
            shared_init[item.loc.name] = item.value
    role_table = ", ".join(
        str(gr[w]) if w < len(gr) else "-1" for gr in groups for w in range(warps))
    # every location is known now (the thread bodies are generated): the GPUs are those
    # of the threads and those the locations live on (x@k: GPU k; PTX: the first GPU)
    thread_gpus = sorted({gpu for gpu, _ in ctas})
    ranks = [int(name.rsplit("@", 1)[1]) if test.arch == "GIN" else thread_gpus[0]
             for name in g.locs]
    gpu_ids = sorted(set(thread_gpus) | set(ranks)) if several else [0]
    index = {gpu: i for i, gpu in enumerate(gpu_ids)}
    group_gpus = ([index[gpu] for gpu, _ in sorted(ctas)] if several else [0] * len(groups))
    owners = [index[r] if several else 0 for r in ranks]
    nlocs = max(1, len(g.locs))
    if several:  # each location's address once, from the base of the GPU it lives on
        loc_macro = "#define LOC(a) LP##a  // computed once per thread, before the test\n"
        addr = "".join(
            f"  int *const LP{a} = (int *)lbase[{o}] + (layout ? ((long long){a} * n + inst) "
            f"* stride : ((long long)inst * NLOCS + {a}) * stride);  // {g.locs[a]}\n"
            for a, o in enumerate(owners))
        bar_add = "atomicAdd_system"
    else:
        loc_macro = ("#define LOC(a) (layout ? locs + ((long long)(a) * n + inst) * stride \\\n"
                     "                       : locs + ((long long)inst * NLOCS + (a)) * stride)\n")
        addr = ""
        bar_add = "atomicAdd"
    nsh = max(1, len(g.shared))
    nmb = max(1, len(g.mbars))
    sh_init = "".join(
        f"      SH[local][{k}][0] = {shared_init.get(name, 0)};\n"
        for k, name in enumerate(g.shared))
    mb_init = "".join(
        f'      asm volatile("mbarrier.init.shared::cta.b64 [%0], {g.mbar_count[name]};" :: '
        f'"r"((unsigned)__cvta_generic_to_shared(&MB[local][{k}])) : "memory");\n'
        for k, name in enumerate(g.mbars))
    fence_init = ('  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");\n'
                  if g.mbars else "")
    if csize > 1:  # the cluster's blocks: initialised before any peer reaches them
        fence_init += ('  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");\n'
                       '  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");\n')
    cluster_attr = f"__cluster_dims__({csize}, 1, 1) " if csize > 1 else ""
    pairing = ("  int affg = group - group % CLUSTER;  // a cluster's CTAs play one instance\n"
               "  long long inst = (aff[2 * affg] * slot + aff[2 * affg + 1]) % n;\n"
               if csize > 1 else
               "  long long inst = (aff[2 * group] * slot + aff[2 * group + 1]) % n;\n")
    # no block leaves while a peer of its cluster may still reach its shared memory
    cluster_exit = ('  asm volatile("barrier.cluster.arrive.release;" ::: "memory");\n'
                    '  asm volatile("barrier.cluster.wait.acquire;" ::: "memory");\n'
                    if csize > 1 else "")
    gdc_default = ("#ifndef GDC_LAUNCH_DEPENDENTS  // pdl.py counts a block's triggers\n"
                   "#define GDC_LAUNCH_DEPENDENTS() "
                   'asm volatile("griddepcontrol.launch_dependents;" ::: "memory")\n'
                   "#endif\n" if g.gdc else "")
    src = f"""// Generated by gdrcheck hw from litmus test {test.name} ({test.path or 'text'}).
// Every memory access and fence is inline PTX with the test's semantics, scope and space.
#define NLOCS {nlocs}
#define NREGS {max(1, len(g.regs))}
#define NOUT (NREGS + 1)
#define GROUPS {len(groups)}
#define WARPS {warps}
#define NTHREADS {len(test.threads)}
#define IPB {ipb}
#define NSH {nsh}
#define NMB {nmb}
#define WAIT_LIMIT (1LL << 22)
#define WAIT_NS 2000000ULL  // an mbarrier wait gives up after 2 ms (global timer, ns)
#define JUMP_LIMIT (1LL << 16)
#define CLUSTER {csize}  // blocks per thread block cluster (__cluster_dims__)
{loc_macro}#define ALOC(a) (alocs + (LOC(a) - locs))  // a second virtual mapping of the same memory
#define SADDR(k) ((unsigned)__cvta_generic_to_shared(&SH[local][k][0]))
#define MADDR(k) ((unsigned)__cvta_generic_to_shared(&MB[local][k]))
{gdc_default}
__constant__ int ROLE[GROUPS * WARPS] = {{{role_table}}};

extern "C" __global__ void {cluster_attr}__launch_bounds__(IPB * WARPS)
litmus(int *locs, int *alocs, int *out, int *bar, const long long *aff, long long n, int stride,
       int layout, int sync_limit, int *scratch, int scratch_words, int stress_blocks,
       int stress_mode, const long long *lbase, int group_first, int group_count) {{
  __shared__ __align__(16) int SH[IPB][NSH][4];
  __shared__ __align__(8) unsigned long long MB[IPB][NMB];
  int block = blockIdx.x;
  stress_blocks = (stress_blocks + CLUSTER - 1) / CLUSTER * CLUSTER;  // whole clusters
  if (block < stress_blocks) {{  // memory stress: hammer a scratch area meanwhile
    for (int k = 0; k < 2048; k++) {{
      int i = (threadIdx.x * 64 + block * 977 + k * 31) % scratch_words;
      if (stress_mode == 0) atomicAdd(scratch + i, 1);
      else {{ int v = ((volatile int *)scratch)[i]; ((volatile int *)scratch)[i ^ 32] = v + 1; }}
    }}
    return;
  }}
  block -= stress_blocks;
  int group = group_first + block % group_count;  // this GPU's groups only
  int warp = threadIdx.x / IPB, local = threadIdx.x % IPB;
  long long slot = (long long)(block / group_count) * IPB + local;
  if (warp == 0) {{  // this block's copy of the shared words and mbarriers of slot `local`
{sh_init}{mb_init}  }}
{fence_init}  __syncthreads();
  if (warp >= WARPS || slot >= n) return;
  int role = ROLE[group * WARPS + warp];
  if (role < 0) return;
{pairing}{addr}  int timed_out = 0;
  if (sync_limit > 0) {{  // the instance's threads meet (a bounded spin barrier)
    {bar_add}(bar + inst, 1);
    for (int k = 0; k < sync_limit && ((volatile int *)bar)[inst] < NTHREADS; k++) {{ }}
  }}
{''.join(bodies)}{cluster_exit}}}
"""
    return Kernel(test, src, list(g.locs), init, g.regs, groups, warps,
                  shared=list(g.shared), mbarriers=list(g.mbars), bulk=g.bulk,
                  aliases=dict(g.aliases), group_gpus=group_gpus, owners=owners,
                  gpu_ids=gpu_ids, cluster=csize)


def _observed_shared(test: A.Test, names: set[str]) -> None:
    """Final values of shared words are not collected (each CTA has its own copy)."""
    from gdrcheck.engine.observe import Observables

    for term in Observables(test).terms:
        if term.split("@")[0] in names:
            raise UnsupportedError(f"gdrcheck hw does not collect the final value of the "
                                   f"shared word {term}", test.path)
