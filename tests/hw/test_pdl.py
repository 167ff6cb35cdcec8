"""Programmatic dependent launch in ``gdrcheck hw`` (gdrcheck/hw/pdl.py) on the CPU: the
generated kernel (its launches, groups and trigger counting; nvcc compiles it for sm_90),
the packing of ``cuLaunchKernelEx``'s config and arguments (against cuda.h where it exists),
the pairing of an instance's grids, and the host side of a run with a fake CuPy and a fake
driver: one launch per grid on one stream, the later ones with programmatic stream
serialization, and the histogram over what both launches wrote."""

from __future__ import annotations

import ctypes as C
import re
import shutil
import subprocess
from math import gcd
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

import gdrcheck.hw.pdl as pdl
import gdrcheck.hw.run as hwrun
from gdrcheck.cli import main
from gdrcheck.errors import UnsupportedError
from gdrcheck.hw.codegen import generate
from gdrcheck.litmus import ast as A
from gdrcheck.litmus import load_litmus, parse_litmus
from hw import fakecupy
from hw.fakecupy import FakeCupy

ROOT = Path(__file__).resolve().parents[2]
PDL = sorted([*(ROOT / "litmus" / "ptx75").glob("PDL*.litmus"),
              *(ROOT / "litmus" / "realbugs").glob("*pdl*.litmus")])
CUDA_H = Path("/usr/local/cuda/include/cuda.h")


def lib(name: str) -> A.Test:
    return load_litmus(str(ROOT / "litmus" / "ptx75" / name))


def test_the_library_has_the_pdl_tests() -> None:
    assert len(PDL) == 10 and all("griddepcontrol" in p.read_text() for p in PDL)


def test_a_launch_per_grid_each_with_its_groups() -> None:
    pk = pdl.generate_pdl(lib("PDL+wait.litmus"))
    assert pk.grids == [0, 1] and pk.launches == [(0, 1), (1, 1)]
    assert pk.grid_threads == [1, 1] and pk.triggers == [1, 0]
    src = pk.kernel.source
    # the primary's trigger is the counting macro, defined before codegen's default
    assert src.index("#define GDC_LAUNCH_DEPENDENTS()") < src.index("#ifndef GDC_LAUNCH")
    assert "__constant__ int GDC_TRIG[2] = {1, 0};" in src
    assert "atomicAdd(bar + n + blockIdx.x, 1) + 1 == expect_" in src
    role0 = src[src.index("if (role == 0)"):src.index("if (role == 1)")]
    role1 = src[src.index("if (role == 1)"):]
    assert "GDC_LAUNCH_DEPENDENTS();  // griddepcontrol.launch_dependents" in role0
    assert 'asm volatile("st.global.s32' in role0
    # the secondary waits before it reads
    assert role1.index('asm volatile("griddepcontrol.wait;"') < role1.index('"ld.global.s32')


def test_three_grids_and_ctas_renumbered_grid_by_grid() -> None:
    three = pdl.generate_pdl(lib("PDL+3grids.litmus"))
    assert three.launches == [(0, 1), (1, 1), (2, 1)] and three.triggers == [1, 1, 0]
    # CTA numbers interleaved across the grids: each grid's groups still lie in a row
    text = ("PTX T\n{ x=0; y=0; }\n"
            " P0@cta 2,gpu 0,grid 0 | P1@cta 0,gpu 0,grid 1 | P2@cta 5,gpu 0,grid 0 ;\n"
            " st.weak x, 1 | griddepcontrol.wait | st.weak y, 1 ;\n"
            " griddepcontrol.launch_dependents | ld.weak r0, x | ld.weak r1, y ;\n"
            "exists (1:r0 = 0)\n")
    pk = pdl.generate_pdl(parse_litmus(text, "t.litmus"))
    assert pk.kernel.groups == [[0], [2], [1]]  # grid 0: CTAs 2 and 5; grid 1: CTA 0
    assert pk.launches == [(0, 2), (2, 1)] and pk.grid_threads == [2, 1]
    assert pk.triggers == [1, 0, 0]


