"""The catalogue of program strengthenings that ``gdrcheck fix`` may apply.

Each entry is data: a name, a cost, the sources that justify it, and a function that
lists the places a test can take it (an :class:`Edit` each). The search
(:mod:`gdrcheck.analysis.fix`) never looks inside an entry, so a new strengthening is
one more :class:`Strengthening` in :data:`CATALOGUE`.

Every edit makes the program stronger: it adds ordering (a fence, a release or
acquire, a wider scope, a strong signal, a flush, a strict window), never removes any,
so by the monotonicity law (docs/laws.md, tests/laws) it never adds an outcome. The
costs are a ranking, not a performance model: a plain access made release/acquire
costs 1, a fence 2 (``fence.sc`` 3), each scope step wider +1 (``.cta`` 0, ``.gpu`` 1,
``.sys`` 2); an x86 MFENCE 3; a GIN or NVSHMEM change of a call's kind 1 (also a
signal bundled into its put, a put and its signal_op made a put_signal, an mbarrier
arrival made release or its wait acquire), an added flush, ``shmem.fence`` or proxy
fence 2, a counter and a wait for it 2, ``shmem.quiet`` 3.

An edit changes one place (``slot``), except a bundling, which replaces two adjacent
instructions by one and takes both places; one that declares a counter adds an init
item (:attr:`Edit.init_add`). The shared encoding (gdrcheck/analysis/fix_shared.py)
gives a selector to every edit of one instruction for one (:attr:`Edit.simple`); the
others are checked on their own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from gdrcheck.litmus import ast as A

SCOPE_COST: dict[str, int] = {"cta": 0, "cluster": 0, "gpu": 1, "sys": 2}  # cluster: as cta
WIDER: dict[str, tuple[A.Scope, ...]] = {"cta": ("gpu", "sys"), "cluster": ("gpu", "sys"),
                                         "gpu": ("sys",), "sys": ()}
SCOPES: tuple[A.Scope, ...] = ("cta", "gpu", "sys")  # the scopes fix offers (not .cluster)


@dataclass(frozen=True)
class Edit:
    """One strengthening at one place: replace instruction ``index`` of thread
    ``thread`` by ``instr``, insert ``instr`` before it, or replace init item
    ``index`` (``thread`` -1)."""

    entry: str
    cost: int
    thread: int
    index: int
    action: str  # "replace" | "insert" | "init"
    instr: object
    """The new instruction (or init item); for a replacement, also a tuple of
    instructions (one replaced by several: a put with a counter and its wait)."""
    text: str  # what it does, in words
    strength: tuple[str, int, int] = ("", 0, 0)
    """(family, semantics level, scope level): within a slot and a family, an edit at
    least as high on both levels is at least as strong (:meth:`dominates`)."""
    span: int = 1
    """A replacement of ``span`` instructions from ``index`` on (2: a put and the
    signal after it become one put with that signal)."""
    init_add: tuple[object, ...] = ()
    """Init items the edit adds (a counter it declares)."""

    @property
    def slot(self) -> tuple[int, int, str]:
        """Edits with the same slot exclude each other (two ways of changing one thing)."""
        return (self.thread, self.index, "insert" if self.action == "insert" else "change")

    @property
    def slots(self) -> tuple[tuple[int, int, str], ...]:
        """Every slot the edit takes (a replacement of several instructions takes the
        change slot of each)."""
        if self.action != "replace" or self.span == 1:
            return (self.slot,)
        return tuple((self.thread, self.index + k, "change") for k in range(self.span))

    @property
    def simple(self) -> bool:
        """One instruction (or init item) for one: what the shared encoding can guard."""
        return self.span == 1 and not isinstance(self.instr, tuple) and not self.init_add

    def dominates(self, other: Edit) -> bool:
        """``self`` makes the program at least as strong as ``other`` (same place, same
        family, semantics and scope at least as high): by monotonicity, a set of edits
        that fails still fails with ``other`` in place of ``self``."""
        if self == other:
            return True
        f, sem, scope = self.strength
        g, sem2, scope2 = other.strength
        return (bool(f) and self.slot == other.slot and f == g and sem >= sem2
                and scope >= scope2)


@dataclass(frozen=True)
class Strengthening:
    name: str
    doc: str
    sources: str
    candidates: Callable[[A.Test], Iterator[Edit]]


def _threads(test: A.Test) -> Iterator[tuple[int, A.Thread]]:
    yield from enumerate(test.threads)


_ACCESS = (A.PtxLoad, A.PtxStore, A.PtxAtom, A.PtxRed)
_GIN_CALLS = (A.GinPut, A.GinSignal, A.GinGet, A.GinFlush, A.ShmemCall)


def _gaps(th: A.Thread, kinds: tuple[type, ...]) -> Iterator[int]:
    """Indices ``i`` where an instruction of ``kinds`` is at ``i - 1`` and another
    later in the thread (a fence inserted before ``i`` orders something)."""
    ins = th.instrs
    for i in range(1, len(ins)):
        if isinstance(ins[i - 1], kinds) and any(isinstance(x, kinds) for x in ins[i:]):
            yield i


def _ptx_fences(test: A.Test) -> Iterator[Edit]:
    if test.arch == "X86":
        return
    for t, th in _threads(test):
        if th.placement.host:
            continue
        for i in _gaps(th, (*_ACCESS, *_GIN_CALLS)):
            for kind, base in (("acq_rel", 2), ("sc", 3)):
                for scope in SCOPES:
                    yield Edit(f"fence.{kind}", base + SCOPE_COST[scope], t, i, "insert",
                               A.PtxFence(kind, scope), f"insert fence.{kind}.{scope}",
                               ("fence", base, SCOPE_COST[scope]))


def _not_narrower(ins: A.PtxLoad | A.PtxStore) -> tuple[A.Scope, ...]:
    """The scopes a release or acquire may take in place of ``ins``: any for a weak
    access, those at least as wide as its own for a relaxed one (``st.relaxed.gpu`` →
    ``st.release.cta`` narrows the scope: not a strengthening; the shared encoding's
    equivalence test found it, litmus/ptx/IRIW+fence.sc.gpu+fence.sc.cta)."""
    if ins.sem == "weak" or ins.scope is None:
        return SCOPES
    return tuple(x for x in SCOPES if x == ins.scope or x in WIDER[ins.scope])


def _ptx_release_acquire(test: A.Test) -> Iterator[Edit]:
    if test.arch == "X86":
        return
    for t, th in _threads(test):
        for i, ins in enumerate(th.instrs):
            if isinstance(ins, A.PtxLoad) and ins.sem in ("weak", "relaxed"):
                for scope in _not_narrower(ins):
                    yield Edit("ld.acquire", 1 + SCOPE_COST[scope], t, i, "replace",
                               dataclasses.replace(ins, sem="acquire", scope=scope),
                               f"make the load ld.acquire.{scope}",
                               ("access", 1, SCOPE_COST[scope]))
            elif isinstance(ins, A.PtxStore) and ins.sem in ("weak", "relaxed"):
                for scope in _not_narrower(ins):
                    yield Edit("st.release", 1 + SCOPE_COST[scope], t, i, "replace",
                               dataclasses.replace(ins, sem="release", scope=scope),
                               f"make the store st.release.{scope}",
                               ("access", 1, SCOPE_COST[scope]))
            elif isinstance(ins, A.PtxAtom) and ins.sem in ("relaxed", "acquire", "release"):
                yield Edit("atom.acq_rel", 1, t, i, "replace",
                           dataclasses.replace(ins, sem="acq_rel"), "make the atomic acq_rel")
            elif isinstance(ins, A.PtxRed) and ins.sem == "relaxed":
                yield Edit("red.release", 1, t, i, "replace",
                           dataclasses.replace(ins, sem="release"), "make the reduction release")


def _ptx_scopes(test: A.Test) -> Iterator[Edit]:
    if test.arch == "X86":
        return
    for t, th in _threads(test):
        for i, ins in enumerate(th.instrs):
            if isinstance(ins, _ACCESS) and ins.sem != "weak" and ins.scope is not None:
                for wider in WIDER[ins.scope]:
                    yield Edit("scope", SCOPE_COST[wider] - SCOPE_COST[ins.scope], t, i,
                               "replace", dataclasses.replace(ins, scope=wider),
                               f"widen the scope to .{wider}",
                               ("access", 0, SCOPE_COST[wider]))


_BULK = (A.PtxAsyncStore, A.PtxAsyncWait, A.PtxBulkLoad, A.PtxBulkStore)
_GENERIC = (A.PtxLoad, A.PtxStore, A.PtxAtom, A.PtxRed)


def _proxy_fence(test: A.Test) -> Iterator[Edit]:
    """``fence.proxy.async`` after a bulk-async (TMA) operation of the thread (R-PTX-5);
    and, where the test uses the async proxy at all, after a generic access of the
    thread, before what follows (a TMA copy reading what the thread wrote, an arrival
    that lets another thread's TMA overwrite what it read: PTX ISA §8.6.1, the proxy
    fence between the generic and the async proxy; litmus/ptx75/TMA-store+wait+release+
    proxy-fence and DeepEP-642-stage-reuse+proxy-fence). In ptx75 tests the fence may
    name one state space (``.shared::cta``, ``.global``; the unqualified fence covers
    both and dominates them)."""
    if test.arch == "X86":
        return
    uses_async = any(isinstance(x, _BULK) for th in test.threads for x in th.instrs)
    qualified = any(isinstance(x, (A.PtxBulkLoad, A.PtxBulkStore))
                    for th in test.threads for x in th.instrs)
    for t, th in _threads(test):
        if th.placement.host:
            continue
        for i in range(1, len(th.instrs)):
            before = th.instrs[:i]
            after_async = any(isinstance(x, (A.PtxAsyncStore, A.PtxAsyncWait)) for x in before)
            after_generic = uses_async and any(
                isinstance(x, _GENERIC) and getattr(x, "proxy", "generic") == "generic"
                for x in before)
            if not (after_async or after_generic):
                continue
            yield Edit("fence.proxy.async", 2, t, i, "insert",
                       A.PtxFence("proxy.async", None), "insert fence.proxy.async",
                       ("pfence", 1, 0))
            if qualified:
                for space in ("shared::cta", "global"):
                    yield Edit("fence.proxy.async", 2, t, i, "insert",
                               A.PtxFence(f"proxy.async.{space}", None),
                               f"insert fence.proxy.async.{space}", ("pfence", 0, 0))


def _mfence(test: A.Test) -> Iterator[Edit]:
    if test.arch != "X86":
        return
    for t, th in _threads(test):
        for i in range(1, len(th.instrs)):
            yield Edit("mfence", 3, t, i, "insert", A.X86Mfence(), "insert MFENCE")


def _strong_signals(test: A.Test) -> Iterator[Edit]:
    for t, th in _threads(test):
        for i, ins in enumerate(th.instrs):
            sig = getattr(ins, "signal", None)
            if isinstance(ins, (A.GinPut, A.GinSignal)) and isinstance(sig, A.SignalSpec) \
                    and sig.kind == "weak":
                yield Edit("strong-signal", 1, t, i, "replace",
                           dataclasses.replace(ins, signal=dataclasses.replace(sig,
                                                                               kind="strong")),
                           "make the signal strong")


def _flush_before_signal(test: A.Test) -> Iterator[Edit]:
    for t, th in _threads(test):
        for i, ins in enumerate(th.instrs):
            if not isinstance(ins, A.GinSignal):
                continue
            ctxs = sorted({x.ctx for x in th.instrs[:i] if isinstance(x, (A.GinPut, A.GinGet))})
            for ctx in ctxs:
                yield Edit("flush", 2, t, i, "insert", A.GinFlush(ctx),
                           f"flush context {ctx} before the signal")


def _same_context(test: A.Test) -> Iterator[Edit]:
    for t, th in _threads(test):
        for i, ins in enumerate(th.instrs):
            if not isinstance(ins, A.GinPut):
                continue
            later = sorted({x.ctx for x in th.instrs[i + 1:]
                            if isinstance(x, A.GinSignal) and x.ctx != ins.ctx})
            for ctx in later:
                yield Edit("same-context", 1, t, i, "replace",
                           dataclasses.replace(ins, ctx=ctx),
                           f"issue the put on context {ctx}, the signal's")


def _release_options(test: A.Test) -> Iterator[Edit]:
    for t, th in _threads(test):
        for i, ins in enumerate(th.instrs):
            if not isinstance(ins, (A.GinPut, A.GinSignal)):
                continue
            # givenRelease is NOT a strengthening: it tells NCCL the caller has released
            # already, so NCCL may skip its own release (R-GIN-13); gdrcheck fix found
            # this as a monotonicity failure on litmus/gin/19 under gin-proxy
            opts = ins.options
            if opts.required is None:
                for req in ("gpu", "sys"):
                    yield Edit("required-release", SCOPE_COST[req], t, i, "replace",
                               dataclasses.replace(ins, options=dataclasses.replace(
                                   opts, required=req)),
                               f"requiredRelease at {req} scope",
                               ("required", 0, SCOPE_COST[req]))


def _strict_windows(test: A.Test) -> Iterator[Edit]:
    for k, item in enumerate(test.init):
        if isinstance(item, A.WindowDecl) and not item.strict:
            yield Edit("strict-window", 1, -1, k, "init",
                       dataclasses.replace(item, strict=True),
                       f"register window {item.name} NCCL_WIN_STRICT_ORDERING")


def _shmem_fences(test: A.Test) -> Iterator[Edit]:
    for t, th in _threads(test):
        calls = [i for i, x in enumerate(th.instrs) if isinstance(x, A.ShmemCall)]
        for i in range(1, len(th.instrs)):
            if any(c < i for c in calls) and any(c >= i for c in calls):
                yield Edit("shmem.fence", 2, t, i, "insert", A.ShmemCall("fence"),
                           "insert shmem.fence")
                yield Edit("shmem.quiet", 3, t, i, "insert", A.ShmemCall("quiet"),
                           "insert shmem.quiet")


def _mbarriers(test: A.Test) -> Iterator[Edit]:
    for t, th in _threads(test):
        for i, ins in enumerate(th.instrs):
            if isinstance(ins, A.PtxMbarArrive) and ins.sem == "relaxed":
                yield Edit("mbarrier.release", 1, t, i, "replace",
                           dataclasses.replace(ins, sem="release"),
                           "make the arrival mbarrier.arrive.release")
            elif isinstance(ins, A.PtxMbarWait) and ins.sem == "relaxed":
                yield Edit("mbarrier.acquire", 1, t, i, "replace",
                           dataclasses.replace(ins, sem="acquire"),
                           "make the wait mbarrier.wait.acquire")


def _mm_scopes(sem: str, scope: A.Scope | None) -> tuple[A.Scope, ...]:
    """As :func:`_not_narrower`, for a multimem access's semantics and scope."""
    if sem == "weak" or scope is None:
        return SCOPES
    return tuple(x for x in SCOPES if SCOPE_COST[x] >= SCOPE_COST[scope])


