"""The GIN and NVSHMEM lowering (gdrcheck/lower/gin.py): events, tags, static
relations, per-rank locations, waits, barriers and the errors a user can make."""

from __future__ import annotations

import pytest

from gdrcheck.engine.base import Frame, base_env
from gdrcheck.errors import LitmusError, UnsupportedError
from gdrcheck.litmus import parse_litmus
from gdrcheck.lower import lower
from gdrcheck.lower.program import BinOp, CmpExpr, Event, Program, ReadVal

HEAD = " P0@cta 0,gpu 0,node 0 | P1@cta 0,gpu 1,node 1 ;\n"


def prog(init: str, rows: list[str], cond: str = "exists (1:r0 = 0)") -> Program:
    text = f"GIN T\n{{ {init} }}\n{HEAD}" + "".join(r + " ;\n" for r in rows) + cond + "\n"
    return lower(parse_litmus(text, "t.litmus"))


def by_tag(p: Program, *tags: str) -> list[Event]:
    """Events carrying every tag; "R"/"W"/"F" select the kind."""
    kinds = {t for t in tags if t in ("R", "W", "F")}
    rest = set(tags) - kinds
    return [e for e in p.events if rest <= e.tags and (not kinds or e.kind in kinds)]


def env_of(p: Program) -> dict[str, object]:
    ex = {e.eid: True for e in p.events}
    return base_env(Frame(p, ex, {}, {}, {}))  # type: ignore[arg-type]


def pairs(env: dict[str, object], name: str) -> set[tuple[int, int]]:
    return set(env[name].m)  # type: ignore[attr-defined]


def test_put_with_strong_signal_and_counter() -> None:
    p = prog("x = 0; buf@0 = 1; S : signal; C : counter;",
             ["gin.put c0, x@1, buf, sig=S, ctr=C | gin.wait_signal S, 1",
              " | ld.relaxed.sys r0, x"])
    (issue,) = by_tag(p, "ISSUE")
    assert {"GIN", "PUT", "GIVEN_THREAD", "REQ_GPU"} <= issue.tags and issue.agent == ""
    (nr,) = by_tag(p, "NR")
    (nw,) = by_tag(p, "NW")
    assert nr.loc == "buf@0" and {"LCL", "RLX", "SYS"} <= nr.tags
    assert nw.loc == "x@1" and {"RSP", "RO"} <= nw.tags
    assert (nr.eid, nw.eid) in p.data
    sig = by_tag(p, "SIG")
    assert [e.kind for e in sig] == ["R", "W"] and all(e.loc == "S@1" for e in sig)
    assert {"STRONG", "IDX", "INC", "SO"} <= sig[1].tags
    assert (sig[0].eid, sig[1].eid) in p.rmw
    ctr = by_tag(p, "CTR")
    assert [e.loc for e in ctr] == ["C@0", "C@0"] and "LCL" in ctr[0].tags
    # NIC and proxy events act for the thread but are not in its program order
    for e in by_tag(p, "NIC") + by_tag(p, "PXY"):
        assert e.parent is None and e.agent and e.thread == 0 and e.op == issue.op
    assert by_tag(p, "NIC")[0].agent == "nic0.c0.1"
    # the wait is an acquire at system scope, and a failed wait is a discarded path
    (wait,) = by_tag(p, "GWAIT")
    assert {"ACQ", "SYS"} <= wait.tags and wait.loc == "S@1"
    assert any(lf.cut for lf in p.leaves if lf.thread == 1)


def test_static_relations() -> None:
    p = prog("x = 0; y = 0; buf@0 = 1; S : signal;",
             ["gin.put c0, x@1, buf | ld.relaxed.sys r0, x",
              "gin.put c1, y@1, buf |", "gin.signal c0, S@1 |", "gin.flush c0 |"])
    env = env_of(p)
    issues = by_tag(p, "ISSUE")
    a, b, c = (e.eid for e in issues)
    assert (a, c) in pairs(env, "qp") and (a, b) not in pairs(env, "qp")
    assert (a, b) in pairs(env, "speer")
    (flush,) = by_tag(p, "FLUSH")
    assert (a, flush.eid) in pairs(env, "sctx") and (b, flush.eid) not in pairs(env, "sctx")
    nw = by_tag(p, "NW")[0]
    (reader,) = [e for e in p.events if e.thread == 1]
    assert (nw.eid, reader.eid) in pairs(env, "own")
    assert (nw.eid, issues[0].eid) not in pairs(env, "int")  # NIC events are not the thread's
    assert (nw.eid, issues[0].eid) not in pairs(env, "po")