def test_a_trigger_that_can_repeat_is_not_counted() -> None:
    """A thread that can skip or repeat its trigger leaves its block to trigger on exit."""
    text = ("PTX T\n{ x=0; }\n P0@cta 0,gpu 0,grid 0 | P1@cta 1,gpu 0,grid 1 ;\n"
            " LC0: | griddepcontrol.wait ;\n"
            " griddepcontrol.launch_dependents | ld.weak r0, x ;\n"
            " ld.weak r1, x | ;\n bne r1, 0, LC0 | ;\nexists (1:r0 = 0)\n")
    pk = pdl.generate_pdl(parse_litmus(text, "t.litmus"))
    assert pk.triggers == [0, 0] and "__constant__ int GDC_TRIG[2] = {0, 0};" in pk.kernel.source


def test_codegen_alone_still_refuses_grids_and_emits_a_plain_trigger() -> None:
    with pytest.raises(UnsupportedError, match="several grids"):
        generate(lib("PDL+wait.litmus"))
    one = ("PTX T\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\n"
           " griddepcontrol.launch_dependents ;\nexists (x = 1)\n")
    src = generate(parse_litmus(one, "t.litmus")).source
    assert ('#define GDC_LAUNCH_DEPENDENTS() asm volatile("griddepcontrol.launch_dependents;"'
            in src) and "GDC_TRIG" not in src
    assert "GDC_LAUNCH" not in generate(load_litmus(str(ROOT / "litmus" / "ptx" /
                                                        "MP+weaks.litmus"))).source


def test_refused_across_gpus() -> None:
    test = lib("PDL+wait.litmus")
    th = test.threads[1]
    moved = A.Test(**{**test.__dict__, "threads": (
        test.threads[0], A.Thread(th.index, A.Placement(cta=1, gpu=1, grid=1), th.instrs))})
    with pytest.raises(UnsupportedError, match="one GPU"):
        pdl.generate_pdl(moved)


def _params(src: str) -> list[tuple[str, str]]:
    sig = re.search(r"\nlitmus\(([^)]*)\)", src)
    assert sig is not None
    out = []
    for p in sig.group(1).split(","):
        typ, name = p.strip().rsplit(" ", 1)
        kind = "p" if name.startswith("*") or typ.endswith("*") else (
            "q" if "long long" in typ else "i")
        out.append((name.lstrip("*"), kind))
    return out


def test_the_packed_arguments_match_the_kernel_signature() -> None:
    """pack_launch follows the generated kernel's parameter list, name by name and type by
    type (a pointer, a long long, an int): a parameter added to codegen.py fails here."""
    for src in (pdl.generate_pdl(lib("PDL+wait.litmus")).kernel.source,
                generate(load_litmus(str(ROOT / "litmus" / "ptx" / "MP+weaks.litmus"))).source):
        assert _params(src) == list(pdl.SIGNATURE)


def _args() -> dict[str, int]:
    return {name: (0x7F0000000000 + 256 * i if kind == "p" else
                   (1 << 40) + i if kind == "q" else 1000 + i)
            for i, (name, kind) in enumerate(pdl.SIGNATURE)}


def test_pack_launch_with_and_without_the_pdl_attribute() -> None:
    args = _args()
    sec = pdl.pack_launch(7, 64, 0xABC0, args, pdl=True)
    cfg = sec.config
    assert (cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ) == (7, 1, 1)
    assert (cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ, cfg.sharedMemBytes) == (64, 1, 1, 0)
    assert cfg.hStream == 0xABC0 and cfg.numAttrs == 1
    assert cfg.attrs[0].id == pdl.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION == 6
    assert cfg.attrs[0].value.programmaticStreamSerializationAllowed == 1
    raw = bytes(C.string_at(C.addressof(cfg.attrs[0]), C.sizeof(pdl.LaunchAttribute)))
    assert raw[:4] == (6).to_bytes(4, "little") and raw[8:12] == (1).to_bytes(4, "little")
    assert pdl.unpack_params(sec) == args  # what the driver reads through kernelParams
    prim = pdl.pack_launch(7, 64, 0, args, pdl=False)
    assert prim.config.numAttrs == 0 and not prim.config.attrs and prim.config.hStream is None
    with pytest.raises(ValueError, match="missing"):
        pdl.pack_launch(1, 32, 0, {"n": 1}, pdl=False)


