"""The time limit of one question (``--timeout``): one budget for the whole of it.

A check of one test under one model lowers the test, encodes it (the candidate
executions, then the model's statements one by one) and asks the solver several
questions (each flag, the condition, its negation, the states, ...). Giving each
solver call the whole limit let a check run for several times the limit plus the
encoding (``--timeout 120`` answered after 125 s, issue 12). A :class:`Deadline` is
set once when the question starts; the encoders call :meth:`Deadline.tick` between
steps (each cat statement, each fixpoint round) and each solver call gets only the time
that is left (:meth:`Deadline.arm`). What is overrun is at most one step of the
encoding or z3's own reaction time to its limit.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import z3
else:
    from gdrcheck.lazy import z3  # imported on first use (a fast start)


class Expired(Exception):
    """The time limit ran out before the question was answered."""


class Deadline:
    """``seconds`` from now (None or 0: no limit, as z3's own ``timeout`` 0)."""

    def __init__(self, seconds: float | None = None) -> None:
        self.seconds = seconds
        self.start = time.perf_counter()
        self.end = None if not seconds else self.start + seconds

    def remaining(self) -> float | None:
        """Seconds left (never below 0); None without a limit."""
        if self.end is None:
            return None
        return max(0.0, self.end - time.perf_counter())

    def elapsed(self) -> float:
        """Seconds since the question started."""
        return time.perf_counter() - self.start

    def expired(self) -> bool:
        return self.end is not None and time.perf_counter() >= self.end

    def tick(self) -> None:
        """Raise :class:`Expired` when the time is up: called between the steps of
        lowering and encoding and every few iterations of their long loops (a look at
        the clock, well under a microsecond). Lowering and the cat interpreter know it
        only as a callable (``Callable[[], None]``): they import nothing from here."""
        if self.expired():
            raise Expired(f"timeout after {self.seconds:g} s")

    def arm(self, s: z3.Solver) -> bool:
        """Give the next call of ``s`` the time that is left; False when none is."""
        left = self.remaining()
        if left is None:
            return True
        if left <= 0:
            return False
        s.set("timeout", max(1, math.ceil(left * 1000)))
        return True

    def check(self, s: z3.Solver, *assumptions: z3.BoolRef) -> z3.CheckSatResult:
        """``s.check(*assumptions)`` within the time that is left (``unknown`` when none
        is: the caller reports it as a timeout)."""
        if not self.arm(s):
            return z3.unknown
        return s.check(*assumptions)

    def why(self, s: z3.Solver) -> str:
        """The reason of an ``unknown`` answer of ``s``: ``solver: timeout`` when the time
        is up, else what z3 says."""
        said = s.reason_unknown()
        if self.expired() or (self.end is not None and said in ("timeout", "canceled")):
            return "solver: timeout"  # z3's timer may fire a little before the deadline
        return f"solver: {said}"


NO_DEADLINE = Deadline()
"""No limit."""
