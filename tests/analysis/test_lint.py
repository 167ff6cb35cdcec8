"""Lints (gdrcheck/analysis/lint.py, issue 24 item 6): each fires on the mistake it names,
at its position, and on nothing in the library.

What the mistakes mean comes from the lowering: a location written without ``@rank`` is
the issuing thread's own copy (gdrcheck/lower/gin.py, ``World.loc``: ``k = ref.rank if
ref.rank is not None else rank``; docs/lowering.md), a bundled ``sig=S`` goes to its put's
peer (``_signal``: ``world.loc(spec.target, o.peer)``), ``gin.wait_signal S, N`` blocks
until S >= N (docs/lowering.md, the wait's assumption).
"""

from __future__ import annotations

from pathlib import Path

from gdrcheck.analysis.lint import LINTS, lint_test
from gdrcheck.analysis.suite import litmus_files
from gdrcheck.litmus import load_litmus, parse_litmus

ROOT = Path(__file__).resolve().parents[2]


def lints(text: str) -> list[tuple[str, int, int]]:
    return [(x.code, x.pos.line, x.pos.col) for x in lint_test(parse_litmus(text, "t.litmus"))]


MISTAKES = """GIN mistakes
{ x = 0; a@0 = 1; unused = 3; S : signal; T : signal; C : counter; }
 P0@cta 0,gpu 0,node 0      | P1@cta 0,gpu 1,node 1 ;
 gin.put c0, x, a, sig=S    | gin.wait_signal S, 2  ;
 gin.signal c0, S           | gin.wait_signal T, 1  ;
 gin.wait_counter C, 1      | ld.relaxed.sys r0, x  ;
exists (1:r0 = 0)
"""


def test_each_mistake_at_its_position() -> None:
    assert lints(MISTAKES) == [
        ("L002", 2, 19),  # unused = 3: declared, never accessed
        ("L001", 4, 2),  # gin.put c0, x, ...: x is rank 0's own x
        ("L004", 4, 31),  # waits for 2: the put (and its sig=S) went to rank 0
        ("L001", 5, 2),  # gin.signal c0, S: S@0
        ("L003", 5, 31),  # T: nothing sends it
        ("L003", 6, 2),  # C: no put counts on it
    ]
    found = lint_test(parse_litmus(MISTAKES, "t.litmus"))
    put = found[1].message
    assert put.startswith("`gin.put c0, x, a, sig=S` writes x on P0's own rank 0"), put
    assert "write x@K" in put and "(or x@0 if this rank is meant)" in put
    assert "sends at most 0 signals to S on rank 1" in found[2].message
    assert found[3].message.startswith("`gin.signal c0, S` signals S on P0's own rank 0")


FIXED = """GIN fixed
{ x = 0; a@0 = 1; S : signal; C : counter; }
 P0@cta 0,gpu 0,node 0            | P1@cta 0,gpu 1,node 1 ;
 gin.put c0, x@1, a, sig=S, ctr=C | gin.wait_signal S, 2  ;
 gin.signal c0, S@1               | ld.relaxed.sys r0, x  ;
 gin.wait_counter C, 1            |                       ;
exists (1:r0 = 0)
"""


def test_the_fixed_test_has_none() -> None:
    # the bundled sig=S goes to the put's peer (rank 1), gin.signal names S@1: 2 signals
    # reach rank 1's S; the put counts on P0's own C
    assert lints(FIXED) == []


def test_a_deliberate_self_target_is_written_with_its_rank() -> None:
    # a signal to oneself plus its wait (NVIDIA/nccl f0e545a5): S@0 from rank 0 is meant
    text = """GIN self
{ S : signal; }
 P0@cta 0,gpu 0,node 0 ;
 gin.signal c0, S@0    ;
 gin.wait_signal S, 1  ;
exists (S@0 = 1)
"""
    assert lints(text) == []
    assert lints(text.replace("S@0    ;", "S      ;")) == [("L001", 4, 2)]


def test_a_hang_that_liveness_expects_is_not_flagged() -> None:
    hang = MISTAKES.replace("GIN mistakes\n", "GIN mistakes\nLiveness=gin-api:Hang\n")
    assert "L004" not in [code for code, _, _ in lints(hang)]


def test_loops_turn_the_count_off() -> None:
    # a put in a loop may send more than its one line says: no count is claimed
    looped = """GIN loop
{ x = 0; a@0 = 1; S : signal; }
 P0@cta 0,gpu 0,node 0         | P1@cta 0,gpu 1,node 1 ;
 LC00:                         | gin.wait_signal S, 3  ;
 gin.put c0, x@1, a, sig=S     |                       ;
 add r1, r1, 1                 |                       ;
 bne r1, 3, LC00               |                       ;
exists (x@1 = 0)
"""
    assert lints(looped) == []
    assert lints(looped.replace(" bne r1, 3, LC00  ", " add r2, r1, 0    ")) == [
        ("L004", 4, 34)]


def test_conditions_on_what_nothing_writes() -> None:
    text = """X86 SBx
{ x = 0; y = 0; z = 0; 0:EBX = 0; }
 P0          | P1          ;
 MOV [x],$1  | MOV [y],$1  ;
 MOV EAX,[y] | MOV EAX,[x] ;
exists (0:EAX=0 /\\ 1:EAX=0 /\\ 0:EBX=0 /\\ z=0)
"""
    # 0:EBX is initialised, never written; z is declared, never written (L006, not L002:
    # the condition names it)
    assert lints(text) == [("L005", 6, 31), ("L006", 6, 42)]


def test_the_library_has_no_lints() -> None:
    # every file of the library declares only what it uses: nothing to say about them
    found = {}
    for path in litmus_files([ROOT / "litmus"]):
        got = lint_test(load_litmus(path))
        if got:
            found[path] = [(x.code, x.message) for x in got]
    assert not found, found


def test_every_code_is_documented() -> None:
    doc = (ROOT / "docs" / "output.md").read_text(encoding="utf-8")
    for code, what in LINTS.items():
        assert f"`{code}`" in doc, code
        assert what
