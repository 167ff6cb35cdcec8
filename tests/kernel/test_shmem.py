"""NVSHMEM calls of the kernel front end beyond the first table: nvshmem_TYPE_p of a value
read (a register), the device AMOs, the warp and block collective puts (docs/kernels.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gdrcheck.analysis.check import check_test
from gdrcheck.kernel import load_kernel, make_run
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
