"""Refinement between two models: does every behaviour IMPL allows, SPEC allow too?

``gdrcheck refines IMPL SPEC FILES`` runs both models on every test that both accept
and compares their answers test by test. Two modes:

Verdicts (the default)
    The question a test asks is whether an outcome can be reached. For ``exists`` and
    ``~exists`` tests that is the proposition P (the verdict Allowed / Forbidden); for
    ``forall`` tests both P and ~P count (Required: ~P cannot be reached; Forbidden: P
    cannot; Allowed: both can). IMPL has an *extra* behaviour when it reaches one of
    those the spec does not (impl allows, spec forbids: IMPL is not a refinement of
    SPEC), SPEC has one when it reaches one the impl does not (impl is stronger: a
    program that relies on it relies on undocumented behaviour). For ``forall``, a spec
    that Requires while the impl only Allows is an impl extra (~P).
States (``--states``)
    The final-state sets are compared: states the impl reaches and the spec does not
    are impl extras, and the other way round.

A spec verdict of Undefined (a flag fired) means anything goes: not a violation,
whatever the impl does. An impl verdict of Undefined where the spec is not Undefined
is listed on its own. An Unknown verdict or an error on either side is inconclusive.

The functions that compare are pure; :func:`refine` runs the models.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.models import ModelSpec, accepts, check_variants, get_model
from gdrcheck.analysis.options import DEFAULT_OPTIONS, CheckOptions
from gdrcheck.analysis.suite import litmus_files
from gdrcheck.engine.result import Result, State
from gdrcheck.errors import InputError
from gdrcheck.litmus import ast as A
from gdrcheck.litmus import load_litmus

Status = Literal["compared", "spec-undefined", "impl-undefined", "inconclusive"]


@dataclass(frozen=True)
class Answer:
    """One model's answer on one test (a :class:`Result` cut down, or an error)."""

    model: str
    verdict: str  # Allowed | Forbidden | Required | Undefined | Unknown | Error
    positive: bool | None = None
    negative: bool | None = None
    states: tuple[State, ...] | None = None
    time: float = 0.0
    reason: str | None = None  # why Unknown, or the error message

    @staticmethod
    def of(res: Result) -> Answer:
        return Answer(res.model, res.verdict, res.positive, res.negative,
                      None if res.states is None else tuple(res.states), res.time, res.reason)

    @staticmethod
    def error(model: str, message: str) -> Answer:
        return Answer(model, "Error", reason=message)


@dataclass(frozen=True)
class Comparison:
    """The two answers on one test and what differs."""

    test: str
    file: str | None
    quantifier: str
    impl: Answer
    spec: Answer
    status: Status
    impl_extra: tuple[str, ...] = ()
    """What the impl reaches and the spec does not: ``P`` / ``~P`` (verdict mode), or
    the states, as herd's state lines (states mode)."""
    spec_extra: tuple[str, ...] = ()
    """What the spec reaches and the impl does not (the impl is stronger there)."""
    impl_only_states: tuple[State, ...] = ()
    spec_only_states: tuple[State, ...] = ()


@dataclass(frozen=True)
class Skipped:
    file: str
    test: str | None
    reason: str


@dataclass
class RefinementReport:
    impl: str
    spec: str
    mode: Literal["verdicts", "states"]
    engine: str
    comparisons: list[Comparison] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    """Files that could not be read or parsed."""

    def _with(self, status: Status) -> list[Comparison]:
        return [c for c in self.comparisons if c.status == status]

    @property
    def violations(self) -> list[Comparison]:
        """(a) impl allows, spec forbids (states mode: impl reaches extra states)."""
        return [c for c in self._with("compared") if c.impl_extra]

    @property
    def stronger(self) -> list[Comparison]:
        """(b) impl forbids, spec allows (states mode: the spec reaches extra states)."""
        return [c for c in self._with("compared") if c.spec_extra]

    @property
    def agree(self) -> list[Comparison]:
        return [c for c in self._with("compared") if not c.impl_extra and not c.spec_extra]

    @property
    def impl_undefined(self) -> list[Comparison]:
        """(c) the impl is Undefined where the spec is not."""
        return self._with("impl-undefined")

    @property
    def spec_undefined(self) -> list[Comparison]:
        """The spec is Undefined: anything goes (never a violation)."""
        return self._with("spec-undefined")

    @property
    def inconclusive(self) -> list[Comparison]:
        return self._with("inconclusive")

    @property
    def refines(self) -> bool:
        """No test where the impl reaches what the spec does not."""
        return not self.violations