def _multimem(test: A.Test) -> Iterator[Edit]:
    """multimem.st / multimem.red made release, multimem.ld_reduce made acquire (the
    per-copy accesses then start a release pattern or end an acquire pattern on each
    copy: specs/multimem.cat, PTX ISA §9.7.9.14 'memory synchronizing effect ... as
    described in Memory Consistency Model')."""
    for t, th in _threads(test):
        for i, ins in enumerate(th.instrs):
            if isinstance(ins, (A.MultimemStore, A.MultimemRed)) and \
                    ins.sem in ("weak", "relaxed"):
                what = "multimem.st" if isinstance(ins, A.MultimemStore) else "multimem.red"
                for scope in _mm_scopes(ins.sem, ins.scope):
                    yield Edit("multimem.release", 1 + SCOPE_COST[scope], t, i, "replace",
                               dataclasses.replace(ins, sem="release", scope=scope),
                               f"make the {what} .release.{scope}",
                               ("access", 1, SCOPE_COST[scope]))
            elif isinstance(ins, A.MultimemLdReduce) and ins.sem in ("weak", "relaxed"):
                for scope in _mm_scopes(ins.sem, ins.scope):
                    yield Edit("multimem.acquire", 1 + SCOPE_COST[scope], t, i, "replace",
                               dataclasses.replace(ins, sem="acquire", scope=scope),
                               f"make the multimem.ld_reduce .acquire.{scope}",
                               ("access", 1, SCOPE_COST[scope]))