def test_strict_window_and_weak_and_va_signals() -> None:
    p = prog("x = 0; f = 0; buf@0 = 1; S : signal; window W strict = {f};",
             ["gin.put c0, f@1, buf, wsig=S | ld.relaxed.sys r0, x",
              "gin.signal c0, f@1+2, va |"])
    nw = by_tag(p, "NW")[0]
    assert "SO" in nw.tags
    weak, va = by_tag(p, "SIG", "W")
    assert {"WEAK", "IDX", "INC"} <= weak.tags
    assert {"VA", "LEGACY", "ADD", "SO"} <= va.tags and va.loc == "f@1"


def test_get_and_put_value() -> None:
    p = prog("x = 0; y@0 = 0;", ["gin.get c0, y, x@1 | ld.relaxed.sys r0, x",
                                 "gin.put_value c0, x@1, 7 |"])
    nr, = by_tag(p, "NR")
    assert nr.loc == "x@1" and "RSP" in nr.tags
    nws = by_tag(p, "NW")
    assert nws[0].loc == "y@0" and "LCL" in nws[0].tags
    assert nws[1].value == 7 and not by_tag(p, "NR", "LCL")


def test_window_put_moves_every_word() -> None:
    p = prog("a = 0; b = 0; sa@0 = 1; sb@0 = 1; window D = {a, b}; window Src = {sa, sb};",
             ["gin.put c0, D@1, Src | ld.relaxed.sys r0, a"])
    assert [e.loc for e in by_tag(p, "NR")] == ["sa@0", "sb@0"]
    assert [e.loc for e in by_tag(p, "NW")] == ["a@1", "b@1"]


def test_barrier_signals_every_rank_then_waits() -> None:
    p = prog("x = 0;", ["gin.barrier c0, get | gin.barrier c0, put",
                        " | ld.relaxed.sys r0, x"])
    sigs = [e for e in by_tag(p, "SIG", "W") if e.thread == 0]
    assert sorted(e.loc for e in sigs) == ["bar.c0.r0@0", "bar.c0.r0@1"]
    assert all({"LEGACY", "BARSIG", "SO"} <= e.tags for e in sigs)
    waits = [e.loc for e in by_tag(p, "GWAIT") if e.thread == 0]
    assert waits == ["bar.c0.r0@0", "bar.c0.r1@0"]
    assert [e.ctx for e in by_tag(p, "FLUSH")] == ["c0"]  # level get flushes afterwards


def test_shmem_calls() -> None:
    p = prog("x = 0; S = 0; buf@0 = 1;",
             ["shmem.put_signal x@1, buf, S, 1, set | shmem.wait_until S, ==, 1",
              "shmem.fence | ld.relaxed.sys r0, x", "shmem.atomic_add x@1, 2 |",
              "shmem.quiet |"])
    issue = by_tag(p, "ISSUE")[0]
    assert {"SHMEM", "PUT", "BLOCKING"} <= issue.tags and issue.ctx == "shmem"
    sig = by_tag(p, "SIG", "W")[0]
    assert {"WEAK", "SET", "RO"} <= sig.tags and sig.value == 1
    assert by_tag(p, "SHFENCE") and by_tag(p, "QUIET") and by_tag(p, "AMO", "W")


def test_condition_names_and_aliases() -> None:
    p = prog("x = 0; buf@0 = 1;", ["gin.put c0, x@1, buf | ld.relaxed.sys r0, x"],
             "exists (x = 1)")
    assert p.aliases == {"x": "x@1"}
    with pytest.raises(UnsupportedError, match="name the rank"):
        prog("x = 0;", ["st.relaxed.sys x, 1 | st.relaxed.sys x, 2"], "exists (x = 1)")


