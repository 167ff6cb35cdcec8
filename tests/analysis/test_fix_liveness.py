"""``gdrcheck fix --liveness`` (issue 27 item 3): the cheapest change after which a test
that may hang is Live, its condition still holding.

Expected repairs are the reports' own fixes: a barrier between the receiver's zeroing and
the sender's put_signal (hao-ai-lab/DistCA PR #75, litmus/hangs/distca-signal-memset+fixed);
a waiter spinning for its own ticket (microsoft/mscclpp PR #553,
litmus/hangs/mscclpp-devsem+fixed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gdrcheck.analysis.fix_liveness import fix_liveness, moves
from gdrcheck.analysis.strengthen import apply_edits
from gdrcheck.litmus import load_litmus, parse_litmus
from gdrcheck.report.fix import fix_json, format_fix
from tests.analysis.test_liveness import SPIN_SET, WAIT_RESET

ROOT = Path(__file__).resolve().parents[2]
HANGS = ROOT / "litmus" / "hangs"


def test_a_reset_racing_a_signal_is_repaired_by_a_barrier() -> None:
    test = parse_litmus(WAIT_RESET)
    r = fix_liveness(test, ["nvshmem-api"])
    assert r.status == "fixed" and r.goal == "live"
    (rep,) = r.repairs
    assert {(e.entry, e.thread, e.index) for e in rep.edits} == {
        ("barrier", 0, 0), ("barrier", 1, 1)}  # before the put_signal; after the zeroing
    assert rep.verdicts == {"nvshmem-api": "Allowed, Live"}
    assert r.before == {"nvshmem-api": "Allowed, Hang"}
    text = format_fix(test, r)
    assert "Goal Live under every target" in text and "shmem.barrier_all" in text
    assert fix_json(test, r)["goal"] == "live"


def test_a_live_test_needs_nothing() -> None:
    r = fix_liveness(parse_litmus(SPIN_SET), ["ptx"])
    assert r.status == "already" and not r.repairs


def test_the_ticket_repair_is_the_fixed_semaphore() -> None:
    """The move alone, without the search: the buggy acquire with the ticket repair in
    both waiters is the fixed test's program (the same instructions)."""
    buggy = load_litmus(str(HANGS / "mscclpp-devsem+buggy.litmus"))
    fixed = load_litmus(str(HANGS / "mscclpp-devsem+fixed.litmus"))
    tickets = [m for m in moves(buggy) if m.edits[0].entry == "ticket-wait"]
    assert [m.edits[0].thread for m in tickets] == [0, 1]
    repaired = apply_edits(buggy, [e for m in tickets for e in m.edits])
    strip = [[type(x).__name__ + str({k: v for k, v in vars(x).items() if k != "pos"})
              for x in th.instrs] for t in (repaired, fixed) for th in t.threads]
    assert strip[:3] == strip[3:]


@pytest.mark.slow
def test_the_semaphore_hang_is_repaired_by_tickets() -> None:
    """Slow (each candidate set is a three-thread liveness check of seconds)."""
    buggy = load_litmus(str(HANGS / "mscclpp-devsem+buggy.litmus"))
    r = fix_liveness(buggy, ["ptx"])
    assert r.status == "fixed"
    assert {(e.entry, e.thread) for e in r.repairs[0].edits} == {
        ("ticket-wait", 0), ("ticket-wait", 1)}
