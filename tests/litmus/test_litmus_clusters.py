"""Parsing and printing of clusters and distributed shared memory (docs/ptx-clusters.md,
docs/litmus-format.md §7.5): the placement ``cluster N``, the ``.cluster`` scope, mapa,
st.async / red.async, remote mbarrier arrive and barrier.cluster; the errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from gdrcheck.errors import LitmusError
from gdrcheck.litmus import ast as A
from gdrcheck.litmus import load_litmus, parse_litmus, print_litmus
from gdrcheck.litmus.features import test_features
from gdrcheck.litmus.instructions import cluster_layout

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted([*(ROOT / "litmus" / "ptx75").glob("Cluster*.litmus"),
                *(ROOT / "litmus" / "realbugs").glob("cutlass-3324*.litmus")])


def _test(rows: str, init: str = "d : shared = 0; mb : mbarrier 1;",
          cond: str = "exists (true)") -> A.Test:
    return parse_litmus(f"PTX T\n{{ {init} }}\n{rows}{cond}\n", "t.litmus")


def test_the_library_files_exist() -> None:
    assert len(FILES) == 13


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_round_trip(path: Path) -> None:
    test = load_litmus(str(path))
    again = parse_litmus(print_litmus(test), "again.litmus")
    assert again.threads == test.threads
    assert again.init == test.init


def test_placement_and_instructions() -> None:
    t = _test(" P0@cta 0,cluster 3,gpu 0 | P1@cta 1,cluster 3 ;\n"
              " mapa.shared::cluster pd, d, 1 | barrier.cluster.arrive.relaxed.aligned ;\n"
              " st.async pd, 1, pm | barrier.cluster.wait.aligned ;\n"
              " mapa.shared::cluster pm, mb, 1 | mbarrier.try_wait.acquire.cluster mb ;\n"
              " red.async.relaxed.cluster.add pd, 2, pm | fence.sc.cluster ;\n"
              " mbarrier.arrive.release.cluster.shared::cluster pm | ld.relaxed.cluster r0, d ;\n")
    p0, p1 = t.threads
    assert p0.placement.cluster == 3 and p1.placement.cluster == 3
    mapa, st, _, red, arrive = p0.instrs
    assert mapa == A.PtxMapa("pd", A.LocRef("d"), 1)
    assert isinstance(st, A.PtxStoreAsync) and st.op is None and st.mbar.name == "pm"
    assert isinstance(red, A.PtxStoreAsync) and red.op == "add"
    assert isinstance(arrive, A.PtxMbarArrive) and arrive.scope == "cluster"
    arr, wait, mbw, fence, ld = p1.instrs
    assert arr == A.PtxClusterBarrier("arrive", "relaxed")
    assert wait == A.PtxClusterBarrier("wait", "acquire")
    assert isinstance(mbw, A.PtxMbarWait) and mbw.scope == "cluster"
    assert isinstance(fence, A.PtxFence) and fence.scope == "cluster"
    assert isinstance(ld, A.PtxLoad) and ld.scope == "cluster"
    assert "P0@cta 0,cluster 3,gpu 0" in print_litmus(t)
    assert test_features(t) >= {"PTX", "PTX75"}


def test_cluster_scope_alone_is_plain_ptx() -> None:
    t = _test(" P0@cta 0,cluster 0 | P1@cta 1,cluster 0 ;\n"
              " st.relaxed.cluster x, 1 | ld.relaxed.cluster r0, x ;\n", init="x = 0;")
    assert test_features(t) == {"PTX"}


def test_ranks_follow_the_cta_numbers() -> None:
    t = _test(" P0@cta 6,cluster 1 | P1@cta 4,cluster 1 | P2@cta 5 ;\n"
              " st.weak x, 1 | st.weak x, 2 | st.weak x, 3 ;\n", init="x = 0;")
    layout = cluster_layout(t.threads)
    assert layout.ctas(0, 6) == (4, 6) and layout.rank(0, 6) == 1
    assert layout.ctas(0, 5) == (5,)  # no cluster: a cluster of one CTA


@pytest.mark.parametrize("rows,where,message", [
    (" P0@cta 0,cluster 0 | P1@cta 0,cluster 1 ;\n st.weak x, 1 | st.weak x, 2 ;\n", "3:23",
     "P1 (cluster 1) and P0 (cluster 0) are both in cta 0: the threads of one CTA are in one "
     "cluster (give each thread of the CTA the same 'cluster N')"),
    (" P0@cta 0,cluster 0 ;\n mapa.shared::cluster pd, d, 1 ;\n", "4:2",
     "mapa rank 1 names no CTA of the cluster: cluster 0 has CTAs [0] (ranks 0 to 0)"),
    (" P0@cta 0 ;\n mapa.shared::cluster pd, d, 1 ;\n", "4:2",
     "mapa rank 1 names no CTA of the cluster: the thread's CTA is in no cluster (rank 0 "
     "only; place it with 'cluster N')"),
    (" P0@cta 0 ;\n mapa pd, d, 0 ;\n", "4:2",
     "'mapa': write mapa.shared::cluster (the generic form of mapa is not supported)"),
    (" P0@cta 0 ;\n mapa.shared::cluster pd, x, 0 ;\n", "4:27",
     "mapa maps a shared word or an mbarrier ('s : shared', 'mb : mbarrier N'), found 'x'"),
    (" P0@cta 0,cluster 0 | P1@cta 1,cluster 0 ;\n mapa.shared::cluster pm, mb, 1 | ;\n"
     " mbarrier.wait pm | ;\n", "5:16",
     "'pm' is a shared::cluster address (mapa): this operation takes an mbarrier of the "
     "thread's own CTA (shared::cta; PTX ISA mbarrier)"),
    (" P0@cta 0,cluster 0 | P1@cta 1,cluster 0 ;\n mapa.shared::cluster pm, mb, 1 | ;\n"
     " st.async d, 1, pm | ;\n", "5:2",
     "'d' is in the CTA of rank 0 and 'pm' in that of rank 1: an st.async completes on an "
     "mbarrier of the CTA it writes (PTX ISA)"),
    (" P0 ;\n barrier.cluster.wait.release ;\n", "4:22",
     "unknown qualifier '.release' in 'barrier.cluster.wait.release' (barrier.cluster.wait "
     "accepts .acquire, .aligned)"),
    (" P0 ;\n red.async.relaxed.cluster.inc d, 1, mb ;\n", "4:27",
     "unknown qualifier '.inc' in 'red.async.relaxed.cluster.inc' (red.async accepts "
     ".relaxed, .cluster, .shared::cluster, .mbarrier::complete_tx::bytes, .add, .min, .max, "
     ".and, .or, .xor)"),
])
def test_errors(rows: str, where: str, message: str) -> None:
    with pytest.raises(LitmusError) as info:
        _test(rows, init="x = 0; d : shared = 0; mb : mbarrier 1;")
    assert info.value.message == message
    assert f"{info.value.pos.line}:{info.value.pos.col}" == where
