"""Programmatic dependent launch on the GPU: a test whose threads sit in several grids of one
stream (placement ``grid N``, docs/ptx-pdl-mbarrier.md) as one launch per grid (issue 28
item 7; docs/hardware.md, "Programmatic dependent launch").

The kernel is :func:`gdrcheck.hw.codegen.generate`'s, for a copy of the test in which the
CTAs are renumbered grid by grid (so that each grid's CTA groups are consecutive) and the
grid placements are dropped. It is launched once per grid, in grid order, on one stream,
each launch playing its grid's groups (``group_first``, ``group_count``) for the same ``n``
instances, into the same output and the same locations; the histogram is taken after the
stream has drained. Every launch after the first carries the launch attribute
``CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`` = 1 (CUDA Driver API, Execution
Control, ``cuLaunchKernelEx`` and ``CUlaunchAttributeID``; cuda.h of CUDA 13.0), passed to
``cuLaunchKernelEx`` through ctypes on libcuda: CuPy's RawKernel takes no launch
attributes.

``griddepcontrol.wait`` is inline PTX (codegen.py). ``griddepcontrol.launch_dependents``
is the macro ``GDC_LAUNCH_DEPENDENTS`` defined here: a CTA triggers at its first
invocation ("Repeated invocations of this instruction by threads in the current CTA will
have no additional side effects past that of the first invocation", PTX ISA §9.7.13.13),
and one CTA of the harness hosts ``ipb`` instances, so each test thread that reaches its
trigger counts itself on a per-block counter and the last of the block's expected triggers
executes the instruction. A block thus triggers no earlier than any of its instances'
threads would have in a CTA of its own. A group with a thread that can skip or repeat its
trigger (a branch, a label) counts nothing: its blocks trigger when they exit (CUDA C++
Programming Guide §4.5.2: "If the primary kernel doesn't execute the trigger, it implicitly
occurs after all thread blocks in the primary kernel exit").
"""

from __future__ import annotations

import ctypes as C
import time
from collections import Counter
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from gdrcheck.errors import UnsupportedError
from gdrcheck.hw.codegen import Kernel, generate
from gdrcheck.litmus import ast as A

if TYPE_CHECKING:
    from gdrcheck.hw.run import Config, HwResult

CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6  # cuda.h, CUlaunchAttributeID


class LaunchAttributeValue(C.Union):
    """``CUlaunchAttributeValue``: a union padded to 64 bytes (its members include
    pointers, hence the 8-byte alignment)."""

    _fields_ = [("pad", C.c_char * 64), ("align", C.c_void_p),
                ("programmaticStreamSerializationAllowed", C.c_int)]


class LaunchAttribute(C.Structure):
    """``CUlaunchAttribute``: ``id``, ``char pad[8 - sizeof(CUlaunchAttributeID)]``,
    ``value``."""

    _fields_ = [("id", C.c_int), ("pad", C.c_char * 4), ("value", LaunchAttributeValue)]


class LaunchConfig(C.Structure):
    """``CUlaunchConfig`` (CUDA 12.0 and later)."""

    _fields_ = [("gridDimX", C.c_uint), ("gridDimY", C.c_uint), ("gridDimZ", C.c_uint),
                ("blockDimX", C.c_uint), ("blockDimY", C.c_uint), ("blockDimZ", C.c_uint),
                ("sharedMemBytes", C.c_uint), ("hStream", C.c_void_p),
                ("attrs", C.POINTER(LaunchAttribute)), ("numAttrs", C.c_uint)]


# the generated kernel's parameters, in order (codegen.py: ``litmus(int *locs, ...)``):
# "p" a device pointer, "q" a long long, "i" an int
SIGNATURE: tuple[tuple[str, str], ...] = (
    ("locs", "p"), ("alocs", "p"), ("out", "p"), ("bar", "p"), ("aff", "p"), ("n", "q"),
    ("stride", "i"), ("layout", "i"), ("sync_limit", "i"), ("scratch", "p"),
    ("scratch_words", "i"), ("stress_blocks", "i"), ("stress_mode", "i"), ("lbase", "p"),
    ("group_first", "i"), ("group_count", "i"))
_CTYPE = {"p": C.c_uint64, "q": C.c_longlong, "i": C.c_int}


@dataclass
class Packed:
    """A launch as ``cuLaunchKernelEx`` takes it; ``values`` keeps the argument storage
    that ``params`` points to alive."""

    config: LaunchConfig
    attrs: Any  # LaunchAttribute array (or None)
    params: Any  # (c_void_p * len(SIGNATURE)): a pointer to each argument's value
    values: list[Any]


