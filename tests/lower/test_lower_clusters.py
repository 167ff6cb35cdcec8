"""Lowering of clusters and distributed shared memory (gdrcheck/lower/ptx.py,
docs/ptx-clusters.md): the events' cluster and scope, DSMEM accesses of the peer's copy,
barrier.cluster as a counting word, st.async's complete-tx, and the scope relation sr."""

from __future__ import annotations

from gdrcheck.engine.base import _in_scope
from gdrcheck.litmus import parse_litmus
from gdrcheck.lower import lower
from gdrcheck.lower.program import Event, Program


def _lower(init: str, rows: str, cond: str = "exists (true)") -> Program:
    return lower(parse_litmus(f"PTX T\n{{ {init} }}\n{rows}{cond}\n"))


def _by_label(prog: Program, text: str) -> list[Event]:
    return [e for e in prog.events if e.label == text]


def test_a_mapa_name_is_the_peer_ctas_copy() -> None:
    prog = _lower("d : shared = 5;",
                  " P0@cta 2,cluster 0 | P1@cta 7,cluster 0 ;\n"
                  " mapa.shared::cluster pd, d, 1 | ld.weak r0, d ;\n"
                  " st.weak pd, 1 | ;\n")
    w, = _by_label(prog, "st.weak pd, 1")
    r, = _by_label(prog, "ld.weak r0, d")
    assert w.loc == r.loc == "d:cta7" and "SHARED" in w.tags
    assert (w.cluster, r.cluster) == (0, 0)
    init, = [e for e in prog.events if e.thread == -1 and e.loc == "d:cta7"]
    assert init.value == 5


def test_cluster_scope_includes_the_cluster_only() -> None:
    prog = _lower("x = 0;",
                  " P0@cta 0,cluster 0 | P1@cta 1,cluster 0 | P2@cta 2,cluster 1 | P3@cta 3 ;\n"
                  " st.relaxed.cluster x, 1 | ld.relaxed.cluster r0, x | ld.relaxed.cluster r0, x"
                  " | ld.relaxed.cluster r0, x ;\n")
    w, = _by_label(prog, "st.relaxed.cluster x, 1")
    r1, r2, r3 = sorted(_by_label(prog, "ld.relaxed.cluster r0, x"), key=lambda e: e.thread)
    assert w.scope == "cluster" and "CLUSTER" in w.tags
    assert _in_scope("cluster", w, r1) and _in_scope("cluster", r1, w)
    assert not _in_scope("cluster", w, r2)
    assert not _in_scope("cluster", w, r3)  # P3's CTA is a cluster of its own
    assert _in_scope("cluster", r3, r3) and _in_scope("gpu", w, r3)


def test_barrier_cluster_counts_the_clusters_threads() -> None:
    prog = _lower("",
                  " P0@cta 0,cluster 0 | P1@cta 1,cluster 0 ;\n"
                  " barrier.cluster.arrive.relaxed | barrier.cluster.arrive ;\n"
                  " barrier.cluster.wait | barrier.cluster.wait ;\n")
    arrives = [e for e in prog.events if "CBARRIVE" in e.tags]
    assert {e.loc for e in arrives} == {"barrier.cluster:cluster0"}
    relaxed = [e for e in arrives if e.kind == "W" and e.thread == 0]
    release = [e for e in arrives if e.kind == "W" and e.thread == 1]
    assert "RLX" in relaxed[0].tags and "REL" in release[0].tags
    assert all(e.scope == "cluster" for e in arrives)
    waits = [e for e in prog.events if "CBWAIT" in e.tags]
    assert len(waits) == 2 and all({"ACQ", "CLUSTER"} <= e.tags for e in waits)
    assert len([(a, b) for a, b in prog.rmw if a in {e.eid for e in arrives}]) == 2


def test_st_async_completes_on_the_peers_mbarrier_after_its_write() -> None:
    prog = _lower("d : shared = 0; full : mbarrier 1;",
                  " P0@cta 0,cluster 0 | P1@cta 1,cluster 0 ;\n"
                  " mbarrier.try_wait.acquire.cluster full | mapa.shared::cluster pd, d, 0 ;\n"
                  " | mapa.shared::cluster pf, full, 0 ;\n"
                  " | st.async pd, 1, pf ;\n")
    evs = [e for e in prog.events if e.thread == 1]
    w, = [e for e in evs if "STASYNC" in e.tags]
    cr, cw = [e for e in evs if "MBCTX" in e.tags]
    assert w.loc == "d:cta0" and cw.loc == "full:cta0" and w.agent == "async"
    assert "REL" in cw.tags and cw.scope == "cluster"
    aob = prog.relations["aob"]
    assert (w.eid, cr.eid) in aob and (w.eid, cw.eid) in aob
    wait, = [e for e in prog.events if "MBWAIT" in e.tags]
    assert wait.scope == "cluster"


def test_remote_arrive_and_the_tma_complete_tx_scope() -> None:
    prog = _lower("x = 1; s : shared = 0; mb : mbarrier 1;",
                  " P0@cta 0,cluster 0 | P1@cta 1,cluster 0 ;\n"
                  " cp.async.bulk s, x, mb | mapa.shared::cluster pm, mb, 0 ;\n"
                  " | mbarrier.arrive.relaxed.cluster pm ;\n")
    arrive = [e for e in prog.events if "MBARRIVE" in e.tags]
    assert {e.loc for e in arrive} == {"mb:cta0"} and all(e.scope == "cluster" for e in arrive)
    ctx = [e for e in prog.events if "MBCTX" in e.tags]
    assert all(e.scope == "cluster" and "CLUSTER" in e.tags for e in ctx)
