"""``setp``/``selp`` against the branches they replace, under both engines.

A table written as a chain of branches and the same table written with ``setp`` and
``selp`` must give the same verdict and the same final states, under the z3 engine and the
explicit enumerator alike (the conditional value is ``z3.If`` in one, evaluated per
execution in the other). They differ where a branch's control dependency matters (every
later event depends on the branch's reads; a selp's value only on what uses it): the last
test pins that difference to PTX's No-Thin-Air axiom."""

from __future__ import annotations

import pytest
import z3
from hypothesis import given
from hypothesis import strategies as st

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.engine.result import Result
from gdrcheck.engine.smt import z3_value
from gdrcheck.litmus import ast as A
from gdrcheck.litmus import parse_litmus
from gdrcheck.lower.program import BinOp, CmpExpr, Expr, Ite, ReadVal, eval_expr


def _test(arch: str, init: str, threads: list[list[str]], cond: str) -> A.Test:
    width = [max(len(c) for c in th) for th in threads]
    rows = max(len(th) for th in threads)
    head = " | ".join(f"P{i}@cta {i},gpu 0".ljust(w) for i, w in enumerate(width))
    lines = [f"{arch} t", f"{{ {init} }}", f" {head} ;"]
    for k in range(rows):
        cells = [(th[k] if k < len(th) else "").ljust(w) for th, w in zip(threads, width,
                                                                           strict=True)]
        lines.append(" " + " | ".join(cells) + " ;")
    lines.append(cond)
    return parse_litmus("\n".join(lines) + "\n", "t.litmus")


def _both(test: A.Test, model: str) -> Result:
    smt = check_test(test, model, options=CheckOptions(engine="smt", states=True))
    exp = check_test(test, model, options=CheckOptions(engine="explicit", states=True))
    assert smt.states is not None and exp.states is not None
    assert (smt.verdict, set(smt.states)) == (exp.verdict, set(exp.states)), model
    return smt


WRITER = ["st.weak x, 3", "st.weak y, 4", "st.release.gpu f, 1"]

# (name, init, the writer, the reader with branches, the reader with setp/selp, condition):
# each reader computes one table of the values it read and stores it
PAIRS = [
    ("one-register", "x = 0; y = 0; f = 0; z = 0;", WRITER,
     ["ld.acquire.gpu r0, f", "ld.weak r1, x",
      "beq r1, 3, L0", "mov r2, 20", "goto L1", "L0:", "mov r2, 10", "L1:",
      "st.weak z, r2"],
     ["ld.acquire.gpu r0, f", "ld.weak r1, x",
      "setp.eq r3, r1, 3", "selp r2, 10, 20, r3", "st.weak z, r2"],
     "locations [1:r0; z;]\nexists (1:r0 = 1 /\\ z = 20)"),
    # blockRMSNorm's sum of squares (tests/kernel/test_float.py, REDUCTION), as the kernel
    # extraction emitted it: a branch per combination of the two values read
    ("two-registers", "x = 0; y = 0; f = 0; z = 0;", WRITER,
     ["ld.acquire.gpu r0, f", "ld.weak r1, x", "ld.weak r2, y",
      "bne r1, 0, L0", "beq r2, 0, L4", "L0:", "bne r1, 0, L1", "beq r2, 4, L5", "L1:",
      "bne r1, 3, L2", "beq r2, 0, L6", "L2:", "bne r1, 3, L3", "beq r2, 4, L7", "L3:",
      "goto L9", "L4:", "mov r4, 0", "goto L9", "L5:", "mov r4, 16", "goto L9",
      "L6:", "mov r4, 9", "goto L9", "L7:", "mov r4, 25", "L9:", "st.weak z, r4"],
     ["ld.acquire.gpu r0, f", "ld.weak r1, x", "ld.weak r2, y",
      "setp.eq r5, r1, 3", "setp.eq r6, r2, 4",
      "selp r7, 9, 0, r5", "selp r8, 16, 0, r6", "add r4, r7, r8", "st.weak z, r4"],
     "locations [1:r0; z;]\nexists (1:r0 = 1 /\\ ~(z = 25))"),
    # a chain: each setp/selp pair overrides the value when its row matches (the form
    # gdrcheck kernel emits for a table with several results)
    ("chain", "x = 0; y = 0; f = 0; z = 0;", WRITER,
     ["ld.weak r1, x", "ld.weak r2, y", "add r3, r1, r2",
      "blt r3, 4, L0", "bgt r3, 6, L1", "mov r4, 2", "goto L2",
      "L0:", "mov r4, 1", "goto L2", "L1:", "mov r4, 3", "L2:", "st.weak z, r4"],
     ["ld.weak r1, x", "ld.weak r2, y", "add r3, r1, r2", "mov r4, 2",
      "setp.lt r5, r3, 4", "selp r4, 1, r4, r5",
      "setp.gt r6, r3, 6", "selp r4, 3, r4, r6", "st.weak z, r4"],
     "locations [1:r1; 1:r2; z;]\nexists (z = 3)"),
]


