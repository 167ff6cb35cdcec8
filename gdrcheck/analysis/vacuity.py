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
from gdrcheck.engine.smt import build_query, query_solver
from gdrcheck.litmus import ast as A
from gdrcheck.lower import lower
from gdrcheck.lower.program import Program, WaitSite


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


def _passing_block(prog: Program, no_block: int) -> int | None:
    """The block where a wait's condition holds, beside its failing block."""
    fail = prog.blocks[no_block]
    for b in prog.blocks:
        if (b.parent == fail.parent and b.cond == fail.cond and b.positive != fail.positive
                and b.bid != fail.bid):
            return b.bid
    return None


def explain_vacuity(test: A.Test, loaded: LoadedModel, chosen: frozenset[str],
                    options: CheckOptions = DEFAULT_OPTIONS) -> Vacuity:
    """Why no execution of ``test`` completes under the model (``chosen`` variants)."""
    prog = lower(test, options.unroll)
    out = Vacuity(unroll_cut=any(lf.cut and lf.wait is None for lf in prog.leaves))
    waits = prog.blocking_waits()
    if not waits:
        return out
    relaxed = prog.with_waits_relaxed()
    q = build_query(relaxed, loaded.stmts, chosen, test, loaded.path_of, prune=True)
    s = query_solver(q, options.timeout)
    lits = list(q.axiom_lits.values())
    blocks = q.enc.blocks
    reached: dict[WaitSite, list[Formula]] = {}
    passed: dict[WaitSite, list[Formula]] = {}
    for leaf in waits:
        assert leaf.wait is not None
        parent = prog.blocks[leaf.block].parent
        reached.setdefault(leaf.wait, []).append(True if parent is None else blocks[parent])
        yes = _passing_block(prog, leaf.block)
        if yes is not None:
            passed.setdefault(leaf.wait, []).append(blocks[yes])
    for site, where in reached.items():
        reach = s.check(*lits, to_z3(f_or(where)))
        if reach == z3.unknown:
            out.unknown = True
            continue
        if reach == z3.unsat:
            continue  # never reached: a consequence of another wait
        through = passed.get(site)
        if through:
            a = s.check(*lits, to_z3(f_or(through)))
            if a == z3.unknown:
                out.unknown = True
                continue
            if a == z3.sat:
                continue
        out.blocked.append(site)
    out.blocked.sort(key=lambda w: (w.thread, w.row))
    return out

