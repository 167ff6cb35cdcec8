"""When no execution completes: which blocking waits no execution satisfies.

An answer with no completing execution is vacuous: every candidate execution ends at
a wait that fails (the failing outcome of ``gin.wait_signal``, ``shmem.wait_until``,
a barrier's wait) or at the ``--unroll`` bound, or the model rules every execution
out. Then "Forbidden" holds of nothing. To say which waits block, the test is lowered
again with its waits *relaxed* (a thread may stop at a wait that fails, and the
execution is kept): a wait that some relaxed execution reaches but none gets past is
never satisfied. One z3 query per wait, on one encoding.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import z3

from gdrcheck.analysis.options import DEFAULT_OPTIONS, CheckOptions
from gdrcheck.cat.loader import LoadedModel
from gdrcheck.cat.values import Formula, f_or, to_z3
from gdrcheck.engine.deadline import Deadline, Expired
from gdrcheck.engine.smt import build_query, query_solver
from gdrcheck.litmus import ast as A
from gdrcheck.lower import lower
from gdrcheck.lower.program import CmpExpr, WaitSite


@dataclass
class Vacuity:
    """Why no execution completes."""

    blocked: list[WaitSite] = field(default_factory=list)
    """The waits that some execution reaches and none gets past."""
    unroll_cut: bool = False
    """Some paths end at the ``--unroll`` bound."""
    unknown: bool = False
    """The solver gave up while looking."""

    def message(self, unroll: int) -> str:
        if self.blocked:
            waits = "; ".join(f"{w} never satisfied" for w in self.blocked)
            return f"no execution completes; {waits}"
        if self.unknown:
            return "no execution completes (the solver gave up finding the waits that block)"
        if self.unroll_cut:
            return (f"no execution completes within --unroll {unroll} (paths end at the "
                    "loop bound)")
        return "no execution completes: the model rules every candidate execution out"


def explain_vacuity(test: A.Test, loaded: LoadedModel, chosen: frozenset[str],
                    options: CheckOptions = DEFAULT_OPTIONS,
                    deadline: Deadline | None = None) -> Vacuity:
    """Why no execution of ``test`` completes under the model (``chosen`` variants).
    ``deadline`` (default: ``options.timeout`` from now) bounds the lowering, the
    encoding and the queries; when it runs out, the answer says the search gave up."""
    if deadline is None:
        deadline = Deadline(options.timeout)
    try:
        prog = lower(test, options.unroll, deadline.tick)
        out = Vacuity(unroll_cut=any(lf.cut and lf.wait is None for lf in prog.leaves))
        waits = prog.blocking_waits()
        if not waits:
            return out
        relaxed = prog.with_waits_relaxed()
        q = build_query(relaxed, loaded.stmts, chosen, test, loaded.path_of,
                        deadline=deadline, prune=True)
    except Expired:
        return Vacuity(unknown=True)
    s = query_solver(q)
    lits = list(q.axiom_lits.values())
    blocks = q.enc.blocks
    # the block where a wait's condition holds, beside its failing block
    beside: dict[tuple[int | None, CmpExpr | None, bool], int] = {}
    for b in prog.blocks:
        beside.setdefault((b.parent, b.cond, b.positive), b.bid)
    reached: dict[WaitSite, list[Formula]] = {}
    passed: dict[WaitSite, list[Formula]] = {}
    for leaf in waits:
        assert leaf.wait is not None
        fail = prog.blocks[leaf.block]
        reached.setdefault(leaf.wait, []).append(
            True if fail.parent is None else blocks[fail.parent])
        yes = beside.get((fail.parent, fail.cond, not fail.positive))
        if yes is not None:
            passed.setdefault(leaf.wait, []).append(blocks[yes])
    for site, where in reached.items():
        reach = deadline.check(s, *lits, to_z3(f_or(where)))
        if reach == z3.unknown:
            out.unknown = True
            continue
        if reach == z3.unsat:
            continue  # never reached: a consequence of another wait
        through = passed.get(site)
        if through:
            a = deadline.check(s, *lits, to_z3(f_or(through)))
            if a == z3.unknown:
                out.unknown = True
                continue
            if a == z3.sat:
                continue
        out.blocked.append(site)
    out.blocked.sort(key=lambda w: (w.thread, w.row))
    return out