def pack_launch(blocks: int, threads: int, stream: int, args: dict[str, int],
                pdl: bool) -> Packed:
    """The config and the ``kernelParams`` array of one launch of the generated kernel:
    ``args`` names every parameter of :data:`SIGNATURE`; ``pdl``: with programmatic
    stream serialization."""
    missing = [name for name, _ in SIGNATURE if name not in args]
    extra = sorted(set(args) - {name for name, _ in SIGNATURE})
    if missing or extra:
        raise ValueError(f"kernel arguments: missing {missing}, unknown {extra}")
    values = [_CTYPE[kind](int(args[name])) for name, kind in SIGNATURE]
    params = (C.c_void_p * len(values))(*[C.cast(C.pointer(v), C.c_void_p) for v in values])
    attrs = None
    if pdl:
        attrs = (LaunchAttribute * 1)()
        attrs[0].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
        attrs[0].value.programmaticStreamSerializationAllowed = 1
    cfg = LaunchConfig(blocks, 1, 1, threads, 1, 1, 0, stream or None,
                       attrs if attrs is not None else None, 1 if pdl else 0)
    return Packed(cfg, attrs, params, values)


def unpack_params(packed: Packed) -> dict[str, int]:
    """Read the argument values back through ``params`` (what the driver will read)."""
    out = {}
    for i, (name, kind) in enumerate(SIGNATURE):
        ptr = packed.params[i]
        out[name] = C.cast(ptr, C.POINTER(_CTYPE[kind])).contents.value
    return out


class Driver:
    """``cuLaunchKernelEx`` of libcuda, through ctypes."""

    def __init__(self, lib: Any = None) -> None:
        if lib is None:
            try:
                lib = C.CDLL("libcuda.so.1")
            except OSError as exc:
                from gdrcheck.hw.run import NoGpu

                raise NoGpu(f"gdrcheck hw needs the CUDA driver (libcuda): {exc}") from None
        self.lib = lib
        fn = lib.cuLaunchKernelEx
        fn.argtypes = [C.POINTER(LaunchConfig), C.c_void_p, C.POINTER(C.c_void_p),
                       C.c_void_p]
        fn.restype = C.c_int
        self._launch = fn

    def launch(self, function: int, packed: Packed) -> None:
        rc = self._launch(C.byref(packed.config), C.c_void_p(function), packed.params, None)
        if rc != 0:
            name = C.c_char_p()
            self.lib.cuGetErrorName(rc, C.byref(name))
            what = name.value.decode() if name.value else f"CUresult {rc}"
            raise RuntimeError(f"cuLaunchKernelEx failed: {what}")


@dataclass
class PdlKernel:
    """The kernel of a test with several grids, and how its launches split the groups."""

    kernel: Kernel  # codegen's, for the renumbered copy of the test
    grids: list[int]  # the test's grid numbers, in launch order
    launches: list[tuple[int, int]]  # per grid: (group_first, group_count)
    grid_threads: list[int]  # per grid: its litmus threads
    triggers: list[int]  # per group: its threads whose trigger is counted (0: none)


def _counted_trigger(th: A.Thread) -> bool:
    """A thread whose one ``launch_dependents`` runs exactly once (no jumps, no labels)."""
    launches = sum(isinstance(i, A.PtxGridDep) and i.action == "launch_dependents"
                   for i in th.instrs)
    jumps = any(isinstance(i, (A.Goto, A.Branch, A.Label)) for i in th.instrs)
    return launches == 1 and not jumps


