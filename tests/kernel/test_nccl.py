"""The NCCL device API headers (nccl_device.h): the communicator, LSA pointers and barrier
sessions, ncclGin calls, each lowered to the litmus calls of docs/litmus-format.md §8-§9;
what is not modelled is refused at its line."""

from __future__ import annotations

from pathlib import Path

import pytest

import gdrcheck
from gdrcheck.kernel import KernelError, load_kernel, make_run
from gdrcheck.kernel.calls import LSA_INBOX

from .conftest import KERNELS

HEAD = "#include <nccl_device.h>\n#include <assert.h>\n"

GIN_MP = HEAD + """\
__global__ void mp(ncclWindow_t src, ncclWindow_t dst, struct ncclDevComm devComm) {
  ncclGin gin { devComm, 0 };
  if (devComm.rank == 0) {
    gin.put(ncclTeamWorld(devComm), 1, dst, 0, src, 0, sizeof(int));
    gin.put(ncclTeamWorld(devComm), 1, dst, sizeof(int), src, sizeof(int), sizeof(int),
            ACTION{0});
  } else {
    gin.waitSignal(ncclCoopCta(), 0, 1);
    int *d = (int *)ncclGetLocalPointer(dst, 0);
    assert(d[0] == 1);
  }
}
__device__ void init(ncclWindow_t src, ncclWindow_t dst, struct ncclDevComm devComm) {
  int *s = (int *)ncclGetLocalPointer(src, 0);
  s[0] = 1; s[1] = 1;
}
"""


def _write(tmp_path: Path, text: str) -> Path:
    src = tmp_path / "k.cu"
    src.write_text(text)
    return src


def _lines(src: Path, kernel: str, ranks: int, **kw: object) -> list[list[str]]:
    kt = load_kernel(src, make_run(kernel, ranks, **kw))  # type: ignore[arg-type]
    return [[ln.text for ln in th] for th in kt.rows]


@pytest.mark.parametrize(("action", "option", "api", "gdaki"), [
    # docs/litmus-format.md §9, library files gin/04-MP+put+put-strongsig (Forbidden under
    # gin-api and gin-gdaki: R-GIN-2, R-GIN-3) and gin/03-MP+put+put-weaksig (Allowed under
    # gin-api, R-GIN-4; Forbidden under gin-gdaki, which delivers in order)
    ("ncclGin_StrongSignalInc", "sig=", "Forbidden", "Forbidden"),
    ("ncclGin_WeakSignalInc", "wsig=", "Allowed", "Forbidden"),
])
def test_gin_put_with_a_signal_is_message_passing(tmp_path: Path, action: str, option: str,
                                                  api: str, gdaki: str) -> None:
    src = _write(tmp_path, GIN_MP.replace("ACTION", action))
    lines = _lines(src, "mp", 2, init="init")
    assert lines[0] == ["gin.put c0, dst_0@1, src_0",
                        f"gin.put c0, dst_1@1, src_1, {option}ncclGinSignal0"]
    assert lines[1][0] == "gin.wait_signal ncclGinSignal0, 1"
    for model, verdict in (("gin-api", api), ("gin-gdaki", gdaki)):
        out = gdrcheck.check_kernel(src, "mp", 2, model, init="init")
        assert out.verdict == verdict, model


def test_gin_calls_lower_to_the_litmus_calls(tmp_path: Path) -> None:
    src = _write(tmp_path, HEAD + """\
__global__ void k(ncclWindow_t w, struct ncclDevComm devComm) {
  ncclGin gin { devComm, 1 };
  int peer = 1 - devComm.rank;
  gin.putValue(ncclTeamWorld(devComm), peer, w, 0, 7, ncclGin_StrongSignalAdd{2, 3});
  gin.signal(ncclTeamWorld(devComm), peer, ncclGin_WeakSignalInc{1});
  gin.signal(ncclTeamWorld(devComm), peer, ncclGin_SignalInc{1});
  gin.flush(ncclCoopCta());
  uint64_t v = gin.readSignal(2, 64, cuda::memory_order_relaxed);
  gin.resetSignal(1);
  assert(v != 5);
}
""")
    lines = _lines(src, "k", 2)
    assert [ln for ln in lines[0] if ln.startswith("gin.")] == [
        "gin.put_value c1, w@1, 7, sig=ncclGinSignal2+3",
        "gin.signal c1, ncclGinSignal1@1, weak",
        "gin.signal c1, ncclGinSignal1@1, legacy",
        "gin.flush c1",
        "gin.read_signal.relaxed r0, ncclGinSignal2",
        "gin.reset_signal ncclGinSignal1",
    ]


