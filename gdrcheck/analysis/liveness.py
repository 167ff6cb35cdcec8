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
class KeptRead:
    """One read a stuck thread repeats forever, and the coherence order of its location."""

    read: int
    loc: str
    value: int | None
    source: int
    """The write it reads: the last one to ``loc`` in coherence order."""
    co: tuple[int, ...]
    """The writes to ``loc`` in coherence order, the initial one first, ``source`` last."""
    overwritten: tuple[int, ...] = ()
    """Writes of another value to ``loc`` that coherence puts before ``source``: values
    the thread would have needed to see, overwritten."""
    stale: bool = False
    """``source`` is not the last write: a weak load that keeps a stale value forever
    (the ``weak-poll`` variant)."""


@dataclass(frozen=True)
class StuckThread:
    """One thread that waits or spins forever in the hang's execution."""

    site: WaitSite
    kind: str  # "wait" | "spin"
    reads: tuple[tuple[str, int | None, str], ...] = ()
    """(location, value, the write it reads, as ``eN (label)``) of every polled read."""
    kept: tuple[KeptRead, ...] = ()
    """The same reads with their coherence order (what ``gdrcheck explain`` shows)."""

    def __str__(self) -> str:
        what = "waits forever at" if self.kind == "wait" else "spins forever at"
        seen = ", ".join(f"{loc}={v} from {src}" for loc, v, src in self.reads)
        last = ("stale values a weak load keeps (weak-poll)" if any(k.stale for k in self.kept)
                else "the last writes")
        return f"P{self.site.thread} {what} row {self.site.row}: {self.site.text}" + (
            f" (reads {seen}, {last})" if seen else "")


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
        kept = []
        for r, src in st.reads:
            loc = prog.events[r].loc or "?"
            order = tuple(w.co.get(loc, [src])) if w is not None else (src,)
            before = order[:order.index(src)] if src in order else ()
            kept.append(KeptRead(r, loc, value.get(r), src, order, tuple(
                x for x in before if value.get(x) != value.get(src)),
                bool(order) and order[-1] != src))
        out.append(StuckThread(site, "spin" if lf.spin is not None else "wait", reads,
                               tuple(kept)))
    return out


def _engine(options: CheckOptions, prog: Program) -> str:
    if options.engine != "auto":
        return options.engine
    from gdrcheck.engine.explicit import candidate_bound

    return "explicit" if candidate_bound(prog) <= AUTO_EXPLICIT_BOUND else "smt"


WEAK_POLL = "weak-poll"
"""The variant (specs/ptx.cat, specs/ptx75.cat) under which a weak load polled forever may
keep reading a stale value (docs/liveness.md, "Progress model")."""


def stale_reads(prog: Program, chosen: frozenset[str]) -> frozenset[int]:
    """The polled reads exempt from reading the last write: under ``weak-poll``, a
    thread's own weak loads (PTX ``ld``/``ld.weak``: tag WEAK, not of an agent)."""
    if WEAK_POLL not in chosen:
        return frozenset()
    return frozenset(r for lf in prog.leaves for r in lf.polled()
                     if "WEAK" in prog.events[r].tags and not prog.events[r].agent)


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
                           loaded.path_of, deadline, stale_reads(relaxed, chosen))
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


# --------------------------------------------------------------------------
# The stuck execution in words (gdrcheck explain --liveness)
# --------------------------------------------------------------------------


def who(w: Witness, eid: int) -> str:
    """An event of ``w`` in the domain's words: ``e7 (P1's st.relaxed.sys S, 0)``,
    ``e5 (P0's shmem.put_signal ... (signal S@1 W, performed by nic0.shmem.1))``,
    ``e13 (the initial value 0)``."""
    e = next((x for x in w.events if x.eid == eid), None)
    if e is None:
        return f"e{eid}"
    if e.thread < 0:
        return f"e{eid} (the initial value {e.value})"
    instr, _, part = e.label.partition(" / ")
    by = f", performed by {e.agent}" if e.agent else ""
    inner = f" ({part}{by})" if part or by else ""
    return f"e{eid} (P{e.thread}'s {instr}{inner})"


@dataclass
class HangExplanation:
    """Why a test may hang under one model: the stuck execution and, for each stuck
    thread, what it keeps reading, from which write, and why no later write changes it."""

    model: str
    answer: str  # Hang | Live | Unknown
    stuck: list[StuckThread] = field(default_factory=list)
    why: list[list[str]] = field(default_factory=list)
    """Per stuck thread, in the domain's words."""
    others: list[str] = field(default_factory=list)
    """The threads that are not stuck: each has ended."""
    witness: Witness | None = None
    reason: str | None = None
    engine: str = ""


def explain_hang(ans: Liveness, test: A.Test, model: str) -> HangExplanation:
    """The words of ``ans`` (the :func:`liveness` answer for ``test`` under ``model``)."""
    out = HangExplanation(model, ans.answer, list(ans.stuck), witness=ans.witness,
                          reason=ans.reason, engine=ans.engine)
    w = ans.witness
    if ans.answer != "Hang" or w is None:
        return out
    stuck = {s.site.thread for s in ans.stuck}
    nic = any(e.agent for e in w.events)
    for s in ans.stuck:
        lines = []
        for k in s.kept:
            lines.append(f"it keeps reading {k.loc} = {k.value} (e{k.read}) from "
                         f"{who(w, k.source)}")
            if k.stale:
                later = k.co[k.co.index(k.source) + 1:] if k.source in k.co else k.co
                lines.append("it is a weak load that keeps a stale value: "
                             + ", ".join(who(w, x) for x in later) + " came later in "
                             "coherence and never reaches it (the weak-poll variant: ld.ca "
                             "may keep reading a stale L1 line, PTX ISA §9.7.9.1 Cache Operators)")
            elif len(k.co) > 1:
                lines.append(f"e{k.source} is the last write to {k.loc} in coherence "
                             "order (" + " < ".join(f"e{x}" for x in k.co) + "): the "
                             "model lets it come last, this execution is consistent")
            else:
                lines.append(f"no thread writes {k.loc}: it keeps its initial value")
            for x in k.overwritten:
                lines.append(f"{who(w, x)} came before it in coherence: overwritten by "
                             f"e{k.source}, its value is never read again")
        if s.kind == "spin":
            lines.append("each iteration of the loop reads these values again and leaves "
                         "its registers as they were: it repeats forever")
        else:
            lines.append("the wait's condition fails on these values: it re-reads them "
                         "forever")
        rest = "every other thread has ended" + (" or is stuck too" if len(stuck) > 1
                                                 else "")
        if nic:
            rest += (", and every posted NIC operation has been performed (eventual "
                     "delivery)")
        lines.append(f"no later write can change what it reads: {rest}")
        out.why.append(lines)
    out.others = [f"P{t} has ended" for t in range(len(test.threads)) if t not in stuck]
    return out
