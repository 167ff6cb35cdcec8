"""Integer division of values read rounds toward zero in both engines, as PTX's
``div.s32`` does ("d = a / b", the C quotient: PTX ISA §9.7.1 Integer Arithmetic
Instructions, div) and as the lowering folds constants (lower/program.py eval_binop).
z3's own integer division floors (-7 / 2 = -4), which the z3 engine once used."""

from __future__ import annotations

import pytest

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.options import DEFAULT_OPTIONS
from gdrcheck.litmus import parse_litmus
from gdrcheck.lower.program import eval_binop

TEXT = """PTX div-neg
{ x = -7; y = 2; }
 P0@cta 0,gpu 0 ;
 ld.relaxed.gpu r0, x ;
 ld.relaxed.gpu r2, y ;
 div r1, r0, r2 ;
 div r3, r0, -2 ;
 div r4, r2, r0 ;
exists (0:r1 = R1 /\\ 0:r3 = R3 /\\ 0:r4 = 0)
"""


@pytest.mark.parametrize("engine", ["smt", "explicit"])
@pytest.mark.parametrize(("r1", "r3", "verdict"), [(-3, 3, "Allowed"), (-4, 4, "Forbidden"),
                                                   (-4, 3, "Forbidden")])
def test_division_of_values_read_rounds_toward_zero(engine: str, r1: int, r3: int,
                                                    verdict: str) -> None:
    test = parse_litmus(TEXT.replace("R1", str(r1)).replace("R3", str(r3)), "div.litmus")
    res = check_test(test, "ptx", options=DEFAULT_OPTIONS.overlay(engine=engine))
    assert str(res.verdict) == verdict


def test_constant_folding_rounds_toward_zero_too() -> None:
    assert [eval_binop("div", a, b) for a, b in [(-7, 2), (7, -2), (-7, -2), (7, 2), (5, 0)]] \
        == [-3, -3, 3, 3, 0]
