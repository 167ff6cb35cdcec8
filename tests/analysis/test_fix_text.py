"""``gdrcheck fix`` edits the user's file (issue 24 item 5): every line the repair does not
change is byte-for-byte the user's (comments, ``Expect=`` lines, blank lines, the column
layout, the condition's ``1:r0`` spelling), the hunks name the user's line numbers, and
the edited text parses to the edited test (gdrcheck/analysis/fix_text.py).

The verdicts: litmus/gin/14 (Allowed, R-GIN-8: nothing says the put has read its source)
repaired as litmus/gin/15 does (a counter and its wait, R-GIN-9) or litmus/gin/13 (a
flush, R-GIN-8, NVIDIA/nccl@f0e545a5 docs/userguide/source/api/device_gin.rst:58-61).
"""

from __future__ import annotations

import difflib
import random
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from gdrcheck.analysis.fix import fix
from gdrcheck.analysis.fix_text import edit_source
from gdrcheck.analysis.strengthen import Edit, apply_edits, candidates
from gdrcheck.cli import main
from gdrcheck.litmus import ast as A
from gdrcheck.litmus import load_litmus, parse_litmus
from gdrcheck.report.fix import repair_diff

ROOT = Path(__file__).resolve().parents[2]
LIB = ROOT / "litmus"

# gin/14 as a user might write it: comments in and after the table, a blank line, odd
# column widths (the columns are not aligned), the condition spelled without blanks
USER = """GIN reuse+put-noflush-user
"gin/14 as typed by hand."
Expect=gin-api:Allowed,gin-gdaki:Allowed
Source=R-GIN-8 (litmus/gin/14)

(* the sender reuses buf *)
{ x = 0; buf@0 = 0;  S : signal; }   (* one signal *)
 P0@cta 0,gpu 0,node 0 | P1@cta 0,gpu 1,node 1 ;
 st.weak buf, 1   (* first value *) |   gin.wait_signal S, 1 ;
 gin.put c0, x@1, buf, sig=S|ld.relaxed.sys r0, x;
  st.weak buf, 2 | ;

exists (1:r0=2)  (* the overwritten value *)
"""


def _unchanged_outside_hunks(before: str, after: str) -> list[tuple[int, int]]:
    """The (first, last) user lines each hunk replaces; asserts every other line of
    ``after`` is the user's line, byte for byte (line endings included)."""
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    changed = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2]
        else:
            changed.append((i1 + 1, i2))
    return changed


def test_a_flush_goes_into_the_users_table_and_nothing_else_changes() -> None:
    test = parse_litmus(USER, "user.litmus")
    r = fix(test, ["gin-api", "gin-gdaki"], all_minimal=True)
    assert r.status == "fixed" and r.repairs[0].cost == 2
    flush = next(rep for rep in r.repairs if [e.entry for e in rep.edits] == ["flush-reuse"])
    # a new row, laid out as the row it goes before (its indentation, its cells' widths)
    assert flush.text == USER.replace("  st.weak buf, 2 | ;\n",
                                      "  gin.flush c0   | ;\n  st.weak buf, 2 | ;\n")
    assert _unchanged_outside_hunks(USER, flush.text) == [(11, 10)]
    assert repair_diff(test, flush) == ["@@ -10,0 +11 @@", "+  gin.flush c0   | ;"]
    assert flush.verdicts == {"gin-api": "Forbidden", "gin-gdaki": "Forbidden"}
    assert not flush.reprinted


def test_a_counter_and_its_wait_keep_the_users_layout() -> None:
    test = parse_litmus(USER, "user.litmus")
    r = fix(test, ["gin-api", "gin-gdaki"], all_minimal=True)
    count = next(rep for rep in r.repairs if [e.entry for e in rep.edits] == ["counter-wait"])
    # the init block gets the counter after its last item; the put its counter in its
    # own cell (the row grows: the columns were not aligned); the wait a new row
    assert _unchanged_outside_hunks(USER, count.text) == [(7, 7), (10, 10)]
    lines = count.text.splitlines()
    assert lines[6] == "{ x = 0; buf@0 = 0;  S : signal; C0_1 : counter; }   (* one signal *)"
    assert lines[9] == " gin.put c0, x@1, buf, sig=S, ctr=C0_1 |ld.relaxed.sys r0, x;"
    assert lines[10] == "  gin.wait_counter C0_1, 1 | ;"
    assert lines[-1] == "exists (1:r0=2)  (* the overwritten value *)"
    assert re.findall(r"@@ -(\d+)", "\n".join(repair_diff(test, count))) == ["7", "10"]


