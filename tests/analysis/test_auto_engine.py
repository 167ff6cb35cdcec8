"""The portfolio engine ``auto``: the enumerator for tiny candidate spaces, z3 beyond,
with the verdicts of both."""

from __future__ import annotations

from pathlib import Path

import pytest

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.options import AUTO_EXPLICIT_BOUND, CheckOptions
from gdrcheck.engine.explicit import candidate_bound
from gdrcheck.gen.families import family
from gdrcheck.litmus import load_litmus, parse_litmus
from gdrcheck.lower import lower

ROOT = Path(__file__).resolve().parents[2]


def test_tiny_tests_go_to_the_enumerator() -> None:
    sb = load_litmus(str(ROOT / "litmus/classic/SB.litmus"))
    assert candidate_bound(lower(sb)) == 4  # two reads, two sources each
    res = check_test(sb, "x86tso", options=CheckOptions(engine="auto"))
    assert (res.engine, res.verdict) == ("explicit", "Allowed")


@pytest.mark.parametrize("size,engine", [(4, "explicit"), (6, "smt")])
def test_the_bound(size: int, engine: str) -> None:
    name, text = family("SB", size, "x86")
    test = parse_litmus(text, f"{name}.litmus")
    assert (candidate_bound(lower(test)) <= AUTO_EXPLICIT_BOUND) == (engine == "explicit")
    res = check_test(test, "x86tso", options=CheckOptions(engine="auto"))
    assert res.engine == engine
    assert res.verdict == check_test(test, "x86tso").verdict == "Allowed"
