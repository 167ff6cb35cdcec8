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

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.models import ModelSpec, accepts, check_variants, get_model
from gdrcheck.analysis.options import DEFAULT_OPTIONS, CheckOptions
from gdrcheck.analysis.refine import Skipped
from gdrcheck.analysis.suite import litmus_files
from gdrcheck.errors import InputError
from gdrcheck.litmus import load_litmus


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
    ms = ModelSpec.of(m)
    check_variants(ms, get_model(ms.name, include_dirs))
    return ms


def diff_models(
    a: str | ModelSpec,
    b: str | ModelSpec,
    files: Sequence[str | Path],
    options: CheckOptions = DEFAULT_OPTIONS,
) -> DiffReport:
    """Run ``a`` and ``b`` on every test of ``files`` both accept. Raises
    :class:`InputError` when a model does not load or has no such variant."""
    include_dirs = options.include_dirs
    sa, sb = _spec(a, include_dirs), _spec(b, include_dirs)
    report = DiffReport(str(sa), str(sb), options.engine)

    def side(test: Any, ms: ModelSpec) -> Side:
        try:
            r = check_test(test, ms, options=options.overlay(states=False))
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
