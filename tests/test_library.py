"""The project's own litmus library: every test carries Expect= and Source=, and
both engines meet every expectation (the expected verdicts cite papers and rules,
see docs/litmus-library.md; they are never taken from gdrcheck's output)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.models import ModelSpec
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.litmus import load_litmus

ROOT = Path(__file__).resolve().parents[1]
FAMILIES = ("classic", "ptx", "ptx75", "gin", "nvshmem", "lsa", "deepep", "gpudirect", "multimem")
FILES = [f for fam in FAMILIES for f in sorted((ROOT / "litmus" / fam).glob("*.litmus"))]
CASES = [
    (f, e)
    for f in FILES
    for e in load_litmus(str(f)).expectations
]


def test_library_is_there() -> None:
    assert len(list((ROOT / "litmus" / "classic").glob("*.litmus"))) >= 30
    assert len(list((ROOT / "litmus" / "ptx").glob("*.litmus"))) >= 30
    assert len(list((ROOT / "litmus" / "gin").glob("*.litmus"))) >= 30
    assert len(list((ROOT / "litmus" / "nvshmem").glob("*.litmus"))) >= 20
    assert len(list((ROOT / "litmus" / "lsa").glob("*.litmus"))) >= 10
    assert len(list((ROOT / "litmus" / "deepep").glob("*.litmus"))) >= 8
    assert len(list((ROOT / "litmus" / "ptx75").glob("*.litmus"))) >= 12
    assert len(list((ROOT / "litmus" / "gpudirect").glob("*.litmus"))) >= 12
    assert len(list((ROOT / "litmus" / "multimem").glob("*.litmus"))) >= 8


def test_gin_library_covers_the_scenarios() -> None:
    """Every scenario of docs/gin-library.md ("The scenarios", 1..30) has a test."""
    numbers = {int(p.name[:2]) for p in (ROOT / "litmus" / "gin").glob("*.litmus")
               if p.name[:2].isdigit()}
    assert numbers == set(range(1, 31))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_test_cites_its_source(path: Path) -> None:
    test = load_litmus(str(path))
    assert test.expectations, f"{path.name} has no Expect= line"
    assert test.sources, f"{path.name} has no Source= line"


@pytest.mark.parametrize("engine", ["smt", "explicit"])
@pytest.mark.parametrize(
    "path,exp", CASES, ids=[f"{p.name}:{e.model}" for p, e in CASES]
)
def test_expectation_met(path: Path, exp: object, engine: str) -> None:
    test = load_litmus(str(path))
    spec = ModelSpec(exp.model, exp.variants)  # type: ignore[attr-defined]
    res = check_test(test, spec, options=CheckOptions(engine=engine))
    assert res.verdict == exp.verdict, (  # type: ignore[attr-defined]
        f"{path.name} under {spec} ({engine}): expected {exp.verdict}, "  # type: ignore[attr-defined]
        f"got {res.verdict}; rejected by {res.axioms}"
    )


LIVE_CASES = [(f, e) for f in FILES for e in load_litmus(str(f)).liveness_expectations]


@pytest.mark.parametrize("engine", ["smt", "explicit"])
@pytest.mark.parametrize(
    "path,exp", LIVE_CASES, ids=[f"{p.name}:{e.model}" for p, e in LIVE_CASES]
)
def test_liveness_expectation_met(path: Path, exp: object, engine: str) -> None:
    """Liveness= lines: whether a blocking wait may hang (docs/litmus-format.md §13)."""
    test = load_litmus(str(path))
    spec = ModelSpec(exp.model, exp.variants)  # type: ignore[attr-defined]
    res = check_test(test, spec, options=CheckOptions(engine=engine))
    got = "Hang" if res.liveness else "Live"
    assert got == exp.verdict, f"{path.name} under {spec}: {got} ({res.liveness})"  # type: ignore[attr-defined]