@pytest.mark.parametrize("init,row,msg", [
    ("buf@0 = 1;", "ld.relaxed.sys r0, buf@1 |", "declared on rank 0 only"),
    ("x = 0;", "ld.relaxed.sys r0, x@1 |", "is on node 1"),
])
def test_errors(init: str, row: str, msg: str) -> None:
    with pytest.raises(UnsupportedError, match=msg) as info:
        prog(init, [row], "exists (0:r0 = 0)")
    assert info.value.pos.line > 0


def test_nvlink_within_a_node_is_allowed() -> None:
    text = ("GIN L\n{ x = 0; }\n P0@cta 0,gpu 0,node 0 | P1@cta 0,gpu 1,node 0 ;\n"
            " st.release.sys x@1, 1 | ld.acquire.sys r0, x ;\nexists (1:r0 = 1)\n")
    p = lower(parse_litmus(text, "t.litmus"))
    assert [e.loc for e in p.events if not e.is_init] == ["x@1", "x@1"]


def test_host_thread_names_ranks() -> None:
    text = ("GIN H\n{ h : host = 0; }\n P0@cta 0,gpu 0,node 0 | P1@host,node 0 ;\n"
            " ld.relaxed.sys r0, h | st.relaxed.sys h@0, 1 ;\nexists (0:r0 = 1)\n")
    p = lower(parse_litmus(text, "t.litmus"))
    (st,) = [e for e in p.events if e.thread == 1]
    assert st.loc == "h@0" and st.gpu is None
    bare = text.replace("st.relaxed.sys h@0, 1", "st.relaxed.sys h, 1")
    with pytest.raises(UnsupportedError, match="needs a rank"):
        lower(parse_litmus(bare, "t.litmus"))
    call = text.replace("st.relaxed.sys h@0, 1", "gin.flush c0")
    with pytest.raises(UnsupportedError, match="GPU threads"):
        lower(parse_litmus(call, "t.litmus"))


def test_shmem_waits_follow_the_code() -> None:
    """Issue 13: nvshmem_X_wait_until is a volatile spin then __threadfence()
    (fence.sc.gpu); nvshmem_signal_wait_until is the spin alone
    (NVIDIA/nvshmem@2d7d25f src/include/device/nvshmem_defines.h:566-586)."""
    p = prog("x = 0; S = 0; T = 0; buf@0 = 1;",
             ["shmem.put_signal x@1, buf, S, 1, add | shmem.wait_until S, >=, 1",
              "shmem.signal_op T@1, 1, add | shmem.signal_wait_until T, >=, 1",
              " | ld.relaxed.sys r0, x"])
    w1, w2 = by_tag(p, "GWAIT")
    assert {"RLX", "SYS", "VOL", "WAITUNTIL"} <= w1.tags and "ACQ" not in w1.tags
    assert {"RLX", "SYS", "VOL", "SIGWAITUNTIL"} <= w2.tags and "ACQ" not in w2.tags
    (fence,) = by_tag(p, "F", "SYNCAPI")
    assert {"SC", "ACQ_REL", "GPU"} <= fence.tags and fence.scope == "gpu"
    assert "SHMEM" not in fence.tags  # a PTX fence: strong in ptx-defs.cat
    order = [e.eid for e in p.events if e.thread == 1 and not e.is_init]
    assert order.index(w1.eid) < order.index(fence.eid) < order.index(w2.eid)


def test_shmem_operations_carry_their_cta_parity() -> None:
    """NVSHMEM 3.4.5 picks the QP by CTA id modulo IBGDA_NUM_RC_PER_PE (2)."""
    text = ("GIN T\n{ x = 0; y = 0; buf@0 = 1; }\n"
            " P0@cta 0,gpu 0,node 0 | P1@cta 1,gpu 0,node 0 ;\n"
            " shmem.put_nbi x@1, buf | shmem.put_nbi y@1, buf ;\nexists (x@1 = 0)\n")
    p = lower(parse_litmus(text, "t.litmus"))
    for e in by_tag(p, "SHMEM"):
        if e.op is not None:
            assert ("CTAEVEN" in e.tags) == (e.thread == 0)
            assert ("CTAODD" in e.tags) == (e.thread == 1)
    q = prog("x = 0; buf@0 = 1;", ["gin.put c0, x@1, buf | ld.relaxed.sys r0, x"])
    assert not by_tag(q, "CTAEVEN") and not by_tag(q, "CTAODD")  # GIN: not needed


