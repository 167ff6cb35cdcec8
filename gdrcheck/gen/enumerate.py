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
from collections.abc import Iterator, Sequence

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


def enumerate_cycles(edges: Sequence[str], max_size: int, dialect: str,
                     scope: str = "sys", min_size: int = 2
                     ) -> Iterator[tuple[list[str], str]]:
    """(cycle, litmus text) for every cycle of ``min_size`` .. ``max_size`` edges."""
    parsed = [parse_edge(e, dialect) for e in edges]
    if len(set(edges)) != len(edges):
        raise InputError("an edge is named twice")
    if max_size < min_size:
        raise InputError(f"--size must be at least {min_size}")
    for n in range(min_size, max_size + 1):
        for seq in itertools.product(range(len(parsed)), repeat=n):
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
