"""Laws of the gpudirect model on its library (docs/laws.md, docs/models.md "gpudirect"):
the platform-attribute variants only add orders (gdr-order-all is stronger than
gdr-order-owner, which is stronger than the guide's default), and a flush only removes
final states."""

from __future__ import annotations

from pathlib import Path

import pytest

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.engine.result import State
from gdrcheck.litmus import load_litmus, parse_litmus
from gdrcheck.litmus.ast import Test as LitmusTest

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted((ROOT / "litmus" / "gpudirect").glob("*.litmus"))


def states(test: LitmusTest, model: str) -> set[State]:
    res = check_test(test, model, options=CheckOptions(states=True))
    assert res.verdict != "Unknown", res.reason
    return set(res.states or [])


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_attribute_variants_only_strengthen(path: Path) -> None:
    test = load_litmus(str(path))
    guide = states(test, "gpudirect")
    owner = states(test, "gpudirect+gdr-order-owner")
    every = states(test, "gpudirect+gdr-order-all")
    assert every <= owner <= guide


def test_a_flush_only_removes_final_states() -> None:
    with_flush = load_litmus(str(ROOT / "litmus/gpudirect/04-MP+write_imm+recv+flush+hostflag"
                                 ".litmus"))
    text = (with_flush.source or "").replace(
        " cuda.flush_rdma        |", "                        |")
    without = parse_litmus(text)
    assert states(with_flush, "gpudirect") < states(without, "gpudirect")
