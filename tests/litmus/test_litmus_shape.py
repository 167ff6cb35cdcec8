"""The file shape, the init block, metadata and conditions."""

from __future__ import annotations

from pathlib import Path

import pytest

from gdrcheck.errors import Pos
from gdrcheck.litmus import load_litmus, parse_litmus
from gdrcheck.litmus.ast import (
    And,
    BoolConst,
    Cmp,
    Condition,
    ConstTerm,
    CounterDecl,
    Expectation,
    HostDecl,
    InitLoc,
    InitReg,
    LocRef,
    LocTerm,
    Meta,
    Not,
    Or,
    Placement,
    Prop,
    PtxLoad,
    PtxStore,
    Reg,
    RegTerm,
    SignalDecl,
    Thread,
    WindowDecl,
    X86Mem,
    X86Mfence,
    X86Mov,
)
from gdrcheck.litmus.ast import Const as C
from gdrcheck.litmus.ast import Test as LitmusTest


def ptx(cond: str, init: str = "x = 0; y = 0; 0:r0 = 0;", extra: str = "") -> LitmusTest:
    text = (
        "PTX t\n"
        f"{{ {init} }}\n"
        " P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n"
        " st.weak x, 1   | ld.weak r0, x  ;\n"
        f"{extra}{cond}\n"
    )
    return parse_litmus(text, "t.litmus")


def r(thread: int, reg: str) -> RegTerm:
    return RegTerm(thread, reg)


def eq(lhs: RegTerm | LocTerm | ConstTerm, value: int) -> Cmp:
    return Cmp("=", lhs, ConstTerm(value))


def lt(name: str, rank: int | None = None) -> LocTerm:
    return LocTerm(LocRef(name, rank))


# --------------------------------------------------------------------------
# Conditions
# --------------------------------------------------------------------------

COND_CASES: list[tuple[str, Condition]] = [
    ("exists (1:r0 = 1)", Condition("exists", eq(r(1, "r0"), 1))),
    ("exists (P1:r0 == 1)", Condition("exists", eq(r(1, "r0"), 1))),
    ("exists 1:r0 = 1", Condition("exists", eq(r(1, "r0"), 1))),
    ("exists\n(P1:r0 == 1)", Condition("exists", eq(r(1, "r0"), 1))),
    ("~exists (P1:r0 != 1)", Condition("~exists", Cmp("!=", r(1, "r0"), ConstTerm(1)))),
    ("~ exists (P1:r0 = 1)", Condition("~exists", eq(r(1, "r0"), 1))),
    ("forall (x = 2)", Condition("forall", eq(lt("x"), 2))),
    ("exists ([x]=2)", Condition("exists", eq(lt("x"), 2))),
    ("exists (x@1 = 2)", Condition("exists", eq(lt("x", 1), 2))),
    ("exists (x = -1)", Condition("exists", eq(lt("x"), -1))),
    ("exists (P0:r0 == P1:r0)", Condition("exists", Cmp("=", r(0, "r0"), r(1, "r0")))),
    ("exists (true)", Condition("exists", BoolConst(True))),
    ("exists false", Condition("exists", BoolConst(False))),
    ("exists (1:r0=1 /\\ x=1 /\\ 0:r0=0)",
     Condition("exists", And((eq(r(1, "r0"), 1), eq(lt("x"), 1), eq(r(0, "r0"), 0))))),
    ("exists (1:r0=1 \\/ x=1 /\\ 0:r0=0)",
     Condition("exists", Or((eq(r(1, "r0"), 1), And((eq(lt("x"), 1), eq(r(0, "r0"), 0))))))),
    ("exists ((1:r0=1 \\/ x=1) /\\ 0:r0=0)",
     Condition("exists", And((Or((eq(r(1, "r0"), 1), eq(lt("x"), 1))), eq(r(0, "r0"), 0))))),
    ("exists (~1:r0=1 /\\ ~(x=1 \\/ false))",
     Condition("exists", And((Not(eq(r(1, "r0"), 1)),
                              Not(Or((eq(lt("x"), 1), BoolConst(False)))))))),
    ("exists ((1:r0=1 /\\ x=1) /\\ 0:r0=0)",
     Condition("exists", And((And((eq(r(1, "r0"), 1), eq(lt("x"), 1))), eq(r(0, "r0"), 0))))),
]


@pytest.mark.parametrize(("cond", "expected"), COND_CASES, ids=[c for c, _ in COND_CASES])
def test_condition(cond: str, expected: Condition) -> None:
    assert ptx(cond).condition == expected


def test_locations_and_filter() -> None:
    test = ptx("exists (1:r0 = 0)", extra="locations [x; 0:r0; y@1;]\nfilter ~(x = 0)\n")
    assert test.locations == (lt("x"), r(0, "r0"), lt("y", 1))
    assert test.filter == Not(eq(lt("x"), 0))
    assert test.condition == Condition("exists", eq(r(1, "r0"), 0))


