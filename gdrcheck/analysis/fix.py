"""``gdrcheck fix``: the cheapest strengthenings that make a test's outcome Forbidden
under every named model.

The search (a counterexample-guided loop over selector Booleans, one per candidate edit
of :mod:`gdrcheck.analysis.strengthen`):

1. a z3 optimiser over the selectors proposes the cheapest set of edits not yet
   excluded (at most one change and one insertion per place);
2. the set is checked under every target model — one query each, under assumptions
   on the shared encoding where every candidate edit is a selector of one program
   (:mod:`gdrcheck.analysis.fix_shared`, built for the second set), else (the first
   set, an edit the shared encoding cannot guard, ``--every-variant``: one sweep each,
   the explicit engine) on the edited test's own encoding; a repair is re-checked as
   it will be printed;
3. if the outcome is still reachable under some model, that set fails, and so does
   every subset of it, since a subset is weaker and strengthening never adds an outcome
   (the monotonicity law, tests/laws). The set is first grown to a maximal failing set
   (each compatible edit, dearest first, kept when the outcome stays reachable: MARCO's
   grow), and one clause — "some edit the grown set does not dominate" — excludes all
   its subsets and every set of the same places with weaker alternatives (a fence of a
   narrower scope, acq_rel for sc, ...);
4. the first set that works is minimal: every cheaper set was excluded, i.e. shown to
   fail. With ``all_minimal`` the search goes on for the other sets of that cost.

When the optimiser runs out of sets, no catalogued strengthening (within ``max_cost``)
forbids the outcome, and the answer says so. A solver that gives up makes the answer
Unknown, never a guess. The first query is the strongest set (the dearest edit at each
place): when even that fails, one query excludes most of the space.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import z3

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.fix_shared import SharedJudge, SharedProgram, build_shared, project_matches
from gdrcheck.analysis.fix_text import repair_text
from gdrcheck.analysis.models import ModelSpec
from gdrcheck.analysis.options import DEFAULT_OPTIONS, CheckOptions
from gdrcheck.analysis.strengthen import Edit, apply_edits, candidates, reorderings
from gdrcheck.engine.deadline import Deadline, Expired
from gdrcheck.engine.result import Verdict
from gdrcheck.litmus import ast as A
from gdrcheck.litmus import parse_litmus

MAX_QUERIES = 400
"""Candidate sets checked before the search gives up (the answer is then Unknown)."""


@dataclass
class Repair:
    """A set of edits that makes the outcome Forbidden under every target."""

    edits: list[Edit]
    cost: int
    test: A.Test
    """The repaired test, as parsed from :attr:`text`."""
    verdicts: dict[str, str]
    text: str = ""
    """The repaired file: the user's text with each edit made in it (comments,
    ``Expect=`` lines, layout and the condition's spelling as they were;
    gdrcheck/analysis/fix_text.py), or the printer's text when :attr:`reprinted`."""
    reprinted: bool = False
    """The test has no source text to edit (built in code) or the edit could not be
    made in it: :attr:`text` is the round-trip printer's, without Expect= lines."""


@dataclass
class FixResult:
    test: str
    file: str | None
    targets: list[str]
    every_variant: bool
    status: str
    """``fixed``, ``already`` (Forbidden as it is), ``impossible`` (no catalogued set
    works, within ``max_cost``), ``unknown`` (a solver gave up, or the query budget)."""
    before: dict[str, str]
    repairs: list[Repair] = field(default_factory=list)
    candidates: int = 0
    queries: int = 0
    """Candidate sets checked (each: one solver query per target model)."""
    strategy: str = "shared"
    """``shared``: candidate sets asked of one selector-guarded encoding per model
    (gdrcheck/analysis/fix_shared.py); ``reencode``: each set's test encoded anew."""
    shared_edits: int = 0
    """Candidate edits with a selector in the shared encoding."""
    fallbacks: int = 0
    """Candidate sets checked by encoding the edited test anew (an edit without a
    selector, or a set whose shared program is not the edited test's)."""
    mismatches: int = 0
    """Sets the shared encoding called a repair and the edited test's own check did
    not (0 unless the shared encoding is wrong; the check's answer is kept)."""
    max_cost: int | None = None
    reason: str | None = None
    time: float = 0.0
    goal: str = "forbid"
    """``forbid``: the outcome Forbidden (Required for forall) under every target;
    ``live``: the test Live with its condition holding (``fix --liveness``,
    gdrcheck/analysis/fix_liveness.py)."""
    reorderings: list[tuple[str, Repair]] = field(default_factory=list)
    """When no strengthening works: the reorderings (strengthen.reorderings: a put
    issued after its signal moved before it) whose moved test every target forbids,
    each with its words and the moved test (cost 0: not a strengthening)."""


