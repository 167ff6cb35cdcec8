"""Programmatic dependent launch on the GPU: a test whose threads sit in several grids of one
stream (placement ``grid N``, docs/ptx-pdl-mbarrier.md) as one launch per grid (issue 28
item 7; docs/hardware.md, "Programmatic dependent launch").

The kernel is :func:`gdrcheck.hw.codegen.generate`'s, for a copy of the test in which the
CTAs are renumbered grid by grid (so that each grid's CTA groups are consecutive) and the
grid placements are dropped. It is launched once per grid, in grid order, on one stream,
each launch playing its grid's groups (``group_first``, ``group_count``) for the same ``n``
instances, into the same output and the same locations; the histogram is taken after the
stream has drained (gdrcheck/hw/run.py, ``run_grids``). Every launch after the first
carries the launch attribute ``CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`` = 1
(CUDA Driver API, Execution Control, ``cuLaunchKernelEx`` and ``CUlaunchAttributeID``;
cuda.h of CUDA 13.0), passed to ``cuLaunchKernelEx`` through ctypes on libcuda: CuPy's
RawKernel takes no launch attributes.

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
from dataclasses import dataclass, replace
from typing import Any

from gdrcheck.errors import UnsupportedError
from gdrcheck.hw.codegen import Kernel, generate
from gdrcheck.litmus import ast as A

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


class DriverMissing(OSError):
    """No libcuda on this machine (gdrcheck/hw/run.py makes it the "no GPU" error)."""


class Driver:
    """``cuLaunchKernelEx`` of libcuda, through ctypes."""

    def __init__(self, lib: Any = None) -> None:
        if lib is None:
            try:
                lib = C.CDLL("libcuda.so.1")
            except OSError as exc:
                raise DriverMissing(f"gdrcheck hw needs the CUDA driver (libcuda): {exc}") \
                    from None
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
