"""What the front end rejects (docs/input-rules.md): each rule at its line and column, and
the legal input next to it still accepted."""

from __future__ import annotations

from pathlib import Path

import pytest

from gdrcheck.errors import LitmusError
from gdrcheck.litmus import load_litmus, parse_litmus
from gdrcheck.litmus.parser import MAX_NESTING


def ptx(init: str = "x = 0;", p0: str = "st.relaxed.gpu x, 1",
        p1: str = "ld.relaxed.gpu r0, x", cond: str = "exists (1:r0 = 0)",
        extra: str = "") -> str:
    return ("PTX T\n"
            f"{{ {init} }}\n"
            " P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n"
            f" {p0} | {p1} ;\n"
            f"{extra}{cond}\n")


def error(text: str) -> LitmusError:
    with pytest.raises(LitmusError) as info:
        parse_litmus(text, "t.litmus")
    return info.value


def where(err: LitmusError) -> str:
    return f"{err.pos.line}:{err.pos.col}"


# ---- the condition names only what the test writes or declares


def test_a_register_its_thread_never_writes_is_an_error() -> None:
    err = error(ptx(cond="exists (1:r0 = 0 /\\ 1:r5 = 0)"))
    assert where(err) == "5:21"
    assert err.message == ("register 1:r5 in the condition is never written by P1 (nor "
                           "initialised in the init block)")


def test_a_register_of_another_thread_is_an_error() -> None:
    err = error(ptx(cond="exists (0:r0 = 0)"))  # P1 writes r0, P0 does not
    assert where(err) == "5:9"
    assert "register 0:r0 in the condition is never written by P0" in err.message


def test_registers_written_by_loads_atomics_moves_and_gin_reads_count() -> None:
    parse_litmus(ptx(p1="atom.relaxed.gpu.add r1, x, 1", cond="exists (1:r1 = 0)"))
    parse_litmus(ptx(p1="mov r2, 3", cond="exists (1:r2 = 3)"))
    parse_litmus(ptx(p1="add r3, r3, 1", cond="exists (1:r3 = 1)"))
    gin = ("GIN G\n{ x = 0; S : signal; }\n P0@cta 0,gpu 0,node 0 | P1@cta 0,gpu 1,node 1 ;\n"
           " gin.signal c0, S@1 | gin.read_signal r4, S ;\nexists (1:r4 = 1)\n")
    parse_litmus(gin)


def test_a_register_initialised_in_the_init_block_may_be_observed() -> None:
    parse_litmus(ptx(init="x = 0; 0:r7 = 4;", cond="exists (0:r7 = 4)"))


def test_x86_registers_written_by_xchg_xadd_and_cmpxchg_count() -> None:
    text = ("X86 T\n{ x = 0; }\n P0 | P1 ;\n LOCK XADD [x],EBX | LOCK CMPXCHG [x],ECX ;\n"
            "exists (0:EBX = 0 /\\ 1:EAX = 0)\n")
    parse_litmus(text)
    err = error(text.replace("1:EAX", "1:EDX"))
    assert "register 1:EDX in the condition is never written by P1" in err.message


def test_an_undeclared_location_is_an_error() -> None:
    err = error(ptx(cond="exists (1:r0 = 0 /\\ zz = 0)"))
    assert where(err) == "5:21"
    assert err.message == ("location zz in the condition is neither declared in the init "
                           "block nor accessed by any instruction")


def test_a_location_declared_by_its_use_in_an_instruction_is_accepted() -> None:
    # y is in no init block: an instruction's use declares it (herd's convention).
    parse_litmus(ptx(init="", p0="st.relaxed.gpu y, 1", p1="ld.relaxed.gpu r0, y",
                     cond="exists (y = 1 /\\ 1:r0 = 0)"))


def test_the_locations_list_and_the_filter_follow_the_same_rule() -> None:
    err = error(ptx(extra="locations [x; zz]\n"))
    assert where(err) == "5:15"
    assert "location zz in the locations list" in err.message
    err = error(ptx(extra="filter (1:r9 = 0)\n"))
    assert "register 1:r9 in the filter" in err.message


# ---- the init block


def test_a_location_initialised_twice_is_an_error_at_the_second() -> None:
    err = error(ptx(init="x = 0; y = 1; x = 2;"))
    assert where(err) == "2:17"
    assert err.message == "x is initialised twice in the init block (first at 2:3)"


def test_different_ranks_of_one_name_are_different_locations() -> None:
    gin = ("GIN G\n{ x@0 = 1; x@1 = 2; }\n P0@cta 0,gpu 0,node 0 | P1@cta 0,gpu 1,node 1 ;\n"
           " ld.relaxed.sys r0, x | ld.relaxed.sys r0, x ;\nexists (0:r0 = 1)\n")
    parse_litmus(gin)
    err = error(gin.replace("x@1 = 2", "x@0 = 2"))
    assert where(err) == "2:12" and "x@0 is initialised twice" in err.message


def test_a_register_initialised_twice_is_an_error() -> None:
    err = error(ptx(init="x = 0; 1:r0 = 1; 1:r0 = 2;"))
    assert where(err) == "2:20"
    assert "register 1:r0 is initialised twice" in err.message


# ---- registers where a location is expected


@pytest.mark.parametrize(("p1", "col"), [
    ("ld.relaxed.gpu r0, r1", 39),     # r1: the register syntax
    ("st.relaxed.gpu r0, 1", 35),
    ("atom.relaxed.gpu.add r2, r0, 1", 45),
    ("red.relaxed.gpu.add r0, 1", 40),
])
def test_a_register_where_ptx_expects_a_location_is_an_error(p1: str, col: int) -> None:
    text = ptx(p1=f"ld.relaxed.gpu r0, x ;\n {'':15} | {p1}")
    err = error(text)
    assert where(err) == f"5:{col}"
    assert "is a register, but" in err.message and "needs a location here" in err.message


