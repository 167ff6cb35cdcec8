"""Every cycle up to a size over a set of edges (diycross7-style): the tests of a
generated suite.

A cycle is kept once per rotation (the rotation whose edge indices come first in
lexicographic order), when its edges chain (each ends at the kind of event the next
starts at), it has a communication edge, and :func:`~gdrcheck.gen.cycles.build_cycle`
makes a test of it (some combinations make none: a lone Pos edge between two
communications on one location, say).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence

from gdrcheck.errors import InputError
from gdrcheck.gen.cycles import build_cycle, parse_edge

DEFAULT_EDGES = {
    "x86": ("Rfe", "Fre", "Wse", "PodWR", "PodWW", "PodRR", "PodRW", "MFencedWR"),
    "ptx": ("Rfe", "Fre", "Wse", "PodWR", "PodWW", "PodRR", "PodRW", "FenceSCdWR",
            "FenceAcqReldWW", "FenceAcqReldRR"),
    "gin": ("Rfe", "Fre", "PodRR", "PodWR", "PutdWW", "PutSigdWW", "PutSSigdWW",
            "PutSigXdWW", "PutFlushSigXdWW", "RSigdRW"),
}
"""The edges ``generate --enumerate`` combines when none are named."""


def _canonical(seq: tuple[int, ...]) -> bool:
    return all(seq <= seq[i:] + seq[:i] for i in range(1, len(seq)))


MAX_SEQUENCES = 20_000_000
"""The most edge sequences ``generate --enumerate`` looks at (every sequence of 2 ..
--size edges over --edges is one, kept or not): about 3 minutes at 8 microseconds a
sequence, measured on the x86 set. x86 up to 8 edges (19 million) fits; with 10 edges
up to 7 (11 million)."""

PROGRESS_EVERY = 4096
"""How many sequences :func:`enumerate_cycles` looks at between two progress calls."""


def sequence_count(edges: int, max_size: int, min_size: int = 2) -> int:
    """How many edge sequences :func:`enumerate_cycles` looks at: ``sum edges**n``."""
    return sum(edges ** n for n in range(min_size, max_size + 1))


def check_enumeration(edges: int, max_size: int, min_size: int = 2) -> int:
    """The number of sequences of the enumeration; InputError, with the reason, when it
    is over :data:`MAX_SEQUENCES` (computed without building any)."""
    if max_size < min_size:
        raise InputError(f"--size must be at least {min_size}")
    total: int | None
    if edges <= 1:
        total = edges * (max_size - min_size + 1)
    elif max_size > 64:
        total = None  # at least 2**64: not computed
    else:
        total = sequence_count(edges, max_size, min_size)
    if total is None or total > MAX_SEQUENCES:
        many = "more than 2^64" if total is None else f"{total:,}"
        raise InputError(
            f"--enumerate of cycles of up to {max_size} edges from {edges} edge name"
            f"{'' if edges == 1 else 's'} would look at {many} "
            f"edge sequences, more than the {MAX_SEQUENCES:,} (about 3 minutes) that "
            "generate does (docs/generate.md): give a smaller --size or fewer --edges")
    return total


def enumerate_cycles(edges: Sequence[str], max_size: int, dialect: str,
                     scope: str = "sys", min_size: int = 2,
                     progress: Callable[[int], None] | None = None
                     ) -> Iterator[tuple[list[str], str]]:
    """(cycle, litmus text) for every cycle of ``min_size`` .. ``max_size`` edges;
    refused (InputError) over :data:`MAX_SEQUENCES`. ``progress`` is called with the
    number of sequences looked at since its last call, every :data:`PROGRESS_EVERY`."""
    parsed = [parse_edge(e, dialect) for e in edges]
    if len(set(edges)) != len(edges):
        raise InputError("an edge is named twice")
    check_enumeration(len(parsed), max_size, min_size)
    seen = 0
    for n in range(min_size, max_size + 1):
        for seq in itertools.product(range(len(parsed)), repeat=n):
            seen += 1
            if progress is not None and seen == PROGRESS_EVERY:
                progress(seen)
                seen = 0
            if not _canonical(seq):
                continue
            es = [parsed[i] for i in seq]
            if not any(e.external for e in es):
                continue
            if any(a.dst != b.src for a, b in zip(es, es[1:] + es[:1], strict=True)):
                continue
            names = [edges[i] for i in seq]
            try:
                text = build_cycle(names, dialect, scope)
            except InputError:
                continue
            yield names, text
    if progress is not None and seen:
        progress(seen)
