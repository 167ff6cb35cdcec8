"""The multimem lowering (gdrcheck/lower/multimem.py): one PTX access per bound copy,
tagged MM, the static relation mmi between the copies of one instruction, RMWs per copy,
the reduction register, plain accesses of M (MMPLAIN), and the errors."""

from __future__ import annotations

import pytest

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.models import ModelSpec
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.errors import UnsupportedError
from gdrcheck.litmus import parse_litmus
from gdrcheck.lower import lower
from gdrcheck.lower.program import BinOp, Event, Program, ReadVal

HEAD = " P0@cta 0,gpu 0,node 0 | P1@cta 0,gpu 1,node 0 | P2@cta 0,gpu 2,node 0 ;\n"


def prog(init: str, rows: list[str], cond: str = "exists (true)", head: str = HEAD) -> Program:
    text = f"GIN T\n{{ {init} }}\n{head}" + "".join(r + " ;\n" for r in rows) + cond + "\n"
    return lower(parse_litmus(text, "t.litmus"))


def events(p: Program, label: str) -> list[Event]:
    return [e for e in p.events if e.label == label]


def test_store_is_one_write_per_copy_of_every_rank() -> None:
    p = prog("x = 0; multicast M = x;", ["multimem.st.release.sys M, 5 | | "])
    ws = events(p, "multimem.st.release.sys M, 5")
    assert [(e.kind, e.loc, e.value) for e in ws] == [("W", f"x@{k}", 5) for k in range(3)]
    assert all({"MM", "REL", "SYS"} <= e.tags and e.scope == "sys" for e in ws)
    ids = [e.eid for e in ws]
    assert p.relations["mmi"] == {(a, b) for a in ids for b in ids if a != b}


def test_listed_copies_only() -> None:
    p = prog("x = 0; multicast M = {x@2, x@0};", ["multimem.st M, 1 | | "])
    ws = events(p, "multimem.st.weak M, 1")
    assert [e.loc for e in ws] == ["x@2", "x@0"]  # the binding's order
    assert all("WEAK" in e.tags and e.scope is None for e in ws)


def test_red_is_an_rmw_per_copy_and_keeps_each_rmw_in_order() -> None:
    p = prog("x = 0; multicast M = x;", ["multimem.red.add M, 2 | | "])
    es = events(p, "multimem.red.relaxed.sys.add M, 2")
    assert [(e.kind, e.loc) for e in es] == [(k, f"x@{r}") for r in range(3) for k in "RW"]
    reads, writes = es[0::2], es[1::2]
    assert {(r.eid, w.eid) for r, w in zip(reads, writes, strict=True)} <= p.rmw
    assert all({"ATOM", "RLX", "SYS", "MM"} <= e.tags for e in es)
    assert all(w.value == BinOp("add", ReadVal(r.eid), 2)
               for r, w in zip(reads, writes, strict=True))
    # the read and the write of one copy are not in mmi (they stay in program order)
    mmi = p.relations["mmi"]
    assert not {(r.eid, w.eid) for r, w in zip(reads, writes, strict=True)} & mmi
    assert (reads[0].eid, writes[1].eid) in mmi and (writes[2].eid, reads[0].eid) in mmi


def test_release_red_writes_are_release_reads_relaxed() -> None:
    p = prog("x = 0; multicast M = x;", ["multimem.red.release.gpu.add M, 1 | | "])
    es = events(p, "multimem.red.release.gpu.add M, 1")
    assert all("RLX" in e.tags for e in es if e.kind == "R")
    assert all("REL" in e.tags and "GPU" in e.tags for e in es if e.kind == "W")


def test_ld_reduce_reads_each_copy_and_reduces() -> None:
    p = prog("x = 0; multicast M = x;",
             ["multimem.ld_reduce.acquire.sys.max r0, M | | "], "exists (0:r0 = 0)")
    rs = events(p, "multimem.ld_reduce.acquire.sys.max r0, M")
    assert [(e.kind, e.loc) for e in rs] == [("R", f"x@{k}") for k in range(3)]
    assert all({"ACQ", "SYS", "MM"} <= e.tags for e in rs)
    leaf = p.leaves[[lf.thread for lf in p.leaves].index(0)]
    r0 = dict(leaf.regs)["r0"]
    a, b, c = (ReadVal(e.eid) for e in rs)
    assert r0 == BinOp("max", BinOp("max", a, b), c)


def test_plain_access_of_the_object_is_flagged() -> None:
    p = prog("x = 0; multicast M = x;", ["st.relaxed.sys M, 1 | ld.weak r0, M | "])
    (w,) = events(p, "st.relaxed.sys M, 1")
    (r,) = events(p, "ld.weak r0, M")
    assert w.loc == r.loc == "M" and "MMPLAIN" in w.tags and "MMPLAIN" in r.tags
    res = check_test(parse_litmus(
        "GIN T\n{ x = 0; multicast M = x; }\n" + HEAD
        + " st.relaxed.sys M, 1 | | ;\nexists (x@1 = 0)\n"), ModelSpec("lsa"))
    assert res.verdict == "Undefined"


def test_copies_on_two_nodes_are_refused() -> None:
    head = " P0@cta 0,gpu 0,node 0 | P1@cta 0,gpu 1,node 1 ;\n"
    with pytest.raises(UnsupportedError, match="spans the GPUs of one node"):
        prog("x = 0; multicast M = x;", ["multimem.st M, 1 | "], head=head)


def test_a_copy_on_another_node_than_the_issuer_is_refused() -> None:
    head = " P0@cta 0,gpu 0,node 0 | P1@cta 0,gpu 1,node 1 | P2@cta 0,gpu 2,node 1 ;\n"
    with pytest.raises(UnsupportedError, match="is on node 1"):
        prog("x = 0; multicast M = {x@1, x@2};", ["multimem.st M, 1 | | "], head=head)


def test_a_copy_of_an_undeclared_rank_is_refused() -> None:
    with pytest.raises(UnsupportedError, match="declared on rank 0 only"):
        prog("x@0 = 0; multicast M = {x@0, x@1};", ["multimem.st M, 1 | | "])


def test_the_copies_are_unordered_unless_the_variant_says_so() -> None:
    """specs/multimem.cat: po minus mmi by default; mm-copies-in-order keeps po."""
    text = ("GIN T\n{ f = 0; multicast F = f; }\n" + HEAD
            + " multimem.st.release.sys F, 1 | | ld.acquire.sys r0, f ;\n"
            + " | | ld.relaxed.sys r1, f@1 ;\nexists (2:r0 = 1 /\\ 2:r1 = 0)\n")
    test = parse_litmus(text)
    for engine in ("smt", "explicit"):
        opts = CheckOptions(engine=engine)
        assert check_test(test, ModelSpec("ptx"), options=opts).verdict == "Allowed"
        assert check_test(test, ModelSpec("ptx", ("mm-copies-in-order",)),
                          options=opts).verdict == "Forbidden"