def _goal(test: A.Test) -> Verdict:
    return Verdict.REQUIRED if test.condition.quantifier == "forall" else Verdict.FORBIDDEN


def _judge(test: A.Test, targets: Sequence[ModelSpec], every_variant: bool,
           options: CheckOptions, budget: Deadline | None = None
           ) -> tuple[dict[str, str], bool | None]:
    """The verdicts of ``test`` per target, and whether they all forbid the outcome
    (None: some answer is Unknown); every check within what is left of ``budget``."""
    goal = _goal(test)
    verdicts: dict[str, str] = {}
    ok: bool | None = True
    for spec in targets:
        if every_variant:
            from gdrcheck.analysis.sweep import sweep_test

            r = sweep_test(test, spec, options if budget is None else _left(options, budget))
            kinds = set(r.verdicts.values())
            verdicts[f"{spec} (every variant)"] = (str(goal) if kinds == {goal}
                                                   else ", ".join(sorted(map(str, kinds))))
            if kinds != {goal}:
                ok = False
            continue
        res = check_test(test, spec, options=options, deadline=budget)
        verdicts[res.model] = str(res.verdict) + (" (vacuous)" if res.vacuous else "")
        if res.verdict == Verdict.UNKNOWN:
            ok = None if ok else ok
        elif res.verdict != goal or res.vacuous:
            ok = False
    return verdicts, ok


class _Checker:
    """Answers a candidate set: from the shared encoding when it can, else (the
    fallback) by checking the edited test on its own.

    The shared encoding is built for the second set that is checked: the first (the
    strongest) settles many searches alone ("impossible" in one query), and then
    building it would cost more than the one check it replaces. Waiting longer does
    not pay on the library: a ski rental (re-encode until that has cost half of the
    first set's check per selector) gave 163 s against 178 s for re-encoding every set
    on the library, building for the second set 75 s against 131 s (2026-12-01,
    docs/fix.md), since building costs only a few checks of the strongest set when the
    models are large (NVSHMEM, DeepEP) and the searches there are long."""

    def __init__(self, test: A.Test, edits: list[Edit], specs: Sequence[ModelSpec],
                 every_variant: bool, options: CheckOptions, out: FixResult,
                 budget: Deadline | None = None) -> None:
        self.test, self.edits, self.specs = test, edits, specs
        self.every_variant, self.base_options, self.out = every_variant, options, out
        self.budget = budget if budget is not None else Deadline(None)
        self.judge: SharedJudge | None = None
        self.shared: SharedProgram | None = None
        self.first = False  # a set has been checked
        if every_variant or options.engine == "explicit":
            out.strategy = "reencode"

    @property
    def options(self) -> CheckOptions:
        """The options of the next query: its time limit is what is left of the
        search's (``--timeout`` bounds the whole search, as for sweep)."""
        return _left(self.base_options, self.budget)

    def _shared(self) -> SharedJudge | None:
        """The shared encoding from the second set on (None before, or never)."""
        if self.judge is not None or self.out.strategy != "shared" or not self.first:
            return self.judge
        if self.shared is None:
            self.shared = build_shared(self.test, self.edits, self.options.unroll)
            if self.shared is None or not self.shared.shared:
                self.out.strategy = "reencode"
                return None
        try:
            self.judge = SharedJudge(self.test, self.shared, self.specs, self.options)
        except Expired:
            self.out.strategy = "reencode"
            return None
        self.out.shared_edits = len(self.shared.shared)
        return self.judge

    def __call__(self, chosen: list[int]) -> tuple[dict[str, str] | None, bool | None]:
        """Whether every target forbids the outcome with the edits ``chosen`` (None: a
        solver gave up), and on success the verdicts of the edited test."""
        judge = self._shared()
        picked = [self.edits[i] for i in chosen]
        repaired = apply_edits(self.test, picked)
        if judge is not None and project_matches(
                judge.sp, self.test, self.edits, chosen, self.options.unroll):
            judge.timeout = self.options.timeout
            ok = judge.judge(chosen, self.test.condition.quantifier == "forall")
            if ok is False:
                return None, False
            if ok:  # a repair: its verdicts, from the edited file's own check
                verdicts, again = self._confirm(picked)
                if again is not True:
                    self.out.mismatches += 1
                return verdicts, again
            # the solver gave up on the shared encoding: ask the edited test on its own
        if self.out.strategy == "shared":
            self.out.fallbacks += 1
        self.first = True
        verdicts, ok = _judge(repaired, self.specs, self.every_variant, self.options,
                              self.budget)
        return self._confirm(picked) if ok else (verdicts, ok)

    def _confirm(self, picked: list[Edit]) -> tuple[dict[str, str], bool | None]:
        """The verdicts of a repair as it will be written: the edited file's text
        (fix_text.repair_text), parsed again, checked (what -o and --write write is
        what was checked)."""
        text, _ = repair_text(self.test, picked)
        again = parse_litmus(text, self.test.path or "repaired.litmus")
        return _judge(again, self.specs, self.every_variant, self.options, self.budget)