def test_a_destination_register_is_a_register_whatever_its_name() -> None:
    text = ptx(p1="ld.relaxed.gpu flag, x ;\n                 | ld.relaxed.gpu r0, flag",
               cond="exists (1:r0 = 0)")
    err = error(text)
    assert "'flag' is a register" in err.message


def test_a_register_move_without_qualifiers_is_still_a_move() -> None:
    # 'ld r0, r1' (no .sem, no .scope) is Dat3M's register move, not a load.
    parse_litmus(ptx(p1="ld.relaxed.gpu r1, x ;\n                 | ld r0, r1"))


# ---- metadata positions


def test_expect_entries_carry_their_own_column() -> None:
    text = ptx(extra="").replace("PTX T\n", "PTX T\nExpect=ptx:Allowed, sc:Forbidden\n")
    test = parse_litmus(text)
    cols = [(e.model, e.pos.line, e.pos.col) for e in test.expectations]
    assert cols == [("ptx", 2, 8), ("sc", 2, 21)]


def test_variant_names_carry_their_column() -> None:
    text = ptx().replace("PTX T\n", "PTX T\nVariant= a-b , c\n")
    assert [(v, p.col) for v, p in parse_litmus(text).variant_items()] == [("a-b", 10),
                                                                         ("c", 16)]


# ---- no traceback: deep nesting, bytes that are not UTF-8


@pytest.mark.parametrize("cond", [
    "~" * 1000 + "1:r0 = 0",
    "(" * 600 + "1:r0 = 0 /\\ " + " 1:r0 = 0) /\\ " * 599 + "1:r0 = 0)",
    "(" * 600 + "1:r0 = 0 \\/ " + " 1:r0 = 0) \\/ " * 599 + "1:r0 = 0)",
])
def test_a_condition_nested_too_deeply_is_refused_at_its_position(cond: str) -> None:
    err = error(ptx(cond=f"exists {cond}"))
    assert err.pos.line == 5 and err.pos.col > MAX_NESTING
    assert "the condition is nested too deeply" in err.message


def test_nesting_up_to_the_limit_is_accepted() -> None:
    parse_litmus(ptx(cond="exists " + "~" * MAX_NESTING + "1:r0 = 0"))
    parse_litmus(ptx(cond="exists " + "(" * 2000 + "1:r0 = 0" + ")" * 2000))  # parentheses
    parse_litmus(ptx(cond="exists (" + " \\/ ".join(["1:r0 = 0"] * 3000) + ")"))  # wide


def test_a_deep_filter_is_refused_too() -> None:
    err = error(ptx(extra="filter " + "~" * 500 + "1:r0 = 0\n"))
    assert "the filter is nested too deeply" in err.message


def test_bytes_that_are_not_utf8_are_reported_at_line_and_column(tmp_path: Path) -> None:
    f = tmp_path / "t.litmus"
    f.write_bytes(ptx(cond="exists (1:r0 = 0) (* caf\xe9 *)").encode("latin-1"))
    with pytest.raises(LitmusError) as info:
        load_litmus(f)
    err = info.value
    assert (err.pos.line, err.pos.col) == (5, 25)
    assert "not UTF-8 text: byte 0xe9" in err.message
    assert err.render().startswith(f"{f}:5:25: ")


@pytest.mark.parametrize(("old", "new", "where"), [
    ("x = 0;", "x = " + "9" * 5000 + ";", "2:7"),
    ("r0 = 0)", "r0 = -" + "9" * 5000 + ")", "5:16"),
    ("P1@cta 1", "P1@cta " + "1" * 5000, "3:22"),
])
def test_an_integer_too_long_to_convert_is_an_error(old: str, new: str, where: str) -> None:
    # Python refuses to convert an integer of more than 4,300 digits (a ValueError).
    err = error(ptx().replace(old, new, 1))
    assert f"{err.pos.line}:{err.pos.col}" == where
    assert err.message == "integer too long (5000 digits; at most 100)"


def test_an_integer_of_100_digits_is_accepted() -> None:
    parse_litmus(ptx(init="x = " + "9" * 100 + ";"))



# ---- setp and selp on the dialect's integer registers (litmus-format.md §7.2)


def _second_row(cell: str) -> str:
    return ("PTX T\n{ x = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n"
            " st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, x ;\n"
            f"                     | {cell} ;\n"
            "exists (1:r0 = 0)\n")


@pytest.mark.parametrize(("cell", "qualifier", "legal"), [
    ("setp.hs.u32 r1, r0, 3", "hs", "setp.ge.u32 r1, r0, 3"),
    ("setp.lt.f32 r1, r0, 3", "f32", "setp.lt.s32 r1, r0, 3"),
    ("setp.gtu r1, r0, 3", "gtu", "setp.gt r1, r0, 3"),
    ("setp.eq.or.s32 r1, r0, 3", "or", "setp.eq.s32 r1, r0, 3"),
    ("selp.f64 r1, r0, 3, 1", "f64", "selp.b64 r1, r0, 3, 1"),
])
def test_setp_and_selp_refuse_what_integer_registers_cannot_hold(
        cell: str, qualifier: str, legal: str) -> None:
    err = error(_second_row(cell))
    assert f"'.{qualifier}'" in err.message
    assert where(err) == f"5:{24 + cell.index('.' + qualifier)}"  # at the qualifier
    parse_litmus(_second_row(legal), "t.litmus")  # the integer form is accepted
