"""The liveness question (gdrcheck/analysis/liveness.py): Hang, Live or Unknown, the same
from both engines.

Expected answers follow the definition of a fair non-terminating execution used by
GenMC's await-termination check and Dartagnan's liveness property (a thread blocked
forever re-reads the coherence-maximal writes; every other thread has ended or is blocked
too), applied by hand to each test below.
"""

from __future__ import annotations

import pytest

from gdrcheck.analysis.check import check_test, prepare
from gdrcheck.analysis.liveness import liveness
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.litmus import parse_litmus

PTX3 = " P0@cta 0,gpu 0,node 0 | P1@cta 1,gpu 0,node 0 | P2@cta 2,gpu 0,node 0 ;\n"

SPIN_RESET = ("PTX spin-reset\n{ f = 0; }\n" + PTX3 +
              " st.relaxed.gpu f, 1 | st.relaxed.gpu f, 0 | LC00: ;\n"
              "                     |                     | ld.relaxed.gpu r1, f ;\n"
              "                     |                     | bne r1, 1, LC00 ;\n"
              "exists (2:r1 = 1)\n")
"""The reset of f may come last in coherence: P2 then re-reads 0 forever (Hang)."""

SPIN_SET = ("PTX spin-set\n{ f = 0; }\n P0@cta 0,gpu 0,node 0 | P1@cta 1,gpu 0,node 0 ;\n"
            " st.relaxed.gpu f, 1 | LC00: ;\n"
            "                     | ld.relaxed.gpu r1, f ;\n"
            "                     | bne r1, 1, LC00 ;\n"
            "exists (1:r1 = 1)\n")
"""The only write of 1 is the last write of f: a fair P1 reads it and leaves (Live)."""

SPIN_COUNT = ("PTX spin-count\n{ f = 0; }\n" + PTX3 +
              " st.relaxed.gpu f, 1 | st.relaxed.gpu f, 0 | LC00: ;\n"
              "                     |                     | add r2, r2, 1 ;\n"
              "                     |                     | ld.relaxed.gpu r1, f ;\n"
              "                     |                     | bne r1, 1, LC00 ;\n"
              "exists (2:r1 = 1)\n")
"""A register that changes in every iteration: the iteration never repeats itself, so it
is no spin and the bound covers nothing past it: never Live (Unknown)."""

WAIT_RESET = ("GIN shmem-reset\n{ x = 0; S = 0; buf@0 = 1; }\n"
              " P0@cta 0,gpu 0,node 0 | P1@cta 0,gpu 1,node 1 ;\n"
              " shmem.put_signal x@1, buf, S, 1, set | st.relaxed.sys S, 0 ;\n"
              "                                      | shmem.wait_until S, ==, 1 ;\n"
              "exists (S@1 = 1)\n")
"""The receiver's reset of S races the sender's put_signal (OpenSHMEM 1.5 §9.8.3: the
signal is a remote write that may land before or after the reset): Hang."""

WAIT_HANDSHAKE = ("GIN shmem-reset-fixed\n{ x = 0; S = 0; R = 0; buf@0 = 1; one@1 = 1; }\n"
                  " P0@cta 0,gpu 0,node 0 | P1@cta 0,gpu 1,node 1 ;\n"
                  " shmem.wait_until R, ==, 1 | st.relaxed.sys S, 0 ;\n"
                  " shmem.put_signal x@1, buf, S, 1, set | shmem.put_signal x@0, one, R, 1, set ;\n"
                  "                                      | shmem.wait_until S, ==, 1 ;\n"
                  "exists (S@1 = 1)\n")
"""The reset is program-ordered before the receiver's own put_signal that the sender
waits for, so the sender's signal comes after it in coherence: Live."""

WAIT_REG_STALE = ("GIN wait-reg-stale\n{ S : signal; T : signal; }\n"
                  " P0@cta 0,gpu 0,node 0 | P1@cta 0,gpu 1,node 1 ;\n"
                  " gin.signal c0, S@1    | gin.read_signal r0, S ;\n"
                  " gin.signal c0, T@1    | gin.signal c0, S@1 ;\n"
                  "                       | gin.wait_signal T, r0+1 ;\n"
                  "exists (1:r0 = 1)\n")
