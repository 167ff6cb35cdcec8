"""The multimem syntax (docs/litmus-format.md §11): multicast declarations, multimem.st /
multimem.red / multimem.ld_reduce, parsing, round trip, the MULTIMEM feature and the
file:line:col errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

from gdrcheck.errors import LitmusError, Pos
from gdrcheck.litmus import ast as A
from gdrcheck.litmus import parse_litmus
from gdrcheck.litmus.features import test_features
from gdrcheck.litmus.printer import print_litmus

ROOT = Path(__file__).resolve().parents[2]

FULL = """GIN MM
{
inbox = 0;
x = 0;
multicast M = inbox;
multicast X = {x@0, x@2};
}
 P0@cta 0,gpu 0,node 0                    | P1@cta 0,gpu 2,node 0                  ;
 multimem.st X, 1                         | multimem.ld_reduce.acquire.sys.max r0, X ;
 multimem.st.release.gpu X, r1            | ld.acquire.sys r1, inbox               ;
 multimem.red.release.sys.add.u32 M, 1    | multimem.ld_reduce.min r2, M           ;
 multimem.red.add M, 2                    | st.relaxed.sys x@0, 3                  ;
exists (P1:r0 = 1 /\\ inbox@2 = 2)
"""


def test_the_syntax_parses_into_the_ast() -> None:
    test = parse_litmus(FULL)
    assert test.init[2:] == (
        A.MulticastDecl("M", "inbox"),
        A.MulticastDecl("X", None, (A.LocRef("x", 0), A.LocRef("x", 2))),
    )
    p0, p1 = (t.instrs for t in test.threads)
    assert p0 == (
        A.MultimemStore("weak", None, A.LocRef("X"), A.Const(1)),
        A.MultimemStore("release", "gpu", A.LocRef("X"), A.Reg("r1")),
        A.MultimemRed("release", "sys", "add", A.LocRef("M"), A.Const(1)),
        # PTX ISA §9.7.9.14: multimem.red defaults to .relaxed and .sys
        A.MultimemRed("relaxed", "sys", "add", A.LocRef("M"), A.Const(2)),
    )
    assert p1[0] == A.MultimemLdReduce("acquire", "sys", "max", A.Reg("r0"), A.LocRef("X"))
    assert p1[2] == A.MultimemLdReduce("weak", None, "min", A.Reg("r2"), A.LocRef("M"))
    assert A.registers_written(test.threads[1]) >= {"r0", "r2"}


def test_round_trip() -> None:
    test = parse_litmus(FULL)
    text = print_litmus(test)
    assert "multicast X = {x@0, x@2};" in text and "multicast M = inbox;" in text
    again = parse_litmus(text)
    assert again == test
    assert print_litmus(again) == text


@pytest.mark.parametrize(
    "path", sorted((ROOT / "litmus" / "multimem").glob("*.litmus"))
    + sorted((ROOT / "litmus" / "realbugs").glob("vllm-mnnvl-*.litmus")),
    ids=lambda p: p.name)
def test_library_files_round_trip(path: Path) -> None:
    test = parse_litmus(path.read_text(), str(path))
    assert parse_litmus(print_litmus(test)) == test


def test_the_multimem_feature() -> None:
    assert test_features(parse_litmus(FULL)) == {"MULTIMEM", "PTX"}
    # a declaration alone needs a model that knows multicast objects
    decl_only = FULL.split(" P0@")[0] + " P0@gpu 0 ;\n st.relaxed.sys x, 1 ;\nexists (x@0 = 1)\n"
    assert test_features(parse_litmus(decl_only)) == {"MULTIMEM", "PTX"}


def test_multicast_is_a_usable_location_name_elsewhere() -> None:
    """'multicast' is not a keyword: the first word of the declaration is checked."""
    test = parse_litmus("GIN T\n{ multicast = 1; }\n P0@gpu 0 ;\n ld.relaxed.sys r0, multicast ;\n"
                        "exists (0:r0 = 1)\n")
    assert test.init == (A.InitLoc(A.LocRef("multicast"), 1),)


def _t(init: str, row: str, cond: str = "exists (x@0 = 0)", arch: str = "GIN") -> str:
    return f"{arch} T\n{{ {init} }}\n P0@gpu 0 | P1@gpu 1 ;\n {row} ;\n{cond}\n"


_D = "x = 0; inbox = 0; multicast M = inbox;"

ERRORS = [
    (_t("x = 0; multicst M = x;", "st.weak x, 1"), Pos(2, 10), "unknown declaration 'multicst'"),
    (_t("multicast M = x;", "st.weak x, 1"), Pos(2, 3),
     "'M' is bound to 'x', which is not a location of the init block"),
    (_t("x = 0; multicast M = M;", "st.weak x, 1"), Pos(2, 10), "cannot be bound to itself"),
    (_t("x = 0; S : signal; multicast M = S;", "st.weak x, 1"), Pos(2, 22),
     "which is not a global location (signal declaration)"),
    (_t("x = 0; multicast M = {x@0, x};", "st.weak x, 1"), Pos(2, 30),
     "a listed copy names its rank"),
    (_t("x = 0; multicast M = {x@0, x@0};", "st.weak x, 1"), Pos(2, 30), "x@0 is bound twice"),
    (_t(_D + " multicast M = x;", "st.weak x, 1"), Pos(2, 42), "'M' is declared twice"),
    (_t("x = 0; multicast M = x;", "st.weak x, 1", "exists (x = 0)", "PTX"), Pos(2, 10),
     "it needs a GIN test"),
    (_t(_D, "multimem.st.relaxed M, 1"), Pos(4, 2), "needs a scope"),
    (_t(_D, "multimem.st.acquire.sys M, 1"), Pos(4, 13), "unknown qualifier '.acquire'"),
    (_t(_D, "multimem.red.release.sys M, 1"), Pos(4, 2), "needs an operation (.add)"),
    (_t(_D, "multimem.red.sys.min M, 1"), Pos(4, 18), "unknown qualifier '.min'"),
    (_t(_D, "multimem.ld_reduce.release.sys.add r0, M"), Pos(4, 20),
     "unknown qualifier '.release'"),
    (_t(_D, "multimem.ld_reduce.sys.add r0, M"), Pos(4, 2), "a scope needs a strong semantics"),
    (_t(_D, "multimem.st.weak inbox, 1"), Pos(4, 19), "expected a multicast object"),
    (_t(_D, "multimem.st.weak M@1, 1"), Pos(4, 19), "expected a multicast object"),
    (_t(_D, "multimem.ld r0, M"), Pos(4, 2), "unknown instruction 'multimem.ld'"),
    (_t(_D, "red.relaxed.sys.add M, 1"), Pos(4, 22), "'M' is a multicast object"),
    (_t(_D, "ld.relaxed.sys r0, M@1"), Pos(4, 21), "'M' is a multicast object"),
    (_t(_D, "gin.put c0, M, x"), Pos(4, 14), "'M' is a multicast object"),
    (_t(_D, "multimem.st.weak M, 1", "exists (M = 1)"), Pos(5, 9),
     "'M' is a multicast object: the condition names its copies (inbox@k), never the object"),
    (_t(_D + " multicast X = {x@0, x@1};", "multimem.st.weak X, 1",
        "locations [X;] exists (x@0 = 1)"), Pos(5, 12),
     "the locations list names its copies (x@0, x@1)"),
]


@pytest.mark.parametrize("text,pos,message", ERRORS, ids=[m for _, _, m in ERRORS])
def test_errors_give_file_line_col(text: str, pos: Pos, message: str) -> None:
    with pytest.raises(LitmusError) as info:
        parse_litmus(text, "t.litmus")
    err = info.value
    assert message in err.message, err.message
    assert (err.pos.line, err.pos.col) == (pos.line, pos.col), err.message
    assert str(err).startswith(f"t.litmus:{pos.line}:{pos.col}: ")


# ---- round trip of random multimem instructions (hypothesis)

_VALUES = hst.one_of(hst.integers(-5, 5).map(A.Const), hst.sampled_from(["r1", "r2"]).map(A.Reg))


@hst.composite
def _multimem(draw: hst.DrawFn) -> A.Instr:
    kind = draw(hst.sampled_from(["st", "red", "ld_reduce"]))
    mc = A.LocRef(draw(hst.sampled_from(["M", "X"])))
    scope = draw(hst.sampled_from(["cta", "gpu", "sys"]))
    if kind == "st":
        sem = draw(hst.sampled_from(["weak", "relaxed", "release"]))
        return A.MultimemStore(sem, None if sem == "weak" else scope, mc, draw(_VALUES))
    if kind == "red":
        return A.MultimemRed(draw(hst.sampled_from(["relaxed", "release"])), scope, "add", mc,
                             draw(_VALUES))
    sem = draw(hst.sampled_from(["weak", "relaxed", "acquire"]))
    return A.MultimemLdReduce(sem, None if sem == "weak" else scope,
                              draw(hst.sampled_from(["add", "min", "max"])),
                              A.Reg(draw(hst.sampled_from(["r0", "r3"]))), mc)


@settings(max_examples=60, deadline=None)
@given(hst.lists(_multimem(), min_size=1, max_size=4),
       hst.lists(hst.integers(0, 3), min_size=1, max_size=3, unique=True))
def test_random_multimem_round_trips(instrs: list[A.Instr], ranks: list[int]) -> None:
    base = parse_litmus(FULL)
    copies = tuple(A.LocRef("x", k) for k in ranks)
    init = base.init[:2] + (A.MulticastDecl("M", "inbox"), A.MulticastDecl("X", None, copies))
    thread = A.Thread(0, A.Placement(0, 0, 0), tuple(instrs))
    test = A.Test("GIN", "R", None, (), init, (thread,), (), None,
                  A.Condition("exists", A.Cmp("=", A.LocTerm(A.LocRef("x", 0)),
                                              A.ConstTerm(0))))
    again = parse_litmus(print_litmus(test))
    assert again.init == test.init and again.threads[0].instrs == test.threads[0].instrs
