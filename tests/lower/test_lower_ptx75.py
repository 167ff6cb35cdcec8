"""Lowering of the PTX 7.5+ constructs (gdrcheck/lower/ptx.py's module doc): virtual
addresses, per-CTA shared memory, the async agent of TMA copies and its order (aob),
mbarriers as counted words, bulk groups."""

from __future__ import annotations

from gdrcheck.litmus import parse_litmus
from gdrcheck.lower import lower
from gdrcheck.lower.program import Event, Program
from gdrcheck.lower.ptx import MBAR_UNIT


def _lower(init: str, rows: str, cond: str = "exists (true)") -> Program:
    return lower(parse_litmus(f"PTX T\n{{ {init} }}\n{rows}{cond}\n"))


def _by_label(prog: Program, text: str) -> list[Event]:
    return [e for e in prog.events if e.label == text]


def test_aliases_share_a_location_and_keep_their_virtual_address() -> None:
    prog = _lower("x = 5; y @ generic aliases x; s @ surface aliases y;",
                  " P0 ;\n st.weak y, 1 ;\n sust.weak s, 2 ;\n ld.weak r0, x ;\n",
                  "exists (y == 2)")
    assert prog.locations == ["x"] and prog.init_values == {"x": 5}
    w_y, = _by_label(prog, "st.weak y, 1")
    w_s, = _by_label(prog, "sust.weak s, 2")
    r_x, = _by_label(prog, "ld.weak r0, x")
    assert (w_y.loc, w_y.vloc) == ("x", "y")
    # a surface reference uses its target's virtual address (y) through another proxy
    assert (w_s.loc, w_s.vloc) == ("x", "y") and "SUR" in w_s.tags
    assert (r_x.loc, r_x.vloc) == ("x", None)
    assert prog.aliases == {"y": "x"}  # the condition's y is x's final value


def test_shared_memory_has_one_copy_per_cta() -> None:
    prog = _lower("s : shared = 3;",
                  " P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 0,gpu 1 ;\n"
                  " st.weak s, 1   | ld.weak r0, s  | ld.weak r1, s  ;\n")
    locs = sorted(e.loc for e in prog.events if e.loc and not e.is_init)
    assert locs == ["s:cta0", "s:cta1", "s:gpu1.cta0"]
    assert all(prog.init_values[loc] == 3 for loc in locs)
    assert all("SHARED" in e.tags for e in prog.events if e.loc and not e.is_init)


def test_tma_load_runs_on_the_async_agent_and_completes_on_the_mbarrier() -> None:
    prog = _lower("x = 7; s : shared = 0; mb : mbarrier 1;",
                  " P0 ;\n st.weak x, 1 ;\n cp.async.bulk s, x, mb ;\n")
    st_x, = _by_label(prog, "st.weak x, 1")
    ops = _by_label(prog, "cp.async.bulk s, x, mb")
    r, w, f, cr, cw = ops
    assert all(e.agent == "async" and e.parent is None for e in ops)
    assert (r.kind, r.loc, "ASYNC" in r.tags) == ("R", "x", True)
    assert (w.kind, w.loc, "ASYNC" in w.tags) == ("W", "s:cta0", True)
    assert "PFIMPLICIT" in f.tags and {"MBCTX", "REL"} <= cw.tags
    assert (cr.eid, cw.eid) in prog.rmw
    aob = prog.relations["aob"]
    # after the thread's prior instructions; the complete-tx only after its own operation
    assert (st_x.eid, r.eid) in aob and (st_x.eid, w.eid) in aob
    assert (st_x.eid, cw.eid) not in aob and (w.eid, cw.eid) in aob and (f.eid, cw.eid) in aob


def test_mbarrier_waits_count_phases() -> None:
    prog = _lower("mb : mbarrier 2;",
                  " P0 ;\n mbarrier.arrive.expect_tx mb, 3 ;\n mbarrier.wait mb ;\n"
                  " mbarrier.wait mb ;\n")
    arrive_w = [e for e in prog.events if e.kind == "W" and "MBARRIVE" in e.tags][0]
    assert "REL" in arrive_w.tags and arrive_w.scope == "cta"
    waits = [e for e in prog.events if "MBWAIT" in e.tags]
    assert len(waits) == 2 and all("ACQ" in e.tags for e in waits)
    # the k-th wait blocks until MBAR_UNIT * arrivals * (k+1): the cut branches
    conds = sorted(b.cond.right for b in prog.blocks if b.cond is not None)  # type: ignore[misc]
    assert conds == [MBAR_UNIT * 2, MBAR_UNIT * 2, MBAR_UNIT * 4, MBAR_UNIT * 4]


def test_wait_group_completes_the_older_bulk_groups() -> None:
    prog = _lower("x = 0; y = 0; s : shared = 1;",
                  " P0 ;\n cp.async.bulk x, s ;\n cp.async.bulk.commit_group ;\n"
                  " cp.async.bulk y, s ;\n cp.async.bulk.wait_group 1 ;\n"
                  " cp.async.bulk.wait_group 0 ;\n")
    first = _by_label(prog, "cp.async.bulk x, s")
    second = _by_label(prog, "cp.async.bulk y, s")
    w1, w0 = _by_label(prog, "cp.async.bulk.wait_group 1") + _by_label(
        prog, "cp.async.bulk.wait_group 0")
    aob = prog.relations["aob"]
    assert all((e.eid, w1.eid) in aob for e in first)
    assert not any((e.eid, w1.eid) in aob for e in second)  # the most recent group
    assert all((e.eid, w0.eid) in aob for e in second)


def test_wait_group_read_completes_only_the_source_reads() -> None:
    prog = _lower("x = 0; s : shared = 1;",
                  " P0 ;\n cp.async.bulk x, s ;\n cp.async.bulk.wait_group.read 0 ;\n"
                  " cp.async.bulk.wait_group 0 ;\n")
    r, w = _by_label(prog, "cp.async.bulk x, s")
    wr, = _by_label(prog, "cp.async.bulk.wait_group.read 0")
    w0, = _by_label(prog, "cp.async.bulk.wait_group 0")
    aob = prog.relations["aob"]
    assert (r.eid, wr.eid) in aob and (w.eid, wr.eid) not in aob
    assert (r.eid, w0.eid) in aob and (w.eid, w0.eid) in aob


def test_proxy_fences_carry_their_kind_and_state_spaces() -> None:
    prog = _lower("x = 0;", " P0 ;\n fence.proxy.async.shared::cta ;\n fence.proxy.async ;\n"
                  " fence.proxy.alias ;\n")
    tags = [e.tags for e in prog.events if e.kind == "F"]
    assert {"PROXY", "PFASYNC", "PFSHARED"} <= tags[0] and "PFGLOBAL" not in tags[0]
    assert {"PFSHARED", "PFGLOBAL"} <= tags[1]
    assert "PFALIAS" in tags[2]