def _uses_ctx(test: A.Test, ctx: str, but: set[tuple[int, int]]) -> bool:
    """Does any instruction of the test (other than those at ``but``) name ``ctx``?"""
    return any(getattr(x, "ctx", None) == ctx and (t, i) not in but
               for t, th in _threads(test) for i, x in enumerate(th.instrs))


def _bundle_signals(test: A.Test) -> Iterator[Edit]:
    """``gin.put`` directly followed by ``gin.signal`` → one put carrying that signal.
    Only where it loses nothing: the put has no signal of its own, the signal has no
    release options, and it is on the put's context or on a context nothing else uses
    (a strong signal on context d also covers earlier puts on d, R-GIN-3: moved to the
    put's context it would no longer)."""
    for t, th in _threads(test):
        for i in range(len(th.instrs) - 1):
            put, sig = th.instrs[i], th.instrs[i + 1]
            if not (isinstance(put, A.GinPut) and isinstance(sig, A.GinSignal)
                    and put.signal is None and sig.options == A.GinOptions()):
                continue
            # a bundled signal goes to the put's peer (``sig=S`` names no rank): only a
            # signal to that peer can be bundled (gdrcheck fix once bundled gin/07's
            # signal to rank 1 into its put to rank 2)
            if put.dst.rank is None or sig.signal.target.rank != put.dst.rank:
                continue
            if sig.ctx != put.ctx and _uses_ctx(test, sig.ctx, {(t, i + 1)}):
                continue
            yield Edit("bundle-signal", 1, t, i, "replace",
                       dataclasses.replace(put, signal=sig.signal),
                       "bundle the signal with the put", span=2)


