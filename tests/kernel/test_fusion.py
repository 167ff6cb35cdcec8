"""What NCCL's kernel-fusion examples (docs/examples/07_kernel_fusion) need of the extraction:
``__shared__`` memory as the litmus ``s : shared`` locations of each CTA, and the multimem
LSA barrier and ``ncclGetLsaMultimemPointer`` lowered to the multimem calls
(docs/litmus-format.md §7.3, §11; docs/kernels.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

import gdrcheck
from gdrcheck.kernel import KernelError, load_kernel, make_run

SHARED = """\
#include <assert.h>
__global__ void k(int *out) {
  extern __shared__ int buf[];
  __shared__ int fixed[2];
  buf[threadIdx.x] = threadIdx.x + 1;
  fixed[threadIdx.x] = 5;
  __syncthreads();
  int v = buf[1 - threadIdx.x];
  assert(v == 2 - threadIdx.x);
  out[threadIdx.x] = v + fixed[0];
}
"""


def _write(tmp_path: Path, text: str, name: str = "k.cu") -> Path:
    src = tmp_path / name
    src.write_text(text)
    return src


def _rows(src: Path, kernel: str, ranks: int, **kw: object) -> list[list[str]]:
    kt = load_kernel(src, make_run(kernel, ranks, **kw))  # type: ignore[arg-type]
    return [[ln.text for ln in th] for th in kt.rows]


def test_shared_arrays_are_shared_locations_of_each_cta(tmp_path: Path) -> None:
    src = _write(tmp_path, SHARED)
    kt = load_kernel(src, make_run("k", 1, block=2))
    # extern __shared__ and a static __shared__ array: their source names, one `: shared`
    # location per element (litmus-format.md §3), accessed without a rank
    for name in ("buf_0", "buf_1", "fixed_0", "fixed_1"):
        assert f"{name} : shared = 0;" in kt.text
    rows = [[ln.text for ln in th] for th in kt.rows]
    assert rows[0][:4] == ["st.weak buf_0, 1", "st.weak fixed_0, 5", "bar.sync 0",
                           "ld.weak r0, buf_1"]
    assert rows[1][3] == "ld.weak r0, buf_0"


def test_syncthreads_orders_shared_memory_and_each_cta_has_its_own(tmp_path: Path) -> None:
    # PTX ISA §9.7.13.1 (bar.sync: memory accesses before the barrier are performed
    # relative to all threads of the CTA) and litmus/ptx75 shared-memory tests: with the
    # barrier the neighbour's store is seen; without it the read may miss it
    src = _write(tmp_path, SHARED)
    assert gdrcheck.check_kernel(src, "k", 1, "ptx75", block=2).verdict == "Forbidden"
    racy = _write(tmp_path, SHARED.replace("  __syncthreads();\n", ""), "racy.cu")
    assert gdrcheck.check_kernel(racy, "k", 1, "ptx75", block=2).verdict == "Allowed"
    # CTA 1 never sees CTA 0's copy: only CTA 0 stores, CTA 1 reads its own zero
    other = _write(tmp_path, """\
#include <assert.h>
__global__ void k(int *out) {
  __shared__ int s;
  if (blockIdx.x == 0) s = 1;
  __syncthreads();
  if (blockIdx.x == 1) assert(s == 0);
}
""", "cta.cu")
    assert gdrcheck.check_kernel(other, "k", 1, "ptx75", grid=2).verdict == "Forbidden"
    flipped = _write(tmp_path, other.read_text().replace("s == 0", "s == 1"), "cta1.cu")
    assert gdrcheck.check_kernel(flipped, "k", 1, "ptx75", grid=2).verdict == "Allowed"


def test_shared_memory_refusals(tmp_path: Path) -> None:
    one = _write(tmp_path, """\
__global__ void k(int *buf) {
  __shared__ int b2[1];
  b2[0] = buf[0];
  __syncthreads();
  buf[1] = b2[0];
}
""")
    # a CTA of one thread: __syncthreads waits for nobody and emits nothing (docs/kernels.md)
    assert _rows(one, "k", 1)[0] == ["ld.weak r0, buf_0", "st.weak b2_part0, r0",
                                     "ld.weak r1, b2_part0", "st.weak buf_1, r1"]
    host = _write(tmp_path, """\
__global__ void k(int *x) { x[0] = 1; }
__device__ void check(int *x) {
  extern __shared__ int s[];
  s[0] = x[0];
}
""", "host.cu")
    with pytest.raises(KernelError, match=r"host.cu:4:\d+: the host function check uses "
                       r"the __shared__ variable s"):
        load_kernel(host, make_run("k", 1, check="check", host_order="stream"))
    same = _write(tmp_path, """\
