"""The endpoint demand analysis (gdrcheck/cat/demand.py): which pairs of each binding can
reach a check, on small models whose answer is worked out by hand."""

from __future__ import annotations

from typing import Any

from gdrcheck.cat import ast as C
from gdrcheck.cat.demand import demands
from gdrcheck.cat.parser import parse_cat
from gdrcheck.cat.values import RelV, SetV

# events: 1, 2 memory writes; 3 a fence; 4 a read
BASE: dict[str, Any] = {
    "W": SetV({1: True, 2: True}),
    "R": SetV({4: True}),
    "F": SetV({3: True}),
    "M": SetV({1: True, 2: True, 4: True}),
    "EMPTYSET": SetV(),
    "po": RelV({(1, 2): True, (1, 3): True, (2, 3): True, (1, 4): True, (2, 4): True,
                (3, 4): True}),
    "rf": RelV({(1, 4): True, (2, 4): True}),
    "co": RelV({(1, 2): True, (2, 1): True}),
}


def _bindings(text: str) -> tuple[dict[str, Any], dict[str, int]]:
    model = parse_cat('"t"\n' + text)
    ids = {b.name: id(b) for st in model.stmts if isinstance(st, C.Let) for b in st.bindings}
    d = demands(model.stmts, BASE)
    return {name: d.bindings.get(i) for name, i in ids.items()}, ids


def test_a_bracketed_sequence_needs_its_middle_between_the_brackets() -> None:
    got, _ = _bindings("let hb = po\nempty ([W]; hb; [W]) \\ co as A\n")
    assert got["hb"] == (frozenset({1, 2}), frozenset({1, 2}))


def test_irreflexive_needs_the_inverse_of_the_other_sides_pairs() -> None:
    # irreflexive rf; hb: hb from rf's targets (the read) back to rf's sources (the writes),
    # and only to those hb can reach at all: 1 has no po-predecessor, so 2 alone
    got, _ = _bindings("let hb = po\nirreflexive rf; hb as A\n")
    assert got["hb"] == (frozenset({4}), frozenset({2}))


def test_empty_and_acyclic_need_every_pair() -> None:
    got, _ = _bindings("let hb = po\nacyclic hb as A\n")
    assert got["hb"] is None
    got, _ = _bindings("let hb = po\nempty hb as A\n")
    assert got["hb"] is None


def test_an_intersection_is_cut_by_the_other_side() -> None:
    got, _ = _bindings("let hb = po\nlet x = co & hb\nacyclic x as A\n")
    assert got["hb"] == (frozenset({1, 2}), frozenset({1, 2}))


def test_a_sequence_with_an_empty_side_needs_nothing() -> None:
    got, _ = _bindings("let hb = po\nempty [EMPTYSET]; hb as A\n")
    assert got["hb"] == (frozenset(), frozenset())


def test_every_use_adds_to_the_demand() -> None:
    got, _ = _bindings("let hb = po\nempty ([W]; hb; [W]) \\ co as A\nacyclic hb as B\n")
    assert got["hb"] is None


def test_a_function_is_followed_through_its_body() -> None:
    got, _ = _bindings("let hb = po\nlet only-w(r) = [W]; r; [W]\n"
                       "empty only-w(hb) \\ co as A\n")
    assert got["hb"] == (frozenset({1, 2}), frozenset({1, 2}))


def test_a_let_rec_is_needed_whole_and_so_is_what_it_reads() -> None:
    got, _ = _bindings("let hb = po\nlet rec x = hb | (x; x)\nempty ([W]; x; [W]) as A\n")
    assert got["hb"] is None


def test_variants_count_both_ways() -> None:
    got, _ = _bindings('let hb = po\nlet x = [W]; hb; [W]\nif "v" then let x = hb end\n'
                       "empty x \\ co as A\n")
    assert got["hb"] is None