def _put_signals(test: A.Test) -> Iterator[Edit]:
    """``shmem.put{_nbi}`` directly followed by ``shmem.signal_op`` on the same peer →
    ``shmem.put_signal{_nbi}`` (the signal's completion implies the delivery of its
    own data, R-SH-4; a separate signal_op is unordered with the put, R-SH-5)."""
    for t, th in _threads(test):
        for i in range(len(th.instrs) - 1):
            put, sig = th.instrs[i], th.instrs[i + 1]
            if not (isinstance(put, A.ShmemCall) and isinstance(sig, A.ShmemCall)
                    and put.op in ("put", "put_nbi") and sig.op == "signal_op"
                    and put.dst is not None and sig.signal is not None
                    and put.dst.rank == sig.signal.rank):
                continue
            yield Edit("put_signal", 1, t, i, "replace",
                       A.ShmemCall(put.op.replace("put", "put_signal"), put.dst, put.src,
                                   signal=sig.signal,
                                   signal_value=sig.signal_value,
                                   signal_op=sig.signal_op),
                       f"make the put shmem.{put.op.replace('put', 'put_signal')}", span=2)


def _counter_waits(test: A.Test) -> Iterator[Edit]:
    """A put whose local source the thread writes again later gets a counter of its
    own and waits for it right after (R-GIN-9: the counter records the put's local
    completion, its source may then be reused; litmus/gin/15)."""
    names = {getattr(x, "name", None) for x in test.init}
    for t, th in _threads(test):
        for i, ins in enumerate(th.instrs):
            if not (isinstance(ins, A.GinPut) and ins.counter is None
                    and isinstance(ins.src, A.LocRef)):
                continue
            src = ins.src.name
            if not any(isinstance(x, (A.PtxStore, A.PtxAtom, A.PtxRed))
                       and getattr(getattr(x, "loc", None), "name", None) == src
                       for x in th.instrs[i + 1:]):
                continue
            name = next(n for n in (f"C{t}_{i}", *(f"C{t}_{i}_{k}" for k in range(99)))
                        if n not in names)
            yield Edit("counter-wait", 2, t, i, "replace",
                       (dataclasses.replace(ins, counter=name), A.GinWait("counter", name, 1)),
                       f"count the put on counter {name} and wait for it",
                       init_add=(A.CounterDecl(name),))