def test_crlf_line_endings_are_kept() -> None:
    text = USER.replace("\n", "\r\n")
    test = parse_litmus(text, "user.litmus")
    (e,) = [e for e in candidates(test) if e.entry == "flush-reuse"]
    out = edit_source(test, [e])
    assert out == text.replace("\r\n  st.weak buf, 2",
                               "\r\n  gin.flush c0   | ;\r\n  st.weak buf, 2")


def test_an_aligned_column_is_widened_in_every_row() -> None:
    test = load_litmus(LIB / "gin/14-reuse+put-noflush.litmus")
    (e,) = [e for e in candidates(test) if e.entry == "counter-wait"]
    out = edit_source(test, [e])
    assert out is not None
    lines = out.splitlines()
    start = next(k for k, x in enumerate(lines) if x.startswith(" P0@"))
    table = lines[start:start + 5]
    assert table[3].startswith(" gin.wait_counter")
    assert len({line.index("|") for line in table}) == 1  # still aligned
    assert len({line.index(";") for line in table}) == 1


def _sets(test: A.Test, rng: random.Random) -> list[list[Edit]]:
    es = candidates(test)
    out = [[e] for e in es]
    for _ in range(3):
        pick: list[Edit] = []
        used: set[tuple[int, int, str]] = set()
        for e in rng.sample(es, min(len(es), 6)):
            if not used & set(e.slots):
                pick.append(e)
                used.update(e.slots)
        if pick:
            out.append(pick)
    return out


FILES = sorted(str(p.relative_to(LIB)) for p in LIB.rglob("*.litmus")
               if p.parts[len(LIB.parts)] in ("gin", "nvshmem", "deepep", "ptx75", "multimem"))


@pytest.mark.parametrize("name", FILES)
def test_every_catalogued_edit_of_the_library_is_an_edit_of_its_text(name: str) -> None:
    """Each candidate edit alone and random sets of them: the edited text parses to the
    edited test, and only the init block and the table change (the header, doc strings,
    metadata, comments before the block and the condition are the user's)."""
    test = load_litmus(LIB / name)
    assert test.source is not None and test.layout is not None
    first = test.source[: test.layout.init[0]]
    last = test.source[test.layout.condition:]
    for es in _sets(test, random.Random(name)):
        out = edit_source(test, es)
        assert out is not None, [(e.entry, e.thread, e.index) for e in es]
        assert out.startswith(first) and out.endswith(last)
        again = parse_litmus(out, name)
        want = apply_edits(test, es)
        assert again.threads == want.threads and again.init == want.init
        assert again.condition == test.condition and again.meta == test.meta


def test_write_edits_the_file_in_place(tmp_path: Path) -> None:
    path = tmp_path / "user.litmus"
    path.write_bytes(USER.encode())
    r = CliRunner().invoke(main, ["fix", str(path), "-m", "gin-api,gin-gdaki", "--write"])
    assert r.exit_code == 0, r.output
    after = path.read_bytes().decode()
    assert _unchanged_outside_hunks(USER, after) in ([(11, 10)], [(7, 7), (10, 10)])
    assert "@@ -10,0 +11 @@" in r.output or "@@ -7 +7 @@" in r.output


def test_an_insertion_at_the_end_of_a_thread_fills_its_blank_cell() -> None:
    test = load_litmus(LIB / "gin/14-reuse+put-noflush.litmus")
    assert test.source is not None
    fence = Edit("fence.sc", 5, 1, 2, "insert", A.PtxFence("sc", "sys"), "insert fence.sc.sys")
    out = edit_source(test, [fence])
    assert out == test.source.replace(
        " st.weak buf, 2              |                       ;",
        " st.weak buf, 2              | fence.sc.sys          ;")


def test_a_test_without_its_own_text_is_reprinted_and_says_so() -> None:
    import dataclasses

    from gdrcheck.analysis.fix_text import repair_text

    test = load_litmus(LIB / "gin/14-reuse+put-noflush.litmus")
    (e,) = [e for e in candidates(test) if e.entry == "flush-reuse"]
    # a test rebuilt from a parsed one (one thread less): its layout is not its own
    other = dataclasses.replace(test, threads=test.threads[:1])
    assert edit_source(other, [e]) is None
    text, reprinted = repair_text(other, [e])
    assert reprinted and "Expect=" not in text and "gin.flush c0" in text