def test_the_structures_have_cuda_h_layout(tmp_path: Path) -> None:
    """sizeof and offsetof of CUlaunchConfig and CUlaunchAttribute as a C compiler reads
    cuda.h, against the ctypes structures."""
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None or not CUDA_H.exists():
        pytest.skip("no C compiler or no cuda.h here")
    prog = tmp_path / "layout.c"
    prog.write_text(
        "#include <stdio.h>\n#include <stddef.h>\n#include <cuda.h>\nint main(void){\n"
        'printf("%zu %zu %zu %zu %zu %zu %zu %d\\n", sizeof(CUlaunchConfig),'
        " offsetof(CUlaunchConfig, hStream), offsetof(CUlaunchConfig, attrs),"
        " offsetof(CUlaunchConfig, numAttrs), sizeof(CUlaunchAttribute),"
        " offsetof(CUlaunchAttribute, value),"
        " offsetof(CUlaunchAttribute, value.programmaticStreamSerializationAllowed),"
        " (int)CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION);\nreturn 0;}\n")
    exe = tmp_path / "layout"
    subprocess.run([cc, f"-I{CUDA_H.parent}", str(prog), "-o", str(exe)], check=True)
    got = [int(x) for x in subprocess.run([str(exe)], capture_output=True, text=True,
                                          check=True).stdout.split()]
    mine = [C.sizeof(pdl.LaunchConfig), pdl.LaunchConfig.hStream.offset,
            pdl.LaunchConfig.attrs.offset, pdl.LaunchConfig.numAttrs.offset,
            C.sizeof(pdl.LaunchAttribute), pdl.LaunchAttribute.value.offset,
            pdl.LaunchAttribute.value.offset
            + pdl.LaunchAttributeValue.programmaticStreamSerializationAllowed.offset,
            pdl.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION]
    assert got == mine


class _FakeLib:
    def __init__(self, rc: int) -> None:
        self.rc = rc
        self.calls: list[tuple[int, int, int]] = []

        def launch(cfg: Any, fn: Any, params: Any, extra: Any) -> int:
            self.calls.append((cfg._obj.gridDimX, fn.value, extra))
            return self.rc

        def error_name(rc: int, out: Any) -> int:
            out._obj.value = b"CUDA_ERROR_INVALID_VALUE"
            return 0

        self.cuLaunchKernelEx = launch
        self.cuGetErrorName = error_name


def test_the_driver_call_and_its_errors() -> None:
    ok = _FakeLib(0)
    pdl.Driver(ok).launch(0x1234, pdl.pack_launch(3, 32, 0, _args(), pdl=True))
    assert ok.calls == [(3, 0x1234, None)]
    with pytest.raises(RuntimeError, match="CUDA_ERROR_INVALID_VALUE"):
        pdl.Driver(_FakeLib(1)).launch(1, pdl.pack_launch(3, 32, 0, _args(), pdl=False))


def test_no_libcuda_is_the_no_gpu_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> Any:
        raise OSError(f"{name}: cannot open shared object file")

    monkeypatch.setattr(pdl.C, "CDLL", missing)
    with pytest.raises(pdl.DriverMissing, match="libcuda"):
        pdl.Driver()
    test = lib("PDL+wait.litmus")
    fake = FakeCupy(1, [], {})
    fake.cuda.Stream = _Stream  # type: ignore[attr-defined]
    fake.RawModule = _Module  # type: ignore[assignment,misc]
    monkeypatch.setattr(hwrun, "_cupy", lambda: fake)  # CuPy, but no driver library
    with pytest.raises(hwrun.NoGpu, match="libcuda"):
        hwrun.run_test(test, iterations=10, config=hwrun.Config(batch=10))


def test_without_a_gpu_a_pdl_test_exits_2() -> None:
    try:
        import cupy  # noqa: F401
        pytest.skip("CuPy is installed here")
    except ImportError:
        pass
    r = CliRunner().invoke(main, ["hw", "run", str(ROOT / "litmus" / "ptx75" / "PDL+wait.litmus")])
    assert r.exit_code == 2 and "needs an NVIDIA GPU" in r.output


@pytest.mark.parametrize("n", [1, 2, 7, 400, 1000])
def test_reversed_pairing(n: int) -> None:
    rng = np.random.default_rng(n)
    for _ in range(5):
        a = hwrun._coprime(rng, n)
        b = int(rng.integers(n))
        a2, b2 = pdl.reversed_pairing(a, b, n)
        assert gcd(a2, n) == 1 or n == 1
        assert [(a2 * s + b2) % n for s in range(n)] == [(a * (n - 1 - s) + b) % n
                                                          for s in range(n)]