def _acquire_reads(test: A.Test) -> Iterator[Edit]:
    """``gin.read_signal.relaxed`` → ``gin.read_signal`` (acquire, readSignal's default
    order, R-GIN-10): a relaxed read of a signal followed by a load is no acquire
    pattern (R-PTX-2; litmus/gin/21)."""
    for t, th in _threads(test):
        for i, ins in enumerate(th.instrs):
            if isinstance(ins, A.GinRead) and ins.what == "signal" and ins.relaxed:
                yield Edit("read-signal.acquire", 1, t, i, "replace",
                           dataclasses.replace(ins, relaxed=False),
                           "make the read gin.read_signal (acquire)")


def _writes(x: object, name: str) -> bool:
    """Does instruction ``x`` write this rank's location ``name`` (a store, an atomic, a
    reduction)?"""
    loc = getattr(x, "loc", None)
    return isinstance(x, (A.PtxStore, A.PtxAtom, A.PtxRed)) and \
        isinstance(loc, A.LocRef) and loc.name == name and loc.rank is None


def _flush_before_reuse(test: A.Test) -> Iterator[Edit]:
    """``gin.flush`` of a put's context right before the thread writes the put's source
    again (R-GIN-8; NVIDIA/nccl@f0e545a5 docs/userguide/source/api/device_gin.rst:58-61,
    flush: "all the pending transfer operations ... are locally consumed, meaning that
    their source buffers are safe to reuse"; src/include/nccl_device/gin.h:355-356;
    litmus/gin/13 is gin/14 so repaired). Not offered where a flush of that context
    already lies between the put and the write."""
    for t, th in _threads(test):
        ins = th.instrs
        for i, x in enumerate(ins):
            ctxs: set[str] = set()
            for j in range(i):
                put = ins[j]
                if isinstance(put, A.GinPut) and isinstance(put.src, A.LocRef) and \
                        _writes(x, put.src.name) and not any(
                            isinstance(f, A.GinFlush) and f.ctx == put.ctx
                            for f in ins[j + 1:i]):
                    ctxs.add(put.ctx)
            for ctx in sorted(ctxs):
                yield Edit("flush-reuse", 2, t, i, "insert", A.GinFlush(ctx),
                           f"flush context {ctx} before the put's source is written again")


def _fresh(test: A.Test, base: str, taken: set[str] | None = None) -> str:
    names = A.locations_named(test) | {getattr(x, "name", "") for x in test.init}
    names = names | (taken or set())
    return next(n for n in (base, *(f"{base}_{k}" for k in range(2, 999))) if n not in names)