def test_empty_locations() -> None:
    assert ptx("exists (true)", extra="locations []\n").locations == ()


def test_condition_position() -> None:
    test = ptx("exists (1:r0 = 0 /\\ x = 1)")
    prop = test.condition.prop
    assert isinstance(prop, And)
    second = prop.args[1]
    assert isinstance(second, Cmp)
    assert second.pos == Pos(5, 21)
    assert second.lhs.pos == Pos(5, 21)
    assert second.rhs.pos == Pos(5, 25)


# --------------------------------------------------------------------------
# Init block
# --------------------------------------------------------------------------


def test_init_forms() -> None:
    test = ptx(
        "exists (true)",
        init="x=0; int y = 1; [z]=2; x@1 = 5; P1:r1=0; 0:r0 = -3; P0:r2 = x; P1:r3=y@1",
    )
    assert test.init == (
        InitLoc(LocRef("x"), 0),
        InitLoc(LocRef("y"), 1),
        InitLoc(LocRef("z"), 2),
        InitLoc(LocRef("x", 1), 5),
        InitReg(1, "r1", 0),
        InitReg(0, "r0", -3),
        InitReg(0, "r2", LocRef("x")),
        InitReg(1, "r3", LocRef("y", 1)),
    )


def test_empty_init() -> None:
    assert ptx("exists (true)", init="").init == ()


def test_gin_declarations() -> None:
    test = ptx(
        "exists (true)",
        init="S : signal; C : counter; h : host = 0; g: host; window W strict = {f};"
        " window V = {f, g2}; window E = {};",
    )
    assert test.init == (
        SignalDecl("S"),
        CounterDecl("C"),
        HostDecl("h", 0),
        HostDecl("g", 0),
        WindowDecl("W", True, ("f",)),
        WindowDecl("V", False, ("f", "g2")),
        WindowDecl("E", False, ()),
    )


def test_x86_registers_are_upper_case() -> None:
    text = "X86 t\n{ 0:eax=1; }\n P0 ;\n MOV ebx,[x] ;\nexists (0:ebx=1 /\\ 0:EAX=1)\n"
    test = parse_litmus(text)
    assert test.init == (InitReg(0, "EAX", 1),)
    assert test.threads[0].instrs == (X86Mov(Reg("EBX"), X86Mem(LocRef("x"))),)
    assert test.condition.prop == And((eq(r(0, "EBX"), 1), eq(r(0, "EAX"), 1)))


# --------------------------------------------------------------------------
# Header, doc string, metadata, thread table
# --------------------------------------------------------------------------


def test_herd_x86_file_shape() -> None:
    text = (
        "X86 SB\n"
        '"Fre PodWR Fre PodWR"\n'
        "Generator=diyone7 (version 7.58)\n"
        "Prefetch=0:x=F,0:y=T,1:y=F,1:x=T\n"
        "Com=Fr Fr\n"
        "Orig=Fre PodWR Fre PodWR\n"
        "{\n"
        "}\n"
        " P0          | P1          ;\n"
        " MOV [x],$1  | MOV [y],$1  ;\n"
        " MFENCE      |             ;\n"
        " MOV EAX,[y] | MOV EAX,[x] ;\n"
        "exists (0:EAX=0 /\\ 1:EAX=0)\n"
    )
    assert parse_litmus(text) == LitmusTest(
        arch="X86",
        name="SB",
        doc="Fre PodWR Fre PodWR",
        meta=(
            Meta("Generator", "diyone7 (version 7.58)"),
            Meta("Prefetch", "0:x=F,0:y=T,1:y=F,1:x=T"),
            Meta("Com", "Fr Fr"),
            Meta("Orig", "Fre PodWR Fre PodWR"),
        ),
        init=(),
        threads=(
            Thread(0, Placement(), (
                X86Mov(X86Mem(LocRef("x")), C(1)),
                X86Mfence(),
                X86Mov(Reg("EAX"), X86Mem(LocRef("y"))),
            )),
            Thread(1, Placement(), (
                X86Mov(X86Mem(LocRef("y")), C(1)),
                X86Mov(Reg("EAX"), X86Mem(LocRef("x"))),
            )),
        ),
        locations=(),
        filter=None,
        condition=Condition("exists", And((eq(r(0, "EAX"), 0), eq(r(1, "EAX"), 0)))),
    )