# --- the host side with a fake CuPy and a fake driver ------------------------------------


class _Stream:
    def __init__(self, non_blocking: bool = False) -> None:
        self.non_blocking = non_blocking
        self.ptr = 0x5000 + id(self) % 4096 * 16
        self.syncs = 0

    def __enter__(self) -> _Stream:
        return self

    def __exit__(self, *exc: Any) -> None:
        pass

    def synchronize(self) -> None:
        self.syncs += 1


class _Function:
    class kernel:  # noqa: N801 - CuPy's RawKernel.kernel (a Function with .ptr)
        ptr = 0xF00D


class _Module:
    def __init__(self, code: str, options: tuple[str, ...] = (),
                 name_expressions: Any = None) -> None:
        self.code = code
        self.options = options

    def get_function(self, name: str) -> Any:
        assert name == "litmus"
        return _Function()


class FakeDriver(pdl.Driver):
    """Plays each launch as the kernel would: the slots of the launch's groups, the
    instance of each slot from ``aff`` read back from device memory, and each register
    of a thread of those groups written into that instance's row of ``out``: 100 + the
    slot for a primary-grid thread, 100 + n - 1 - slot for a later grid's."""

    def __init__(self, k: Any, pk: pdl.PdlKernel) -> None:
        self.k, self.pk = k, pk
        self.launches: list[tuple[dict[str, int], pdl.LaunchConfig]] = []

    def launch(self, function: int, packed: pdl.Packed) -> None:
        assert function == 0xF00D
        args = pdl.unpack_params(packed)
        self.launches.append((args, packed.config))
        n, first, count = args["n"], args["group_first"], args["group_count"]
        mem = fakecupy._memory
        out = mem[args["out"]].view(np.ndarray)
        aff = mem[args["aff"]].view(np.ndarray)
        bar = mem[args["bar"]].view(np.ndarray)
        # the barrier counts the other grids' threads in already; the counters are zero
        here = sum(len(self.k.groups[g]) for g in range(first, first + count))
        assert (bar[:n] == len(self.k.test.threads) - here).all()
        assert (bar[n:n + packed.config.gridDimX] == 0).all()
        nout = len(self.k.regs) + 1
        for g in range(first, first + count):
            for slot in range(n):
                inst = (int(aff[2 * g]) * slot + int(aff[2 * g + 1])) % n
                for r, (thread, _) in enumerate(self.k.regs):
                    if thread in self.k.groups[g]:
                        out[inst * nout + r] = 100 + (slot if first == 0 else n - 1 - slot)


TWO_REGS = ("PTX T\n{ x=0; y=0; }\n P0@cta 0,gpu 0,grid 0 | P1@cta 1,gpu 0,grid 1 ;\n"
            " ld.weak r0, y | griddepcontrol.wait ;\n"
            " griddepcontrol.launch_dependents | ld.weak r1, x ;\n"
            "exists (0:r0 = 1 /\\ 1:r1 = 0)\n")


def _fake(test: A.Test, monkeypatch: pytest.MonkeyPatch) -> tuple[FakeCupy, list[FakeDriver]]:
    fake = FakeCupy(1, [], {})
    fake.cuda.Stream = _Stream  # type: ignore[attr-defined]
    fake.RawModule = _Module  # type: ignore[assignment,misc]
    monkeypatch.setattr(hwrun, "_cupy", lambda: fake)
    drivers: list[FakeDriver] = []

    def make() -> FakeDriver:
        pk = pdl.generate_pdl(test)
        drivers.append(FakeDriver(pk.kernel, pk))
        return drivers[-1]

    monkeypatch.setattr(pdl, "Driver", make)
    return fake, drivers


