"""Model-level regressions that the differential tests uncovered."""

from __future__ import annotations

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.options import CheckOptions


def test_sc_orders_barriers() -> None:
    """Under SC a barrier wait follows the arrivals it waits for (PTX ISA bar.sync):
    SB across a CTA barrier cannot read 0 on either side."""
    from gdrcheck.litmus import parse_litmus

    test = parse_litmus(
        "PTX SB+bar\n{ x=0; y=0; }\n"
        " P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n"
        " st.weak x, 1   | st.weak y, 1   ;\n"
        " bar.cta.sync 0 | bar.cta.sync 0 ;\n"
        " ld.weak r0, y  | ld.weak r0, x  ;\n"
        "exists (P0:r0 == 0 \\/ P1:r0 == 0)\n"
    )
    for engine in ("smt", "explicit"):
        assert check_test(test, "sc", options=CheckOptions(engine=engine)).verdict == "Forbidden"
        assert check_test(test, "ptx", options=CheckOptions(engine=engine)).verdict == "Forbidden"