def _self_signal_waits(test: A.Test) -> Iterator[Edit]:
    """A put to the issuing rank itself followed, on its context, by a strong signal to
    the rank itself (a signal word of its own, declared) and a wait for it, before what
    the thread does next: the signal covers the put's delivery (R-GIN-3) and the wait
    makes it visible to the thread (R-GIN-10). NVIDIA/nccl@f0e545a5 made the GIN
    barrier do this at Put level ("self-signals on the calling rank's own slot",
    src/include/nccl_device/impl/gin_barrier__funcs.h:138-143: "so self-puts get the
    same visibility guarantee as puts to other peers"); litmus/gin/self-put+flag."""
    for t, th in _threads(test):
        me = th.placement.gpu
        if me is None or th.placement.host:
            continue
        for i, ins in enumerate(th.instrs):
            if not (isinstance(ins, A.GinPut) and ins.dst.rank == me
                    and i + 1 < len(th.instrs)):
                continue
            name = _fresh(test, f"T{t}_{i}")
            sig = A.GinSignal(ins.ctx, A.SignalSpec("strong", A.LocRef(name, me)))
            yield Edit("self-signal", 3, t, i, "replace",
                       (ins, sig, A.GinWait("signal", name, 1)),
                       f"signal rank {me} itself on {name} after the put and wait for it",
                       init_add=(A.SignalDecl(name),))


def _prop_names(node: object) -> set[str]:
    """The location names a condition, filter or term mentions."""
    if isinstance(node, A.LocRef):
        return {node.name}
    if isinstance(node, (tuple, list)):
        return {n for x in node for n in _prop_names(x)}
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        return {n for f in dataclasses.fields(node) for n in _prop_names(getattr(node, f.name))}
    return set()


def _signal_word(x: object) -> tuple[str, int | None, int] | None:
    """(word, rank, amount) of an adding signal update carried by a put (a GIN put with
    ``sig=``, an NVSHMEM put_signal with ``add``), else None."""
    if isinstance(x, A.GinPut) and isinstance(x.signal, A.SignalSpec) and \
            x.signal.kind in ("strong", "weak"):
        return x.signal.target.name, x.signal.target.rank, x.signal.amount
    if isinstance(x, A.ShmemCall) and x.op in ("put_signal", "put_signal_nbi") and \
            x.signal is not None and x.signal_op == "add" and x.signal_value is not None:
        return x.signal.name, x.signal.rank, x.signal_value
    return None


def _signal_per_chunk(test: A.Test) -> Iterator[Edit]:
    """The second and later chunks that one thread puts with an adding signal on one
    word get a word each (declared), so that the word waited on says "this chunk has
    arrived", not "some chunks have" (NVIDIA/nvshmem issue #84, the maintainer,
    2026-04-30: "With NVSHMEM_SIGNAL_ADD plus CMP_GE, the signal value encodes only
    'some number of chunks completed,' not 'this specific chunk completed'";
    litmus/nvshmem/ring-reduce+put_signal_nbi-per-chunk). Offered only where it takes
    nothing the test looks at: the word is in no condition, filter or ``locations``, no
    thread reads it except by a ``>=`` wait (``gin.wait_signal``, ``shmem.wait_until``
    or ``signal_wait_until`` with ``>=``), and each such wait is still met by the
    updates that stay (so the wait sees a subset of the values it saw)."""
    watched = _prop_names((test.condition, test.filter, test.locations))
    for t, th in _threads(test):
        seen: dict[tuple[str, int | None], int] = {}
        for i, x in enumerate(th.instrs):
            w = _signal_word(x)
            if w is None:
                continue
            word, rank, amount = w
            if (word, rank) not in seen:
                seen[(word, rank)] = i
                continue
            if word in watched or not _only_waited(test, word, amount):
                continue
            shmem = isinstance(x, A.ShmemCall)
            name = _fresh(test, f"{word}{i}")
            if shmem:
                assert isinstance(x, A.ShmemCall) and x.signal is not None
                new: object = dataclasses.replace(x, signal=A.LocRef(name, x.signal.rank))
                decl: object = A.InitLoc(A.LocRef(name, None), 0)
            else:
                assert isinstance(x, A.GinPut) and x.signal is not None
                new = dataclasses.replace(x, signal=dataclasses.replace(
                    x.signal, target=A.LocRef(name, x.signal.target.rank)))
                decl = A.SignalDecl(name)
            yield Edit("signal-per-chunk", 1, t, i, "replace", new,
                       f"give this chunk a signal word of its own, {name}", init_add=(decl,))


def _only_waited(test: A.Test, word: str, moved: int) -> bool:
    """Is ``word`` read only by ``>=`` waits, each still met with ``moved`` less added
    to it (by every thread's updates that stay)?"""
    total = 0
    for _, th in _threads(test):
        for x in th.instrs:
            w = _signal_word(x)
            if w is not None and w[0] == word:
                total += w[2]
            elif isinstance(x, A.GinSignal) and x.signal.target.name == word:
                return False
    for _, th in _threads(test):
        for x in th.instrs:
            if isinstance(x, A.GinWait) and x.what == "signal" and x.name == word:
                if x.value > total - moved:
                    return False
            elif isinstance(x, A.ShmemCall) and x.op in ("wait_until", "signal_wait_until") \
                    and x.signal is not None and x.signal.name == word:
                if x.cmp != ">=" or (x.value or 0) > total - moved:
                    return False
            elif _signal_word(x) is None and word in _prop_names(x):
                return False  # any other access (a read, a store, a reset)
    return True