def test_flush_async_and_wait_share_the_request() -> None:
    p = prog("x = 0; y@0 = 0;",
             ["gin.get c0, y, x@1 | ld.relaxed.sys r0, x", "gin.flush_async c1, rq |",
              "gin.wait rq |"])
    (req,) = by_tag(p, "FLUSHREQ")
    (wait,) = by_tag(p, "REQWAIT")
    assert req.op == wait.op and req.op is not None and req.ctx == wait.ctx == "c1"
    assert req.peer is None and req.agent == "" and wait.agent == ""
    env = env_of(p)
    assert (req.eid, wait.eid) in pairs(env, "op")
    (issue,) = by_tag(p, "ISSUE")
    assert (issue.eid, req.eid) not in pairs(env, "qp")


@pytest.mark.parametrize("rows,msg", [
    (["gin.wait rq | ld.relaxed.sys r0, x"], "no gin.flush_async"),
    (["gin.flush_async c0, rq | ld.relaxed.sys r0, x", "gin.flush_async c0, rq |"],
     "set by two"),
])
def test_request_errors(rows: list[str], msg: str) -> None:
    with pytest.raises(UnsupportedError, match=msg):
        prog("x = 0;", rows)


# ---- what the lowering rejects or flags (docs/input-rules.md)


def test_a_get_into_remote_memory_is_an_error_at_the_destination() -> None:
    with pytest.raises(LitmusError) as info:
        prog("x@1 = 7; buf@0 = 0;", ["gin.get c0, x@1, buf@0 |"], "exists (x@1 = 7)")
    err = info.value
    assert (err.pos.line, err.pos.col) == (4, 13)
    assert err.message == ("the destination of a get is in the issuing rank's own memory: "
                           "write x, not x@1 (this thread is on rank 0)")


def test_a_get_into_its_own_rank_named_with_the_rank_is_accepted() -> None:
    p = prog("x@1 = 7; y@0 = 0;", ["gin.get c0, y@0, x@1 |"], "exists (y@0 = 7)")
    assert [e.loc for e in by_tag(p, "NW", "LCL")] == ["y@0"]


def test_a_put_from_remote_memory_is_an_error_at_the_source() -> None:
    with pytest.raises(LitmusError) as info:
        prog("x = 0; buf@1 = 1;", ["gin.put c0, x@1, buf@1 |"], "exists (x@1 = 1)")
    assert (info.value.pos.line, info.value.pos.col) == (4, 18)
    assert "the source of a put is in the issuing rank's own memory" in info.value.message


def test_a_put_into_a_signal_word_is_marked_sigmem() -> None:
    p = prog("buf@0 = 1; S : signal;", ["gin.put c0, S@1, buf | gin.wait_signal S, 1"],
             "exists (S@1 = 1)")
    assert [e.loc for e in by_tag(p, "NW", "SIGMEM")] == ["S@1"]
    ordinary = prog("x = 0; buf@0 = 1; S : signal;", ["gin.put c0, x@1, buf, sig=S |"],
                    "exists (x@1 = 1)")
    assert by_tag(ordinary, "SIGMEM") == []  # the signal itself is no data write


@pytest.mark.parametrize("model", ["gin-api", "gin-gdaki", "gin-proxy"])
def test_a_put_into_a_signal_word_is_undefined(model: str) -> None:
    from gdrcheck.analysis.check import check_test
    from gdrcheck.engine.result import Verdict

    text = (f"GIN T\n{{ buf@0 = 1; C : counter; }}\n{HEAD}"
            " gin.put c0, C@1, buf | ;\nexists (C@1 = 1)\n")
    res = check_test(parse_litmus(text, "t.litmus"), model)
    assert res.verdict == Verdict.UNDEFINED
    assert "data-write-into-signal-word" in res.flags


