"""The two graph questions the engines ask of a relation: is it acyclic, and what are
its strongly connected components.

They used to come from networkx, whose import alone (0.08-0.15 s) was the largest
part of a ``gdrcheck check`` start-up (issue 12). :func:`strongly_connected_components`
is networkx 3's algorithm (Tarjan's, with Nuutila's modifications, without recursion:
``networkx.algorithms.components.strongly_connected``), over the same graph that
``DiGraph.add_edges_from`` builds (nodes and successors in order of first appearance),
so the components come out in the same order and as the same sets as before, and the
encodings the engines build from them are unchanged; tests/engine/test_graphs.py holds
both against networkx.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import TypeVar

N = TypeVar("N", bound=Hashable)

Graph = dict[N, dict[N, None]]
"""Successors of each node, both in order of first appearance."""


def digraph(edges: Iterable[tuple[N, N]]) -> Graph[N]:
    """The graph of ``edges``, built as networkx's ``DiGraph.add_edges_from`` builds it."""
    adj: dict[N, dict[N, None]] = {}
    for a, b in edges:
        adj.setdefault(a, {})
        adj.setdefault(b, {})
        adj[a][b] = None
    return adj


def _nothing() -> None:
    return None


def is_acyclic(edges: Iterable[tuple[N, N]], tick: Callable[[], None] | None = None
               ) -> bool:
    """No cycle (a self-loop is one): Kahn's algorithm. ``tick``: a time limit's poll,
    called every few thousand steps."""
    poll = tick or _nothing
    adj = digraph(edges)
    poll()
    indegree = dict.fromkeys(adj, 0)
    for succs in adj.values():
        for b in succs:
            indegree[b] += 1
    ready = [n for n, d in indegree.items() if d == 0]
    seen = 0
    while ready:
        n = ready.pop()
        seen += 1
        if not seen % 1024:
            poll()
        for b in adj[n]:
            indegree[b] -= 1
            if indegree[b] == 0:
                ready.append(b)
    return seen == len(adj)


def strongly_connected_components(edges: Iterable[tuple[N, N]],
                                  tick: Callable[[], None] | None = None
                                  ) -> Iterator[set[N]]:
    """The strongly connected components of the graph of ``edges``, in networkx's order.
    ``tick``: a time limit's poll, called every few thousand steps."""
    poll = tick or _nothing
    adj = digraph(edges)
    poll()
    steps = 0
    preorder: dict[N, int] = {}
    lowlink: dict[N, int] = {}
    scc_found: set[N] = set()
    scc_queue: list[N] = []
    i = 0
    neighbors = {v: iter(adj[v]) for v in adj}
    for source in adj:
        if source in scc_found:
            continue
        queue = [source]
        while queue:
            steps += 1
            if not steps % 1024:
                poll()
            v = queue[-1]
            if v not in preorder:
                i += 1
                preorder[v] = i
            done = True
            for w in neighbors[v]:
                if w not in preorder:
                    queue.append(w)
                    done = False
                    break
            if not done:
                continue
            lowlink[v] = preorder[v]
            for w in adj[v]:
                if w not in scc_found:
                    if preorder[w] > preorder[v]:
                        lowlink[v] = min(lowlink[v], lowlink[w])
                    else:
                        lowlink[v] = min(lowlink[v], preorder[w])
            queue.pop()
            if lowlink[v] == preorder[v]:
                scc = {v}
                while scc_queue and preorder[scc_queue[-1]] > preorder[v]:
                    scc.add(scc_queue.pop())
                scc_found.update(scc)
                yield scc
            else:
                scc_queue.append(v)
