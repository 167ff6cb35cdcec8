"""The options every question shares, declared once.

The CLI (:mod:`gdrcheck.cli.options`), the Python API, the pytest plugin and batch
jobs build one :class:`CheckOptions` and hand it down unchanged; it is a frozen,
picklable value, so it travels to worker processes as it is.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from gdrcheck.dataclass_cache import dataclass
from gdrcheck.errors import InputError
from gdrcheck.lower import DEFAULT_UNROLL

SHOW = ("witness", "all")
"""``--show`` of a picture: the execution alone, or with the model's relations
(gdrcheck.analysis.drawing)."""

ENGINES = ("smt", "explicit", "auto")
"""``smt``: z3 over the may/must relation analysis; ``explicit``: herd7's method, every
candidate execution evaluated concretely; ``auto``: a portfolio, the explicit engine for a
test with at most :data:`AUTO_EXPLICIT_BOUND` candidate executions (counted before
enumerating, gdrcheck.engine.explicit.candidate_bound), z3 for the others."""

AUTO_EXPLICIT_BOUND = 32
"""Below this many candidates the enumerator answers faster than building a z3 query
(docs/performance.md, "Small tests": on the library's GIN tests, 1-15 ms against 6-27 ms
up to 32 candidates; at 48 and 512 they are even)."""


@dataclass(frozen=True)
class CheckOptions:
    """How to answer: the engine, its time limit, the loop bound, where models are."""

    engine: str = "auto"
    """One of :data:`ENGINES`; ``auto`` unless a user chooses (the answers are those of
    ``smt``: bench/compare_engines.py checks it on the library and the peer suites)."""
    timeout: float | None = None
    """Solver time limit in seconds; an expired limit answers Unknown, never a verdict."""
    unroll: int = DEFAULT_UNROLL
    """Times a loop body may run on one path."""
    include_dirs: tuple[str, ...] = ()
    """Directories searched for models before the shipped ones (``-I``)."""
    states: bool = False
    """List every reachable final state (herd's States; exponential in general)."""
    liveness: bool = False
    """Ask the liveness question too (can a wait or a spin loop block forever in a fair
    execution: gdrcheck/analysis/liveness.py); a test's ``Liveness=`` entry asks it for
    its model anyway."""

    def __post_init__(self) -> None:
        if self.engine not in ENGINES:
            raise InputError(f"unknown engine '{self.engine}' (choose from "
                             f"{', '.join(ENGINES)})")
        if not isinstance(self.include_dirs, tuple):
            object.__setattr__(self, "include_dirs", tuple(self.include_dirs))

    def overlay(self, **changes: Any) -> CheckOptions:
        """These options with ``changes`` applied; an unknown name raises InputError."""
        names = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise InputError(f"unknown option {', '.join(unknown)} (options: "
                             f"{', '.join(sorted(names))})")
        return dataclasses.replace(self, **changes)


DEFAULT_OPTIONS = CheckOptions()


def split_list(values: Sequence[str] | str) -> list[str]:
    """``("a,b", "c")`` → ``["a", "b", "c"]``: comma-separated option values."""
    if isinstance(values, str):
        values = [values]
    return [x.strip() for v in values for x in v.split(",") if x.strip()]
