"""NVSHMEM calls of the kernel front end beyond the first table: nvshmem_TYPE_p of a value
read (a register), the device AMOs, the warp and block collective puts (docs/kernels.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gdrcheck.analysis.check import check_test
from gdrcheck.kernel import KernelError, load_kernel, make_run
from gdrcheck.litmus import ast as A


def _kernel(tmp_path: Path, body: str, name: str = "k.cu") -> Path:
    src = tmp_path / name
    src.write_text("#include <nvshmem.h>\n#include <nvshmemx.h>\n#include <assert.h>\n" + body)
    return src


def _calls(test: A.Test, thread: int) -> list[A.ShmemCall]:
    return [i for i in test.threads[thread].instrs if isinstance(i, A.ShmemCall)]


P_OF_A_VALUE_READ = """
__global__ void k(int *x, int *y) {
    if (nvshmem_my_pe() == 0) nvshmem_int_p(x, *y + DELTA, 1);
}
__device__ void init(int *x, int *y) {
    if (nvshmem_my_pe() == 0) *y = 7;
}
__device__ void check(int *x, int *y) {
    if (nvshmem_my_pe() == 1) assert(*x == 7);
}
"""


@pytest.mark.parametrize(("delta", "verdict"), [(0, "Forbidden"), (1, "Allowed")])
def test_p_puts_the_value_its_thread_read(tmp_path: Path, delta: int, verdict: str) -> None:
    """nvshmem_int_p(dest, value, pe) writes ``value`` into dest on pe (NVIDIA/nvshmem@2d7d25f
    src/include/non_abi/device/common/nvshmemi_common_device.cuh:449-459: `*dest_actual =
    value` over NVLink, else nvshmemi_transfer_rma_p(dest, value, pe)).
    PE 0 reads y (7, the host's init) and puts it, plus DELTA, into x on PE 1: the host's
    check x == 7 on PE 1 can fail only when DELTA is not 0, whatever the ordering."""
    src = _kernel(tmp_path, P_OF_A_VALUE_READ)
    run = make_run("k", 2, init="init", check="check", defines=(f"DELTA={delta}",))
    kt = load_kernel(src, run)
    [p] = _calls(kt.test, 0)
    assert p.op == "p" and p.value is None and p.reg is not None
    assert p.dst == A.LocRef("x", 1)
    assert f"shmem.p x@1, {p.reg.name}" in kt.text
    for model in ("nvshmem-api", "nvshmem-ibgda"):
        res = check_test(kt.test, model)
        assert res.verdict == verdict and not res.vacuous, model


AMOS = """
__global__ void k(int *x, uint64_t *c, int *y) {
    if (nvshmem_my_pe() == 0) {
        nvshmem_int_p(x, 1, 1);
        nvshmem_fence();
        PUBLISH;
    } else {
        nvshmem_uint64_wait_until(c, NVSHMEM_CMP_GE, 1);
        assert(*(volatile int *)x == 1);
    }
}
"""


@pytest.mark.parametrize(("publish", "litmus"), [
    ("nvshmem_uint64_atomic_inc(c, 1)", "shmem.atomic_add c@1, 1"),
    ("nvshmem_uint64_atomic_add(c, 3, 1)", "shmem.atomic_add c@1, 3"),
    ("nvshmem_uint64_atomic_set(c, 2, 1)", "shmem.atomic_set c@1, 2"),
])
def test_non_fetching_amos_are_the_litmus_atomics(tmp_path: Path, publish: str,
                                                  litmus: str) -> None:
    """atomic_inc is NVSHMEMI_AMO_ADD of 1, atomic_add NVSHMEMI_AMO_ADD, atomic_set
    NVSHMEMI_AMO_SET (NVIDIA/nvshmem@2d7d25f src/include/device/nvshmem_defines.h:887, 800,
    1219). The kernel is litmus/nvshmem/MP+put+fence+atomic_add with a p for the put:
    Forbidden under nvshmem-api (R-SH-1: the fence orders the p's delivery before the AMO's)
    and Allowed under nvshmem-ibgda (two QPs to the PE, the fence polls completions only:
    that file's comment, ibgda_device.cuh:3464-3500)."""
    src = _kernel(tmp_path, AMOS.replace("PUBLISH", publish))
    kt = load_kernel(src, make_run("k", 2))
    assert litmus in kt.text
    assert check_test(kt.test, "nvshmem-api").verdict == "Forbidden"
    assert check_test(kt.test, "nvshmem-ibgda").verdict == "Allowed"


@pytest.mark.parametrize("call", [
    "nvshmem_uint64_atomic_fetch_add(c, 1, 1)",
    "nvshmem_uint64_atomic_fetch_inc(c, 1)",
    "nvshmem_uint64_atomic_compare_swap(c, 0, 1, 1)",
    "nvshmem_uint64_atomic_fetch(c, 1)",
])
def test_fetching_amos_are_refused_at_their_line(tmp_path: Path, call: str) -> None:
    src = _kernel(tmp_path, "__global__ void k(uint64_t *c, uint64_t *out) {\n"
                  f"    *out = {call};\n}}\n")
    with pytest.raises(KernelError, match="a fetching AMO") as info:
        load_kernel(src, make_run("k", 2))
    assert info.value.pos.line == 5
    assert info.value.render().startswith(f"{src}:5:")


GROUP_PUT = """
__global__ void k(int *x, int *buf, uint64_t *s) {
    if (nvshmem_my_pe() == 0) {
        if (threadIdx.x == 1) *buf = 1;
        CALL(x, buf, 1, s, 1, NVSHMEM_SIGNAL_SET, 1);
    } else if (threadIdx.x == 0) {
        nvshmem_signal_wait_until(s, NVSHMEM_CMP_EQ, 1);
        assert(*(volatile int *)x == 1);
    }
}
"""


@pytest.mark.parametrize("group", ["warp", "block"])
def test_a_group_call_is_one_operation_after_a_group_sync(tmp_path: Path, group: str) -> None:
    """nvshmemx_int_put_signal_nbi_{warp,block} (NVIDIA/nvshmem@2d7d25f
    src/include/device/nvshmemx_defines.h:151-164) is nvshmemi_put_signal<T, SCOPE>
    (non_abi/device/common/nvshmemi_common_device.cuh:553-561): a group sync, one
    put-with-signal (posted by thread 0 of the group on the proxy path,
    transfer_device.cuh.in:143-145), a group sync. Thread 1's write of the source comes
    before the sync, so the put reads it (nvshmem-api: the issue releases what its thread
    saw, R-SH-4 delivers the data with the signal, signal_wait_until is an acquire)."""
    src = _kernel(tmp_path, GROUP_PUT.replace("CALL", f"nvshmemx_int_put_signal_nbi_{group}"))
    kt = load_kernel(src, make_run("k", 2, block=2))
    ops = [[i for i in kt.test.threads[t].instrs
            if isinstance(i, (A.ShmemCall, A.PtxBarrier))] for t in (0, 1)]
    assert [type(i).__name__ for i in ops[0]] == ["PtxBarrier", "ShmemCall", "PtxBarrier"]
    assert [type(i).__name__ for i in ops[1]] == ["PtxBarrier", "PtxBarrier"]
    assert check_test(kt.test, "nvshmem-api").verdict == "Forbidden"
    if group == "warp":  # a CTA of more than one warp: no bar.warp.sync in the litmus PTX
        with pytest.raises(KernelError, match="CTA of 33 threads") as info:
            load_kernel(src, make_run("k", 2, block=33))
        assert info.value.pos.line == 8
