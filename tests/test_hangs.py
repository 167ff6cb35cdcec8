"""Hangs from the public record (litmus/hangs/, issue 27 item 5): every file's Liveness= entries
come from the report and its fix (cited in Source=), never from gdrcheck; both engines must
meet each one. Where the current models do not, the case is ``xfail(strict=True)`` with the
reason, so that it flips when the model changes (docs/liveness.md has the table)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.models import ModelSpec
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.engine.explicit import candidate_bound
from gdrcheck.litmus import load_litmus
from gdrcheck.lower import lower

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted((ROOT / "litmus" / "hangs").glob("*.litmus"))

# nvshmem-pr36-barrier-set+fixed under nvshmem-ibgda was a known miss until issue 28
# item 5: an atomic's completion now follows its read at the target (nvshmem-ibgda.cat,
# local-completion; docs/source-findings.md F25), which orders the second set after the first.
KNOWN_MISSES: dict[tuple[str, str], str] = {}

EXPLICIT_BOUND = 5_000
"""Above this many candidate executions the enumerator is left out (minutes each)."""

CASES = [(f, e) for f in FILES for e in load_litmus(str(f)).liveness_expectations]


def test_the_hang_library_is_there() -> None:
    names = {f.name for f in FILES}
    assert len(FILES) >= 6
    for f in FILES:
        if f.name.endswith("+buggy.litmus"):
            assert f.name.replace("+buggy", "+fixed") in names, f"{f.name} has no fixed form"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_hang_cites_its_report(path: Path) -> None:
    test = load_litmus(str(path))
    assert test.liveness_expectations, f"{path.name} has no Liveness= line"
    assert test.sources, f"{path.name} has no Source= line"


@pytest.mark.parametrize("engine", ["smt", "explicit"])
@pytest.mark.parametrize(("path", "entry"), CASES,
                         ids=[f"{p.name}::{e.model}{''.join('+' + v for v in e.variants)}"
                              for p, e in CASES])
def test_liveness_entries_are_met(path: Path, entry: object, engine: str,
                                  request: pytest.FixtureRequest) -> None:
    spec = ModelSpec(entry.model, entry.variants)  # type: ignore[attr-defined]
    miss = KNOWN_MISSES.get((path.name, str(spec)))
    if miss:
        request.applymarker(pytest.mark.xfail(reason=miss, strict=True))
    test = load_litmus(str(path))
    if engine == "explicit":
        prog = lower(test)
        relaxed = prog.with_leaves_relaxed([*prog.stuck_leaves(), *prog.bound_cuts()])
        if candidate_bound(relaxed) > EXPLICIT_BOUND:
            pytest.skip(f"more than {EXPLICIT_BOUND} candidate executions to enumerate; "
                        "tests/analysis/test_liveness.py holds the engines to each other")
    res = check_test(test, spec, options=CheckOptions(engine=engine))
    assert res.live == entry.verdict, (res.live, res.liveness, res.live_reason)  # type: ignore[attr-defined]
