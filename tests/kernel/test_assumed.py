"""The extraction's assumption (docs/kernels.md, "Assumed values"): when the float values a
kernel stores do not settle, each read sees only the values stored by threads past no more
CTA barriers than the reader, every read is guarded, and the verdict proves the
assumption (Forbidden), finds a failure that keeps it (Allowed), or says it cannot tell
(Unknown).

The kernel below swaps two floats through ``buf``: each thread reads the other's slot,
passes a barrier, stores what it read plus 0.5, passes another barrier and reads the
other's slot again. Without the assumption the values never settle (0, 0.5, 1, ... a read
may see any store of the other thread). The expected verdicts are the PTX ISA's (§9.7.13.1,
bar.sync: "all prior memory accesses requested by threads of the CTA are performed relative
to all threads participating in the barrier" before it completes; threads of other CTAs
do not take part in it, so two CTAs' accesses stay unordered, ptx75's Causality)."""

from __future__ import annotations

from pathlib import Path

import pytest

import gdrcheck
from gdrcheck.analysis.assumed import check_assumed
from gdrcheck.kernel import KernelError, load_kernel, make_run

SWAP = """\
#include <assert.h>
__global__ void k(float *buf) {
  int t = threadIdx.x + blockIdx.x;
  float v = buf[1 - t];
  FIRST_BARRIER
  buf[t] = v + 0.5f;
  __syncthreads();
  float w = buf[1 - t];
  assert(COND);
}
"""


def _kernel(tmp_path: Path, cond: str, first_barrier: bool = True) -> Path:
    p = tmp_path / "swap.cu"
    p.write_text(SWAP.replace("COND", cond).replace(
        "FIRST_BARRIER", "__syncthreads();" if first_barrier else ""))
    return p


def test_one_cta_proves_the_assumption_and_the_assert(tmp_path: Path) -> None:
    # one CTA of two threads: the first read comes before the other thread's store (the
    # barrier between them), so v is 0 and each store is 0.5; the second read comes after
    # the other's store: w is 0.5 (bar.sync, PTX ISA §9.7.13.1)
    src = _kernel(tmp_path, "w == 0.5f")
    kt = load_kernel(src, make_run("k", 1, block=2))
    assert kt.extraction.assumes and kt.kept is not None
    # every thread's assumption register is a term of the condition
    for t, reg in kt.extraction.guards:
        assert f"{t}:{reg} = 1" in kt.text.splitlines()[-1]
    res = check_assumed(kt.test, kt.kept, "ptx75")
    assert res.verdict == "Forbidden" and not res.vacuous
    assert gdrcheck.check_kernel(src, "k", 1, "ptx75", block=2).verdict == "Forbidden"


def test_two_ctas_fail_the_assert_with_the_assumption_kept(tmp_path: Path) -> None:
    # two CTAs: __syncthreads orders neither's accesses with the other's, so the second
    # read may miss the other's store (w = 0, the assumption kept: v = 0 is the value the
    # first read assumed)
    src = _kernel(tmp_path, "w == 0.5f")
    out = gdrcheck.check_kernel(src, "k", 1, "ptx75", grid=2)
    assert out.verdict == "Allowed"
    state = dict(out.witness.state) if out.witness else {}
    kt = load_kernel(src, make_run("k", 1, grid=2))
    assert all(state.get(f"{t}:{reg}") == 0 for t, reg in kt.extraction.guards)


def test_two_ctas_break_the_assumption_and_nothing_else_unknown(tmp_path: Path) -> None:
    # the assert holds in every execution of the real kernel (v is 0 or 0.5, w 0, 0.5 or
    # 1), but the first read may see the other CTA's store, made past a barrier: the
    # extraction's tables do not cover that value, and the answer is Unknown, not a guess
    src = _kernel(tmp_path, "w == 0.0f || w == 0.5f || w == 1.0f")
    out = gdrcheck.check_kernel(src, "k", 1, "ptx75", grid=2)
    assert out.verdict == "Unknown"
    assert "breaks the extraction's assumption" in (out.result.reason or "")