# --------------------------------------------------------------------------
# Comparing (pure)
# --------------------------------------------------------------------------


def reachable(quantifier: str, ans: Answer) -> dict[str, bool]:
    """The outcomes a test asks about and whether the answer reaches them: ``P`` for
    exists / ~exists, ``P`` and ``~P`` for forall."""
    if ans.verdict not in ("Allowed", "Forbidden", "Required"):
        raise ValueError(f"no outcomes in a {ans.verdict} answer")
    pos = ans.positive if ans.positive is not None else ans.verdict == "Allowed"
    if quantifier != "forall":
        return {"P": pos}
    neg = ans.negative if ans.negative is not None else ans.verdict != "Required"
    return {"P": pos, "~P": neg}


def status_of(impl: Answer, spec: Answer, need_states: bool = False) -> Status:
    """How far two answers can be compared."""
    def conclusive(a: Answer) -> bool:
        return a.verdict not in ("Unknown", "Error") and (not need_states or
                                                          a.states is not None)
    if spec.verdict == "Undefined" and impl.verdict not in ("Unknown", "Error"):
        return "spec-undefined"
    if not conclusive(spec) or not conclusive(impl):
        return "inconclusive"
    if impl.verdict == "Undefined":
        return "impl-undefined"
    return "compared"


def state_line(st: State) -> str:
    """herd's state line: ``0:EAX=0; 1:EAX=1;``."""
    return " ".join(f"{k}={v};" for k, v in st)


def compare(test: A.Test, impl: Answer, spec: Answer, states: bool = False) -> Comparison:
    """The comparison of the impl's and the spec's answers on ``test``."""
    q = test.condition.quantifier
    status = status_of(impl, spec, states)
    base = Comparison(test.name, test.path, q, impl, spec, status)
    if status != "compared":
        return base
    if states:
        assert impl.states is not None and spec.states is not None
        ist, sst = set(impl.states), set(spec.states)
        i_only = tuple(sorted(ist - sst))
        s_only = tuple(sorted(sst - ist))
        return Comparison(test.name, test.path, q, impl, spec, status,
                          tuple(state_line(s) for s in i_only),
                          tuple(state_line(s) for s in s_only), i_only, s_only)
    ir, sr = reachable(q, impl), reachable(q, spec)
    return Comparison(test.name, test.path, q, impl, spec, status,
                      tuple(k for k in ir if ir[k] and not sr[k]),
                      tuple(k for k in ir if sr[k] and not ir[k]))


# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------


def refine(
    impl: str | ModelSpec,
    spec: str | ModelSpec,
    files: Sequence[str | Path],
    options: CheckOptions = DEFAULT_OPTIONS,
) -> RefinementReport:
    """Run ``impl`` and ``spec`` on every test of ``files`` (directories are walked)
    that both accept. Raises :class:`InputError` when a model does not load or has no
    such variant; a bad litmus file is recorded in the report's ``errors``."""
    ispec, sspec = ModelSpec.of(impl), ModelSpec.of(spec)
    states = options.states
    models = []
    for ms in (ispec, sspec):
        m = get_model(ms.name, options.include_dirs)
        check_variants(ms, m)
        models.append(m)
    report = RefinementReport(str(ispec), str(sspec), "states" if states else "verdicts",
                              options.engine)

    def answer(test: A.Test, ms: ModelSpec) -> Answer:
        try:
            return Answer.of(check_test(test, ms, options=options))
        except InputError as err:
            return Answer.error(str(ms), err.message)
        except RecursionError:
            return Answer.error(str(ms), "the test is too large to check (recursion limit)")

    for path in litmus_files(files):
        try:
            test = load_litmus(path)
        except InputError as err:
            report.errors.append(err)
            continue
        refused = [str(ms) for ms, m in zip((ispec, sspec), models, strict=True)
                   if not accepts(m, test)]
        if refused:
            report.skipped.append(Skipped(str(path), test.name,
                                          f"not accepted by {' and '.join(refused)}"))
            continue
        report.comparisons.append(compare(test, answer(test, ispec), answer(test, sspec),
                                          states))
    return report