def test_multiline_doc_with_url_and_comments() -> None:
    text = (
        "(* leading comment *) // and another\n"
        "PTX T (* after the name *)\n"
        '"line one\n'
        'https://example.com/a (* not a comment *)"\n'
        "Source=https://github.com/NVIDIA/nccl/issues/2210, R-GIN-3\n"
        "{ x = 0; // a comment\n"
        "  (* block\n"
        "     comment *) y = 1; }\n"
        " P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ; // header\n"
        " st.weak x, 1   | (* nothing *)  ;\n"
        "                | ld.weak r0, x  ;\n"
        "exists (* c *) (P1:r0 == 0) // end\n"
    )
    test = parse_litmus(text)
    assert test.name == "T"
    assert test.doc == "line one\nhttps://example.com/a (* not a comment *)"
    assert test.meta == (Meta("Source", "https://github.com/NVIDIA/nccl/issues/2210, R-GIN-3"),)
    assert test.sources == ("https://github.com/NVIDIA/nccl/issues/2210", "R-GIN-3")
    assert test.init == (InitLoc(LocRef("x"), 0), InitLoc(LocRef("y"), 1))
    assert test.threads[0].instrs == (PtxStore("weak", None, LocRef("x"), C(1)),)
    assert test.threads[1].instrs == (PtxLoad("weak", None, Reg("r0"), LocRef("x")),)


def test_metadata_keeps_every_key_in_order() -> None:
    text = (
        "GIN t\n"
        "Variant=pcie-ro, nic-atomic-pcie\n"
        "Expect=gin-api:Forbidden,gin-gdaki+pcie-ro+nccl-2.28:Allowed, nvshmem-ibgda:Undefined\n"
        "Hash=abc\n"
        "Variant=gdr-order-none\n"
        "Cycle=Rfe PodRR Fre\n"
        "{ }\n P0 ;\n ;\nexists (true)\n"
    )
    test = parse_litmus(text)
    assert [m.key for m in test.meta] == ["Variant", "Expect", "Hash", "Variant", "Cycle"]
    assert test.variants == ("pcie-ro", "nic-atomic-pcie", "gdr-order-none")
    assert test.expectations == (
        Expectation("gin-api", (), "Forbidden"),
        Expectation("gin-gdaki", ("pcie-ro", "nccl-2.28"), "Allowed"),
        Expectation("nvshmem-ibgda", (), "Undefined"),
    )
    assert test.meta[1].pos == Pos(3, 1)


def test_thread_table_shapes() -> None:
    text = (
        "GIN t\n{ x = 0; }\n"
        " P0@cta 0,gpu 1,node 0 | P1 | P2@host,node 0 | P3@gpu 2 ;\n"
        " st.weak x, 1          |    |                ;\n"
        "                       |    ;\n"
        " ;\n"
        "exists (true)\n"
    )
    test = parse_litmus(text)
    assert [t.placement for t in test.threads] == [
        Placement(cta=0, gpu=1, node=0),
        Placement(),
        Placement(node=0, host=True),
        Placement(gpu=2),
    ]
    assert [len(t.instrs) for t in test.threads] == [1, 0, 0, 0]
    assert [t.name for t in test.threads] == ["P0", "P1", "P2", "P3"]


def test_path_and_source(tmp_path: Path) -> None:
    text = "PTX t\n{ }\n P0 ;\n st.weak x, 1 ;\nexists (x = 1)\n"
    path = tmp_path / "t.litmus"
    path.write_text(text)
    test = load_litmus(path)
    assert test.path == str(path)
    assert test.source == text
    assert parse_litmus(text, "a.litmus").path == "a.litmus"
    # path and source do not take part in equality
    assert test == parse_litmus(text)


def test_parse_is_deterministic_and_ignores_layout() -> None:
    a = ptx("exists (P1:r0 == 0)", init="x = 0;")
    b = parse_litmus(
        "PTX t\n{x=0;}\nP0@cta 0,gpu 0|P1@cta 0,gpu 0;\nst.weak x,1|ld.weak r0,x;\n"
        "exists(1:r0=0)"
    )
    assert a == b


def _conds(prop: Prop) -> int:
    if isinstance(prop, (And, Or)):
        return sum(_conds(p) for p in prop.args)
    if isinstance(prop, Not):
        return _conds(prop.arg)
    return 1


def test_deep_condition() -> None:
    prop = " /\\ ".join(f"(x = {i} \\/ ~(P1:r0 != {i}))" for i in range(50))
    test = ptx(f"exists ({prop})")
    assert _conds(test.condition.prop) == 100


def test_crlf_and_bom(tmp_path: Path) -> None:
    text = "PTX t\r\n\"doc\"\r\nKey=v\r\n{ x=0; }\r\n P0 ;\r\n st.weak x, 1 ;\r\nexists (x = 1)\r\n"
    path = tmp_path / "crlf.litmus"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    test = load_litmus(path)
    assert test == parse_litmus(text.replace("\r\n", "\n"))
    assert test.meta == (Meta("Key", "v"),)
