"""``setp`` and ``selp`` (docs/litmus-format.md §7.2): a register's value chosen without a
branch is a conditional expression (gdrcheck/lower/program.py ``Ite``), so the path does
not split, and the value depends on the reads of its condition and of both its values."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gdrcheck.litmus import parse_litmus
from gdrcheck.lower import lower
from gdrcheck.lower.builder import simplify, simplify_cmp
from gdrcheck.lower.program import (
    BinOp,
    CmpExpr,
    Expr,
    Ite,
    Program,
    ReadVal,
    eval_cmp,
    eval_expr,
    expr_reads,
)

HEAD = "{ x = 0; y = 0; z = 0; }\n P0@cta 0,gpu 0 ;\n"


def _prog(*rows: str) -> Program:
    body = "".join(f" {r} ;\n" for r in rows)
    return lower(parse_litmus("PTX t\n" + HEAD + body + "exists (x = 0)\n"))


TABLE = ("ld.weak r0, x", "ld.weak r1, y",
         "setp.eq r2, r0, 3", "setp.eq r3, r1, 4", "and r4, r2, r3",
         "selp r5, 25, 9, r4", "selp r5, r5, 0, r2", "st.weak z, r5", "st.weak x, 1")
BRANCHES = ("ld.weak r0, x", "ld.weak r1, y",
            "bne r0, 3, L0", "bne r1, 4, L1", "mov r5, 25", "goto L2",
            "L1:", "mov r5, 9", "goto L2", "L0:", "mov r5, 0", "L2:",
            "st.weak z, r5", "st.weak x, 1")


def test_a_selection_does_not_split_the_path() -> None:
    sel = _prog(*TABLE)
    assert len(sel.leaves) == 1 and [b.cond for b in sel.blocks if b.thread == 0] == [None]
    assert [e.kind for e in sel.events if e.thread == 0] == ["R", "R", "W", "W"]
    # the same table as branches: one path, and one copy of each later event, per row
    br = _prog(*BRANCHES)
    assert len(br.leaves) == 3
    assert sum(e.loc == "x" and e.kind == "W" and e.thread == 0 for e in br.events) == 3


def test_the_value_is_the_table_over_the_values_read() -> None:
    prog = _prog(*TABLE)
    rx, ry, wz, _ = (e for e in prog.events if e.thread == 0)
    assert isinstance(wz.value, Ite)
    for vx, vy, want in ((3, 4, 25), (3, 0, 9), (0, 4, 0), (0, 0, 0)):
        assert eval_expr(wz.value, {rx.eid: vx, ry.eid: vy}) == want


def test_a_selection_is_a_data_dependency_of_all_three_operands() -> None:
    # selp r3, r1, 7, r2: the store depends on r1 (a value), on r0 (through the predicate
    # r2), and on nothing by control; a branch would give the later store a ctrl
    # dependency instead
    prog = _prog("ld.weak r0, x", "ld.weak r1, y", "setp.gt r2, r0, 0", "selp r3, r1, 7, r2",
                 "st.weak z, r3", "st.weak x, 1")
    rx, ry, wz, wx = (e.eid for e in prog.events if e.thread == 0)
    assert prog.data == {(rx, wz), (ry, wz)}
    assert prog.ctrl == set()
    # two equal values still depend on the predicate (syntactic dependencies, as herd's),
    # also once the expression is simplified for the explicit engine
    same = _prog("ld.weak r0, x", "setp.eq r2, r0, 1", "selp r3, 5, 5, r2", "st.weak z, r3")
    r, w = (e for e in same.events if e.thread == 0)
    assert same.data == {(r.eid, w.eid)} and expr_reads(w.value or 0) == {r.eid}


def test_constant_operands_fold() -> None:
    prog = _prog("setp.lt r0, 2, 3", "selp r1, 10, 20, r0", "setp.ge r2, r1, 11",
                 "selp r3, 1, 2, r2", "st.weak z, r3")
    (w,) = (e for e in prog.events if e.thread == 0)
    assert w.value == 2  # 2 < 3, so r1 = 10, and 10 >= 11 fails: r3 = 2


def test_a_branch_on_a_predicate_tests_the_comparison() -> None:
    prog = _prog("ld.weak r0, x", "setp.lt r1, r0, 5", "bne r1, 0, L0", "st.weak z, 1",
                 "L0:", "st.weak y, 1")
    (r,) = (e.eid for e in prog.events if e.kind == "R")
    conds = {b.cond for b in prog.blocks if b.cond is not None}
    assert conds == {CmpExpr("lt", ReadVal(r), 5)}


def test_the_gin_dialect_has_them_too() -> None:
    test = parse_litmus("GIN t\n{ x = 0; S : signal; }\n"
                        " P0@cta 0,gpu 0,node 0 | P1@cta 0,gpu 1,node 1 ;\n"
                        " gin.signal c0, S@1    | gin.read_signal r0, S  ;\n"
                        "                       | setp.ge r1, r0, 1      ;\n"
                        "                       | selp r2, 5, 7, r1      ;\n"
                        "                       | st.weak x, r2          ;\n"
                        "exists (x@1 = 5)\n")
    prog = lower(test)
    assert len(prog.leaves_of(1)) == 1
    (w,) = (e for e in prog.events if e.thread == 1 and e.kind == "W")
    assert isinstance(w.value, Ite)


# --------------------------------------------------------------------------
# simplify keeps the value and the reads
# --------------------------------------------------------------------------

OPS = ("eq", "ne", "lt", "le", "gt", "ge")
READS = (0, 1)


@st.composite
def exprs(draw: st.DrawFn, depth: int = 3) -> Expr:
    kind = draw(st.integers(0, 3 if depth > 0 else 1))
    if kind == 0:
        return draw(st.integers(-3, 3))
    if kind == 1:
        return ReadVal(draw(st.sampled_from(READS)))
    if kind == 2:
        op = draw(st.sampled_from(("add", "sub", "mul")))
        return BinOp(op, draw(exprs(depth - 1)), draw(exprs(depth - 1)))
    return Ite(draw(cmps(depth - 1)), draw(exprs(depth - 1)), draw(exprs(depth - 1)))


@st.composite
def cmps(draw: st.DrawFn, depth: int) -> CmpExpr:
    return CmpExpr(draw(st.sampled_from(OPS)), draw(exprs(depth)), draw(exprs(depth)))


@given(e=exprs(), a=st.integers(-3, 3), b=st.integers(-3, 3))
def test_simplify_keeps_the_value_and_the_reads(e: Expr, a: int, b: int) -> None:
    # the reads too: the explicit engine takes a value's dependencies from the simplified
    # expression, the z3 engine from ``data``, built from the expression as written
    reads = {0: a, 1: b}
    s = simplify(e)
    assert eval_expr(s, reads) == eval_expr(e, reads)
    assert expr_reads(s) == expr_reads(e)


@given(c=cmps(2), a=st.integers(-3, 3), b=st.integers(-3, 3))
def test_simplify_cmp_keeps_the_outcome(c: CmpExpr, a: int, b: int) -> None:
    reads = {0: a, 1: b}
    want = eval_cmp(c.op, eval_expr(c.left, reads), eval_expr(c.right, reads))
    s = simplify_cmp(c)
    got = s if isinstance(s, bool) else eval_cmp(s.op, eval_expr(s.left, reads),
                                                  eval_expr(s.right, reads))
    assert got == want
    assert (set() if isinstance(s, bool) else expr_reads(s)) == expr_reads(c)


@pytest.mark.parametrize(("cond", "then", "else_", "reads", "want"), [
    (CmpExpr("eq", ReadVal(0), 1), 10, 20, {0: 1}, 10),
    (CmpExpr("eq", ReadVal(0), 1), 10, 20, {0: 2}, 20),
    (CmpExpr("lt", ReadVal(0), ReadVal(1)), ReadVal(1), ReadVal(0), {0: 1, 1: 5}, 5),
    (CmpExpr("ge", ReadVal(0), ReadVal(1)), ReadVal(1), ReadVal(0), {0: 1, 1: 5}, 1),
    (CmpExpr("ne", Ite(CmpExpr("gt", ReadVal(0), 0), 1, 0), 0), 7, 8, {0: 3}, 7),
    (CmpExpr("ne", Ite(CmpExpr("gt", ReadVal(0), 0), 1, 0), 0), 7, 8, {0: -3}, 8),
    (CmpExpr("le", 2, 1), ReadVal(0), -1, {0: 4}, -1),
])
def test_evaluation(cond: CmpExpr, then: Expr, else_: Expr, reads: dict[int, int],
                    want: int) -> None:
    assert eval_expr(Ite(cond, then, else_), reads) == want
    assert eval_expr(simplify(Ite(cond, then, else_)), reads) == want
