"""Lowering of mbarrier initialisation and programmatic dependent launch
(gdrcheck/lower/ptx.py's module doc, docs/ptx-pdl-mbarrier.md): the init is a weak
write of the CTA's copy, the init fence a restricted fence, griddepcontrol a fence or a
marker, and ``gdw`` links every event of an earlier grid to each wait of a later one."""

from __future__ import annotations

import pytest

from gdrcheck.errors import InputError
from gdrcheck.litmus import parse_litmus
from gdrcheck.lower import lower
from gdrcheck.lower.program import Event, Program


def _lower(init: str, rows: str, cond: str = "exists (true)", arch: str = "PTX") -> Program:
    return lower(parse_litmus(f"{arch} T\n{{ {init} }}\n{rows}{cond}\n"))


def _by_label(prog: Program, text: str) -> list[Event]:
    return [e for e in prog.events if e.label == text]


def test_init_is_a_weak_write_of_the_ctas_copy() -> None:
    prog = _lower("mb : mbarrier 2;",
                  " P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n"
                  " mbarrier.init mb | mbarrier.init mb, 2 ;\n"
                  " fence.mbarrier_init.release.cluster | ;\n")
    w0, = _by_label(prog, "mbarrier.init mb")
    w1, = _by_label(prog, "mbarrier.init mb, 2")
    assert (w0.kind, w0.loc, w0.value) == ("W", "mb:cta0", 0)
    assert w1.loc == "mb:cta1"
    assert {"WEAK", "MBINIT", "SHARED"} <= w0.tags and "MBAR" not in w0.tags
    f, = _by_label(prog, "fence.mbarrier_init.release.cluster")
    # a release restricted to the inits: not REL, so release-pattern does not take it
    assert f.kind == "F" and "MBINITF" in f.tags and "REL" not in f.tags and f.scope == "cluster"


def test_an_init_count_other_than_the_declared_one_is_an_error() -> None:
    with pytest.raises(InputError, match="declared with 2 arrivals per phase"):
        _lower("mb : mbarrier 2;", " P0 ;\n mbarrier.init mb, 3 ;\n")


def test_gdw_links_every_earlier_grid_to_each_later_wait() -> None:
    prog = _lower("x = 0;",
                  " P0@cta 0,gpu 0,grid 0 | P1@cta 1,gpu 0,grid 1 | P2@cta 2,gpu 0,grid 2 ;\n"
                  " st.weak x, 1 | griddepcontrol.wait | griddepcontrol.wait ;\n"
                  " griddepcontrol.launch_dependents | ld.weak r0, x | ;\n")
    st, = _by_label(prog, "st.weak x, 1")
    trig, = _by_label(prog, "griddepcontrol.launch_dependents")
    w1, w2 = sorted(_by_label(prog, "griddepcontrol.wait"), key=lambda e: e.thread)
    ld, = _by_label(prog, "ld.weak r0, x")
    assert "GDLAUNCH" in trig.tags and "GDWAIT" in w1.tags
    gdw = prog.relations["gdw"]
    assert {(st.eid, w1.eid), (trig.eid, w1.eid), (st.eid, w2.eid), (trig.eid, w2.eid),
            (w1.eid, w2.eid),
            (ld.eid, w2.eid)} == gdw  # grid 2 waits for grids 0 and 1; no initial writes


def test_no_grids_no_gdw() -> None:
    prog = _lower("x = 0;", " P0 | P1 ;\n griddepcontrol.wait | st.weak x, 1 ;\n")
    assert prog.relations["gdw"] == set()


def test_gin_tests_get_gdw_too() -> None:
    prog = _lower("x = 0;",
                  " P0@cta 0,gpu 0,node 0,grid 0 | P1@cta 1,gpu 0,node 0,grid 1 ;\n"
                  " st.weak x, 1 | griddepcontrol.wait ;\n", arch="GIN")
    st, = _by_label(prog, "st.weak x, 1")
    w, = _by_label(prog, "griddepcontrol.wait")
    assert prog.relations["gdw"] == {(st.eid, w.eid)}
