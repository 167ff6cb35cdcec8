"""The explicit engine's witness lists each location's writes in coherence order."""

from __future__ import annotations

from pathlib import Path

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.litmus import load_litmus

ROOT = Path(__file__).resolve().parents[2]


def test_initial_writes_come_first_in_the_witness_co() -> None:
    # initial writes are co-before every other write (herd's convention; the enumerator
    # builds co as init + a permutation of the others). The list was sorted with a key
    # that read the list being sorted (empty during list.sort): every key was 0 and a
    # GIN witness, whose initial writes have the largest ids, came out with x's initial
    # write co-last (and no fr edge from the stale read of x to the put's write)
    test = load_litmus(ROOT / "litmus" / "gin" / "05-MP+put+signal-otherctx.litmus")
    res = check_test(test, "gin-gdaki", options=CheckOptions(engine="explicit"))
    assert res.witness is not None and res.engine == "explicit"
    init = {e.eid for e in res.witness.events if e.thread < 0}
    for loc, ws in res.witness.co.items():
        assert ws[0] in init, (loc, ws)
    smt = check_test(test, "gin-gdaki", options=CheckOptions(engine="smt"))
    assert smt.witness is not None
    assert {k: v[0] for k, v in smt.witness.co.items()} == {
        k: v[0] for k, v in res.witness.co.items()}
