"""The polarity analysis (gdrcheck/cat/polarity.py): which closures reach only antitone
uses (the axioms, through monotone operators), and so may be encoded one-sided."""

from __future__ import annotations

from gdrcheck.cat import ast as C
from gdrcheck.cat.parser import parse_cat
from gdrcheck.cat.polarity import one_sided_closures


def _sites(text: str, empty: frozenset[str] = frozenset()) -> tuple[dict[str, int], frozenset[int]]:
    """The closure nodes of each binding (by binding name) and the one-sided ones."""
    model = parse_cat('"t"\n' + text)
    names: dict[str, int] = {}

    def walk(e: C.Expr, where: str) -> None:
        if isinstance(e, C.Unary):
            if e.op in ("+", "*"):
                names[where] = id(e)
            walk(e.arg, where)
        elif isinstance(e, C.Binary):
            walk(e.left, where)
            walk(e.right, where)
        elif isinstance(e, C.Bracket):
            walk(e.arg, where)
        elif isinstance(e, C.App):
            for a in e.args:
                walk(a, where)

    def stmts(ss: tuple[C.Stmt, ...]) -> None:
        for st in ss:
            if isinstance(st, (C.Let, C.LetRec)):
                for b in st.bindings:
                    walk(b.expr, b.name)
            elif isinstance(st, C.IfVariant):
                stmts(st.then)
                stmts(st.otherwise)

    stmts(model.stmts)
    return names, one_sided_closures(model.stmts, empty)


def test_a_closure_under_axioms_only_is_one_sided() -> None:
    names, ok = _sites("let hb = (po | rf)+\nacyclic hb as A\nirreflexive hb; fr as B\n"
                       "empty (hb & co^-1) as C\n")
    assert names["hb"] in ok


def test_a_closure_under_a_difference_is_exact() -> None:
    # the right of a difference flips the sign: a larger hb makes x smaller, and a check
    # on x could then pass where it fails for hb itself
    names, ok = _sites("let hb = (po | rf)+\nlet x = co \\ hb\nempty x as A\n")
    assert names["hb"] not in ok
    # under two differences the sign is + again
    names, ok = _sites("let hb = (po | rf)+\nlet x = co \\ (co \\ hb)\nempty x as A\n")
    assert names["hb"] in ok


def test_a_complement_flips_the_sign() -> None:
    names, ok = _sites("let hb = (po | rf)+\nempty co & ~hb as A\n")
    assert names["hb"] not in ok


def test_a_flag_or_a_negated_check_makes_a_closure_exact() -> None:
    names, ok = _sites("let hb = (po | rf)+\nacyclic hb as A\nflag ~empty hb as f\n")
    assert names["hb"] not in ok
    names, ok = _sites("let hb = (po | rf)+\n~empty hb as A\n")
    assert names["hb"] not in ok


def test_a_flag_that_is_empty_for_the_test_does_not() -> None:
    text = ("let hb = (po | rf)+\nacyclic hb as A\n"
            "flag ~empty ([RESET]; (loc \\ hb); [W]) as f\n")
    names, ok = _sites(text)
    assert names["hb"] not in ok
    names, ok = _sites(text, frozenset({"RESET"}))
    assert names["hb"] in ok


def test_functions_and_variants_are_followed() -> None:
    # through a function's body, at its application
    names, ok = _sites("let hb = (po | rf)+\nlet cut(r) = co \\ r\nempty cut(hb) as A\n")
    assert names["hb"] not in ok
    # both branches of a variant condition count, whichever the run takes
    names, ok = _sites('let hb = (po | rf)+\nlet x = hb\nif "v" then let x = co \\ hb end\n'
                       "acyclic x as A\n")
    assert names["hb"] not in ok


def test_let_rec_reaches_its_fixpoint() -> None:
    names, ok = _sites("let hb = (po | rf)+\nlet rec a = hb | (a; co) and b = co \\ a\n"
                       "empty b as A\n")
    assert names["hb"] not in ok
    names, ok = _sites("let hb = (po | rf)+\nlet rec a = hb | (a; co)\nacyclic a as A\n")
    assert names["hb"] in ok


def test_the_shipped_models_causality_is_one_sided() -> None:
    # ptx75-cause.cat and gin-cause.cat spell ppcb so that cause-base occurs monotonically
    # (their comments): with no signal reset and no mbarrier in a test, every closure of
    # gin-api is one-sided; with them, the flags that read causality keep it exact
    from gdrcheck.cat.loader import load_model

    stmts = load_model("gin-api").stmts
    every = one_sided_closures(stmts, frozenset({"RESET", "MBINIT", "MBAR", "aob"}))
    assert len(every) >= 3
    assert len(one_sided_closures(stmts)) < len(every)
