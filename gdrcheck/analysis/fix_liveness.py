"""``gdrcheck fix --liveness``: the cheapest change after which a test that may hang is
Live under every target model, its condition still holding.

The goal per target: the liveness question answers ``Live`` (gdrcheck/analysis/liveness.py)
and the condition's verdict is the test's ``Expect=`` entry for that model when it has
one, else the condition holds (``exists``: Allowed, ``forall``: Required), never
vacuously. The moves are gdrcheck fix's catalogue (:mod:`gdrcheck.analysis.strengthen`,
each edit a move) and the hang repairs of :data:`HANG_CATALOGUE` below, each a set of
edits made together (a barrier is inserted in every thread at once). A hang repair
changes what the program does, so no law relates its sets; the strengthenings keep the
monotonicity law (tests/laws): strengthening removes executions, so a set whose test
still hangs still hangs with any of its strengthenings weakened or left out.

The search, as gdrcheck fix's (analysis/fix.py): a z3 optimiser over one selector per move
proposes the cheapest set not excluded; each set's repaired text is parsed and checked
under every target (``check_test`` with the liveness question). A set that still hangs
is first grown by the strongest compatible strengthenings (one query); if that hangs too,
every set with the same hang repairs and strengthenings it dominates is excluded, else the
set alone. A set that breaks the condition is excluded alone. The first set that works is
minimal: every cheaper one was checked or excluded.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import z3

from gdrcheck.analysis.check import check_test, prepare
from gdrcheck.analysis.fix import MAX_QUERIES, FixResult, Repair, _left
from gdrcheck.analysis.fix_text import repair_text
from gdrcheck.analysis.liveness import liveness
from gdrcheck.analysis.models import ModelSpec, expected_verdict
from gdrcheck.analysis.options import DEFAULT_OPTIONS, CheckOptions
from gdrcheck.analysis.strengthen import Edit, candidates
from gdrcheck.engine.deadline import Deadline
from gdrcheck.engine.result import Verdict
from gdrcheck.litmus import ast as A
from gdrcheck.litmus import parse_litmus


@dataclass(frozen=True)
class Move:
    """One choice of the search: a catalogued strengthening (one edit, monotone) or a
    hang repair (several edits made together)."""

    edits: tuple[Edit, ...]
    monotone: bool

    @property
    def cost(self) -> int:
        return sum(e.cost for e in self.edits)

    @property
    def slots(self) -> set[tuple[int, int, str]]:
        return {x for e in self.edits for x in e.slots}


# --------------------------------------------------------------------------
# The hang repairs
# --------------------------------------------------------------------------

BARRIER_COST = 4
"""A barrier, per PE: dearer than shmem.quiet (3), which it implies ("ensures completion
of all previously issued memory stores and remote memory updates"), since it also waits
for every PE."""
TICKET_COST = 3
MAX_BARRIERS = 64
"""Barrier placements tried (one position per thread); a test with more is left out."""


def _barriers(test: A.Test) -> Iterator[tuple[Edit, ...]]:
    """``shmem.barrier_all`` in every thread, at one position each: every PE's stores and
    remote updates issued before it are complete before any PE leaves it (NVSHMEM API
    nvshmem_barrier_all; the fix of hao-ai-lab/DistCA PR #75)."""
    if test.arch != "GIN" or not all(
            any(isinstance(x, A.ShmemCall) for x in th.instrs) for th in test.threads):
        return
    sizes = [len(th.instrs) + 1 for th in test.threads]
    n = 1
    for s in sizes:
        n *= s
    if n > MAX_BARRIERS or len(test.threads) < 2:
        return
    combos: list[tuple[int, ...]] = [()]
    for s in sizes:
        combos = [(*c, i) for c in combos for i in range(s)]
    for pos in combos:
        yield tuple(Edit("barrier", BARRIER_COST, t, i, "insert", A.ShmemCall("barrier_all"),
                         "insert shmem.barrier_all (every PE)")
                    for t, i in enumerate(pos))


def _tickets(test: A.Test) -> Iterator[tuple[Edit, ...]]:
    """A spin that polls a word the thread fetch-added to waits until the word is back to
    the value it fetched (its ticket) instead of a fixed bound, so that each release wakes
    the latest waiter, which releases in turn (the fix of microsoft/mscclpp PR #553,
    microsoft/mscclpp@81699a5b include/mscclpp/concurrency_device.hpp:114-119)."""
    for t, th in enumerate(test.threads):
        labels = {x.name: i for i, x in enumerate(th.instrs) if isinstance(x, A.Label)}
        for i, br in enumerate(th.instrs):
            if not isinstance(br, A.Branch) or labels.get(br.target, i) >= i:
                continue
            body = th.instrs[labels[br.target]:i]
            loads = [x for x in body if isinstance(x, A.PtxLoad) and x.dst == br.a]
            if not loads:
                continue
            loc = loads[-1].loc
            tickets = [x for x in th.instrs[:labels[br.target]]
                       if isinstance(x, A.PtxAtom) and x.op in ("add", "sub", "inc", "dec")
                       and x.loc == loc]
            if not tickets or br.cond == "ne" and br.b == tickets[-1].dst:
                continue
            yield (Edit("ticket-wait", TICKET_COST, t, i, "replace",
                        A.Branch("ne", br.a, tickets[-1].dst, br.target, br.pos),
                        f"spin until the word is back to the ticket {tickets[-1].dst.name} "
                        "(the value this thread fetched)"),)


@dataclass(frozen=True)
class HangRepair:
    name: str
    doc: str
    sources: str
    moves: object  # Callable[[A.Test], Iterator[tuple[Edit, ...]]]


HANG_CATALOGUE: tuple[tuple[str, str, str], ...] = (
    ("barrier", "shmem.barrier_all in every PE, one position each",
     "NVSHMEM API nvshmem_barrier_all (\"ensures completion of all previously issued memory "
     "stores and remote memory updates\"); hao-ai-lab/DistCA PR #75"),
    ("ticket-wait", "a spin on a word the thread fetch-added to waits for its ticket",
     "microsoft/mscclpp PR #553, microsoft/mscclpp@81699a5b "
     "include/mscclpp/concurrency_device.hpp:114-119"),
)
"""The hang repairs (name, what, sources): ``gdrcheck fix --help`` lists them."""


BLOCKING = (A.PtxMbarWait, A.PtxAsyncWait, A.PtxBarrier, A.GinWait, A.GinWaitRequest,
            A.GinBarrier, A.GinFlush, A.HostWaitCompletion, A.CudaSync, A.StreamWaitValue)
"""Instructions that may block: an edit that inserts one may add a hang of its own."""


def _blocks(instr: object) -> bool:
    if isinstance(instr, tuple):
        return any(_blocks(x) for x in instr)
    if isinstance(instr, A.ShmemCall):
        return "wait" in instr.op or instr.op in ("barrier_all", "quiet")
    return isinstance(instr, BLOCKING)


def moves(test: A.Test) -> list[Move]:
    """Every move of ``test``: the strengthenings, then the hang repairs. A strengthening
    that adds an instruction that may block (a wait, a barrier, a quiet) adds executions
    that stop there, so the monotonicity law says nothing of its liveness: it is a move
    like a hang repair (never excluded through another set)."""
    out = [Move((e,), not _blocks(e.instr)) for e in candidates(test)]
    out += [Move(es, False) for es in _barriers(test)]
    out += [Move(es, False) for es in _tickets(test)]
    return out


# --------------------------------------------------------------------------
# The goal, and the search
# --------------------------------------------------------------------------


def _want(test: A.Test, spec: ModelSpec) -> Verdict:
    got = expected_verdict(test, spec)
    if got is not None:
        return Verdict(got)
    return Verdict.REQUIRED if test.condition.quantifier == "forall" else Verdict.ALLOWED


def judge(test: A.Test, specs: Sequence[ModelSpec], options: CheckOptions,
          budget: Deadline | None = None, full: bool = False) -> tuple[dict[str, str], str]:
    """The verdicts and liveness answers of ``test`` per target, and the outcome:
    ``ok`` (Live and the condition as wanted under every target), ``hang`` (some target
    Hang), ``condition`` (Live, but some verdict not as wanted), ``unknown``. The
    liveness question comes first: a test that still hangs needs no verdict (unless
    ``full``: every verdict, as the report shows the test before the repair)."""
    verdicts: dict[str, str] = {}
    plain = dataclasses.replace(test, meta=tuple(m for m in test.meta
                                                 if m.key != "Liveness"))
    opts = options.overlay(liveness=False)
    outcome = "ok"
    for spec in specs:
        if budget is not None:
            opts = _left(opts, budget)
        _, loaded, chosen = prepare(test, spec, (), opts)
        ans = liveness(test, loaded, chosen, opts, budget)
        if ans.answer != "Live" and not full:
            verdicts[str(spec)] = ans.answer
            return verdicts, "hang" if ans.answer == "Hang" else "unknown"
        res = check_test(plain, spec, options=opts, deadline=budget)
        live = "Hang" if res.liveness else ans.answer  # a liveness flag of the model
        verdicts[res.model] = (f"{res.verdict}" + (" (vacuous)" if res.vacuous else "")
                               + f", {live}")
        if live != "Live":
            outcome = "hang" if live == "Hang" else "unknown" if outcome == "ok" else outcome
            continue
        if res.verdict == Verdict.UNKNOWN and outcome == "ok":
            outcome = "unknown"
        elif (res.verdict != _want(test, spec) or res.vacuous) and outcome == "ok":
            outcome = "condition"
    return verdicts, outcome


def fix_liveness(test: A.Test, targets: Sequence[str | ModelSpec], *,
                 max_cost: int | None = None, all_minimal: bool = False,
                 options: CheckOptions = DEFAULT_OPTIONS, max_queries: int = MAX_QUERIES,
                 deadline: Deadline | None = None) -> FixResult:
    """The cheapest moves after which ``test`` is Live under every target with its
    condition holding (module docstring). Raises InputError as check_test does."""
    t0 = time.perf_counter()
    specs = [ModelSpec.of(m) for m in targets]
    budget = deadline if deadline is not None else Deadline(options.timeout)
    before, first = judge(test, specs, options, budget, full=True)
    out = FixResult(test.name, test.path, [str(s) for s in specs], False, "unknown", before,
                    max_cost=max_cost, strategy="reencode", goal="live")
    if first == "ok":
        out.status = "already"
        out.time = time.perf_counter() - t0
        return out
    ms = moves(test)
    out.candidates = len(ms)
    ctx = z3.Context()
    sel = [z3.Bool(f"move!{i}", ctx) for i in range(len(ms))]
    opt = z3.Optimize(ctx=ctx)
    slots: dict[tuple[int, int, str], list[int]] = {}
    for i, m in enumerate(ms):
        for x in m.slots:
            slots.setdefault(x, []).append(i)
    for group in slots.values():
        if len(group) > 1:
            opt.add(z3.AtMost(*[sel[i] for i in group], 1))
    cost = (z3.Sum([z3.If(s, z3.IntVal(m.cost, ctx), z3.IntVal(0, ctx))
                    for s, m in zip(sel, ms, strict=True)]) if ms else z3.IntVal(0, ctx))
    if max_cost is not None:
        opt.add(cost <= max_cost)
    opt.minimize(cost)
    opt.add(z3.Or(sel) if ms else z3.BoolVal(False, ctx))
    cache: dict[frozenset[int], tuple[dict[str, str], str, Repair | None]] = {}

    def check(chosen: Sequence[int]) -> tuple[dict[str, str], str, Repair | None]:
        key = frozenset(chosen)
        if key not in cache:
            out.queries += 1
            picked = [e for i in sorted(chosen) for e in ms[i].edits]
            text, reprinted = repair_text(test, picked)
            again = parse_litmus(text, test.path or "repaired.litmus")
            verdicts, got = judge(again, specs, options, budget)
            rep = Repair(picked, sum(ms[i].cost for i in chosen), again, verdicts, text,
                         reprinted)
            cache[key] = (verdicts, got, rep)
        return cache[key]

    def dominated(j: int, sets: Sequence[Sequence[int]]) -> bool:
        return any(ms[i].monotone and ms[i].edits[0].dominates(ms[j].edits[0])
                   for g in sets for i in g)

    def strongest(base: Sequence[int], avoid: Sequence[Sequence[int]] = ()) -> list[int]:
        """``base`` and the dearest compatible strengthening at every other place, those
        not dominated by a set of ``avoid`` first (another family at the same place)."""
        taken = {x for i in base for x in ms[i].slots}
        have = list(base)
        for i in sorted(range(len(ms)), key=lambda i: (dominated(i, avoid), -ms[i].cost)):
            if ms[i].monotone and not taken & ms[i].slots:
                have.append(i)
                taken |= ms[i].slots
        return have

    def exclude_dominated(grown: Sequence[int]) -> None:
        """Every set with ``grown``'s hang repairs and strengthenings it dominates."""
        fixed = [i for i in grown if not ms[i].monotone]
        other = [sel[j] for j in range(len(ms)) if not ms[j].monotone and j not in fixed]
        weaker = [sel[j] for j in range(len(ms)) if ms[j].monotone and not any(
            ms[i].monotone and ms[i].edits[0].dominates(ms[j].edits[0]) for i in grown)]
        opt.add(z3.Or([z3.Not(sel[i]) for i in fixed] + other + weaker))

    best: int | None = None
    pending: list[int] | None = strongest([]) or None
    while True:
        if budget.expired():
            out.reason = f"the search's time limit ran out after {out.queries} queries"
            break
        if out.queries >= max_queries:
            out.reason = f"the search stopped after {max_queries} queries"
            break
        if pending is not None:
            chosen, pending = pending, None
        else:
            a = opt.check()
            if a == z3.unknown:
                out.reason = f"the optimiser gave up: {opt.reason_unknown()}"
                break
            if a == z3.unsat:
                break
            model = opt.model()
            chosen = [i for i, v in enumerate(sel) if z3.is_true(model.eval(v))]
        _, got, rep = check(chosen)
        if got == "ok" and rep is not None:
            k = rep.cost
            if max_cost is None or k <= max_cost:
                out.repairs.append(rep)
                best = k if best is None else min(best, k)
            opt.add(z3.Or([z3.Not(sel[i]) for i in chosen]))
            if best is not None:
                opt.add(cost <= best if all_minimal else cost < best)
            continue
        if got == "hang":
            # grow it: the strongest compatible strengthenings, then (up to twice more)
            # those of other families at the same places, from the hang repairs alone
            fixed = [i for i in chosen if not ms[i].monotone]
            hung: list[list[int]] = []
            base = list(chosen)
            for _ in range(3):
                grown = strongest(base, hung)
                new = [i for i in grown if ms[i].monotone and not dominated(i, hung)]
                if hung and not new:
                    break
                again = got if sorted(grown) == sorted(chosen) else check(grown)[1]
                if again != "hang":
                    break
                exclude_dominated(grown)
                hung.append(grown)
                base = fixed
            if hung:
                continue
        # this set alone
        opt.add(z3.Or([z3.Not(sel[i]) for i in chosen]
                      + [sel[j] for j in range(len(ms)) if j not in chosen]))
    if best is not None:
        out.repairs = sorted((r for r in out.repairs if r.cost == best),
                             key=lambda r: [(e.thread, e.index, e.text) for e in r.edits])
        if not all_minimal:
            out.repairs = out.repairs[:1]
    out.status = ("unknown" if out.reason else "fixed" if out.repairs else "impossible")
    out.time = time.perf_counter() - t0
    return out