def generate_pdl(test: A.Test, ipb: int = 128, stand_in: bool = False) -> PdlKernel:
    """The kernel running ``test``'s grids as launches of one stream."""
    grid_of = {th.index: th.placement.grid or 0 for th in test.threads}
    grids = sorted(set(grid_of.values()))
    if len(grids) < 2:
        raise UnsupportedError("generate_pdl runs tests whose threads sit in several grids",
                               test.path)
    if len({th.placement.gpu or 0 for th in test.threads}) > 1:
        raise UnsupportedError("the grids of one stream run on one GPU", test.path)
    if any(getattr(th.placement, "cluster", None) is not None for th in test.threads):
        raise UnsupportedError("gdrcheck hw does not generate clusters in PDL grids",
                               test.path)
    keys = sorted({(grid_of[th.index], th.placement.cta or 0) for th in test.threads})
    number = {key: i for i, key in enumerate(keys)}
    threads = tuple(
        replace(th, placement=replace(th.placement, grid=None,
                                      cta=number[(grid_of[th.index], th.placement.cta or 0)]))
        for th in test.threads)
    k = generate(replace(test, threads=threads), stand_in=stand_in, ipb=ipb)
    group_grid = [grid_of[gr[0]] for gr in k.groups]
    launches = []
    for gd in grids:
        mine = [g for g, x in enumerate(group_grid) if x == gd]
        assert mine == list(range(mine[0], mine[0] + len(mine))), "groups of a grid in a row"
        launches.append((mine[0], len(mine)))
    by_index = {th.index: th for th in test.threads}
    triggers = []
    for gr in k.groups:
        ths = [by_index[t] for t in gr]
        with_trigger = [th for th in ths if any(
            isinstance(i, A.PtxGridDep) and i.action == "launch_dependents" for i in th.instrs)]
        counted = all(_counted_trigger(th) for th in with_trigger)
        triggers.append(len(with_trigger) if counted else 0)
    prelude = (
        "// Programmatic dependent launch (gdrcheck/hw/pdl.py): one launch per grid of the\n"
        f"// test ({len(grids)}), in one stream, each after the first with programmatic stream\n"
        "// serialization. A block executes griddepcontrol.launch_dependents when the last of\n"
        "// its expected test triggers arrives (bar[n + blockIdx.x] counts them).\n"
        f"__constant__ int GDC_TRIG[{len(k.groups)}] = {{{', '.join(map(str, triggers))}}};\n"
        "#define GDC_LAUNCH_DEPENDENTS() do { \\\n"
        "    long long left_ = n - (long long)(block / group_count) * IPB; \\\n"
        "    int expect_ = GDC_TRIG[group] * (left_ < IPB ? (int)left_ : IPB); \\\n"
        "    if (expect_ > 0 && atomicAdd(bar + n + blockIdx.x, 1) + 1 == expect_) \\\n"
        '      asm volatile("griddepcontrol.launch_dependents;" ::: "memory"); \\\n'
        "  } while (0)\n")
    k = replace(k, source=prelude + k.source)
    grid_threads = [sum(1 for t in grid_of.values() if t == gd) for gd in grids]
    return PdlKernel(k, grids, launches, grid_threads, triggers)


def reversed_pairing(a: int, b: int, n: int) -> tuple[int, int]:
    """The affine map ``s -> (a' s + b') mod n`` with which slot ``s`` plays the instance
    that slot ``n - 1 - s`` plays under ``(a, b)``."""
    return (-a) % n, (a * (n - 1) + b) % n