# --------------------------------------------------------------------------
# TMA copies, mbarriers and shared memory in GIN tests (docs/litmus-format.md §7.3; issue 14
# item 4): the PTX lowering (lower/ptx.py) with each rank's CTAs holding their own copies
# --------------------------------------------------------------------------

TMA_ROWS = ["cp.async.bulk s, x, full            | ld.acquire.sys r1, f",
            "mbarrier.arrive.expect_tx full, 1  | ",
            "mbarrier.wait full                 | ",
            "ld.weak r0, s                      | "]


def test_tma_load_and_mbarrier_in_a_gin_test() -> None:
    p = prog("x = 0; f = 0; s : shared = 7; full : mbarrier 1;", TMA_ROWS,
             "exists (0:r0 = 0)")
    (r,) = by_tag(p, "R", "ASYNC")
    (w,) = by_tag(p, "W", "ASYNC", "SHARED")
    assert r.loc == "x@0" and w.loc == "s:cta0@0" and w.agent == "async"
    assert by_tag(p, "F", "PFIMPLICIT") and by_tag(p, "W", "MBCTX")
    assert p.init_values["s:cta0@0"] == 7 and p.init_values["full:cta0@0"] == 0
    (ld,) = [e for e in by_tag(p, "R", "SHARED") if e.tags >= {"WEAK"} and "ASYNC" not in e.tags]
    assert ld.loc == "s:cta0@0" and ld.mem == 0
    env = env_of(p)
    assert (r.eid, w.eid) in pairs(env, "aob")


def test_each_rank_and_cta_has_its_own_shared_copy() -> None:
    p = prog("s : shared = 0;", ["st.weak s, 1 | st.weak s, 2"], "exists (true)")
    assert {e.loc for e in by_tag(p, "W") if not e.is_init} == {"s:cta0@0", "s:cta0@1"}


def test_a_condition_names_a_shared_word_with_one_copy() -> None:
    p = prog("s : shared = 0; y = 0;", ["cp.async.bulk y, s | ld.weak r0, y"],
             "exists (s = 0)")
    assert p.aliases["s"] == "s:cta0@0"
    with pytest.raises(UnsupportedError, match="shared memory with 2 CTA copies"):
        prog("s : shared = 0;", ["st.weak s, 1 | st.weak s, 2"], "exists (s = 0)")


def test_a_tma_store_to_a_peer_then_a_put_lowers() -> None:
    p = prog("x = 0; s : shared = 1; buf@0 = 0; S : signal;",
             ["cp.async.bulk buf, s          | gin.wait_signal S, 1",
              "cp.async.bulk.wait_group 0    | ld.relaxed.sys r0, x",
              "gin.put c0, x@1, buf, sig=S   | "])
    (w,) = by_tag(p, "W", "ASYNC")
    (nr,) = by_tag(p, "R", "NR")
    assert w.loc == nr.loc == "buf@0"


def test_a_tma_copy_reaches_only_its_own_node() -> None:
    with pytest.raises(UnsupportedError, match="x@1 is on node 1"):
        prog("x = 0; s : shared = 0; full : mbarrier 1;",
             ["cp.async.bulk s, x@1, full | ld.weak r0, x"])


def test_virtual_aliases_stay_in_ptx_tests() -> None:
    with pytest.raises(UnsupportedError, match="virtual aliases"):
        prog("x = 0; y @ generic aliases x;", ["ld.weak r0, y | "], "exists (0:r0 = 0)")


# ---- issue 28: 128-byte line windows and nvshmem_sync_all

def test_line_window_put_tags_halves_and_orders_words_by_address() -> None:
    p = prog("d = 0; e = 0; f = 0; a@0 = 1; b@0 = 1; c@0 = 1; "
             "window L line = {d, e : 64, f : 120}; window V line = {a, b : 64, c : 120};",
             ["gin.put c0, L@1, V | ld.acquire.sys r0, f"])
    writes = {e.loc: e for e in by_tag(p, "W", "NW", "RSP", "LINE")}
    assert set(writes) == {"d@1", "e@1", "f@1"}
    assert "HALF0" in writes["d@1"].tags and "HALF1" in writes["e@1"].tags
    assert "HALF1" in writes["f@1"].tags
    order = pairs(env_of(p), "line-order")
    d, e, f = writes["d@1"].eid, writes["e@1"].eid, writes["f@1"].eid
    assert order == {(d, e), (d, f), (e, f)}