__global__ void k(int *z, int *out) {
  if (threadIdx.x == 0) {
    __shared__ int z;
    z = 1;
    __syncthreads();
    out[0] = z;
  }
}
""", "same.cu")
    with pytest.raises(KernelError, match=r"same.cu:4:\d+: the __shared__ variable z has "
                       r"the name of another variable or parameter"):
        load_kernel(same, make_run("k", 1))


MM = """\
#include <nccl_device.h>
#include <assert.h>
__global__ void k(ncclWindow_t win, struct ncclDevComm devComm) {
  ncclCoopCta coop = ncclCoopCta();
  ncclLsaBarrierSession<ncclCoopCta> bar {
    coop, devComm, ncclTeamTagLsa(), blockIdx.x, /*multimem=*/true };
  unsigned *mine = (unsigned *)ncclGetLocalPointer(win, 0);
  if (threadIdx.x == 0) mine[0] = devComm.rank + 1;
  bar.sync(coop, cuda::memory_order_ORDER);
  if (devComm.rank == 0 && threadIdx.x == 0) {
    unsigned *mc = (unsigned *)ncclGetLsaMultimemPointer(win, 0, devComm);
    unsigned sum;
    asm volatile("multimem.ld_reduce.relaxed.sys.global.add.u32 %0, [%1];"
                 : "=r"(sum) : "l"(mc) : "memory");
    assert(sum == 3);
  }
}
"""


def test_a_multimem_lsa_barrier_is_nccls_multimem_red_and_poll(tmp_path: Path) -> None:
    # NVIDIA/nccl@5067397c src/include/nccl_device/impl/lsa_barrier__funcs.h:56-67 (arrive:
    # coop.sync, then thread 0's multimem.red.release.sys.add.u32 on mcInbox(true)) and
    # :96-116 (wait: thread 0 polls its own mcInbox with acquireOrderOf(order) until
    # epoch + nRanks, then coop.sync)
    src = _write(tmp_path, MM.replace("ORDER", "acq_rel"))
    kt = load_kernel(src, make_run("k", 2, block=2, nodes="0,0"))
    assert "multicast ncclMc_ncclLsaMcInbox = ncclLsaMcInbox;" in kt.text
    assert "multicast ncclMc_win = win;" in kt.text
    rows = [[ln.text for ln in th if not ln.text.endswith(":")] for th in kt.rows]
    assert rows[0][:6] == ["st.weak win, 1", "bar.sync 0",
                           "multimem.red.release.sys.add ncclMc_ncclLsaMcInbox, 1",
                           "ld.acquire.sys r0, ncclLsaMcInbox", "bge r0, 2, L02", "goto L01"]
    assert rows[0][6:8] == ["bar.sync 0", "multimem.ld_reduce.relaxed.sys.global.add.u32 r1, "
                            "ncclMc_win"]
    assert rows[1] == ["bar.sync 0", "bar.sync 0"]  # thread 1: the two coop.syncs only
    assert rows[2][2] == "multimem.red.release.sys.add ncclMc_ncclLsaMcInbox, 1"


@pytest.mark.parametrize(("order", "verdict"), [
    # litmus/multimem/04-ld-reduce+barrier.litmus (lsa: Forbidden; its Source: the release
    # red and acquire poll above, PTX ISA 9.0 §9.7.9.14 and §8.8): each rank's store is
    # before its release red, rank 0's ld_reduce after its acquire poll saw both: sum 3
    ("acq_rel", "Forbidden"),
    # releaseOrderOf(relaxed) is relaxed (utility.h:350): multimem.red.relaxed, a relaxed
    # poll: no release pattern (PTX ISA §8.8), the peer's store may be missed
    ("relaxed", "Allowed"),
])
def test_a_multimem_lsa_barrier_orders_the_stores_before_the_reduction(
        tmp_path: Path, order: str, verdict: str) -> None:
    src = _write(tmp_path, MM.replace("ORDER", order))
    out = gdrcheck.check_kernel(src, "k", 2, "lsa", block=2, nodes=[0, 0], unroll=1)
    assert out.verdict == verdict


def test_multimem_across_nodes_is_refused(tmp_path: Path) -> None:
    src = _write(tmp_path, MM.replace("ORDER", "acq_rel"))
    with pytest.raises(KernelError, match=r"k.cu:9:\d+: sync: a multimem LSA barrier with "
                       r"ranks on several nodes"):
        load_kernel(src, make_run("k", 2, block=2))
