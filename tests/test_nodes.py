"""``@node`` (gdrcheck/nodes.py) makes what ``@dataclass(frozen=True)`` makes: the same
class, built side by side both ways and held against each other."""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from gdrcheck.nodes import node


def make(decorate):  # type: ignore[no-untyped-def]
    class Item:
        name: str
        size: int = 1
        where: int = field(default=0, compare=False, repr=False)
        seen: tuple[int, ...] = field(default=(), hash=False)
        label: str = field(default="", repr=False)

        def __post_init__(self) -> None:
            if self.size < 0:
                raise ValueError("size")

    class Empty:
        where: int = field(default=0, compare=False)

    return decorate(Item), decorate(Empty)


NODE, NODE_EMPTY = make(node)
PLAIN, PLAIN_EMPTY = make(dataclass(frozen=True))

CASES = [("a",), ("a", 2), ("a", 2, 7), ("a", 2, 0, (1, 2)), ("b", 1, 3, (), "x")]


@pytest.mark.parametrize("args", CASES)
def test_as_a_frozen_dataclass(args: tuple[object, ...]) -> None:
    n, p = NODE(*args), PLAIN(*args)
    assert repr(n) == repr(p)
    assert dataclasses.astuple(n) == dataclasses.astuple(p)
    assert [f.name for f in dataclasses.fields(n)] == [f.name for f in dataclasses.fields(p)]
    assert type(n).__match_args__ == type(p).__match_args__
    for other in CASES:
        assert (n == NODE(*other)) == (p == PLAIN(*other)), other
        if n == NODE(*other):
            assert hash(n) == hash(NODE(*other))
    assert n != p and n != dataclasses.astuple(n)  # another class is never equal
    with pytest.raises(dataclasses.FrozenInstanceError):
        n.name = "c"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del n.name  # type: ignore[misc]
    assert dataclasses.replace(n, size=5) == NODE(*(args[:1] + (5,) + args[2:]))


def test_the_trees_pickle() -> None:  # batch jobs send tests to their workers
    from gdrcheck.litmus import load_litmus

    root = Path(__file__).resolve().parents[1]
    test = load_litmus(root / "litmus" / "gin" / "01-MP+put+strongsig.litmus")
    back = pickle.loads(pickle.dumps(test))
    assert back == test and hash(back.threads) == hash(test.threads)


def test_compare_false_and_hash_false() -> None:
    assert NODE("a", 1, 1) == NODE("a", 1, 2) and hash(NODE("a", 1, 1)) == hash(NODE("a", 1, 2))
    # seen is compared, not hashed: equal hashes, different nodes
    assert NODE("a", 1, 0, (1,)) != NODE("a", 1, 0, (2,))
    assert hash(NODE("a", 1, 0, (1,))) == hash(NODE("a", 1, 0, (2,)))
    assert NODE_EMPTY(1) == NODE_EMPTY(2) and hash(NODE_EMPTY(1)) == hash(NODE_EMPTY(2))
    assert repr(NODE_EMPTY(3)) == repr(PLAIN_EMPTY(3))
    with pytest.raises(ValueError):
        NODE("a", -1)  # __post_init__ runs
