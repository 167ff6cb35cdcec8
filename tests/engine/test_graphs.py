"""gdrcheck.engine.graphs against networkx, which the engines used before (issue 12): the
same answers, and the components in the same order as the same sets, so that the
encodings built from them are the ones built before."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from gdrcheck.engine.graphs import digraph, is_acyclic, strongly_connected_components

edge_lists = st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), max_size=40)


def _nx(edges: list[tuple[int, int]]) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_edges_from(edges)
    return g


@settings(max_examples=400, deadline=None)
@given(edge_lists)
def test_as_networkx(edges: list[tuple[int, int]]) -> None:
    g = _nx(edges)
    assert list(digraph(edges)) == list(g.nodes)
    assert is_acyclic(edges) == nx.is_directed_acyclic_graph(g)
    ours = list(strongly_connected_components(edges))
    theirs = list(nx.strongly_connected_components(g))
    assert ours == theirs
    assert [list(c) for c in ours] == [list(c) for c in theirs]  # iteration order too


def test_cycles() -> None:
    assert is_acyclic([])
    assert is_acyclic([(1, 2), (2, 3), (1, 3)])
    assert not is_acyclic([(1, 1)])
    assert not is_acyclic([(1, 2), (2, 3), (3, 1)])
    assert [sorted(c) for c in strongly_connected_components([(1, 2), (2, 1), (2, 3)])] == [
        [3], [1, 2]]
