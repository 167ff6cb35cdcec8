"""The ``weak-poll`` variant of the liveness question (specs/ptx.cat, specs/ptx75.cat;
docs/liveness.md, "Progress model"): a weak load polled forever may keep a stale value.

Expectations from the sources: by default a write becomes visible to a polling thread in
finite time (C++ [intro.progress], which libcu++ follows), so a spin on the only write of
its flag is Live; the PTX ISA §9.7.9.1 "Cache Operators" says a weak ``ld.ca`` load on
another SM "may get stale L1 cache data", so under weak-poll that spin may hang. A
relaxed (strong) poll is not exempt: Live under both."""

from __future__ import annotations

import pytest

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.explain import explain
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.litmus import parse_litmus

WEAK = ("PTX weak-poll\n{ f = 0; }\n P0@cta 0,gpu 0,node 0 | P1@cta 1,gpu 0,node 0 ;\n"
        " st.relaxed.gpu f, 1 | LC00: ;\n"
        "                     | ld r1, f ;\n"
        "                     | bne r1, 1, LC00 ;\n"
        "exists (1:r1 = 1)\n")
STRONG = WEAK.replace("ld r1, f", "ld.relaxed.gpu r1, f").replace("weak-poll", "strong-poll")


@pytest.mark.parametrize("engine", ["smt", "explicit"])
@pytest.mark.parametrize(("text", "model", "want"), [
    (WEAK, "ptx", "Live"), (WEAK, "ptx+weak-poll", "Hang"), (WEAK, "ptx75+weak-poll", "Hang"),
    (STRONG, "ptx", "Live"), (STRONG, "ptx+weak-poll", "Live"),
])
def test_weak_poll(text: str, model: str, want: str, engine: str) -> None:
    res = check_test(parse_litmus(text), model,
                     options=CheckOptions(engine=engine, liveness=True))
    assert res.live == want, (res.live, res.liveness)


def test_the_stale_read_is_explained() -> None:
    h = explain(parse_litmus(WEAK), "ptx+weak-poll", options=CheckOptions(liveness=True)).hang
    assert h is not None and h.answer == "Hang"
    (k,) = h.stuck[0].kept
    assert k.stale and k.value == 0
    assert any("weak-poll" in line for line in h.why[0])
    assert "stale values a weak load keeps" in str(h.stuck[0])