def test_a_run_launches_each_grid_in_one_stream_and_pairs_the_instances(
        monkeypatch: pytest.MonkeyPatch) -> None:
    test = parse_litmus(TWO_REGS, "t.litmus")
    _, drivers = _fake(test, monkeypatch)
    res = hwrun.run_test(test, iterations=1000, config=hwrun.Config(batch=400, ipb=64))
    (drv,) = drivers
    assert len(drv.launches) == 6  # 400 + 400 + 200 instances: three launch pairs
    for pair in (drv.launches[0:2], drv.launches[2:4], drv.launches[4:6]):
        (a1, c1), (a2, c2) = pair
        assert (c1.numAttrs, c2.numAttrs) == (0, 1)  # only the secondary: PDL
        assert c2.attrs[0].id == 6 and c2.attrs[0].value.programmaticStreamSerializationAllowed
        assert c1.hStream == c2.hStream != 0  # one stream, not the legacy default one
        assert (a1["group_first"], a1["group_count"], a2["group_first"]) == (0, 1, 1)
        assert a1["out"] == a2["out"] and a1["locs"] == a2["locs"] and a1["n"] == a2["n"]
        assert a1["bar"] != a2["bar"] and a1["aff"] == a2["aff"]
        assert c1.gridDimX == -(-a1["n"] // 64) and c1.blockDimX == 64
    # every instance's row holds both grids' registers, the secondary slot n-1-s paired
    # with the primary slot s: equal values in every state, and no instance lost
    assert res.iterations == 1000 and res.timeouts == 0
    assert sum(res.histogram.values()) == 1000
    for state in res.histogram:
        vals = dict(kv.split("=") for kv in state.split("; "))
        assert vals["0:r0"] == vals["1:r1"], state
    assert "pdl: 2 launches of one stream" in res.config
    assert res.source.startswith("// Programmatic dependent launch")


def test_stress_blocks_go_to_the_primary_only(monkeypatch: pytest.MonkeyPatch) -> None:
    test = lib("PDL+3grids.litmus")
    _, drivers = _fake(test, monkeypatch)
    hwrun.run_test(test, iterations=100, config=hwrun.Config(batch=100, ipb=32, stress=5))
    args = [a for a, _ in drivers[0].launches]
    assert [a["stress_blocks"] for a in args] == [5, 0, 0]
    assert [c.numAttrs for _, c in drivers[0].launches] == [0, 1, 1]
    assert [c.gridDimX for _, c in drivers[0].launches] == [5 + 4, 4, 4]


def test_the_cli_holds_a_pdl_run_against_ptx75(monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
    """The fake kernel writes 100 + slot for P1:r0 of PDL+wait: states ptx75 forbids
    (it reads 0 or 1 only), so the run is a loud soundness failure, exit 1."""
    path = ROOT / "litmus" / "ptx75" / "PDL+wait.litmus"
    _fake(load_litmus(str(path)), monkeypatch)
    r = CliRunner().invoke(main, ["hw", "run", str(path), "--iterations", "50", "--batch",
                                  "50", "--kernels", str(tmp_path)])
    assert r.exit_code == 1 and "FORBIDDEN BY MODEL" in r.output, r.output
    assert "griddepcontrol.wait" in (tmp_path / "PDL+wait.cu").read_text()


def test_a_pre_hopper_gpu_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    test = lib("PDL+wait.litmus")
    fake, _ = _fake(test, monkeypatch)
    monkeypatch.setattr(fake.runtime, "getDeviceProperties",
                        lambda d: {"name": b"Old GPU", "major": 8, "minor": 0})
    with pytest.raises(UnsupportedError, match="sm_90"):
        hwrun.run_test(test, iterations=10, config=hwrun.Config(batch=10))


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_nvcc_compiles_a_pdl_kernel_for_sm_90(tmp_path: Path) -> None:
    _compile(ROOT / "litmus" / "realbugs" / "flashinfer-ar-fusion-pdl+buggy.litmus", tmp_path)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_nvcc_compiles_every_pdl_kernel(tmp_path: Path) -> None:
    """2 to 5 s a kernel on this shared machine (18 s to 50 s in all): slow."""
    for path in PDL:
        _compile(path, tmp_path)


def _compile(path: Path, workdir: Path) -> None:
    cu = workdir / "k.cu"
    cu.write_text(pdl.generate_pdl(load_litmus(str(path))).kernel.source)
    r = subprocess.run(["nvcc", "-arch=sm_90", "-c", str(cu), "-o", str(workdir / "k.o")],
                       capture_output=True, text=True)
    assert r.returncode == 0, f"{path.name}: {r.stderr[-800:]}"