def test_a_wait_whose_threshold_was_read_waits_for_the_register(tmp_path: Path) -> None:
    # 02_alltoall_gin's pattern (main.cu:82, 101): waitSignal(..., readSignal(i) + nRanks):
    # the threshold is the register holding the value read plus nRanks
    # (docs/litmus-format.md §9, "A threshold in a register")
    src = _write(tmp_path, HEAD + """\
__global__ void k(struct ncclDevComm devComm) {
  ncclGin gin { devComm, 0 };
  uint64_t before = gin.readSignal(0);
  gin.waitSignal(ncclCoopCta(), 0, before + devComm.nRanks);
}
""")
    assert _lines(src, "k", 2)[0][:3] == ["gin.read_signal r0, ncclGinSignal0",
                                          "add r1, r0, 2",
                                          "gin.wait_signal ncclGinSignal0, r1"]


def test_a_gin_barrier_signals_and_waits_for_each_peer_in_turn(tmp_path: Path) -> None:
    # gin_barrier__funcs.h:103-153: peer = rank+1+i (mod n) for this thread's i; a
    # deprecated SignalInc (legacy) on the peer's slot of this rank, given=sys when the
    # release order is relaxed (acquire: releaseOrderOf, utility.h:350), then a wait for
    # ++shadow on the own slot of that peer (acquire: acquireOrderOf); level None: no self
    src = _write(tmp_path, HEAD + """\
__global__ void k(struct ncclDevComm devComm) {
  ncclGin gin { devComm, 0 };
  ncclGinBarrierSession<ncclCoopCta> bar { ncclCoopCta(), gin, ncclTeamTagWorld(), 0 };
  bar.sync(ncclCoopCta(), cuda::memory_order_acquire, ncclGinFenceLevel::None);
  bar.sync(ncclCoopCta(), cuda::memory_order_acquire, ncclGinFenceLevel::None);
}
""")
    lines = _lines(src, "k", 3, block=2)
    r1t0 = [ln for ln in lines[2] if ln.startswith("gin.")]  # rank 1, thread 0: peer 2
    assert r1t0 == ["gin.signal c0, worldGinBarrier_1@2, legacy, given=sys",
                    "gin.wait_signal worldGinBarrier_2, 1",
                    "gin.signal c0, worldGinBarrier_1@2, legacy, given=sys",
                    "gin.wait_signal worldGinBarrier_2, 2"]
    r1t1 = [ln for ln in lines[3] if ln.startswith("gin.")]  # rank 1, thread 1: peer 0
    assert r1t1[:2] == ["gin.signal c0, worldGinBarrier_1@0, legacy, given=sys",
                        "gin.wait_signal worldGinBarrier_0, 1"]


def test_the_communicator_and_the_lsa_team_come_from_the_configuration(
        tmp_path: Path) -> None:
    src = _write(tmp_path, HEAD + """\
__global__ void k(int *out, ncclWindow_t w, struct ncclDevComm devComm) {
  out[0] = devComm.rank; out[1] = devComm.nRanks;
  out[2] = devComm.lsaRank; out[3] = devComm.lsaSize;
  int *p = (int *)ncclGetLsaPointer(w, 4, 0);
  *p = 1;
}
""")
    lines = _lines(src, "k", 3, nodes="0,1,1")
    assert lines[2][:4] == ["st.weak out_0, 2", "st.weak out_1, 3", "st.weak out_2, 1",
                            "st.weak out_3, 2"]
    assert lines[2][4] == "st.weak w_1@1, 1"  # LSA rank 0 of node 1 is world rank 1
    assert lines[0][4] == "st.weak w_1, 1"


def test_an_lsa_pointer_outside_the_team_is_refused(tmp_path: Path) -> None:
    src = _write(tmp_path, HEAD + """\
__global__ void k(ncclWindow_t w, struct ncclDevComm devComm) {
  int *p = (int *)ncclGetLsaPointer(w, 0, 1);
  *p = 1;
}
""")
    with pytest.raises(KernelError, match="not an LSA rank"):
        load_kernel(src, make_run("k", 2))  # one node per rank: LSA teams of one
    load_kernel(src, make_run("k", 2, nodes="0,0"))


