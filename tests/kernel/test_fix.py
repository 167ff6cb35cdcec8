"""``gdrcheck fix`` on kernels: the repair of the extracted test, at the kernel's source
lines and in the API's spelling (gdrcheck/kernel/fix.py, docs/kernels.md "Fix")."""

from __future__ import annotations

from pathlib import Path

import pytest

from gdrcheck.analysis.fix import fix
from gdrcheck.kernel import file_runs, load_kernel, make_run, read_source
from gdrcheck.kernel.fix import source_edits

from .conftest import KERNELS

MP_NO_FENCE = """#include <nvshmem.h>
#include <nvshmemx.h>
#include <assert.h>
__global__ void k(int *x, uint64_t *s) {
    if (nvshmem_my_pe() == 0) {
        nvshmem_int_p(x, 1, 1);
        nvshmemx_signal_op(s, 1, NVSHMEM_SIGNAL_SET, 1);
    } else {
        nvshmem_uint64_wait_until(s, NVSHMEM_CMP_EQ, 1);
        assert(*(volatile int *)x == 1);
    }
}
"""


def test_the_repair_is_at_the_source_line_in_the_api_spelling(tmp_path: Path) -> None:
    """Without a fence the signal may overtake the p (R-SH-1: only fence or quiet order
    them): Allowed under nvshmem-api; the catalogue's cheapest repair is the fence between
    them (shmem.fence, cost 2: docs/fix.md), reported before the signal's source line."""
    src = tmp_path / "mp.cu"
    src.write_text(MP_NO_FENCE)
    kt = load_kernel(src, make_run("k", 2))
    result = fix(kt.test, ["nvshmem-api"])
    assert result.status == "fixed"
    [repair] = result.repairs
    assert repair.verdicts == {"nvshmem-api": "Forbidden"}
    [edit] = source_edits(kt, list(repair.edits))
    assert (edit.line, edit.entry) == (7, "shmem.fence")
    assert edit.words == ("insert nvshmem_fence() before "
                          "nvshmemx_signal_op(s, 1, NVSHMEM_SIGNAL_SET, 1)")
    assert edit.render().endswith("mp.cu:7: insert nvshmem_fence() before "
                                  "nvshmemx_signal_op(s, 1, NVSHMEM_SIGNAL_SET, 1)")
    # the repair made in the source is Forbidden when the kernel is checked again
    lines = MP_NO_FENCE.splitlines()
    lines.insert(6, "        nvshmem_fence();")
    fixed = tmp_path / "mp_fixed.cu"
    fixed.write_text("\n".join(lines) + "\n")
    from gdrcheck.analysis.check import check_test

    assert check_test(load_kernel(fixed, make_run("k", 2)).test,
                      "nvshmem-api").verdict == "Forbidden"


@pytest.mark.slow  # about 20-40 s: the repair search over the 3-PE ring
def test_ring_bcast_without_fence_is_repaired_at_its_lines() -> None:
    """kernels/nvshmem/ring-bcast+no-fence.cu (Allowed under nvshmem-api, R-SH-1): the
    cheapest repair merges the put and its signal into nvshmem_int_put_signal (R-SH-4: the
    signal's completion indicates the delivery of its data), at lines 37-39."""
    path = KERNELS / "nvshmem" / "ring-bcast+no-fence.cu"
    [run] = file_runs(read_source(path))
    kt = load_kernel(path, run)
    result = fix(kt.test, ["nvshmem-api"])
    assert result.status == "fixed"
    edits = source_edits(kt, list(result.repairs[0].edits))
    assert [e.render().split("/")[-1] for e in edits] == [
        "ring-bcast+no-fence.cu:37-39: replace nvshmem_int_put(data, data, nelem, peer) and "
        "nvshmemx_signal_op(psync, 1, NVSHMEM_SIGNAL_SET, peer) by nvshmem_int_put_signal("
        "data, data, nelem, psync, 1, NVSHMEM_SIGNAL_SET, peer)"]
