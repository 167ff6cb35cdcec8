"""The cat parser: every construct, operator precedence, positions, errors."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from lark import Lark

from gdrcheck.cat import parse_cat
from gdrcheck.cat.ast import (
    App,
    Binary,
    Binding,
    Bracket,
    Check,
    Empty,
    Expr,
    IfVariant,
    Include,
    Let,
    LetRec,
    Show,
    Unary,
    VAnd,
    Var,
    VariantDecl,
    VName,
    VNot,
    VOr,
)
from gdrcheck.errors import CatError, Pos

FIXTURES = Path(__file__).parent / "fixtures"

a, b, c, d = Var("a"), Var("b"), Var("c"), Var("d")
po, rf, W, R = Var("po"), Var("rf"), Var("W"), Var("R")


def expr(text: str) -> Expr:
    """The expression bound by ``let x = <text>``."""
    stmt = parse_cat(f"let x = {text}").stmts[0]
    assert isinstance(stmt, Let)
    return stmt.bindings[0].expr


def cat_error(text: str) -> CatError:
    with pytest.raises(CatError) as info:
        parse_cat(text, "m.cat")
    return info.value


# --------------------------------------------------------------------------
# Expressions and precedence
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        # | is looser than ;
        ("a | b ; c", Binary("|", a, Binary(";", b, c))),
        ("a ; b | c", Binary("|", Binary(";", a, b), c)),
        # \ is left-associative
        ("a \\ b \\ c", Binary("\\", Binary("\\", a, b), c)),
        # |, ;, & are right-associative
        ("a | b | c", Binary("|", a, Binary("|", b, c))),
        ("a ; b ; c", Binary(";", a, Binary(";", b, c))),
        ("a & b & c", Binary("&", a, Binary("&", b, c))),
        # herd7's parser: \ is looser than &
        ("a \\ b & c", Binary("\\", a, Binary("&", b, c))),
        ("a & b \\ c", Binary("\\", Binary("&", a, b), c)),
        # ; is looser than \ and &
        ("a ; b \\ c", Binary(";", a, Binary("\\", b, c))),
        ("a & b ; c", Binary(";", Binary("&", a, b), c)),
        # ++ sits between | and ;
        ("a | b ++ c", Binary("|", a, Binary("++", b, c))),
        ("a ++ b ; c", Binary("++", a, Binary(";", b, c))),
        # cartesian product binds tighter than every other infix operator
        ("W * R", Binary("*", W, R)),
        ("W*R", Binary("*", W, R)),
        ("a & W * R", Binary("&", a, Binary("*", W, R))),
        ("W * R | R * W", Binary("|", Binary("*", W, R), Binary("*", R, W))),
        ("(W * R) \\ id", Binary("\\", Binary("*", W, R), Var("id"))),
        # postfix operators
        ("r+ ; s", Binary(";", Unary("+", Var("r")), Var("s"))),
        ("(po | rf)*", Unary("*", Binary("|", po, rf))),
        ("(po | rf)* ; [W]", Binary(";", Unary("*", Binary("|", po, rf)), Bracket(W))),
        ("po*", Unary("*", po)),
        ("po* | rf", Binary("|", Unary("*", po), rf)),
        ("po?", Unary("?", po)),
        ("po^-1", Unary("^-1", po)),
        ("po^-1 ; rf", Binary(";", Unary("^-1", po), rf)),
        ("po+?", Unary("?", Unary("+", po))),
        ("a * b+", Binary("*", a, Unary("+", b))),
        # prefix ~ is looser than postfix operators, tighter than infix ones
        ("~(a|b)", Unary("~", Binary("|", a, b))),
        ("~a | b", Binary("|", Unary("~", a), b)),
        ("~a+", Unary("~", Unary("+", a))),
        ("~a * b", Binary("*", Unary("~", a), b)),
        ("a * ~b", Binary("*", a, Unary("~", b))),
        ("~~a", Unary("~", Unary("~", a))),
        # brackets, atoms
        ("[W]; po; [R]", Binary(";", Bracket(W), Binary(";", po, Bracket(R)))),
        ("[W | R]", Bracket(Binary("|", W, R))),
        ("0", Empty()),
        ("{}", Empty()),
        ("_", Var("_")),
        ("_ * _", Binary("*", Var("_"), Var("_"))),
        ("(a)", a),
        ("((a))", a),
        ("begin a | b end", Binary("|", a, b)),
        # identifiers with - . _ and a trailing prime; no minus operator
        ("po-loc", Var("po-loc")),
        ("a-b", Var("a-b")),
        ("dmb.full | DMB.SY", Binary("|", Var("dmb.full"), Var("DMB.SY"))),
        ("ACQ_REL", Var("ACQ_REL")),
        ("_x1", Var("_x1")),
        ("co'", Var("co'")),
        ("po-loc^-1", Unary("^-1", Var("po-loc"))),
        # function application
        ("domain(r)", App("domain", (Var("r"),))),
        ("range(rf) * W", Binary("*", App("range", (rf,)), W)),
        ("fencerel(MFENCE)", App("fencerel", (Var("MFENCE"),))),
        ("f(a, b | c)", App("f", (a, Binary("|", b, c)))),
        ("f (a)", App("f", (a,))),
        ("f()", App("f", ())),
        ("f(a)+", Unary("+", App("f", (a,)))),
        ("f(g(a))", App("f", (App("g", (a,)),))),
    ],
)
def test_expression(text: str, tree: Expr) -> None:
    assert expr(text) == tree


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        # postfix * before an operator, a closing bracket or the end: closure
        ("(r*)", Unary("*", Var("r"))),
        ("[r*]", Bracket(Unary("*", Var("r")))),
        ("f(r*, s)", App("f", (Unary("*", Var("r")), Var("s")))),
        ("r* \\ s", Binary("\\", Unary("*", Var("r")), Var("s"))),
        ("r*?", Unary("?", Unary("*", Var("r")))),
        ("r*^-1", Unary("^-1", Unary("*", Var("r")))),
        # infix * before anything that starts an operand: product
        ("r * (s)", Binary("*", Var("r"), Var("s"))),
        ("r * [s]", Binary("*", Var("r"), Bracket(Var("s")))),
        ("r * _", Binary("*", Var("r"), Var("_"))),
        ("r * 0", Binary("*", Var("r"), Empty())),
        ("r * {}", Binary("*", Var("r"), Empty())),
        ("r * begin s end", Binary("*", Var("r"), Var("s"))),
        ("r * f(s)", Binary("*", Var("r"), App("f", (Var("s"),)))),
    ],
)
def test_star_is_postfix_unless_an_operand_follows(text: str, tree: Expr) -> None:
    assert expr(text) == tree


def test_postfix_star_before_a_keyword_or_a_comment() -> None:
    model = parse_cat(
        "let x = po*\n"
        "let y = rf* (* a comment *)\n"
        "acyclic po* as c\n"
        "~acyclic rf*\n"
        "let z = a* and w = b*\n"
    )
    assert model.stmts == (
        Let((Binding("x", None, Unary("*", po)),)),
        Let((Binding("y", None, Unary("*", rf)),)),
        Check("acyclic", False, Unary("*", po), "c"),
        Check("acyclic", True, Unary("*", rf), None),
        Let((Binding("z", None, Unary("*", a)), Binding("w", None, Unary("*", b)))),
    )


def test_expression_may_span_lines() -> None:
    assert expr("addr | data\n\t| ctrl; [W]\n\t| po") == Binary(
        "|",
        Var("addr"),
        Binary("|", Var("data"), Binary("|", Binary(";", Var("ctrl"), Bracket(W)), po)),
    )


# --------------------------------------------------------------------------
# Instructions
# --------------------------------------------------------------------------


def test_let_forms() -> None:
    model = parse_cat(
        "let x = a\n"
        "let x = a and y = b\n"
        "let f(p, q) = p ; q\n"
        "let g() = 0\n"
        "let rec x = a | x ; x and y = x\n"
    )
    assert model.stmts == (
        Let((Binding("x", None, a),)),
        Let((Binding("x", None, a), Binding("y", None, b))),
        Let((Binding("f", ("p", "q"), Binary(";", Var("p"), Var("q"))),)),
        Let((Binding("g", (), Empty()),)),
        LetRec(
            (
                Binding("x", None, Binary("|", a, Binary(";", Var("x"), Var("x")))),
                Binding("y", None, Var("x")),
            )
        ),
    )


@pytest.mark.parametrize(
    ("text", "check"),
    [
        ("acyclic po", Check("acyclic", False, po, None)),
        ("irreflexive po", Check("irreflexive", False, po, None)),
        ("empty po", Check("empty", False, po, None)),
        ("acyclic po | rf as sc", Check("acyclic", False, Binary("|", po, rf), "sc")),
        ("~acyclic po as cyc", Check("acyclic", True, po, "cyc")),
        ("~ irreflexive po", Check("irreflexive", True, po, None)),
        ("~empty po", Check("empty", True, po, None)),
        ("flag ~empty po as race", Check("empty", True, po, "race", flag=True)),
        ("flag acyclic po as x-y.z", Check("acyclic", False, po, "x-y.z", flag=True)),
        ("empty (po) as axiom-Coherence", Check("empty", False, po, "axiom-Coherence")),
        ("empty ~po", Check("empty", False, Unary("~", po), None)),
    ],
)
def test_checks(text: str, check: Check) -> None:
    assert parse_cat(text).stmts == (check,)


def test_include_show_unshow_variant() -> None:
    model = parse_cat(
        'include "cos.cat"\n'
        "show po | rf as com\n"
        "show po, rf\n"
        "show po\n"
        "unshow po, rf\n"
        'variant "pcie-ro" "Relaxed Ordering on data windows"\n'
        "variant nccl-2.28\n"
    )
    assert model.stmts == (
        Include("cos.cat"),
        Show(("com",), Binary("|", po, rf)),
        Show(("po", "rf")),
        Show(("po",)),
        Show(("po", "rf"), unshow=True),
        VariantDecl("pcie-ro", "Relaxed Ordering on data windows"),
        VariantDecl("nccl-2.28", ""),
    )


def test_if_variant_forms() -> None:
    model = parse_cat(
        'if variant "ro" then let x = a else let x = b end\n'
        'if "ro" then let x = a end\n'
        'if "ro" let x = a else end\n'  # herd writes no "then"
        "if ro then end\n"
    )
    let_a, let_b = Let((Binding("x", None, a),)), Let((Binding("x", None, b),))
    assert model.stmts == (
        IfVariant(VName("ro"), (let_a,), (let_b,)),
        IfVariant(VName("ro"), (let_a,), ()),
        IfVariant(VName("ro"), (let_a,), ()),
        IfVariant(VName("ro"), (), ()),
    )


def test_nested_if_and_else_if() -> None:
    model = parse_cat('if "a" acyclic po else if "b" acyclic rf end end')
    inner = IfVariant(VName("b"), (Check("acyclic", False, rf, None),), ())
    assert model.stmts == (IfVariant(VName("a"), (Check("acyclic", False, po, None),), (inner,)),)


@pytest.mark.parametrize(
    ("cond", "tree"),
    [
        ('"a"', VName("a")),
        ("pcie-ro", VName("pcie-ro")),
        ('variant "a" || variant "b"', VOr(VName("a"), VName("b"))),
        ('"a" || "b" || "c"', VOr(VOr(VName("a"), VName("b")), VName("c"))),
        ('"a" || "b" && "c"', VOr(VName("a"), VAnd(VName("b"), VName("c")))),
        ('("a" || "b") && "c"', VAnd(VOr(VName("a"), VName("b")), VName("c"))),
        ('not "a" && b', VAnd(VNot(VName("a")), VName("b"))),
        ('~"a"', VNot(VName("a"))),
        ('not ("a" || b)', VNot(VOr(VName("a"), VName("b")))),
        ('not not "a"', VNot(VNot(VName("a")))),
    ],
)
def test_variant_conditions(cond: str, tree: object) -> None:
    stmt = parse_cat(f"if {cond} then end").stmts[0]
    assert isinstance(stmt, IfVariant)
    assert stmt.cond == tree


# --------------------------------------------------------------------------
# Titles, comments
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ('"x86 TSO"\nacyclic po', "x86 TSO"),
        ("PTX\nacyclic po", "PTX"),
        ("X86 TSO\nacyclic po", "TSO"),  # herd: architecture, then name
        ('AArch64 "ARMv8 AArch64"\nacyclic po', "ARMv8 AArch64"),
        ('(* leading comment *)\n"SC"\nacyclic po', "SC"),
        ("acyclic po", None),
        ("", None),
    ],
)
def test_title(text: str, title: str | None) -> None:
    assert parse_cat(text).title == title


def test_comments() -> None:
    model = parse_cat(
        "(* one *) let x = a (* two (* nested *) still comment *) | b // to eol | c\n"
        "# herd line comment\n"
        "(**) (***) (* multi\nline *) acyclic x"
    )
    assert model.stmts == (
        Let((Binding("x", None, Binary("|", a, b)),)),
        Check("acyclic", False, Var("x"), None),
    )


def test_comment_markers_inside_strings_are_text() -> None:
    model = parse_cat('include "a//b(*c.cat"')
    assert model.stmts == (Include("a//b(*c.cat"),)


def test_model_keeps_path_and_source() -> None:
    text = "acyclic po"
    model = parse_cat(text, "x.cat")
    assert model.path == "x.cat"
    assert model.source == text


def test_every_construct_fixture() -> None:
    path = FIXTURES / "every_construct.cat"
    model = parse_cat(path.read_text(), str(path))
    assert model.title == "every construct"
    kinds = [type(s).__name__ for s in model.stmts]
    assert kinds == [
        "Include", "VariantDecl", "VariantDecl", "Let", "Let", "Let", "Let", "LetRec", "Let",
        "IfVariant", "IfVariant", "Check", "Check", "Check", "Check", "Check", "Show", "Show",
    ]  # fmt: skip
    assert model.stmts[-3] == Check(
        "empty", True, Unary("+", Binary("|", po, rf)), "undefined-race", flag=True
    )


# --------------------------------------------------------------------------
# Positions
# --------------------------------------------------------------------------


def test_positions_are_where_each_node_starts() -> None:
    model = parse_cat(
        '"t"\nlet x =  a | [W] ; f(b)\n  flag ~empty 0 as u\nif "v" include "i.cat" end\n'
    )
    let, check, if_ = model.stmts
    assert isinstance(let, Let) and isinstance(check, Check) and isinstance(if_, IfVariant)
    assert let.pos == Pos(2, 1)
    binding = let.bindings[0]
    assert binding.pos == Pos(2, 5)
    union = binding.expr
    assert isinstance(union, Binary) and union.pos == Pos(2, 10)
    assert union.left.pos == Pos(2, 10)
    seq = union.right
    assert isinstance(seq, Binary) and seq.pos == Pos(2, 14)
    assert isinstance(seq.left, Bracket) and seq.left.pos == Pos(2, 14)
    assert seq.left.arg.pos == Pos(2, 15)
    assert isinstance(seq.right, App) and seq.right.pos == Pos(2, 20)
    assert seq.right.args[0].pos == Pos(2, 22)
    assert check.pos == Pos(3, 3)
    assert check.expr.pos == Pos(3, 15)
    assert if_.pos == Pos(4, 1)
    assert isinstance(if_.cond, VName) and if_.cond.pos == Pos(4, 4)
    assert if_.then[0].pos == Pos(4, 8)


def test_positions_survive_comments() -> None:
    model = parse_cat("(* a\n  comment *) let x = (* c *) po")
    stmt = model.stmts[0]
    assert isinstance(stmt, Let)
    assert stmt.pos == Pos(2, 14)
    assert stmt.bindings[0].expr.pos == Pos(2, 30)


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "pos", "message"),
    [
        ("let x = a b", Pos(1, 11), "unexpected name 'b'"),
        ("let x = \n", Pos(1, 8), "unexpected end of file; expected an expression"),
        ("let x = (a | b", Pos(1, 15), "unexpected end of file; expected ')'"),
        ("let x = a\nlet = b", Pos(2, 5), "unexpected '='; expected 'rec' or a name"),
        ("acyclic po as", Pos(1, 14), "unexpected end of file; expected a name"),
        ("acyclic po as let", Pos(1, 15), "unexpected keyword 'let'; expected a name"),
        ("let x = a $ b", Pos(1, 11), "unexpected character '$'"),
        ("let 1x = a", Pos(1, 5), "unexpected character '1'"),
        ("include foo", Pos(1, 9), "unexpected name 'foo'; expected a string \"...\""),
        ("let x = {a}", Pos(1, 10), "unexpected name 'a'; expected '}'"),
        ('if "x" then\n  let a = b\n', Pos(2, 12), "expected an instruction, 'else' or 'end'"),
        ("let x = a * b * c", Pos(1, 15), "non-associative"),
        ("(* never\nclosed", Pos(1, 1), "unterminated comment"),
        ("let f(p, p) = p", Pos(1, 5), "parameter 'p' appears twice in 'f'"),
        ("acyclic po\n  )", Pos(2, 3), "unexpected ')'"),
    ],
)
def test_syntax_errors(text: str, pos: Pos, message: str) -> None:
    err = cat_error(text)
    assert err.path == "m.cat"
    assert err.pos == pos
    assert message in err.message
    assert err.source == text
    assert err.render().startswith(f"m.cat:{pos.line}:{pos.col}: ")


def test_misspelt_first_instruction_is_not_a_title() -> None:
    err = cat_error("acylic po\nacyclic rf")
    assert (err.pos, err.message) == (Pos(1, 1), "unknown instruction 'acylic'")
    assert cat_error("acylic po | rf").pos == Pos(1, 11)


def test_unterminated_string() -> None:
    err = cat_error('include "a.cat\nacyclic po (* "x" *)')
    assert (err.pos, err.message) == (Pos(1, 9), "unexpected character '\"'")


def test_juxtaposition_gets_a_hint() -> None:
    assert "a function is applied as f(x)" in cat_error("let x = domain r").message


@pytest.mark.parametrize(
    ("text", "pos", "construct"),
    [
        ("procedure p(x) = acyclic x end", Pos(1, 1), "procedure"),
        ("let x = a\ncall p(x)", Pos(2, 1), "call"),
        ("forall e in E do empty e end", Pos(1, 1), "forall"),
        ("let x = match a with || {} -> 0 end", Pos(1, 9), "match"),
        ("with co from generate_orders(W)", Pos(1, 1), "with ... from"),
        ("enum scopes = 'cta || 'gpu", Pos(1, 1), "enum"),
        ("let x = 'cta", Pos(1, 9), "tag"),
        ("let x = fun y -> y", Pos(1, 9), "fun (an anonymous function)"),
        ("let x = let y = a in y", Pos(1, 9), "let"),  # 'let' inside an expression
        ("let x = a in x", Pos(1, 11), "let ... in (a local binding)"),
        ("instructions R[{'a}]", Pos(1, 1), "instructions"),
        ("let x = try a with b", Pos(1, 9), "try"),
        ("let rec f(x) = x", Pos(1, 9), "let rec' with parameters"),
    ],
)
def test_unsupported_constructs(text: str, pos: Pos, construct: str) -> None:
    err = cat_error(text)
    assert err.pos == pos
    assert construct in err.message
    if construct != "let":
        assert err.message.startswith("unsupported cat construct '")
        assert "gdrcheck reads a subset of cat, see docs/cat.md" in err.message


def test_unsupported_message_exact() -> None:
    err = cat_error("procedure p(x) = acyclic x end")
    assert err.message == (
        "unsupported cat construct 'procedure' (gdrcheck reads a subset of cat, see docs/cat.md)"
    )
    assert str(err).splitlines()[0] == f"m.cat:1:1: {err.message}"


def test_earlier_syntax_error_wins_over_later_unsupported_construct() -> None:
    err = cat_error("let x = )\nprocedure p() = end")
    assert err.pos == Pos(1, 9)


def test_keywords_are_reserved() -> None:
    for word in ("let", "acyclic", "as", "then", "end", "variant", "not", "with", "in"):
        with pytest.raises(CatError):
            parse_cat(f"let x = {word}")


# --------------------------------------------------------------------------
# The grammar itself
# --------------------------------------------------------------------------


def test_grammar_has_no_lalr_conflicts(caplog: pytest.LogCaptureFixture) -> None:
    grammar = (Path(__file__).parents[2] / "gdrcheck" / "cat" / "cat.lark").read_text()
    with caplog.at_level(logging.DEBUG, logger="lark"):
        Lark(grammar, parser="lalr", lexer="basic", debug=True)
    assert not [r for r in caplog.records if "conflict" in r.getMessage().lower()]
