"""The explicit enumerator: every candidate execution, one at a time.

For each choice of one path per thread, of an rf source per read, of a
coherence order per location, of a Fence-SC order and of barrier arrival
orders, the model is evaluated concretely (herd7's method). Exponential, and
meant for small tests: it is the reference the z3 engine is checked against.

Candidates are well formed exactly as in the z3 engine: values must be
computable from rf (no value out of thin air), branch outcomes must match the
values read, no barrier may wait for an arrival that follows it, and a barrier
with a thread count needs that many arrivals.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from gdrcheck.cat import ast as C
from gdrcheck.cat.interp import Interpreter, union
from gdrcheck.cat.values import Formula, Pair, RelV
from gdrcheck.engine.backends import ConcreteBackend, concrete_check, concrete_closure
from gdrcheck.engine.base import Frame, base_env, static_env
from gdrcheck.engine.deadline import Deadline, Expired
from gdrcheck.engine.observe import Observables
from gdrcheck.engine.result import Result, State, Verdict, Witness, WitnessEvent, split_flags
from gdrcheck.errors import UnsupportedError
from gdrcheck.litmus import ast as A
from gdrcheck.lower.program import Event, Expr, Leaf, Program, eval_cmp, eval_expr


class _Cyclic(Exception):
    pass


class _Evaluation:
    """The model, evaluated on one candidate after another; the static built-ins of the
    current choice of paths (its exec dict, kept alive) are computed once for all of its
    candidates."""

    def __init__(self, prog: Program, stmts: Sequence[C.Stmt], variants: frozenset[str],
                 path_of: Any, tick: Callable[[], None]) -> None:
        self.prog, self.stmts, self.variants = prog, stmts, variants
        self.path_of, self.tick = path_of, tick
        self.static: tuple[dict[int, Formula], dict[str, Any]] | None = None

    def __call__(self, frame: Frame) -> tuple[dict[str, Any], Any]:
        if self.static is None or self.static[0] is not frame.exec:
            self.static = (frame.exec, static_env(self.prog, frame.exec, self.tick))
        env = base_env(frame, self.tick, static=self.static[1])
        ev = Interpreter(env, ConcreteBackend(), self.variants, self.path_of,
                         tick=self.tick).run(self.stmts)
        return env, ev


def _observed(obs: Observables, full: State) -> State:
    """The values of the condition's terms in a candidate's final state."""
    values = dict(full)
    return tuple((n, values.get(n, 0)) for n in obs.terms)


def _values(prog: Program, rf_of: dict[int, int]) -> dict[int, int] | None:
    """Values of the reads under rf; None when they depend on themselves."""
    vals: dict[int, int] = {}
    busy: set[int] = set()

    def read(r: int) -> int:
        if r in vals:
            return vals[r]
        if r in busy:
            raise _Cyclic
        busy.add(r)
        w = prog.events[rf_of[r]]
        v = ev_expr(w.value or 0)
        busy.discard(r)
        vals[r] = v
        return v

    def ev_expr(e: Expr) -> int:
        deps = {}
        for rid in _reads_of(e):
            deps[rid] = read(rid)
        return eval_expr(e, deps)

    try:
        for r in rf_of:
            read(r)
    except _Cyclic:
        return None
    return vals


def _reads_of(e: Expr) -> list[int]:
    from gdrcheck.lower.program import expr_reads

    return list(expr_reads(e))


def _path_events(prog: Program, leaf: Leaf) -> list[int]:
    chain = {b.bid for b in prog.block_chain(leaf.block)}
    return [e.eid for e in prog.events if e.thread == leaf.thread and e.block in chain]


class ExplicitEngine:
    name = "explicit"

    def __init__(self, timeout: float | None = None, limit: int = 2_000_000) -> None:
        self.timeout = timeout
        self.limit = limit

    def run(self, prog: Program, stmts: Sequence[C.Stmt], variants: frozenset[str],
            test: A.Test, model_name: str, states: bool = True, path_of: Any = None,
            deadline: Deadline | None = None) -> Result:
        """The verdict; ``deadline`` defaults to ``timeout`` seconds from now."""
        t0 = time.perf_counter()
        if deadline is None:
            deadline = Deadline(self.timeout)
        obs = Observables(test)
        quant = test.condition.quantifier
        res = Result(test.name, model_name, self.name, quant, Verdict.UNKNOWN, False, False)
        found: set[State] = set()
        # the named checks each rejected candidate fails, by the side of P it reaches
        rejected: dict[bool, set[frozenset[str]]] = {True: set(), False: set()}
        order: dict[str, int] = {}  # the named checks in the model's order
        flags: set[str] = set()
        pos_w: Witness | None = None
        neg_w: Witness | None = None
        tick = deadline.tick
        evaluate = _Evaluation(prog, stmts, variants, path_of, tick)
        candidates = self._candidates(prog, tick)
        while True:
            try:
                tick()
                cand = next(candidates, None)
                if cand is None:
                    break
                frame, full, vals, _ = cand
                state = _observed(obs, full)
                if test.filter is not None and not obs.eval_state(test.filter, state):
                    continue
                env, ev = evaluate(frame)
            except Expired:
                res.time = time.perf_counter() - t0
                res.verdict, res.reason = Verdict.UNKNOWN, "timeout while enumerating candidates"
                res.positive = res.negative = None
                return res
            failed = [c.name for c in ev.checks if not c.flag and not concrete_check(c)]
            if any(n not in order for n in failed):
                for c in ev.checks:
                    order.setdefault(c.name, len(order))
            if frame.syncbar:
                progress = union(env["po"], RelV(dict(frame.syncbar)))
                if any(a == b for a, b in concrete_closure(progress.m)):  # type: ignore[arg-type]
                    continue  # deadlock: not a final execution
            p = obs.eval_state(test.condition.prop, state)
            if failed:
                rejected[p].add(frozenset(failed))
                continue
            for c in ev.checks:
                if c.flag and concrete_check(c):
                    flags.add(c.name)
            found.add(state)
            if p and pos_w is None:
                pos_w = _witness(prog, frame, vals, state)
            if not p and neg_w is None:
                neg_w = _witness(prog, frame, vals, state)
        res.positive = pos_w is not None
        res.negative = neg_w is not None
        res.flags, res.liveness = split_flags(sorted(flags))
        res.states = sorted(found)
        res.pos_states = sum(1 for s in found if obs.eval_state(test.condition.prop, s))
        res.neg_states = len(found) - res.pos_states
        if quant == "forall":
            res.verdict = (Verdict.REQUIRED if not res.negative
                           else Verdict.ALLOWED if res.positive else Verdict.FORBIDDEN)
            res.witness = neg_w or pos_w
        else:
            res.verdict = Verdict.ALLOWED if res.positive else Verdict.FORBIDDEN
            res.witness = pos_w
        # as the z3 engine's unsat core: the checks that rule out P (~P for forall)
        if quant != "forall" and not res.positive:
            res.axioms = rejecting_checks(rejected[True], order)
        elif quant == "forall" and not res.negative:
            res.axioms = rejecting_checks(rejected[False], order)
        if res.flags:
            res.verdict = Verdict.UNDEFINED
        if not states:  # listing the states is on request only, as with the smt engine
            res.states = res.pos_states = res.neg_states = None
        res.time = time.perf_counter() - t0
        return res

    # -- candidates ------------------------------------------------------------

    def find(self, prog: Program, stmts: Sequence[C.Stmt], variants: frozenset[str],
             test: A.Test, accept: Callable[[Frame, tuple[Leaf, ...], dict[int, int]], bool],
             path_of: Any = None, deadline: Deadline | None = None) -> Witness | None:
        """A consistent candidate execution (every named check holds, no barrier waits
        for a later arrival, the test's filter holds) that ``accept`` takes, given its
        frame, its leaf per thread and its read values; None when there is none. When
        the time runs out, None with ``gave_up`` set."""
        if deadline is None:
            deadline = Deadline(self.timeout)
        self.gave_up = False
        obs = Observables(test)
        tick = deadline.tick
        evaluate = _Evaluation(prog, stmts, variants, path_of, tick)
        candidates = self._candidates(prog, tick)
        try:
            for frame, full, vals, leaves in candidates:
                tick()
                if not accept(frame, leaves, vals):
                    continue
                state = _observed(obs, full)
                if test.filter is not None and not obs.eval_state(test.filter, state):
                    continue
                env, ev = evaluate(frame)
                if any(not c.flag and not concrete_check(c) for c in ev.checks):
                    continue
                if frame.syncbar:
                    progress = union(env["po"], RelV(dict(frame.syncbar)))
                    if any(a == b for a, b in concrete_closure(progress.m)):  # type: ignore[arg-type]
                        continue
                return _witness(prog, frame, vals, state)
        except Expired:
            self.gave_up = True
        return None

    gave_up: bool = False
    """The last :meth:`find` ran out of time."""

    def _candidates(self, prog: Program, tick: Callable[[], None]
                    ) -> Iterator[tuple[Frame, State, dict[int, int], tuple[Leaf, ...]]]:
        """Every candidate execution; ``tick`` (the time limit's poll) is called for
        each choice of paths and of rf sources, also those that yield nothing."""
        threads = range(prog.nthreads)
        per_thread = [[lf for lf in prog.leaves_of(t) if not lf.cut] for t in threads]
        init = [e.eid for e in prog.events if e.is_init]
        rmw_partner = {r: w for r, w in prog.rmw}
        count = 0
        for leaves in itertools.product(*per_thread):
            tick()
            executed = list(init)
            for lf in leaves:
                executed += _path_events(prog, lf)
            exset = set(executed)
            exe: dict[int, Formula] = dict.fromkeys(exset, True)  # shared by the path's candidates
            evs = [prog.events[i] for i in executed]
            reads = [e for e in evs if e.kind == "R"]
            writes_at: dict[str, list[int]] = {}
            for e in evs:
                if e.kind == "W" and e.loc is not None:
                    writes_at.setdefault(e.loc, []).append(e.eid)
            choices = [[w for w in writes_at.get(r.loc or "", []) if w != rmw_partner.get(r.eid)]
                       for r in reads]
            if any(not c for c in choices):
                continue
            self._within_limit(math.prod(len(c) for c in choices), "reads-from choices")
            for srcs in itertools.product(*choices):
                tick()
                rf_of = {r.eid: w for r, w in zip(reads, srcs, strict=True)}
                vals = _values(prog, rf_of)
                if vals is None:
                    continue
                if not _paths_agree(prog, leaves, vals):
                    continue
                for frame, state, vs in self._orders(prog, leaves, exe, evs, writes_at,
                                                     rf_of, vals):
                    yield frame, state, vs, leaves
                count += 1
                if count > self.limit:
                    raise UnsupportedError(
                        f"more than {self.limit} candidate executions: too many for the "
                        "explicit engine (use --engine smt)")

    def _orders(self, prog: Program, leaves: tuple[Leaf, ...], exe: dict[int, Formula],
                evs: list[Event], writes_at: dict[str, list[int]], rf_of: dict[int, int],
                vals: dict[int, int]) -> Iterator[tuple[Frame, State, dict[int, int]]]:
        rf: dict[Pair, Formula] = {(w, r): True for r, w in rf_of.items()}
        co_choices = []
        locs = list(writes_at)
        scf = [e.eid for e in evs if e.kind == "F" and "SC" in e.tags]
        orders = math.factorial(len(scf)) * math.prod(
            math.factorial(sum(1 for w in ws if not prog.events[w].is_init))
            for ws in writes_at.values())
        self._within_limit(orders, "coherence and fence orders")
        for loc in locs:
            ws = writes_at[loc]
            init = [w for w in ws if prog.events[w].is_init]
            real = [w for w in ws if not prog.events[w].is_init]
            co_choices.append([init + list(p) for p in itertools.permutations(real)])
        fso_choices = list(itertools.permutations(scf)) if len(scf) > 1 else [tuple(scf)]
        bar_choices = _barrier_orders(prog, evs, vals)
        for cos in itertools.product(*co_choices):
            co: dict[Pair, Formula] = {}
            fw: dict[int, Formula] = {}
            final: dict[str, int] = {}
            for loc, order in zip(locs, cos, strict=True):
                for i, a in enumerate(order):
                    for b in order[i + 1:]:
                        co[(a, b)] = True
                last = order[-1]
                fw[last] = True
                final[loc] = _write_value(prog, last, vals)
            state = _state(prog, leaves, vals, final)
            for fso_order in fso_choices:
                fso: dict[Pair, Formula] = {
                    (a, b): True for i, a in enumerate(fso_order) for b in fso_order[i + 1:]
                }
                for sb in bar_choices:
                    frame = Frame(prog, exe, rf, co, fw, fso, sb)
                    yield frame, state, vals

    def _within_limit(self, count: int, what: str) -> None:
        """Refuse, before enumerating them, more choices than the engine's limit (a long
        thread of stores has more coherence orders than can be listed)."""
        if count > self.limit:
            raise UnsupportedError(
                f"more than {self.limit} {what} to enumerate: too many for the explicit "
                "engine (use --engine smt)")

    # -- helpers ---------------------------------------------------------------


def _write_value(prog: Program, w: int, vals: dict[int, int]) -> int:
    e = prog.events[w]
    return eval_expr(e.value or 0, vals)


def _paths_agree(prog: Program, leaves: Sequence[Leaf], vals: dict[int, int]) -> bool:
    for lf in leaves:
        for b in prog.block_chain(lf.block):
            if b.cond is None:
                continue
            ok = eval_cmp(b.cond.op, eval_expr(b.cond.left, vals), eval_expr(b.cond.right, vals))
            if ok != b.positive:
                return False
    return True


def _state(prog: Program, leaves: Sequence[Leaf], vals: dict[int, int],
           final: dict[str, int]) -> State:
    out: dict[str, int] = {}
    for lf in leaves:
        for reg, e in lf.regs:
            out[f"{lf.thread}:{reg}"] = eval_expr(e, vals)
    out.update(final)
    for alias, loc in prog.aliases.items():
        if loc in final:
            out[alias] = final[loc]
    return tuple(sorted(out.items()))


def _barrier_orders(prog: Program, evs: list[Event],
                    vals: dict[int, int]) -> list[dict[Pair, Formula]]:
    """Every possible syncbar relation (one per arrival order of quorum barriers),
    leaving out executions that hang (a quorum never reached)."""
    arrivals = [e for e in evs if "ARRIVE" in e.tags]
    waits = [e for e in evs if "WAIT" in e.tags]
    if not waits:
        return [{}]

    def ident(e: Event) -> tuple[Any, ...]:
        return (e.gpu, e.cta, tuple(eval_expr(x, vals) for x in (e.barrier_id or ())),
                len(e.barrier_id or ()))

    executed = {e.eid for e in evs}

    def bid(e: Event) -> tuple[Any, ...]:
        arrival = e if "ARRIVE" in e.tags else prog.events[e.parent or 0]
        # generation: earlier arrivals of the same thread at the same barrier
        gen = sum(1 for z in prog.ancestors(arrival.eid)
                  if z in executed and "ARRIVE" in prog.events[z].tags
                  and ident(prog.events[z]) == ident(arrival))
        return (*ident(arrival), gen)

    groups: dict[tuple[Any, ...], list[Event]] = {}
    for a in arrivals:
        groups.setdefault(bid(a), []).append(a)
    quorum_groups = [k for k in groups
                     if any(w.quorum is not None and bid(w) == k for w in waits)]
    orders_per_group = [list(itertools.permutations(groups[k])) for k in quorum_groups]
    out: list[dict[Pair, Formula]] = []
    for orders in itertools.product(*orders_per_group):
        position = {}
        for order in orders:
            for i, a in enumerate(order):
                position[a.eid] = i
        rel: dict[Pair, Formula] = {}
        hang = False
        for w in waits:
            own = w.parent
            assert own is not None
            peers = groups.get(bid(w), [])
            if w.quorum is not None and len(peers) < w.quorum:
                hang = True
                break
            for a in peers:
                if a.thread == w.thread:
                    continue
                if w.quorum is not None:
                    counted = position[a.eid] <= position[own] or position[a.eid] < w.quorum
                    if not counted:
                        continue
                rel[(a.eid, w.eid)] = True
        if not hang:
            out.append(rel)
    return out


def _witness(prog: Program, frame: Frame, vals: dict[int, int], state: State) -> Witness:
    events = []
    for eid in sorted(frame.exec):
        e = prog.events[eid]
        if e.kind == "R":
            v: int | None = vals[eid]
        elif e.kind == "W":
            v = _write_value(prog, eid, vals)
        else:
            v = None
        events.append(WitnessEvent(eid, e.thread, e.kind, e.loc, v, e.label,
                                   tuple(sorted(e.tags)), e.agent))
    co: dict[str, list[int]] = {}
    for we in events:
        if we.kind == "W" and we.loc is not None:
            co.setdefault(we.loc, []).append(we.eid)
    for loc, ws in co.items():
        # the key counts predecessors in a copy: during list.sort the list is empty
        # (CPython), and every key was 0 (a GIN witness had x's initial write co-last)
        writes = tuple(ws)
        co[loc] = sorted(writes, key=lambda w: sum(1 for x in writes if (x, w) in frame.co))
    # rf by read, as the z3 engine lists it (its reads in event order)
    return Witness(events, sorted(frame.rf, key=lambda p: (p[1], p[0])), co, state,
                   {k: sorted(v) for k, v in (("fso", frame.fso), ("syncbar", frame.syncbar))
                    if v})


def rejecting_checks(failed_sets: Iterable[frozenset[str]], order: Mapping[str, int]
                     ) -> list[str]:
    """A set of named checks that rules out every rejected candidate of an outcome, each
    candidate given by the checks it fails: a hitting set of ``failed_sets``, chosen
    greedily (the check failed by most candidates not yet ruled out; ties: the earlier
    in the model, ``order``), then made irredundant (dropping any one of them lets some
    candidate through); listed in the model's order. The z3 engine names its unsat core
    instead (not minimised): both are checks that together rule the outcome out, not
    always the same ones."""

    def rank(name: str) -> tuple[int, str]:
        return order.get(name, len(order)), name

    sets = [s for s in set(failed_sets) if s]
    chosen: list[str] = []
    left = list(sets)
    while left:
        counts: dict[str, int] = {}
        for s in left:
            for name in s:
                counts[name] = counts.get(name, 0) + 1
        best = min(counts, key=lambda n: (-counts[n], *rank(n)))
        chosen.append(best)
        left = [s for s in left if best not in s]
    for name in list(reversed(chosen)):
        rest = [n for n in chosen if n != name]
        if all(any(n in s for n in rest) for s in sets):
            chosen = rest
    return sorted(chosen, key=rank)


def candidate_bound(prog: Program) -> int:
    """An upper bound of the candidate executions the enumerator visits for ``prog``
    (paths x rf sources x coherence orders x Fence-SC orders x arrival orders), counted
    without enumerating: the portfolio (``--engine auto``) takes this engine below a
    bound."""
    paths = math.prod(max(1, sum(1 for lf in prog.leaves_of(t) if not lf.cut))
                      for t in range(prog.nthreads))
    rmw_partner = dict(prog.rmw)
    writes_at: dict[str, list[int]] = {}
    for e in prog.events:
        if e.kind == "W" and e.loc is not None:
            writes_at.setdefault(e.loc, []).append(e.eid)
    rf = math.prod(max(1, sum(1 for w in writes_at.get(e.loc or "", [])
                              if w != rmw_partner.get(e.eid)))
                   for e in prog.events if e.kind == "R")
    co = math.prod(math.factorial(sum(1 for w in ws if not prog.events[w].is_init))
                   for ws in writes_at.values())
    fso = math.factorial(sum(1 for e in prog.events if e.kind == "F" and "SC" in e.tags))
    arrivals = sum(1 for e in prog.events if "ARRIVE" in e.tags)
    bars = math.factorial(arrivals) if any(e.quorum is not None for e in prog.events) else 1
    return paths * rf * co * fso * bars
