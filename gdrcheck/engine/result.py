"""What an engine answers about one test under one model."""

from __future__ import annotations

from dataclasses import field
from enum import StrEnum

from gdrcheck.dataclass_cache import dataclass
from gdrcheck.lower.program import WaitSite


class Verdict(StrEnum):
    """The answer to a test's condition (herd7's, plus Undefined and Unknown).

    A ``StrEnum``: a verdict compares equal to, prints as and serialises to its name
    (``Verdict.ALLOWED == "Allowed"``), so records and reports keep their text."""

    ALLOWED = "Allowed"
    """Some consistent execution reaches the outcome."""
    FORBIDDEN = "Forbidden"
    """No consistent execution reaches it."""
    REQUIRED = "Required"
    """Every consistent execution reaches it (a ``forall`` condition)."""
    UNDEFINED = "Undefined"
    """A misuse flag fires: the API promises nothing."""
    UNKNOWN = "Unknown"
    """The solver gave up (a timeout): never turned into one of the others."""


State = tuple[tuple[str, int], ...]
"""A final state: (observable, value) pairs in a fixed order (herd's States lines)."""


@dataclass
class WitnessEvent:
    eid: int
    thread: int
    kind: str
    loc: str | None
    value: int | None
    label: str
    tags: tuple[str, ...]
    agent: str = ""  # "" for the thread itself, else the NIC queue or proxy acting for it


@dataclass
class Witness:
    """One consistent execution (for an allowed outcome)."""

    events: list[WitnessEvent]
    rf: list[tuple[int, int]]
    co: dict[str, list[int]]  # location -> writes in coherence order
    state: State
    extra: dict[str, list[tuple[int, int]]] = field(default_factory=dict)  # fso, syncbar, ...


LIVENESS_PREFIX = "liveness."
"""A flag named ``liveness.NAME`` reports that a wait may block forever (docs/litmus-format.md §13:
a separate liveness question): it is listed in ``Result.liveness`` and does not make
the verdict Undefined."""


def split_flags(names: list[str]) -> tuple[list[str], list[str]]:
    """(misuse flags, liveness reasons without the prefix)."""
    misuse = [n for n in names if not n.startswith(LIVENESS_PREFIX)]
    live = [n[len(LIVENESS_PREFIX):] for n in names if n.startswith(LIVENESS_PREFIX)]
    return misuse, live


@dataclass
class Result:
    test: str
    model: str
    engine: str
    quantifier: str  # exists | ~exists | forall
    verdict: Verdict
    positive: bool | None  # some consistent execution satisfies P (None: unknown)
    negative: bool | None  # some consistent execution violates P
    witness: Witness | None = None
    axioms: list[str] = field(default_factory=list)  # named checks that rule P out
    flags: list[str] = field(default_factory=list)  # flags that fire (Undefined)
    liveness: list[str] = field(default_factory=list)  # liveness.* flags: a wait may hang
    states: list[State] | None = None  # all final states, when enumerated
    pos_states: int | None = None
    neg_states: int | None = None
    time: float = 0.0
    reason: str | None = None  # why Unknown
    blocked: list[WaitSite] = field(default_factory=list)
    """When no execution completes: the blocking waits that no execution satisfies."""
    vacuity: str | None = None
    """When no execution completes: why, in words (None: some execution completes)."""
    live: str | None = None
    """The answer to the liveness question when it was asked (``check --liveness``, a
    ``Liveness=`` entry): ``Hang``, ``Live`` or ``Unknown`` (gdrcheck/analysis/liveness.py)."""
    live_reason: str | None = None
    """Why the liveness answer is Unknown."""

    @property
    def liveness_answer(self) -> str:
        """``Hang``, ``Live`` or ``Unknown``: the liveness question's answer when it was
        asked, else what the model's liveness flags and the vacuity search found."""
        if self.live is not None:
            return self.live
        return "Hang" if self.liveness else "Live"

    @property
    def vacuous(self) -> bool:
        """No consistent execution completes: a Forbidden (or Required) verdict then
        holds of nothing and proves nothing."""
        return self.positive is False and self.negative is False

    @property
    def ok(self) -> bool | None:
        """herd's Ok/No: does the test's quantified condition hold?"""
        if self.verdict in (Verdict.UNKNOWN, Verdict.UNDEFINED):
            return None
        if self.quantifier == "exists":
            return bool(self.positive)
        if self.quantifier == "~exists":
            return not self.positive
        return not self.negative

    @property
    def observation(self) -> str:
        if not self.positive:
            return "Never"
        if not self.negative:
            return "Always"
        return "Sometimes"