def test_the_assumption_does_not_bound_a_cycle_within_one_epoch(tmp_path: Path) -> None:
    # no barrier between the read and the store: the reads of one epoch see that epoch's
    # stores, the values still grow, and the extraction refuses
    src = _kernel(tmp_path, "w == 0.5f", first_barrier=False)
    with pytest.raises(KernelError, match="do not settle after 16 rounds .*Assumed values"):
        load_kernel(src, make_run("k", 1, block=2))


def test_a_kernel_whose_values_settle_assumes_nothing(tmp_path: Path) -> None:
    src = tmp_path / "once.cu"
    src.write_text(SWAP.replace("COND", "w == 0.5f").replace("FIRST_BARRIER", "")
                   .replace("float v = buf[1 - t];", "float v = 0.0f;"))
    kt = load_kernel(src, make_run("k", 1, block=2))
    assert not kt.extraction.assumes and kt.kept is None
    assert "assumption" not in kt.text
    assert check_assumed(kt.test, kt.kept, "ptx75").verdict == "Forbidden"


LIBRARY = Path(__file__).resolve().parents[2] / "kernels" / "nccl"


@pytest.mark.parametrize("name", ["01_rmsnorm_lsa.cu", "01_rmsnorm_lsa+relaxed-barrier.cu",
                                  "02_rmsnorm_multimem.cu",
                                  "02_rmsnorm_multimem+relaxed-barrier.cu"])
def test_the_assumption_refines_an_exact_extraction(name: str) -> None:
    # a law: the kernels whose values settle without the assumption, extracted with it all
    # the same, give the same verdict (a Forbidden proves the assumption; an Allowed may
    # only become Unknown, never Forbidden: the guards hide no failure)
    from gdrcheck.analysis.options import DEFAULT_OPTIONS
    from gdrcheck.kernel import file_runs, read_source
    from gdrcheck.kernel.calls import Calls
    from gdrcheck.kernel.compile import INCLUDE_DIR, compile_to_ir
    from gdrcheck.kernel.extract import MAX_FLOAT_ROUNDS, _fixpoint
    from gdrcheck.kernel.ir import read_module
    from gdrcheck.kernel.test import build_test

    path = LIBRARY / name
    run = file_runs(read_source(path))[0]
    options = DEFAULT_OPTIONS.overlay(unroll=run.unroll or 1)
    model, want = run.expect[0].rpartition(":")[::2]
    exact = load_kernel(path, run)
    assert exact.kept is None
    module = read_module(compile_to_ir(path, None, run.defines), str(path), INCLUDE_DIR)
    assumed = build_test(_fixpoint(module, run.config, str(path), read_source(path), Calls,
                                   assume=True, rounds=MAX_FLOAT_ROUNDS))
    assert assumed.kept is not None
    got = check_assumed(assumed.test, assumed.kept, model, options=options).verdict
    assert check_assumed(exact.test, None, model, options=options).verdict == want
    assert got == want or (want == "Allowed" and got == "Unknown")


def test_the_emitted_test_of_an_assuming_kernel_gives_its_forbidden() -> None:
    # docs/kernels.md "Assumed values": --emit-litmus prints the first condition (an assert
    # or the assumption fails); parsed again it is Forbidden, as the kernel is
    # (NVIDIA/nccl@5067397c 07_kernel_fusion/03_rmsnorm_gin, the file's header)
    from gdrcheck.analysis.check import check_test
    from gdrcheck.analysis.options import DEFAULT_OPTIONS
    from gdrcheck.kernel import file_runs, read_source
    from gdrcheck.litmus import parse_litmus

    path = LIBRARY / "03_rmsnorm_gin.cu"
    run = file_runs(read_source(path))[0]
    kt = load_kernel(path, run)
    assert kt.kept is not None
    names = ", ".join(f"{t}:{r}" for t, r in kt.extraction.guards)
    assert f"the condition's {names} are the extraction's assumption registers" in kt.text
    again = parse_litmus(kt.text, "emitted.litmus")
    res = check_test(again, "gin-api", options=DEFAULT_OPTIONS.overlay(unroll=run.unroll))
    assert res.verdict == "Forbidden" and not res.vacuous