def _left(options: CheckOptions, budget: Deadline) -> CheckOptions:
    """``options`` with the time left of ``budget`` as the limit of one query."""
    left = budget.remaining()
    if left is None:
        return options
    return dataclasses.replace(options, timeout=max(left, 0.05))


def _grow(edits: list[Edit], failing: list[int], check: _Checker, out: FixResult,
          max_queries: int) -> list[int] | None:
    """A maximal failing superset of ``failing`` (MARCO's grow): add each compatible edit,
    dearest first, that keeps the outcome reachable. None when a solver gives up."""
    have = list(failing)
    taken = {x for i in have for x in edits[i].slots}
    for j in sorted(range(len(edits)), key=lambda j: -edits[j].cost):
        if j in have or taken & set(edits[j].slots) or out.queries >= max_queries:
            continue
        if check.budget.expired():
            return None
        out.queries += 1
        _, ok = check([*have, j])
        if ok is None:
            return None
        if not ok:
            have.append(j)
            taken.update(edits[j].slots)
    return have


def fix(test: A.Test, targets: Sequence[str | ModelSpec], *, every_variant: bool = False,
        max_cost: int | None = None, all_minimal: bool = False,
        options: CheckOptions = DEFAULT_OPTIONS, max_queries: int = MAX_QUERIES,
        strategy: str = "shared", deadline: Deadline | None = None) -> FixResult:
    """The cheapest catalogued strengthenings of ``test`` whose outcome every target
    forbids. ``strategy`` ``shared`` (the default) asks one selector-guarded encoding
    per model where it can; ``reencode`` encodes every candidate set's test anew (the
    same answers: a baseline for the benchmark). Raises InputError as check_test does
    (an unknown model or variant). ``options.timeout`` bounds the whole search, every
    check included; a caller whose budget started earlier (parsing) passes ``deadline``."""
    if strategy not in ("shared", "reencode"):
        raise ValueError(f"unknown strategy {strategy!r}")
    t0 = time.perf_counter()
    specs = [ModelSpec.of(m) for m in targets]
    # one time limit for the whole search
    budget = deadline if deadline is not None else Deadline(options.timeout)
    before, ok = _judge(test, specs, every_variant, options, budget)
    out = FixResult(test.name, test.path, [str(s) for s in specs], every_variant, "unknown",
                    before, max_cost=max_cost, strategy=strategy)
    if ok:
        out.status = "already"
        out.time = time.perf_counter() - t0
        return out
    edits = candidates(test)
    out.candidates = len(edits)
    check = _Checker(test, edits, specs, every_variant, options, out, budget)
    timed_out = (f"the search's time limit ({options.timeout or 0:g} s) ran out after "
                 "{} candidate sets")
    # the proposer in a context of its own: its answers (which of several sets of one
    # cost comes first) do not depend on what the process asked z3 before
    ctx = z3.Context()
    sel = [z3.Bool(f"edit!{i}", ctx) for i in range(len(edits))]
    opt = z3.Optimize(ctx=ctx)
    slots: dict[tuple[int, int, str], list[int]] = {}
    for i, e in enumerate(edits):
        for x in e.slots:
            slots.setdefault(x, []).append(i)
    for group in slots.values():
        if len(group) > 1:
            opt.add(z3.AtMost(*[sel[i] for i in group], 1))
    cost = z3.Sum([z3.If(s, z3.IntVal(e.cost, ctx), z3.IntVal(0, ctx))
                   for s, e in zip(sel, edits, strict=True)]) if edits else z3.IntVal(0, ctx)
    if max_cost is not None:
        opt.add(cost <= max_cost)
    opt.minimize(cost)
    if edits:
        opt.add(z3.Or(sel))  # the test as it is fails: at least one edit
    best: int | None = None
    # the strongest set: the dearest edit at each place (those that take several
    # places first, then one per place left)
    strongest: list[int] = []
    used: set[tuple[int, int, str]] = set()
    for i in sorted(range(len(edits)), key=lambda i: (-len(edits[i].slots), -edits[i].cost)):
        if not used & set(edits[i].slots):
            strongest.append(i)
            used.update(edits[i].slots)
    pending: list[int] | None = strongest or None
    while True:
        if pending is not None:  # first the strongest set: when it fails, so do its subsets
            chosen, pending = pending, None
            if max_cost is not None and sum(edits[i].cost for i in chosen) > max_cost:
                continue
        else:
            a = opt.check()
            if a == z3.unknown:
                out.reason = f"the optimiser gave up: {opt.reason_unknown()}"
                break
            if a == z3.unsat:  # no set left: the last repair found is minimal
                break
            m = opt.model()
            chosen = [i for i, v in enumerate(sel) if z3.is_true(m.eval(v))]
        if out.queries >= max_queries:
            out.reason = f"the search stopped after {max_queries} candidate sets"
            break
        if budget.expired():
            out.reason = timed_out.format(out.queries)
            break
        out.queries += 1
        k = sum(edits[i].cost for i in chosen)
        verdicts, ok = check(chosen)
        if ok is None:
            out.reason = (timed_out.format(out.queries) if budget.expired()
                          else "a solver gave up on a candidate (Unknown)")
            break
        if ok:
            assert verdicts is not None
            picked = [edits[i] for i in chosen]
            text, reprinted = repair_text(test, picked)
            shown = parse_litmus(text, test.path or "repaired.litmus")
            out.repairs.append(Repair(picked, k, shown, verdicts, text, reprinted))
            opt.add(z3.Or([z3.Not(sel[i]) for i in chosen]))  # no superset is minimal
            best = k if best is None else min(best, k)
            opt.add(cost <= best if all_minimal else cost < best)
        else:
            # this set fails, and so does every subset of it (monotonicity); grow it to
            # a maximal failing set first, so that one clause excludes more
            grown = _grow(edits, chosen, check, out, max_queries)
            if grown is None:
                out.reason = (timed_out.format(out.queries) if budget.expired()
                              else "a solver gave up on a candidate (Unknown)")
                break
            # excluded: every set whose edits the grown set dominates (a subset, or the
            # same places with weaker alternatives)
            rest = [sel[j] for j in range(len(edits))
                    if not any(edits[i].dominates(edits[j]) for i in grown)]
            opt.add(z3.Or(rest) if rest else z3.BoolVal(False, ctx))
    if best is not None:
        out.repairs = sorted((r for r in out.repairs if r.cost == best),
                             key=lambda r: [(e.thread, e.index, e.text) for e in r.edits])
        if not all_minimal:
            out.repairs = out.repairs[:1]
    out.status = ("unknown" if out.reason else "fixed" if out.repairs else "impossible")
    if out.status == "impossible":
        _reorder(test, specs, every_variant, options, budget, out)
    out.time = time.perf_counter() - t0
    return out


def _reorder(test: A.Test, specs: Sequence[ModelSpec], every_variant: bool,
             options: CheckOptions, budget: Deadline, out: FixResult) -> None:
    """No strengthening works: which reordering would (each moved test, as it will be
    written, checked on its own under every target)."""
    for r in reorderings(test):
        if budget.expired():
            return
        text, reprinted = repair_text(test, list(r.edits))
        moved = parse_litmus(text, test.path or "reordered.litmus")
        verdicts, ok = _judge(moved, specs, every_variant, _left(options, budget))
        if ok:
            out.reorderings.append(
                (r.text, Repair(list(r.edits), 0, moved, verdicts, text, reprinted)))
