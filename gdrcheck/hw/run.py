"""Running generated kernels on a GPU with CuPy, and litmus7-style results (issue 6).

:func:`run_test` compiles the kernel of :mod:`gdrcheck.hw.codegen` (CuPy RawModule,
``-arch`` of the device), runs ``iterations`` instances in launches of ``batch``
(fresh memory, a fresh random thread-to-instance permutation and optional stress
blocks each launch), and counts the final states over the test's observables
(registers and locations of its condition and ``locations [...]``). Each observed
state is then checked against the model (``check_test(..., states=True)``): a state
the model forbids is a soundness failure of the model.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from gdrcheck.errors import InputError, UnsupportedError
from gdrcheck.hw.codegen import Kernel, generate
from gdrcheck.litmus import ast as A


class NoGpu(InputError):
    """No CUDA device (or no CuPy) on this machine."""


@dataclass
class HwResult:
    test: str
    file: str | None
    iterations: int
    histogram: dict[str, int]  # "1:r0=1; x=2" -> count
    positive: int  # runs whose state satisfies the condition's proposition
    seconds: float
    device: str
    model: str | None = None
    forbidden_states: list[str] = field(default_factory=list)  # observed but forbidden
    model_verdict: str | None = None
    source: str = ""
    stand_in: bool = False  # CTAs of one GPU stood in for several GPUs (no NVLink)
    config: str = ""  # the harness setting (Config.label)
    timeouts: int = 0  # instances left out: an mbarrier wait gave up
    gpus: int = 1  # devices the test's threads ran on
    one_device: bool = False  # a multi-GPU test's per-GPU launches all on one device

    @property
    def observation(self) -> str:
        if self.positive == 0:
            return "Never"
        return "Always" if self.positive == self.iterations else "Sometimes"

    def json(self) -> dict[str, Any]:
        return {
            "schema": "gdrcheck.hw/1", "test": self.test, "file": self.file,
            "iterations": self.iterations, "histogram": self.histogram,
            "positive": self.positive, "observation": self.observation,
            "seconds": round(self.seconds, 3), "device": self.device, "model": self.model,
            "model_verdict": self.model_verdict, "forbidden_states": self.forbidden_states,
            "stand_in": self.stand_in, "config": self.config, "timeouts": self.timeouts,
            "gpus": self.gpus, "one_device": self.one_device,
        }


def _cupy() -> Any:
    try:
        import cupy
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # noqa: BLE001 - any import or driver failure means no GPU
        raise NoGpu(f"gdrcheck hw needs an NVIDIA GPU and CuPy: {exc}") from None
    if n == 0:
        raise NoGpu("gdrcheck hw needs an NVIDIA GPU: none found")
    return cupy


def state_key(names: list[str], values: tuple[int, ...]) -> str:
    return "; ".join(f"{n}={v}" for n, v in zip(names, values, strict=True))


@dataclass(frozen=True)
class Config:
    """One setting of the harness (issue 14 item 7; MC Mutants' parameters, narrowed).

    ``batch``: instances per launch; ``ipb``: instance slots per block; ``stride``: words
    between two global locations; ``layout``: 0 instance-major, 1 location-major;
    ``sync_limit``: spins of the per-instance start barrier (0: none); ``stress``: stress
    blocks; ``stress_mode``: 0 atomics, 1 loads and stores on the scratch area."""

    batch: int = 760_320
    ipb: int = 128
    stride: int = 32
    layout: int = 0
    sync_limit: int = 0
    stress: int = 0
    stress_mode: int = 0

    def label(self) -> str:
        return (f"batch={self.batch} ipb={self.ipb} stride={self.stride} "
                f"layout={'loc-major' if self.layout else 'inst-major'} "
                f"sync={self.sync_limit} stress={self.stress}/{self.stress_mode}")


def _coprime(rng: Any, n: int) -> int:
    from math import gcd

    while True:
        a = int(rng.integers(1, max(2, n)))
        if gcd(a, n) == 1:
            return a


class _DoubleMap:
    """``nbytes`` of device memory mapped at two virtual addresses (CUDA driver virtual
    memory management: one cuMemCreate, two cuMemAddressReserve + cuMemMap), for
    generic virtual aliases (PTX ISA §8.2.2). Called through ctypes on libcuda."""

    def __init__(self, nbytes: int, device: int) -> None:
        import ctypes as C

        class Loc(C.Structure):
            _fields_ = [("type", C.c_int), ("id", C.c_int)]

        class Prop(C.Structure):
            _fields_ = [("type", C.c_int), ("handles", C.c_int), ("location", Loc),
                        ("win32", C.c_void_p), ("flags", C.c_ubyte * 8)]

        class Access(C.Structure):
            _fields_ = [("location", Loc), ("flags", C.c_int)]

        cu = C.CDLL("libcuda.so.1")
        self.cu, self.C = cu, C

        def ok(rc: int, what: str) -> None:
            if rc != 0:
                raise RuntimeError(f"{what} failed: CUresult {rc}")

        prop = Prop(1, 0, Loc(1, device), None)  # pinned, no handle type, this device
        gran = C.c_size_t(0)
        ok(cu.cuMemGetAllocationGranularity(C.byref(gran), C.byref(prop), 0), "granularity")
        size = -(-nbytes // gran.value) * gran.value
        handle = C.c_ulonglong(0)
        ok(cu.cuMemCreate(C.byref(handle), C.c_size_t(size), C.byref(prop), C.c_ulonglong(0)),
           "cuMemCreate")
        ptrs = []
        acc = Access(Loc(1, device), 3)  # read-write
        for _ in range(2):
            p = C.c_ulonglong(0)
            ok(cu.cuMemAddressReserve(C.byref(p), C.c_size_t(size), C.c_size_t(0),
                                      C.c_ulonglong(0), C.c_ulonglong(0)), "reserve")
            ok(cu.cuMemMap(C.c_ulonglong(p.value), C.c_size_t(size), C.c_size_t(0), handle,
                           C.c_ulonglong(0)), "cuMemMap")
            ok(cu.cuMemSetAccess(C.c_ulonglong(p.value), C.c_size_t(size), C.byref(acc),
                                 C.c_size_t(1)), "cuMemSetAccess")
            ptrs.append(p.value)
        self.size, self.handle, self.ptrs = size, handle, ptrs

    def arrays(self, cp: Any, words: int) -> tuple[Any, Any]:
        out = []
        for p in self.ptrs:
            mem = cp.cuda.UnownedMemory(p, self.size, self)
            out.append(cp.ndarray((words,), dtype=cp.int32,
                                  memptr=cp.cuda.MemoryPointer(mem, 0)))
        return out[0], out[1]

    def close(self) -> None:
        C = self.C
        for p in self.ptrs:
            self.cu.cuMemUnmap(C.c_ulonglong(p), C.c_size_t(self.size))
            self.cu.cuMemAddressFree(C.c_ulonglong(p), C.c_size_t(self.size))
        self.cu.cuMemRelease(self.handle)


def _enable_peers(cp: Any, devices: list[int]) -> None:
    """Peer access between every two of ``devices`` (NVLink or PCIe), or an error saying
    which pair cannot reach the other."""
    for i in devices:
        for j in devices:
            if i == j:
                continue
            if not cp.cuda.runtime.deviceCanAccessPeer(i, j):
                raise UnsupportedError(f"GPU {i} cannot access GPU {j}'s memory (no peer "
                                       "access): the test's GPUs must be peers")
            with cp.cuda.Device(i):
                try:
                    cp.cuda.runtime.deviceEnablePeerAccess(j)
                except cp.cuda.runtime.CUDARuntimeError as exc:
                    # cudaErrorPeerAccessAlreadyEnabled: enabled by an earlier test
                    if "PeerAccessAlreadyEnabled" not in str(exc):
                        raise


def _here(cp: Any, arr: Any) -> Any:
    """``arr`` on the current device: itself, or a copy (peer copy from another GPU)."""
    if arr.device.id == cp.cuda.Device().id:
        return arr
    dst = cp.empty(arr.shape, dtype=arr.dtype)  # on the current device
    with arr.device:
        src = cp.ascontiguousarray(arr)
        src.device.synchronize()
    dst.data.copy_from_device(src.data, src.nbytes)
    return dst


@dataclass
class _Gpu:
    """What one GPU of a run holds: its kernel, stream, memory and groups."""

    device: int
    fn: Any
    stream: Any
    locs: Any
    out: Any
    scratch: Any
    group_first: int
    group_count: int


def run_test(test: A.Test, iterations: int = 100_000, batch: int | None = None,
             stress: int | None = None, seed: int = 1, stand_in: bool = False,
             config: Config | None = None, one_device: bool = False) -> HwResult:
    """Run ``test`` ``iterations`` times on the GPU; no model check (see check_states).

    A test whose threads sit on several GPUs runs on as many devices (unless
    ``stand_in``): each GPU the test names gets its own launch and its own locations
    (x@k on GPU k, reached from the others as peer memory, peer access enabled; issue
    7). ``one_device``: all of those launches on device 0, each with its own memory and
    stream: the multi-GPU path tested on one GPU, NOT an NVLink run."""
    cp = _cupy()
    import numpy as np

    from gdrcheck.engine.observe import Observables

    cfg = config or Config()
    if batch is not None:
        cfg = replace(cfg, batch=batch)
    if stress is not None:
        cfg = replace(cfg, stress=stress)
    if any(th.placement.grid for th in test.threads):  # PDL: one launch per grid (pdl.py)
        return run_grids(cp, test, iterations, cfg, seed=seed, stand_in=stand_in)
    k: Kernel = generate(test, stand_in=stand_in, ipb=cfg.ipb, multi_gpu=not stand_in)
    stride = cfg.stride
    if k.bulk and stride % 4:
        stride += 4 - stride % 4  # bulk copies need 16-byte aligned locations
    count = cp.cuda.runtime.getDeviceCount()
    here = cp.cuda.Device().id  # one GPU: the current device, as before several GPUs
    devices = ([here] * k.gpus if one_device or k.gpus == 1 else list(range(k.gpus)))
    if k.gpus > count and not one_device:
        raise UnsupportedError(
            f"{test.name} runs on {k.gpus} GPUs and this machine has {count}: --stand-in "
            "runs it with one CTA per GPU, --one-device its per-GPU launches on one GPU",
            test.path)
    if k.gpus > 1 and not one_device:
        _enable_peers(cp, devices)
    props = cp.cuda.runtime.getDeviceProperties(devices[0])
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
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
    dmap = None
    gpus: list[_Gpu] = []
    modules: dict[int, Any] = {}
    for index, device in enumerate(devices):
        with cp.cuda.Device(device):
            if device not in modules:
                pr = cp.cuda.runtime.getDeviceProperties(device)
                arch = f"-arch=sm_{pr['major']}{pr['minor']}"
                modules[device] = cp.RawModule(code=k.source, options=(arch,),
                                               name_expressions=None)
            mine = [g for g, on in enumerate(k.group_gpus) if on == index]
            if dmap is None and k.aliases and index == 0:
                dmap = _DoubleMap(words * 4, device)
                locs, alocs = dmap.arrays(cp, words)
            else:
                locs = cp.zeros(words, dtype=cp.int32)
            # one device's launches in its default stream, as with one GPU; several on
            # one device (--one-device) each in a stream of its own, so that they overlap
            stream = (cp.cuda.Stream(non_blocking=True) if one_device and k.gpus > 1
                      else cp.cuda.get_current_stream())
            gpus.append(_Gpu(device, modules[device].get_function("litmus"), stream, locs,
                             cp.zeros(n_max * nout, dtype=cp.int32),
                             cp.zeros(scratch_words, dtype=cp.int32),
                             mine[0] if mine else 0, len(mine)))
    if not k.aliases:
        alocs = gpus[0].locs
    with cp.cuda.Device(devices[0]):
        bar = cp.zeros(n_max, dtype=cp.int32)  # the instance barrier: on the first GPU
    timeouts = 0
    t0 = time.perf_counter()
    done = 0
    while done < iterations:
        n = min(n_max, iterations - done)
        views = []
        for gpu in gpus:
            with cp.cuda.Device(gpu.device):
                lv = gpu.locs[:n * nlocs * stride]
                lv.fill(0)
                views.append(lv.reshape(nlocs, n, stride) if cfg.layout else
                             lv.reshape(n, nlocs, stride).transpose(1, 0, 2))
                gpu.out[:n * nout].fill(0)
        for loc, v in k.init.items():
            a = loc_slot[loc]
            with cp.cuda.Device(gpus[k.owners[a]].device):
                views[k.owners[a]][a, :, 0] = v
        with cp.cuda.Device(devices[0]):
            bar[:n].fill(0)
        aff = np.array([x for _ in k.groups for x in (_coprime(rng, n), int(rng.integers(n)))],
                       dtype=np.int64)
        lbase = np.array([g.locs.data.ptr for g in gpus], dtype=np.int64)
        args = []
        for gpu in gpus:
            with cp.cuda.Device(gpu.device):
                args.append((cp.asarray(aff), cp.asarray(lbase)))
        if len(gpus) > 1:
            for device in set(devices):
                cp.cuda.Device(device).synchronize()  # every GPU's memory ready first
        for gpu, (d_aff, d_lbase) in zip(gpus, args, strict=True):
            if gpu.group_count == 0:
                continue  # a GPU that only holds memory
            with cp.cuda.Device(gpu.device):
                blocks = cfg.stress + gpu.group_count * ((n + cfg.ipb - 1) // cfg.ipb)
                # a cluster launch (__cluster_dims__): whole clusters; the kernel rounds the
                # stress blocks up the same way (gdrcheck/hw/codegen.py)
                blocks = -(-blocks // k.cluster) * k.cluster
                gpu.fn((blocks,), (cfg.ipb * k.warps,),
                       (gpu.locs[:n * nlocs * stride], alocs, gpu.out[:n * nout], bar,
                        d_aff, np.int64(n), np.int32(stride), np.int32(cfg.layout),
                        np.int32(cfg.sync_limit), gpu.scratch, np.int32(scratch_words),
                        np.int32(cfg.stress), np.int32(cfg.stress_mode), d_lbase,
                        np.int32(gpu.group_first), np.int32(gpu.group_count)),
                       stream=gpu.stream)
        if len(gpus) > 1:
            for device in set(devices):
                cp.cuda.Device(device).synchronize()
        with cp.cuda.Device(devices[0]):
            ov = gpus[0].out[:n * nout]
            for gpu in gpus[1:]:  # each GPU wrote only its own threads' registers
                ov += _here(cp, gpu.out[:n * nout])
            regs = ov.reshape(n, nout)
            cols = []
            for term in names:
                if term in reg_slot:
                    cols.append(regs[:, reg_slot[term]])
                elif term in loc_slot:
                    a = loc_slot[term]
                    cols.append(_here(cp, views[k.owners[a]][a, :, 0]))
                else:
                    cols.append(cp.zeros(n, dtype=cp.int32))
            valid = regs[:, nregs] == 0
            timeouts += int(n - int(valid.sum()))
            for st, c in _histogram(cp, np, cols, valid, n):
                hist[st] += c
        done += n
    for device in set(devices):
        cp.cuda.Device(device).synchronize()
    secs = time.perf_counter() - t0
    if dmap is not None:
        dmap.close()
    positive = sum(c for st, c in hist.items()
                   if obs.eval_state(test.condition.prop, tuple(zip(names, st, strict=True))))
    res = HwResult(test.name, test.path, iterations - timeouts,
                   {state_key(names, st): c for st, c in sorted(hist.items())},
                   positive, secs, name, source=k.source,
                   stand_in=stand_in and (test.arch == "GIN" or len(
                       {th.placement.gpu or 0 for th in test.threads}) > 1))
    res.config = cfg.label()
    res.timeouts = timeouts
    res.gpus = k.gpus
    res.one_device = one_device and k.gpus > 1
    return res


def _histogram(cp: Any, np: Any, cols: list[Any], valid: Any,
               n: int) -> list[tuple[tuple[int, ...], int]]:
    """Count the rows of ``cols`` (device arrays) where ``valid``, on the device: each
    row is packed into one int64 (mixed radix over the columns' ranges) when it fits."""
    if not cols:
        return [((), int(valid.sum()))]
    mat = cp.stack(cols, axis=1).astype(cp.int64)[valid]
    if mat.shape[0] == 0:
        return []
    lo = cp.asnumpy(mat.min(axis=0))
    hi = cp.asnumpy(mat.max(axis=0))
    span = [int(h) - int(lw) + 1 for lw, h in zip(lo, hi, strict=True)]
    total = 1
    for s in span:
        total *= s
    if total < (1 << 62):
        mult = []
        m = 1
        for s in span:
            mult.append(m)
            m *= s
        key = ((mat - cp.asarray(lo)) * cp.asarray(np.array(mult, dtype=np.int64))).sum(axis=1)
        uniq, counts = cp.unique(key, return_counts=True)
        out = []
        for kv, c in zip(cp.asnumpy(uniq).tolist(), cp.asnumpy(counts).tolist(), strict=True):
            row = tuple(int(lo[i]) + (kv // mult[i]) % span[i] for i in range(len(span)))
            out.append((row, int(c)))
        return out
    rows = cp.asnumpy(mat)
    uniq, counts = np.unique(rows, axis=0, return_counts=True)
    return [(tuple(int(x) for x in r), int(c)) for r, c in zip(uniq, counts, strict=True)]


def check_states(res: HwResult, test: A.Test, model: str = "ptx") -> HwResult:
    """Hold the observed states against the model: any state the model's consistent
    executions cannot reach is a soundness failure of the model."""
    from gdrcheck.analysis.check import check_test
    from gdrcheck.analysis.options import CheckOptions

    r = check_test(test, model, options=CheckOptions(states=True))
    allowed = {state_key([n for n, _ in st], tuple(v for _, v in st)) for st in r.states or []}
    res.model = model
    res.model_verdict = r.verdict
    res.forbidden_states = sorted(s for s in res.histogram if s not in allowed)
    return res


def run_grids(cp: Any, test: A.Test, iterations: int, cfg: Config, seed: int = 1,
              stand_in: bool = False) -> HwResult:
    """Run ``test`` (threads in several grids, gdrcheck/hw/pdl.py) ``iterations`` times:
    per batch of ``n`` instances, one launch per grid on one stream (the later ones with
    programmatic stream serialization), then the histogram over the output they all wrote,
    once the stream has drained."""
    import numpy as np

    from gdrcheck.engine.observe import Observables
    from gdrcheck.hw import pdl

    pk = pdl.generate_pdl(test, ipb=cfg.ipb, stand_in=stand_in)
    k = pk.kernel
    try:
        drv = pdl.Driver()
    except pdl.DriverMissing as exc:
        raise NoGpu(str(exc)) from None
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
                aff[2 * first], aff[2 * first + 1] = pdl.reversed_pairing(
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
                drv.launch(function, pdl.pack_launch(blocks[i], cfg.ipb * k.warps, stream.ptr,
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