CATALOGUE: tuple[Strengthening, ...] = (
    Strengthening("ld.acquire / st.release", "a plain load made acquire, a plain store "
                  "release (at cta, gpu or sys scope); a relaxed atom made acq_rel, a "
                  "relaxed red release", "PTX ISA §8.8 (release and acquire patterns)",
                  _ptx_release_acquire),
    Strengthening("scope", "a strong access's scope widened (cta → gpu → sys)",
                  "PTX ISA §8.5 (scope), morally strong", _ptx_scopes),
    Strengthening("fence", "fence.acq_rel or fence.sc at cta, gpu or sys scope between two "
                  "accesses or calls", "PTX ISA §8.6, §9.7.12.4 (membar/fence)", _ptx_fences),
    Strengthening("fence.proxy.async", "fence.proxy.async (in ptx75 tests also "
                  ".shared::cta or .global) after a bulk-async (TMA) copy, or after a "
                  "generic access in a test that uses the async proxy",
                  "PTX ISA §8.6.1 (proxies), R-PTX-5", _proxy_fence),
    Strengthening("mfence", "MFENCE between two x86 instructions", "Intel SDM vol. 3 §8.2",
                  _mfence),
    Strengthening("strong-signal", "a weak GIN signal made strong", "R-GIN-3, R-GIN-5",
                  _strong_signals),
    Strengthening("flush", "gin.flush of the put's context before a signal",
                  "R-GIN-7, R-GIN-8", _flush_before_signal),
    Strengthening("same-context", "a put issued on its signal's context", "R-GIN-2, R-GIN-4",
                  _same_context),
    Strengthening("required-release", "requiredRelease on a put or signal",
                  "R-GIN-13", _release_options),
    Strengthening("strict-window", "a window registered NCCL_WIN_STRICT_ORDERING",
                  "R-GIN-12, DeepEP #674", _strict_windows),
    Strengthening("shmem.fence / shmem.quiet", "shmem.fence or shmem.quiet between two "
                  "NVSHMEM calls", "OpenSHMEM 1.5 §9.9.1, §9.9.2", _shmem_fences),
    Strengthening("mbarrier.release / mbarrier.acquire", "a relaxed mbarrier.arrive made "
                  "release, a relaxed mbarrier.wait made acquire",
                  "PTX ISA §8.8 (release pattern mbarrier.arrive.release, acquire pattern "
                  "mbarrier.test_wait.acquire), §9.7.13.15 (mbarrier: .release and .acquire "
                  "the defaults)", _mbarriers),
    Strengthening("multimem.release / multimem.acquire", "a weak or relaxed multimem.st or "
                  "multimem.red made release, a multimem.ld_reduce made acquire (at cta, gpu "
                  "or sys scope)", "PTX ISA §9.7.9.14 (multimem: .release/.acquire give the "
                  "memory synchronizing effect of the memory model), §8.8; specs/multimem.cat",
                  _multimem),
    Strengthening("bundle-signal", "a gin.signal right after a gin.put bundled into it",
                  "R-GIN-2 (device_gin.rst, put: 'the visibility of the signal ... implies "
                  "the visibility of the put data it is attached to'), R-GIN-4",
                  _bundle_signals),
    Strengthening("put_signal", "shmem.put{_nbi} and the shmem.signal_op right after it "
                  "made one shmem.put_signal{_nbi}",
                  "R-SH-4 (OpenSHMEM 1.5 shmem_put_signal: the completion of the signal "
                  "update indicates the delivery of its dest data words), R-SH-5",
                  _put_signals),
    Strengthening("counter-wait", "a put counted on a counter of its own, and a "
                  "gin.wait_counter for it right after, before its source is written "
                  "again", "R-GIN-9 (device_gin.rst: a counter tracks the local "
                  "completion of its put), litmus/gin/15", _counter_waits),
    Strengthening("read-signal.acquire", "a relaxed gin.read_signal made acquire (its "
                  "default)", "R-GIN-10 (readSignal's order argument, acquire by "
                  "default), R-PTX-2", _acquire_reads),
    Strengthening("flush-reuse", "gin.flush of a put's context before the thread writes the "
                  "put's source again", "R-GIN-8; NVIDIA/nccl@f0e545a5 "
                  "docs/userguide/source/api/device_gin.rst:58-61 (flush: source buffers safe "
                  "to reuse), litmus/gin/13", _flush_before_reuse),
    Strengthening("self-signal", "after a put to the issuing rank itself, a strong signal to "
                  "itself and a wait for it", "R-GIN-3, R-GIN-10; NVIDIA/nccl@f0e545a5 "
                  "src/include/nccl_device/impl/gin_barrier__funcs.h:138-143 (the barrier "
                  "self-signals so that self-puts are visible), litmus/gin/self-put+selfsig",
                  _self_signal_waits),
    Strengthening("signal-per-chunk", "a later chunk put with an adding signal on a word an "
                  "earlier chunk of the thread adds to gets a word of its own",
                  "NVIDIA/nvshmem issue #84 (a cumulative signal says only that some chunks "
                  "completed), R-SH-4, R-SH-5", _signal_per_chunk),
)


