"""``gdrcheck diff --model A --model B FILES``: the tests on which two models disagree.

Both models (each with its variants: ``gin-gdaki+pcie-ro``) run on every test of FILES
(directories are walked) that both accept; a test is *different* when the two
verdicts differ (Allowed / Forbidden / Required / Undefined), *inconclusive* when
either is Unknown or could not be checked. Unlike ``gdrcheck refines`` no direction
is assumed: the two models are peers (two readings of an open question, two
backends, two versions of a model).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gdrcheck.errors import InputError
from gdrcheck.litmus import load_litmus
from gdrcheck.lower import DEFAULT_UNROLL
from gdrcheck.refine import Skipped, litmus_files
from gdrcheck.runner import ModelSpec, accepts, check_test, get_model

SCHEMA = "gdrcheck.diff/1"


@dataclass(frozen=True)
class Side:
    """One model's answer on one test."""

    verdict: str  # Allowed | Forbidden | Required | Undefined | Unknown | Error
    axioms: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    time: float = 0.0
    reason: str | None = None


@dataclass(frozen=True)
class Row:
    test: str
    file: str
    quantifier: str
    a: Side
    b: Side

    @property
    def status(self) -> str:
        """same, different or inconclusive."""
        if {self.a.verdict, self.b.verdict} & {"Unknown", "Error"}:
            return "inconclusive"
        return "same" if self.a.verdict == self.b.verdict else "different"


@dataclass
class DiffReport:
    a: str
    b: str
    engine: str
    rows: list[Row] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)

    def _with(self, status: str) -> list[Row]:
        return [r for r in self.rows if r.status == status]

    @property
    def different(self) -> list[Row]:
        return self._with("different")

    @property
    def inconclusive(self) -> list[Row]:
        return self._with("inconclusive")

    @property
    def same(self) -> list[Row]:
        return self._with("same")


def _spec(m: str | ModelSpec, include_dirs: Sequence[str]) -> ModelSpec:
    ms = m if isinstance(m, ModelSpec) else ModelSpec.parse(m)
    loaded = get_model(ms.name, include_dirs)
    unknown = [v for v in ms.variants if v not in loaded.variant_names]
    if unknown:
        known = ", ".join(sorted(loaded.variant_names)) or "none"
        raise InputError(f"model '{ms.name}' has no variant {', '.join(unknown)} "
                         f"(its variants: {known})")
    return ms


def diff_models(
    a: str | ModelSpec,
    b: str | ModelSpec,
    files: Sequence[str | Path],
    *,
    engine: str = "smt",
    include_dirs: Sequence[str] = (),
    timeout: float | None = None,
    unroll: int = DEFAULT_UNROLL,
) -> DiffReport:
    """Run ``a`` and ``b`` on every test of ``files`` both accept. Raises
    :class:`InputError` when a model does not load or has no such variant."""
    sa, sb = _spec(a, include_dirs), _spec(b, include_dirs)
    report = DiffReport(str(sa), str(sb), engine)

    def side(test: Any, ms: ModelSpec) -> Side:
        try:
            r = check_test(test, ms, engine=engine, include_dirs=include_dirs,
                           timeout=timeout, unroll=unroll)
        except InputError as err:
            return Side("Error", reason=err.message)
        except RecursionError:
            return Side("Error", reason="the test is too large to check (recursion limit)")
        return Side(r.verdict, tuple(r.axioms), tuple(r.flags), r.time, r.reason)

    for path in litmus_files(files):
        try:
            test = load_litmus(path)
        except InputError as err:
            if err.path is None:
                err.path = str(path)
            report.errors.append(err)
            continue
        refused = [str(ms) for ms in (sa, sb)
                   if not accepts(get_model(ms.name, include_dirs), test)]
        if refused:
            report.skipped.append(Skipped(str(path), test.name,
                                          f"not accepted by {' and '.join(refused)}"))
            continue
        report.rows.append(Row(test.name, str(path), test.condition.quantifier,
                               side(test, sa), side(test, sb)))
    return report


def _side_json(s: Side) -> dict[str, Any]:
    return {"verdict": s.verdict, "axioms": list(s.axioms), "flags": list(s.flags),
            "time": round(s.time, 6), "reason": s.reason}


def diff_json(r: DiffReport) -> dict[str, Any]:
    def row(x: Row) -> dict[str, Any]:
        return {"test": x.test, "file": x.file, "quantifier": x.quantifier,
                "a": _side_json(x.a), "b": _side_json(x.b)}

    return {
        "schema": SCHEMA,
        "a": r.a,
        "b": r.b,
        "engine": r.engine,
        "counts": {"compared": len(r.rows), "same": len(r.same),
                   "different": len(r.different), "inconclusive": len(r.inconclusive),
                   "skipped": len(r.skipped), "errors": len(r.errors)},
        "different": [row(x) for x in r.different],
        "inconclusive": [row(x) for x in r.inconclusive],
        "skipped": [{"file": s.file, "test": s.test, "reason": s.reason} for s in r.skipped],
        "errors": [{"file": e.path, "message": e.message} for e in r.errors],
    }