def test_a_field_of_the_communicator_not_modelled_is_refused(tmp_path: Path) -> None:
    src = _write(tmp_path, HEAD + """\
__global__ void k(int *out, struct ncclDevComm devComm) {
  out[0] = devComm.magic;
}
""")
    with pytest.raises(KernelError, match="only rank, nRanks, lsaRank and lsaSize"):
        load_kernel(src, make_run("k", 1))


@pytest.mark.parametrize(("order", "fence", "load"), [
    # lsa_barrier__funcs.h:68-78, 118-137 with utility.h:345-352: a release arrive fences,
    # an acquire one does not; an acquire wait loads with .acquire, a release one relaxed
    ("memory_order_acquire", None, "ld.acquire.sys"),
    ("memory_order_release", "fence.acq_rel.sys", "ld.relaxed.sys"),
    ("memory_order_acq_rel", "fence.acq_rel.sys", "ld.acquire.sys"),
])
def test_an_lsa_barrier_is_the_fence_the_inbox_stores_and_the_spin(
        tmp_path: Path, order: str, fence: str | None, load: str) -> None:
    src = _write(tmp_path, HEAD + f"""\
__global__ void k(struct ncclDevComm devComm) {{
  ncclLsaBarrierSession<ncclCoopCta> bar {{ ncclCoopCta(), devComm, ncclTeamLsa(devComm),
                                           devComm.lsaBarrier, blockIdx.x }};
  bar.sync(ncclCoopCta(), cuda::{order});
  bar.sync(ncclCoopCta(), cuda::{order});
}}
""")
    lines = _lines(src, "k", 3, nodes="0,0,0", grid=2)
    p3 = lines[3]  # rank 1, CTA 1: barrier 1, peers 0 and 2 (one thread does both)
    body = [ln for ln in p3 if not ln.endswith(":") and not ln.startswith(("goto", "bge"))]
    inbox = LSA_INBOX
    arrive = ([fence] if fence else []) + [f"st.relaxed.sys {inbox}_4@0, 1",
                                           f"st.relaxed.sys {inbox}_4@2, 1"]
    # coop.sync() first; with one thread per CTA the bar.sync is left out (docs/kernels.md)
    assert body[:len(arrive)] == arrive
    waits = [ln for ln in body if ln.startswith("ld.")]
    assert [w.split(", ")[1] for w in waits] == [f"{inbox}_3", f"{inbox}_5"] * 2
    assert all(w.startswith(load) for w in waits)
    assert f"st.relaxed.sys {inbox}_4@0, 2" in body  # the second session epoch
    assert any(ln.startswith("bge") and ln.split(", ")[1] == "2" for ln in p3)


def test_the_final_state_hides_a_missing_release_barrier() -> None:
    # docs/kernels.md "Host code": with --host-order final the host check reads the state
    # after every rank's kernel, so the barrier that orders the peers' stores before this
    # rank's host read (main.cu:95-97) is not needed; stream order (the library's
    # configuration) catches its absence
    path = KERNELS / "nccl" / "01_allreduce_lsa+no-release-barrier.cu"
    common = dict(nodes=[0, 0], args={"sendoffset": 0, "recvoffset": 0, "count": 2},
                  init="host_init", check_fn="host_check", unroll=1)
    final = gdrcheck.check_kernel(path, "simpleAllReduceKernel", 2, "lsa", **common)
    stream = gdrcheck.check_kernel(path, "simpleAllReduceKernel", 2, "lsa",
                                   host_order="stream", **common)
    assert (final.verdict, stream.verdict) == ("Forbidden", "Allowed")


def test_stream_host_order_needs_one_cta_per_rank() -> None:
    path = KERNELS / "nccl" / "01_allreduce_lsa.cu"
    with pytest.raises(KernelError, match="needs --grid 1"):
        load_kernel(path, make_run("simpleAllReduceKernel", 2, grid=2, nodes="0,0",
                                   args=("sendoffset=0", "recvoffset=0", "count=2"),
                                   init="host_init", check="host_check",
                                   host_order="stream"))