@pytest.mark.parametrize("model", ["ptx", "sc"])
@pytest.mark.parametrize(("name", "init", "writer", "branches", "selects", "cond"), PAIRS,
                         ids=[p[0] for p in PAIRS])
def test_a_table_as_branches_and_as_selections(name: str, init: str, writer: list[str],
                                               branches: list[str], selects: list[str],
                                               cond: str, model: str) -> None:
    br = _both(_test("PTX", init, [writer, branches], cond), model)
    sel = _both(_test("PTX", init, [writer, selects], cond), model)
    assert br.states is not None and sel.states is not None
    assert (sel.verdict, set(sel.states)) == (br.verdict, set(br.states))
    assert len(set(sel.states)) > 1  # the table takes several values


def test_the_two_register_table_is_the_sum_of_squares() -> None:
    # with the release/acquire pair on f (PTX ISA §8.9: the acquire observing the release
    # orders the writer's stores before the reads), a reader that sees f = 1 reads 3 and 4
    _, init, writer, _, selects, _ = PAIRS[1]
    res = _both(_test("PTX", init, [writer, selects],
                      "locations [1:r0; z;]\nexists (1:r0 = 1 /\\ ~(z = 25))"), "ptx")
    assert res.verdict == "Forbidden"
    assert res.states is not None
    assert {dict(s)["z"] for s in res.states} == {0, 9, 16, 25}


def test_the_gin_dialect_agrees_too() -> None:
    text = """GIN t
{ x = 0; S : signal; }
 P0@cta 0,gpu 0,node 0 | P1@cta 0,gpu 1,node 1 ;
 gin.signal c0, S@1    | gin.read_signal r0, S ;
                       | setp.ge r1, r0, 1     ;
                       | selp r2, 5, 7, r1     ;
                       | st.weak x, r2         ;
exists (x@1 = 5)
"""
    res = _both(parse_litmus(text), "gin-api")
    assert res.verdict == "Allowed"
    assert res.states is not None and {dict(s)["x@1"] for s in res.states} == {5, 7}


LB = "x = 0; y = 0;"


def test_a_selection_depends_only_where_its_value_is_used() -> None:
    # ASPLOS'19 Fig. 7 Axiom 4, No-Thin-Air (R-PTXMM-AX4): acyclic(rf | dep), dep = addr |
    # data | ctrl. Stores of 1 after a branch on the value read depend on it by control:
    # the load-buffering outcome is Forbidden. After a setp/selp whose result they do not
    # use, nothing depends on the read: Allowed, as LB+weaks (litmus/ptx/LB+weaks.litmus).
    # A store of the selected value depends on the read by data: Forbidden, as LB+datas.
    cond = "exists (0:r0 = 1 /\\ 1:r0 = 1)"

    def th(src: str, dst: str, body: list[str]) -> list[str]:
        return [f"ld.weak r0, {src}", *body, f"st.weak {dst}, STORED"]

    branch = ["beq r0, 1, L0", "L0:"]
    unused = ["setp.eq r1, r0, 1", "selp r2, 1, 0, r1"]

    def run(body: list[str], stored: str) -> str:
        threads = [[c.replace("STORED", stored) for c in th(s, d, body)]
                   for s, d in (("x", "y"), ("y", "x"))]
        return _both(_test("PTX", LB, threads, cond), "ptx").verdict

    assert run(branch, "1") == "Forbidden"
    assert run(unused, "1") == "Allowed"
    assert run(unused, "r2") == "Forbidden"


# --------------------------------------------------------------------------
# The evaluation: eval_expr (the explicit engine) against z3.If (the z3 engine)
# --------------------------------------------------------------------------

OPS = ("eq", "ne", "lt", "le", "gt", "ge")


@st.composite
def exprs(draw: st.DrawFn, depth: int = 3) -> Expr:
    kind = draw(st.integers(0, 3 if depth > 0 else 1))
    if kind == 0:
        return draw(st.integers(-4, 4))
    if kind == 1:
        return ReadVal(draw(st.integers(0, 2)))
    if kind == 2:
        op = draw(st.sampled_from(("add", "sub", "mul", "min", "max")))
        return BinOp(op, draw(exprs(depth - 1)), draw(exprs(depth - 1)))
    cond = CmpExpr(draw(st.sampled_from(OPS)), draw(exprs(depth - 1)), draw(exprs(depth - 1)))
    return Ite(cond, draw(exprs(depth - 1)), draw(exprs(depth - 1)))


@given(e=exprs(), values=st.lists(st.integers(-5, 5), min_size=3, max_size=3))
def test_z3_and_the_enumerator_evaluate_alike(e: Expr, values: list[int]) -> None:
    reads = dict(enumerate(values))
    term = z3.simplify(z3_value(e, {k: z3.IntVal(v) for k, v in reads.items()}))
    assert z3.is_int_value(term)
    assert term.as_long() == eval_expr(e, reads)  # type: ignore[attr-defined]
