"""``gdrcheck explain`` of a Hang (issue 27 item 3): the stuck execution in words, in JSON
and in the picture, with the spinning reads and the writes they keep seeing.

The expectations are the tests' own: in spin-reset (tests/analysis/test_liveness.py) P1's
reset of f may come last in coherence, after P0's set, and P2 then re-reads 0 forever."""

from __future__ import annotations

from click.testing import CliRunner

from gdrcheck.analysis.drawing import hang_drawing
from gdrcheck.analysis.explain import explain
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.cli import main
from gdrcheck.litmus import parse_litmus
from gdrcheck.report.explain import explanation_json, format_explanation
from gdrcheck.report.graph import drawing_dot
from tests.analysis.test_liveness import SPIN_RESET, SPIN_SET, WAIT_RESET

LIVE = CheckOptions(liveness=True)


def test_a_spin_hang_names_the_read_the_write_and_why() -> None:
    test = parse_litmus(SPIN_RESET)
    x = explain(test, "ptx", options=LIVE)
    h = x.hang
    assert h is not None and h.answer == "Hang" and h.witness is not None
    (s,) = h.stuck
    assert (s.site.thread, s.kind) == (2, "spin")
    (k,) = s.kept
    by_id = {e.eid: e for e in h.witness.events}
    # the write it keeps reading is P1's reset, the last of f's coherence order, and
    # P0's set of 1 came before it
    assert by_id[k.source].thread == 1 and by_id[k.source].value == 0 and k.value == 0
    assert k.co[-1] == k.source and by_id[k.co[0]].thread < 0
    assert [by_id[w].thread for w in k.overwritten] == [0]
    assert h.others == ["P0 has ended", "P1 has ended"]
    text = format_explanation(x)
    assert "P2 spins forever at row 3 (line 6): bne r1, 1, LC00" in text
    assert "is the last write to f in coherence order" in text
    assert "no later write can change what it reads" in text
    rec = explanation_json(x)["liveness"]
    assert rec["answer"] == "Hang" and rec["stuck"][0]["reads"][0]["from"] == k.source


def test_the_picture_draws_the_spinning_read_and_its_write_in_bold() -> None:
    test = parse_litmus(SPIN_RESET)
    h = explain(test, "ptx", options=LIVE).hang
    assert h is not None
    d = hang_drawing(test, h)
    assert d is not None
    k = h.stuck[0].kept[0]
    assert d.stuck == [k.read]
    assert (k.source, k.read, "rf (forever)") in d.highlight
    assert any(b == k.source and label.startswith("co") for _, b, label in d.highlight)
    dot = drawing_dot(d)
    assert "(forever)" in dot and "Hang (P2 spins forever at row 3)" in dot


def test_a_live_test_and_a_wait_hang() -> None:
    live = explain(parse_litmus(SPIN_SET), "ptx", options=LIVE).hang
    assert live is not None and live.answer == "Live" and not live.stuck
    assert hang_drawing(parse_litmus(SPIN_SET), live) is None
    wait = explain(parse_litmus(WAIT_RESET), "nvshmem-api", options=LIVE).hang
    assert wait is not None and wait.answer == "Hang"
    assert wait.stuck[0].kind == "wait" and any("eventual delivery" in line
                                                 for line in wait.why[0])


def test_without_the_question_explain_says_nothing_of_liveness() -> None:
    assert explain(parse_litmus(SPIN_SET), "ptx").hang is None


def test_the_cli_draws_the_stuck_execution(tmp_path) -> None:  # type: ignore[no-untyped-def]
    f = tmp_path / "spin.litmus"
    f.write_text(SPIN_RESET)
    out = tmp_path / "pic.dot"
    r = CliRunner().invoke(main, ["explain", str(f), "-m", "ptx", "--liveness",
                                  "--graph", str(out)])
    assert r.exit_code == 0, r.output
    assert "Liveness spin-reset ptx: Hang" in r.output
    hang = list(tmp_path.glob("pic-*hang.dot"))
    assert len(hang) == 1 and "(forever)" in hang[0].read_text()