def test_plain_window_put_has_no_line_order() -> None:
    p = prog("d = 0; f = 0; a@0 = 1; b@0 = 1; window L = {d, f}; window V = {a, b};",
             ["gin.put c0, L@1, V | ld.acquire.sys r0, f"])
    assert not by_tag(p, "LINE")
    assert pairs(env_of(p), "line-order") == set()


def test_line_window_round_trips_through_the_printer() -> None:
    from gdrcheck.litmus.printer import print_litmus

    text = ("GIN T\n{ d = 0; f = 0; window L strict line = {d, f : 120}; }\n" + HEAD
            + " ld.relaxed.sys r0, d | ld.relaxed.sys r0, f ;\nexists (1:r0 = 0)\n")
    t = parse_litmus(text, "t.litmus")
    again = parse_litmus(print_litmus(t), "t.litmus")
    decl = [i for i in again.init if type(i).__name__ == "WindowDecl"][0]
    assert decl.line and decl.strict and decl.offsets == (0, 120)  # type: ignore[attr-defined]


@pytest.mark.parametrize(("decl", "msg"), [
    ("window L = {d, f : 8};", "only in a 'line' window"),
    ("window L line = {d : 8, f : 8};", "multiple of 8 below 128"),
    ("window L line = {d : 4};", "multiple of 8 below 128"),
    ("window L line line = {d};", "given twice"),
])
def test_line_window_errors(decl: str, msg: str) -> None:
    with pytest.raises(LitmusError, match=msg):
        prog(f"d = 0; f = 0; {decl}", ["ld.relaxed.sys r0, d | ld.relaxed.sys r0, f"])


def test_sync_all_is_barrier_all_without_the_quiet() -> None:
    sync = prog("x = 0;", ["shmem.sync_all | shmem.sync_all"], "exists (x@1 = 0)")
    barrier = prog("x = 0;", ["shmem.barrier_all | shmem.barrier_all"], "exists (x@1 = 0)")
    assert not by_tag(sync, "QUIET") and len(by_tag(barrier, "QUIET")) == 2
    assert len(by_tag(sync, "BARSIG", "W")) == len(by_tag(barrier, "BARSIG", "W")) == 4
def test_a_wait_with_a_register_threshold_compares_with_the_register_plus_the_constant(
        ) -> None:
    # NCCL's waitSignal(coop, S, readSignal(S) + n) (docs/examples/06_device_api/02_alltoall_gin
    # main.cu:82, 101): the wait's read of S is compared with the value read before plus n
    p = prog("S : signal; T : signal;",
             ["gin.signal c0, S@1 | gin.read_signal r0, S",
              "gin.signal c0, T@1 | gin.wait_signal T, r0+2"])
    first, wait = by_tag(p, "R", "GWAIT")
    assert first.loc == "S@1" and wait.loc == "T@1"
    conds = {b.cond for b in p.blocks if b.cond is not None}
    assert CmpExpr("ge", ReadVal(wait.eid), BinOp("add", ReadVal(first.eid), 2)) in conds
    # the failing outcome is a blocking wait that polls its own read only: the threshold
    # was read once (a fair execution need not let that earlier read see the last write)
    (stuck,) = [lf for lf in p.leaves if lf.wait is not None]
    assert stuck.polled() == (wait.eid,)
    assert str(stuck.wait) == "P1:2 gin.wait_signal T, r0+2"


def test_a_bare_register_threshold_is_the_register() -> None:
    p = prog("S : signal;", ["gin.signal c0, S@1 | gin.read_signal r0, S",
                             "                   | gin.wait_signal S, r0"])
    first, wait = by_tag(p, "R", "GWAIT")
    conds = {b.cond for b in p.blocks if b.cond is not None}
    assert CmpExpr("ge", ReadVal(wait.eid), ReadVal(first.eid)) in conds
