"""Can the test hang? The liveness question for blocking waits and spin loops.

A thread hangs when it waits at a blocking wait (``gin.wait_signal``, ``shmem.wait_until``,
``mbarrier`` and counter waits, ...) or spins in a loop that has no side effect (labels and
branches, read-only iterations: :class:`~gdrcheck.lower.program.Spin`) forever in a fair
execution: every read it repeats reads the last write to its location (the progress model
of docs/liveness.md: threads make progress, posted NIC operations are delivered, so every
write becomes visible eventually) and every other thread has ended or hangs too
(gdrcheck/engine/liveness.py has the query).

The answer is ``Hang`` (with the stuck threads and the execution), ``Live`` when no such
execution exists *and* the ``--unroll`` bound cut no consistent execution of a loop with
side effects (a spin is covered by any bound: its last iteration repeats itself), else
``Unknown`` with the reason: never ``Live`` on a test the bound did not cover.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gdrcheck.analysis.options import AUTO_EXPLICIT_BOUND, DEFAULT_OPTIONS, CheckOptions
from gdrcheck.cat.loader import LoadedModel
from gdrcheck.engine.deadline import Deadline, Expired
from gdrcheck.engine.liveness import ESCAPE, FAIR, REACH, Search, conditions, search
from gdrcheck.engine.result import Witness
from gdrcheck.litmus import ast as A
from gdrcheck.lower import lower
from gdrcheck.lower.program import Leaf, Program, WaitSite


@dataclass(frozen=True)
class StuckThread:
    """One thread that waits or spins forever in the hang's execution."""

    site: WaitSite
    kind: str  # "wait" | "spin"
    reads: tuple[tuple[str, int | None, str], ...] = ()
    """(location, value, the write it reads, as ``eN (label)``) of every polled read."""

    def __str__(self) -> str:
        what = "waits forever at" if self.kind == "wait" else "spins forever at"
        seen = ", ".join(f"{loc}={v} from {src}" for loc, v, src in self.reads)
        return f"P{self.site.thread} {what} row {self.site.row}: {self.site.text}" + (
            f" (reads {seen}, the last writes)" if seen else "")


@dataclass
class Liveness:
    """The answer to the liveness question for one test under one model."""

    answer: str  # "Hang" | "Live" | "Unknown"
    stuck: list[StuckThread] = field(default_factory=list)
    witness: Witness | None = None
    reason: str | None = None
    """Why Unknown (the loop bound, the time limit)."""
    engine: str = ""

    def reasons(self) -> list[str]:
        """One line per stuck thread (``Result.liveness``'s reasons)."""
        return [str(s) for s in self.stuck]


def _stuck(found: Search, prog: Program) -> list[StuckThread]:
    out = []
    w = found.witness
    value = {e.eid: e.value for e in w.events} if w is not None else {}
    for st in found.reached:
        lf = st.leaf
        site = lf.spin.site if lf.spin is not None else lf.wait or lf.loop
        if site is None:
            continue
        reads = tuple((prog.events[r].loc or "?", value.get(r),
                       f"e{src} ({prog.events[src].label})") for r, src in st.reads)
        out.append(StuckThread(site, "spin" if lf.spin is not None else "wait", reads))
    return out


def _engine(options: CheckOptions, prog: Program) -> str:
    if options.engine != "auto":
        return options.engine
    from gdrcheck.engine.explicit import candidate_bound

    return "explicit" if candidate_bound(prog) <= AUTO_EXPLICIT_BOUND else "smt"


def _kept(prog: Program) -> list[Leaf]:
    """The relaxed leaves of ``prog`` (kept, though the bound or a wait ended them)."""
    return [lf for lf in prog.leaves
            if not lf.cut and (lf.wait is not None or lf.loop is not None)]


def liveness(test: A.Test, loaded: LoadedModel, chosen: frozenset[str],
             options: CheckOptions = DEFAULT_OPTIONS,
             deadline: Deadline | None = None) -> Liveness:
    """Whether some thread of ``test`` can wait or spin forever under the model."""
    if deadline is None:
        deadline = Deadline(options.timeout)
    try:
        prog = lower(test, options.unroll, deadline.tick)
        stuck = prog.stuck_leaves()
        cuts = prog.bound_cuts()
        engine = _engine(options, prog)
        if stuck:
            relaxed = prog.with_leaves_relaxed(stuck)
            engine = _engine(options, relaxed)
            fair = conditions(_kept(relaxed), FAIR)
            found = search(engine, relaxed, loaded.stmts, chosen, test, fair, fair,
                           loaded.path_of, deadline)
            if found.answer == "Found":
                return Liveness("Hang", _stuck(found, prog), found.witness, engine=engine)
            if found.answer == "Unknown":
                return Liveness("Unknown", reason="the time limit ran out", engine=engine)
        if not cuts and not any(lf.spin is not None and lf.spin.same for lf in stuck):
            return Liveness("Live", engine=engine)
        # Live only if no consistent execution goes past the bound of a loop: a loop with
        # side effects, or a spin whose registers still change (a hang may lie beyond)
        wider = prog.with_leaves_relaxed([*stuck, *cuts])
        engine = _engine(options, wider)
        kept = _kept(wider)
        goals = {**conditions([lf for lf in kept if lf.loop is not None and lf.spin is None],
                              REACH),
                 **conditions([lf for lf in kept if lf.spin is not None], ESCAPE)}
        beyond = search(engine, wider, loaded.stmts, chosen, test, goals, {},
                        loaded.path_of, deadline)
    except Expired:
        return Liveness("Unknown", reason="the time limit ran out")
    if beyond.answer == "None":
        return Liveness("Live", engine=engine)
    if beyond.answer == "Unknown":
        return Liveness("Unknown", reason="the time limit ran out", engine=engine)
    loops = sorted({f"P{r.leaf.loop.thread}:{r.leaf.loop.row} {r.leaf.loop.text}"
                    for r in beyond.reached if r.leaf.loop is not None})
    return Liveness("Unknown", engine=engine, reason=(
        f"--unroll {options.unroll} cut an execution of a loop that goes on "
        f"({'; '.join(loops)}): a larger bound may find a hang"))
