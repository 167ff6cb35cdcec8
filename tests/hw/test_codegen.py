"""gdrcheck hw on the CPU: the generated CUDA source (structure, and that nvcc compiles
it where nvcc exists), the no-GPU error, and the report of the committed H200 run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from gdrcheck.cli import main
from gdrcheck.errors import UnsupportedError
from gdrcheck.hw.codegen import generate
from gdrcheck.litmus import load_litmus, parse_litmus
from hw.nvcc import compile_kernel

ROOT = Path(__file__).resolve().parents[2]
PTX = sorted((ROOT / "litmus" / "ptx").glob("*.litmus"))


def test_every_access_is_inline_ptx_with_its_semantics_and_scope() -> None:
    k = generate(load_litmus(str(ROOT / "litmus" / "ptx" / "MP+rel+acq-gpu.litmus")))
    src = k.source
    assert 'asm volatile("st.global.s32 [%0], %1;"' in src  # st.weak
    assert 'asm volatile("st.release.gpu.global.s32 [%0], %1;"' in src
    assert 'asm volatile("ld.acquire.gpu.global.s32 %0, [%1];"' in src
    assert "#define GROUPS 2" in src and "ROLE[GROUPS * WARPS] = {0, 1}" in src
    assert k.regs == [(1, "r1"), (1, "r2")] and k.locations == ["x", "y"]


def test_same_cta_threads_share_a_block() -> None:
    k = generate(load_litmus(str(ROOT / "litmus" / "ptx" / "MP+rel+acq-cta-samecta.litmus")))
    assert k.groups == [[0, 1]] and k.warps == 2


def test_fences_atomics_labels() -> None:
    text = ("PTX T\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n"
            " fence.sc.cta | LC00: ;\n red.acq_rel.gpu.add x, 1 | ld.relaxed.gpu r0, y ;\n"
            " atom.relaxed.sys.sub r1, y, 2 | beq r0, 0, LC00 ;\n"
            "exists (1:r0 = 1)\n")
    src = generate(parse_litmus(text, "t.litmus")).source
    assert 'asm volatile("fence.sc.cta;"' in src
    assert "atom.acq_rel.gpu.global.add.s32" in src  # red takes no .acq_rel: an atom
    assert "atom.relaxed.sys.global.add.s32" in src and "-(2)" in src  # sub = add -v
    assert "L1_LC00:;" in src and "goto L1_LC00;" in src


SELECT = ("PTX T\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n"
          " st.relaxed.gpu x, 3 | ld.relaxed.gpu r0, x ;\n"
          "                     | setp.ge r1, r0, 3 ;\n"
          "                     | selp r2, r0, 7, r1 ;\n"
          "                     | st.relaxed.gpu y, r2 ;\n"
          "exists (y = 7)\n")


def test_setp_and_selp_are_c_selections() -> None:
    # the predicate is an int register of 0 or 1 (docs/litmus-format.md §7.2); nvcc
    # compiles a C conditional to selp or a branch, as it likes: the values are the same
    k = generate(parse_litmus(SELECT, "t.litmus"))
    assert "r_r1 = (r_r0 >= 3) ? 1 : 0;" in k.source
    assert "r_r2 = (r_r1 != 0) ? r_r0 : 7;" in k.source
    assert "int r_r1 = 0;" in k.source and "int r_r2 = 0;" in k.source


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_nvcc_compiles_setp_and_selp(tmp_path: Path) -> None:
    path = tmp_path / "select.litmus"
    path.write_text(SELECT)
    assert compile_kernel(path, tmp_path)


@pytest.mark.parametrize("text,msg", [
    ("PTX T\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 1 ;\n st.relaxed.sys x, 1 | "
     "ld.relaxed.sys r0, x ;\nexists (1:r0 = 1)\n", "several GPUs"),
    ("PTX T\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n bar.cta.sync 0 | "
     "bar.cta.sync 0 ;\nexists (x = 1)\n", "cannot run PtxBarrier"),
])
def test_unsupported(text: str, msg: str) -> None:
    with pytest.raises(UnsupportedError, match=msg):
        generate(parse_litmus(text, "t.litmus"))


@pytest.mark.slow  # every library kernel through nvcc: about a minute; one compile stays in
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_nvcc_compiles_the_library(tmp_path: Path) -> None:
    for path in PTX:
        compile_kernel(path, tmp_path)


def test_without_a_gpu_it_says_so_and_exits_2() -> None:
    try:
        import cupy  # noqa: F401
        pytest.skip("CuPy is installed here")
    except ImportError:
        pass
    r = CliRunner().invoke(main, ["hw", "run", str(PTX[0])])
    assert r.exit_code == 2 and "needs an NVIDIA GPU" in r.output


def test_report_of_the_committed_h200_run() -> None:
    data = ROOT / "docs" / "data" / "hw-h200-ptx.jsonl"
    r = CliRunner().invoke(main, ["hw", "report", str(data)])
    assert r.exit_code == 0, r.output  # no observed state is forbidden by ptx
    assert "MP+weaks" in r.output and "1621 / 5000000" in r.output


def test_stand_in_runs_lsa_tests_with_one_cta_per_gpu() -> None:
    """Issue 7 needs two GPUs; until then an LSA test runs with a CTA per GPU, x@k as
    plain locations, and says so."""
    test = load_litmus(str(ROOT / "litmus" / "lsa" / "01-MP+st+rel.sys.litmus"))
    with pytest.raises(UnsupportedError, match="stand-in"):
        generate(test)
    k = generate(test, stand_in=True)
    assert len(k.groups) == 2 and all(n.count("@") == 1 for n in k.locations)
    assert "st.release.sys.global.s32" in k.source


def test_report_of_the_stand_in_run() -> None:
    data = ROOT / "docs" / "data" / "hw-h200-lsa-standin.jsonl"
    r = CliRunner().invoke(main, ["hw", "report", str(data), "--model", "lsa"])
    assert r.exit_code == 0, r.output
    assert "(stand-in)" in r.output


def test_bad_input_is_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.litmus"
    bad.write_text("PTX bad\n{ x=0; }\n P0@cta 0,gpu 0 ;\n ld.acquire r0, x ;\nexists (0:r0=1)\n")
    r = CliRunner().invoke(main, ["hw", "run", str(bad)])
    assert r.exit_code == 2 and "bad.litmus:4:" in r.output and "Traceback" not in r.output


LSA = sorted((ROOT / "litmus" / "lsa").glob("*.litmus"))


def test_an_lsa_test_on_two_gpus_keeps_x_at_k_on_gpu_k() -> None:
    """Issue 7: one launch per GPU of the test, each playing its own groups (CTAs), and
    every location in the memory of the GPU that owns it (x@1 on GPU 1)."""
    test = load_litmus(str(ROOT / "litmus" / "lsa" / "01-MP+st+rel.sys.litmus"))
    k = generate(test, multi_gpu=True)
    assert k.gpus == 2 and k.gpu_ids == [0, 1]
    assert k.groups == [[0], [1]] and k.group_gpus == [0, 1]  # P0 on GPU 0, P1 on GPU 1
    assert k.locations == ["x@1", "f@1"] and k.owners == [1, 1]  # both live on GPU 1
    src = k.source
    # each address once, before the test, from the base of the GPU that owns it
    assert "int *const LP0 = (int *)lbase[1] + " in src and "// x@1" in src
    assert "int *const LP1 = (int *)lbase[1] + " in src and "#define LOC(a) LP##a" in src
    assert src.index("int *const LP1") < src.index("if (role == 0)")
    assert "int group = group_first + block % group_count;" in src
    assert "atomicAdd_system(bar + inst, 1);" in src  # the barrier spans the GPUs


def test_a_kernel_for_one_gpu_computes_its_addresses_as_before() -> None:
    """No base-pointer load between a test's accesses (the review of issue 7's code): a
    kernel for one GPU takes every address from ``locs`` as it did before several GPUs."""
    src = generate(load_litmus(str(ROOT / "litmus" / "ptx" / "MP+weaks.litmus"))).source
    assert "#define LOC(a) (layout ? locs + ((long long)(a) * n + inst) * stride" in src
    assert "lbase[" not in src and "LP0" not in src and "atomicAdd(bar + inst, 1);" in src


def test_three_gpus_and_a_gpu_that_only_holds_memory() -> None:
    wrc = generate(load_litmus(str(ROOT / "litmus" / "lsa" / "07-WRC+rel+acq.sys.litmus")),
                   multi_gpu=True)
    assert wrc.gpus == 3 and wrc.group_gpus == [0, 1, 2]
    text = ("GIN T\n{ x = 0; }\n P0@cta 0,gpu 0,node 0 ;\n st.relaxed.sys x@2, 1 ;\n"
            "exists (x@2 = 1)\n")
    k = generate(parse_litmus(text, "t.litmus"), multi_gpu=True)
    assert k.gpu_ids == [0, 2] and k.group_gpus == [0] and k.owners == [1]


def test_a_ptx_test_on_two_gpus_keeps_its_locations_on_the_first() -> None:
    text = ("PTX T\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 1 ;\n st.relaxed.sys x, 1 | "
            "ld.relaxed.sys r0, x ;\nexists (1:r0 = 1)\n")
    k = generate(parse_litmus(text, "t.litmus"), multi_gpu=True)
    assert k.gpu_ids == [0, 1] and k.group_gpus == [0, 1] and k.owners == [0]


def test_one_gpu_and_the_stand_in_use_one_launch() -> None:
    stand_in = generate(load_litmus(str(LSA[0])), stand_in=True)
    assert stand_in.gpus == 1 and set(stand_in.group_gpus) == {0} and set(stand_in.owners) == {0}
    one = generate(load_litmus(str(PTX[0])), multi_gpu=True)
    assert one.gpus == 1 and set(one.owners) == {0}


@pytest.mark.slow  # the LSA library through nvcc: about 20 s
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_nvcc_compiles_the_lsa_library_for_several_gpus(tmp_path: Path) -> None:
    assert sum(compile_kernel(path, tmp_path, multi_gpu=True) for path in LSA) == len(LSA)


@pytest.mark.parametrize("data", sorted((ROOT / "docs" / "data").glob("hw-h200*.jsonl")),
                         ids=lambda p: p.name)
def test_every_committed_hardware_run_rechecks_clean(data: Path) -> None:
    """Each recorded run, re-checked against the test files as they are now: no observed
    state forbidden (a file changed after its run must keep the version that ran, as
    scripts/hw-experiments/*-single-read.litmus do for the realbugs run)."""
    model = ["--model", "lsa"] if "lsa-standin" in data.name else []
    r = CliRunner().invoke(main, ["hw", "report", str(data), *model])
    assert r.exit_code == 0, r.output[-2000:]


def test_grids_of_a_stream_are_refused() -> None:
    """hw run launches one kernel per GPU: a test with several grids (PDL,
    docs/ptx-pdl-mbarrier.md) would silently run them as one, so it is refused."""
    test = load_litmus(Path(__file__).resolve().parents[2] / "litmus" / "ptx75" / "PDL+wait.litmus")
    with pytest.raises(UnsupportedError, match="several grids"):
        generate(test)
