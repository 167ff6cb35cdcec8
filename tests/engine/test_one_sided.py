"""One-sided closures (gdrcheck/cat/polarity.py, SymbolicBackend.closure) and demanded
pairs (gdrcheck/cat/demand.py): the z3 engine with and without them gives the same
verdict, the same flags and the same positive/negative answers on every library test of
the GIN, PTX 7.5 (mbarriers, TMA, clusters), NVSHMEM, LSA and hang folders under each
model its Expect= line names (and a rejected outcome is rejected by some axioms in both).
The expected verdicts themselves are checked against their sources elsewhere
(tests/test_library.py); this is the law that the encoding keeps the consistent
executions."""

from __future__ import annotations

from pathlib import Path

import pytest

from gdrcheck.analysis.check import prepare
from gdrcheck.engine.smt import SmtEngine
from gdrcheck.litmus import parse_litmus
from gdrcheck.lower import lower

ROOT = Path(__file__).resolve().parents[2] / "litmus"
FOLDERS = ("gin", "ptx75", "nvshmem", "lsa", "hangs")


def _cases() -> list[tuple[Path, str, tuple[str, ...]]]:
    out = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).glob("*.litmus")):
            test = parse_litmus(path.read_text(), str(path))
            seen = set()
            for ex in test.expectations:
                key = (ex.model, tuple(ex.variants))
                if key not in seen:
                    seen.add(key)
                    out.append((path, ex.model, tuple(ex.variants)))
    return out


@pytest.mark.parametrize(("path", "model", "variants"), _cases(),
                         ids=lambda x: x.name if isinstance(x, Path) else str(x))
def test_one_sided_closures_keep_every_answer(path: Path, model: str,
                                               variants: tuple[str, ...]) -> None:
    test = parse_litmus(path.read_text(), str(path))
    _, loaded, chosen = prepare(test, model, variants)
    prog = lower(test)
    # the demand analysis on every test, however small (the default: 48 events and more)
    got = [SmtEngine(timeout=60, one_sided=flag, demand=flag, demand_min_events=0).run(
        prog, loaded.stmts, chosen, test, model) for flag in (True, False)]
    one, exact = got
    assert exact.verdict.name != "UNKNOWN", exact.reason
    assert (one.verdict, one.flags, one.positive, one.negative) == \
        (exact.verdict, exact.flags, exact.positive, exact.negative)
    # z3's unsat cores are not minimal, so the two may name different sufficient sets
    # (gdrcheck explain computes a minimal one); an outcome ruled out has one in both
    assert bool(one.axioms) == bool(exact.axioms)
