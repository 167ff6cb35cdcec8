"""mbarrier initialisation and programmatic dependent launch in the PTX dialect
(docs/ptx-pdl-mbarrier.md): ``mbarrier.init``, ``fence.mbarrier_init.release.cluster``,
``griddepcontrol.*`` and the placement ``grid N``: parsing, round trip, features and
file:line:col errors."""

from __future__ import annotations

import pytest

from gdrcheck.errors import LitmusError, Pos
from gdrcheck.litmus import ast as A
from gdrcheck.litmus import parse_litmus
from gdrcheck.litmus.features import test_features
from gdrcheck.litmus.printer import print_litmus

FULL = """PTX T
{
x = 0;
mb : mbarrier 2;
}
 P0@cta 0,gpu 0,grid 0                 | P1@cta 1,gpu 0,grid 1 ;
 mbarrier.init.shared::cta.b64 mb, 2   | griddepcontrol.wait   ;
 fence.mbarrier_init.release.cluster   | ld.weak r0, x         ;
 mbarrier.init mb                      |                       ;
 griddepcontrol.launch_dependents      |                       ;
exists (P1:r0 == 0)
"""


def test_the_syntax_parses_into_the_ast() -> None:
    t = parse_litmus(FULL)
    p0, p1 = t.threads
    assert p0.placement.grid == 0 and p1.placement.grid == 1
    init, fence, init2, trigger = p0.instrs
    assert isinstance(init, A.PtxMbarInit) and init.mbar.name == "mb" and init.count == 2
    assert isinstance(init2, A.PtxMbarInit) and init2.count is None
    assert isinstance(fence, A.PtxFence) and fence.kind == "mbarrier_init.release.cluster"
    assert trigger == A.PtxGridDep("launch_dependents", trigger.pos)
    wait, _ = p1.instrs
    assert isinstance(wait, A.PtxGridDep) and wait.action == "wait"


def test_round_trip() -> None:
    t = parse_litmus(FULL)
    text = print_litmus(t)
    assert "grid 1" in text and "fence.mbarrier_init.release.cluster" in text
    assert "mbarrier.init mb, 2" in text and "griddepcontrol.launch_dependents" in text
    again = parse_litmus(text)
    assert print_litmus(again) == text
    assert [th.placement for th in again.threads] == [th.placement for th in t.threads]
    assert [type(i) for th in again.threads for i in th.instrs] == [
        type(i) for th in t.threads for i in th.instrs]


def test_features_are_ptx75() -> None:
    assert "PTX75" in test_features(parse_litmus(FULL))
    plain = parse_litmus("PTX T\n{ x = 0; }\n P0@cta 0,gpu 0,grid 0 | P1@cta 1,gpu 0,grid 1 ;\n"
                         " st.weak x, 1 | ld.weak r0, x ;\nexists (P1:r0 == 0)\n")
    assert test_features(plain) == {"PTX", "PTX75"}  # grids alone need ptx75's gdw


def _t(rows: str, init: str = "x = 0; mb : mbarrier 1;") -> str:
    return f"PTX T\n{{ {init} }}\n{rows}exists (true)\n"


ERRORS = [
    (_t(" P0 ;\n mbarrier.init x ;\n"), Pos(4, 16), "expected an mbarrier"),
    (_t(" P0 ;\n mbarrier.init.relaxed mb ;\n"), Pos(4, 15), "unknown qualifier '.relaxed'"),
    (_t(" P0 ;\n mbarrier.init mb, 1, 2 ;\n"), Pos(4, 23), "mbarrier.init mb{, N}"),
    (_t(" P0 ;\n fence.mbarrier_init.cta ;\n"), Pos(4, 2),
     "fence.mbarrier_init.release.cluster"),
    (_t(" P0 ;\n griddepcontrol.sync ;\n"), Pos(4, 2), "griddepcontrol.launch_dependents or"),
    (_t(" P0 ;\n griddepcontrol.wait x ;\n"), Pos(4, 22), "takes 0 operands"),
    (_t(" P0@cta 0,gpu 0,grid 0 | P1@cta 0,gpu 0,grid 1 ;\n ld.weak r0, x | ld.weak r1, x ;\n"),
     Pos(3, 26), "a CTA belongs to one grid"),
    (_t(" P0@cta 0,gpu 0,grid 0 | P1@cta 1,gpu 1,grid 1 ;\n ld.weak r0, x | ld.weak r1, x ;\n"),
     Pos(3, 26), "the grids of one stream run on one GPU"),
    (_t(" P0@cta 0,gpu 0,grid x ;\n ld.weak r0, x ;\n"), Pos(3, 17), "unknown placement"),
]


@pytest.mark.parametrize("text,pos,message", ERRORS, ids=[m for _, _, m in ERRORS])
def test_errors_give_file_line_col(text: str, pos: Pos, message: str) -> None:
    with pytest.raises(LitmusError) as err:
        parse_litmus(text, "t.litmus")
    assert message in str(err.value)
    assert (err.value.pos.line, err.value.pos.col) == (pos.line, pos.col)