"""A threshold read before the wait (NCCL's waitSignal(S, readSignal(S) + n)): r0 may read
P0's signal of S (1), and T reaches 1 only: P1 then waits for T >= 2 forever (Hang). The
earlier read is not repeated, so it need not read the last write of S (P1's own, after it
in program order): the stuck wait polls its own read only."""

WAIT_REG_HANDSHAKE = ("GIN wait-reg-handshake\n{ R : signal; T : signal; }\n"
                      " P0@cta 0,gpu 0,node 0 | P1@cta 0,gpu 1,node 1 ;\n"
                      " gin.wait_signal R, 1  | gin.read_signal r0, T ;\n"
                      " gin.signal c0, T@1    | gin.signal c0, R@0 ;\n"
                      "                       | gin.wait_signal T, r0+1 ;\n"
                      "exists (1:r0 = 1)\n")
"""NCCL's order (02_alltoall_gin main.cu:82-85: the read before the barrier that precedes
every peer's signal): P0 signals T only after P1's signal of R, which follows P1's read of
T, so r0 is 0 (a read cannot see a write that depends on a later one) and the wait for
T >= 1 is met by the last write of T (Live)."""

CASES = [(SPIN_RESET, "ptx", "Hang"), (SPIN_SET, "ptx", "Live"),
         (SPIN_COUNT, "ptx", "Unknown"), (WAIT_RESET, "nvshmem-api", "Hang"),
         (WAIT_HANDSHAKE, "nvshmem-api", "Live"), (WAIT_REG_STALE, "gin-api", "Hang"),
         (WAIT_REG_HANDSHAKE, "gin-api", "Live")]


@pytest.mark.parametrize("engine", ["smt", "explicit"])
@pytest.mark.parametrize(("text", "model", "want"), CASES,
                         ids=["spin-reset", "spin-set", "spin-count", "wait-reset",
                              "wait-handshake", "wait-reg-stale", "wait-reg-handshake"])
def test_answers(text: str, model: str, want: str, engine: str) -> None:
    test = parse_litmus(text)
    options = CheckOptions(engine=engine)
    _, loaded, chosen = prepare(test, model, (), options)
    ans = liveness(test, loaded, chosen, options)
    assert ans.answer == want, ans
    if want == "Hang":
        assert ans.stuck and ans.witness is not None
    if want == "Unknown":
        assert ans.reason and "--unroll" in ans.reason


def test_the_hang_names_the_stuck_thread_and_the_write_it_reads() -> None:
    test = parse_litmus(SPIN_RESET)
    _, loaded, chosen = prepare(test, "ptx", (), CheckOptions())
    (stuck,) = liveness(test, loaded, chosen).stuck
    assert stuck.site.thread == 2 and stuck.kind == "spin"
    assert "P2 spins forever at row 3: bne r1, 1, LC00" in str(stuck)
    assert stuck.reads == (("f", 0, stuck.reads[0][2]),)
    assert "st.relaxed.gpu f, 0" in stuck.reads[0][2]


def test_check_asks_it_on_request_and_for_liveness_entries() -> None:
    test = parse_litmus(SPIN_RESET)
    plain = check_test(test, "ptx")
    assert plain.live is None
    asked = check_test(test, "ptx", options=CheckOptions(liveness=True))
    assert asked.live == "Hang" and asked.liveness_answer == "Hang"
    entry = parse_litmus(SPIN_RESET.replace("PTX spin-reset\n",
                                            "PTX spin-reset\nLiveness=ptx:Hang\n"))
    assert check_test(entry, "ptx").live == "Hang"


def test_the_api_asserts_liveness() -> None:
    import gdrcheck

    out = gdrcheck.assert_live(SPIN_SET, "ptx")
    assert out.live == "Live"
    with pytest.raises(AssertionError, match="expected Live, got Hang .*P2 spins forever"):
        gdrcheck.assert_live(SPIN_RESET, "ptx")
    with pytest.raises(AssertionError, match="expected Live, got Unknown .*--unroll"):
        gdrcheck.assert_live(SPIN_COUNT, "ptx")
    assert gdrcheck.assert_hangs(SPIN_RESET, "ptx").live == "Hang"
    with pytest.raises(AssertionError, match="expected Hang, got Live"):
        gdrcheck.assert_hangs(SPIN_SET, "ptx")
