"""Spin loops: the side-effect-free last iteration of a loop at the unroll bound
(gdrcheck/lower/builder.py ``_spin``; Dartagnan's dynamic spin-loop detection looks at a
loop's last iteration only)."""

from __future__ import annotations

from gdrcheck.litmus import parse_litmus
from gdrcheck.lower import lower
from gdrcheck.lower.program import eval_expr

HEAD = "{ f = 0; c = 0; }\n P0@cta 0,gpu 0,node 0 | P1@cta 1,gpu 0,node 0 ;\n"


def _prog(body: str, unroll: int = 2):
    return lower(parse_litmus("PTX t\n" + HEAD + body + "exists (1:r1 = 1)\n"), unroll)


def test_a_read_only_iteration_is_a_spin() -> None:
    prog = _prog(" st.relaxed.gpu f, 1 | LC00: ;\n"
                 "                     | ld.relaxed.gpu r1, f ;\n"
                 "                     | bne r1, 1, LC00 ;\n")
    (lf,) = prog.stuck_leaves()
    assert lf.spin is not None and lf.spin.site.row == 3 and lf.spin.site.text == "bne r1, 1, LC00"
    (r,) = lf.spin.reads
    assert prog.events[r].loc == "f"
    # r1 is written (by the load) before the branch reads it: the iteration sets it
    # afresh, so it repeats itself whatever the iteration before read
    assert lf.spin.same == ()
    assert prog.bound_cuts() == []


def test_a_register_read_before_it_is_written_must_repeat() -> None:
    """``add r2, r2, 1`` reads r2 before writing it: the iteration repeats itself only
    if r2 ends as it began, which it never does (a counter)."""
    prog = _prog(" st.relaxed.gpu f, 1 | LC00: ;\n"
                 "                     | add r2, r2, 1 ;\n"
                 "                     | ld.relaxed.gpu r1, f ;\n"
                 "                     | bne r1, 1, LC00 ;\n")
    (lf,) = prog.stuck_leaves()
    assert lf.spin is not None
    ((start, end),) = lf.spin.same
    assert (eval_expr(start, {}), eval_expr(end, {})) == (1, 2)


def test_an_iteration_that_writes_is_not_a_spin() -> None:
    prog = _prog(" st.relaxed.gpu f, 1 | LC00: ;\n"
                 "                     | st.relaxed.gpu c, 1 ;\n"
                 "                     | ld.relaxed.gpu r1, f ;\n"
                 "                     | bne r1, 1, LC00 ;\n")
    assert prog.stuck_leaves() == []
    (cut,) = prog.bound_cuts()
    assert cut.loop is not None and cut.loop.row == 4


def test_an_atomic_in_the_iteration_is_a_side_effect() -> None:
    prog = _prog(" st.relaxed.gpu f, 1 | LC00: ;\n"
                 "                     | atom.relaxed.gpu.add r2, c, 1 ;\n"
                 "                     | ld.relaxed.gpu r1, f ;\n"
                 "                     | bne r1, 1, LC00 ;\n")
    assert prog.stuck_leaves() == [] and len(prog.bound_cuts()) == 1


def test_the_safety_answer_is_unchanged() -> None:
    """A spin leaf stays a cut leaf: executions past the bound are discarded, as before."""
    prog = _prog(" st.relaxed.gpu f, 1 | LC00: ;\n"
                 "                     | ld.relaxed.gpu r1, f ;\n"
                 "                     | bne r1, 1, LC00 ;\n")
    assert all(lf.cut for lf in prog.stuck_leaves())