def run_pdl(cp: Any, test: A.Test, iterations: int, cfg: Config, seed: int = 1,
            stand_in: bool = False, driver: Driver | None = None) -> HwResult:
    """Run ``test`` (threads in several grids) ``iterations`` times: per batch of ``n``
    instances, one launch per grid on one stream (the later ones with programmatic stream
    serialization), then the histogram over the output both wrote. Returns an HwResult."""
    import numpy as np

    from gdrcheck.engine.observe import Observables
    from gdrcheck.hw.run import HwResult, _coprime, _DoubleMap, _histogram, state_key

    pk = generate_pdl(test, ipb=cfg.ipb, stand_in=stand_in)
    k = pk.kernel
    drv = driver or Driver()
    stride = cfg.stride + (-cfg.stride % 4 if k.bulk else 0)
    device = cp.cuda.Device().id
    props = cp.cuda.runtime.getDeviceProperties(device)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    if (props["major"], props["minor"]) < (9, 0):
        raise UnsupportedError(f"programmatic dependent launch needs sm_90 (this GPU: "
                               f"sm_{props['major']}{props['minor']})", test.path)
    module = cp.RawModule(code=k.source, options=(f"-arch=sm_{props['major']}{props['minor']}",),
                          name_expressions=None)
    function = int(module.get_function("litmus").kernel.ptr)
    obs = Observables(test)
    names = list(obs.terms)
    nlocs = max(1, len(k.locations))
    nregs = max(1, len(k.regs))
    nout = nregs + 1
    reg_slot = {f"{t}:{r}": i for i, (t, r) in enumerate(k.regs)}
    loc_slot = {n: i for i, n in enumerate(k.locations)}
    rng = np.random.default_rng(seed)
    hist: Counter[tuple[int, ...]] = Counter()
    scratch_words = 1 << 20
    n_max = min(cfg.batch, iterations)
    words = n_max * nlocs * stride
    per_grid = -(-n_max // cfg.ipb)
    stream = cp.cuda.Stream(non_blocking=True)  # every step of the run in this one stream
    dmap = None
    timeouts = 0
    t0 = time.perf_counter()
    with stream:
        if k.aliases:
            dmap = _DoubleMap(words * 4, device)
            locs, alocs = dmap.arrays(cp, words)
        else:
            locs = alocs = cp.zeros(words, dtype=cp.int32)
        out = cp.zeros(n_max * nout, dtype=cp.int32)
        scratch = cp.zeros(scratch_words, dtype=cp.int32)
        # per grid: the instance barrier (n words), then a trigger counter per block
        bars = [cp.zeros(n_max + cfg.stress + count * per_grid, dtype=cp.int32)
                for _, count in pk.launches]
        lbase = cp.asarray(np.array([locs.data.ptr], dtype=np.int64))
        done = 0
        while done < iterations:
            n = min(n_max, iterations - done)
            lv = locs[:n * nlocs * stride]
            lv.fill(0)
            view = (lv.reshape(nlocs, n, stride) if cfg.layout else
                    lv.reshape(n, nlocs, stride).transpose(1, 0, 2))
            for loc, v in k.init.items():
                view[loc_slot[loc], :, 0] = v
            out[:n * nout].fill(0)
            blocks = [(cfg.stress if i == 0 else 0) + count * -(-n // cfg.ipb)
                      for i, (_, count) in enumerate(pk.launches)]
            for i, bar in enumerate(bars):
                # the barrier counts only this grid's threads: a partner in a later grid
                # cannot start before this grid triggers
                bar[:n].fill(len(test.threads) - pk.grid_threads[i])
                bar[n:n + blocks[i]].fill(0)
            aff = [x for _ in k.groups for x in (_coprime(rng, n), int(rng.integers(n)))]
            first0 = pk.launches[0][0]
            for first, _ in pk.launches[1:]:
                # the first CTA group of a later grid plays the instances of grid 0's first
                # group in reverse slot order: its first blocks, which start first, meet
                # the primary's last blocks, the only ones that may still be running
                aff[2 * first], aff[2 * first + 1] = reversed_pairing(
                    aff[2 * first0], aff[2 * first0 + 1], n)
            d_aff = cp.asarray(np.array(aff, dtype=np.int64))
            for i, (first, count) in enumerate(pk.launches):
                args = {"locs": lv.data.ptr, "alocs": alocs.data.ptr, "out": out.data.ptr,
                        "bar": bars[i].data.ptr, "aff": d_aff.data.ptr, "n": n,
                        "stride": stride, "layout": cfg.layout, "sync_limit": cfg.sync_limit,
                        "scratch": scratch.data.ptr, "scratch_words": scratch_words,
                        "stress_blocks": cfg.stress if i == 0 else 0,
                        "stress_mode": cfg.stress_mode, "lbase": lbase.data.ptr,
                        "group_first": first, "group_count": count}
                drv.launch(function, pack_launch(blocks[i], cfg.ipb * k.warps, stream.ptr,
                                                 args, pdl=i > 0))
            stream.synchronize()  # every grid of the batch has completed
            regs = out[:n * nout].reshape(n, nout)
            cols = []
            for term in names:
                if term in reg_slot:
                    cols.append(regs[:, reg_slot[term]])
                elif term in loc_slot:
                    cols.append(view[loc_slot[term], :, 0])
                else:
                    cols.append(cp.zeros(n, dtype=cp.int32))
            valid = regs[:, nregs] == 0
            timeouts += int(n - int(valid.sum()))
            for st, c in _histogram(cp, np, cols, valid, n):
                hist[st] += c
            done += n
        stream.synchronize()
    secs = time.perf_counter() - t0
    if dmap is not None:
        dmap.close()
    positive = sum(c for st, c in hist.items()
                   if obs.eval_state(test.condition.prop, tuple(zip(names, st, strict=True))))
    res = HwResult(test.name, test.path, iterations - timeouts,
                   {state_key(names, st): c for st, c in sorted(hist.items())},
                   positive, secs, name, source=k.source)
    res.config = (f"{cfg.label()} pdl: {len(pk.grids)} launches of one stream, "
                  "the later grids' first CTA paired in reverse")
    res.timeouts = timeouts
    return res