def candidates(test: A.Test) -> list[Edit]:
    """Every edit of the catalogue that ``test`` can take."""
    return [e for s in CATALOGUE for e in s.candidates(test)]


def apply_edits(test: A.Test, edits: list[Edit]) -> A.Test:
    """``test`` with ``edits`` applied (at most one edit per slot, :attr:`Edit.slots`)."""
    init = list(test.init)
    per_thread: dict[int, list[Edit]] = {}
    for e in edits:
        init.extend(e.init_add)  # type: ignore[arg-type]
        if e.action == "init":
            init[e.index] = e.instr  # type: ignore[call-overload]
        else:
            per_thread.setdefault(e.thread, []).append(e)
    threads = list(test.threads)
    for t, es in per_thread.items():
        old = threads[t].instrs
        change = {e.index: e for e in es if e.action == "replace"}
        ins: list[object] = []
        skip = 0
        for k in range(len(old) + 1):
            ins.extend(e.instr for e in es if e.action == "insert" and e.index == k)
            if k == len(old):
                break
            if skip:  # the rest of a replacement of several instructions
                skip -= 1
                continue
            c = change.get(k)
            if c is None:
                ins.append(old[k])
                continue
            ins.extend(c.instr if isinstance(c.instr, tuple) else (c.instr,))
            skip = c.span - 1
        threads[t] = dataclasses.replace(threads[t], instrs=tuple(ins))  # type: ignore[arg-type]
    return dataclasses.replace(test, init=tuple(init), threads=tuple(threads))  # type: ignore[arg-type]


@dataclass(frozen=True)
class Reordering:
    """Not a strengthening: a put the thread issues after a signal to the same peer
    moved to just before it (a strong signal covers the puts before it on its context,
    R-GIN-3, not those after, litmus/gin/10; an NVSHMEM signal likewise says nothing of
    a later put, R-SH-5). ``gdrcheck fix`` tries one only when no set of strengthenings
    works, checks the moved test on its own, and reports it as a reordering: it changes
    what the program does (the signal may now wait for the put), so monotonicity says
    nothing of it."""

    thread: int
    put: int
    signal: int
    edits: tuple[Edit, ...]
    """The move as replacements of the cells from the signal to the put (each takes
    the instruction before it; the signal's takes the put)."""
    text: str


def _is_signal_to(x: object, peer: int | None) -> bool:
    if isinstance(x, A.GinSignal):
        return x.signal.target.rank == peer
    if isinstance(x, A.GinPut) and x.signal is not None:
        return x.dst.rank == peer
    if isinstance(x, A.ShmemCall) and x.op == "signal_op" and x.signal is not None:
        return x.signal.rank == peer
    if isinstance(x, A.ShmemCall) and x.op in ("put_signal", "put_signal_nbi"):
        return x.dst is not None and x.dst.rank == peer
    return False


def reorderings(test: A.Test) -> list[Reordering]:
    """Every put that follows a signal to its peer in its thread, moved before the
    nearest such signal (the instructions between keep their order)."""
    out = []
    for t, th in _threads(test):
        ins = th.instrs
        for j, put in enumerate(ins):
            if isinstance(put, A.GinPut) and put.signal is None:
                peer, ctx = put.dst.rank, put.ctx
            elif isinstance(put, A.ShmemCall) and put.op in ("put", "put_nbi", "p") \
                    and put.dst is not None:
                peer, ctx = put.dst.rank, None
            else:
                continue
            i = next((k for k in range(j - 1, -1, -1) if _is_signal_to(ins[k], peer)
                      and (ctx is None or getattr(ins[k], "ctx", ctx) == ctx)), None)
            if i is None:
                continue
            moved = (put, *ins[i:j])
            edits = tuple(Edit("reorder", 0, t, i + k, "replace", x, "move")
                          for k, x in enumerate(moved))
            out.append(Reordering(t, j, i, edits,
                                  f"move P{t}:{j + 1} before P{t}:{i + 1}, the signal it "
                                  "follows"))
    return out
