"""Frozen dataclasses for the syntax trees, quick to create (a fast start:
docs/performance.md, "Start-up, issue 24").

``@node`` makes the class what ``@dataclass(frozen=True)`` makes it: the same fields,
``__init__``, ``__post_init__``, immutability (:class:`dataclasses.FrozenInstanceError`),
``__match_args__``, equality (an instance of the same class with equal compared fields),
hash (of the compared fields) and repr (``Name(a=1, b=2)`` without the ``repr=False``
fields); :func:`dataclasses.fields`, :func:`dataclasses.replace` and
:func:`dataclasses.asdict` work as on any dataclass.

Why: Python 3.11 compiles each method it generates for a dataclass on its own, six for
a frozen one, and the two syntax trees declare 90 classes: over a third of a small
check's start-up went there. Here only the methods that need the class's own code are
generated (``__init__`` and the frozen ``__setattr__`` and ``__delattr__``); ``__eq__``,
``__hash__`` and ``__repr__`` are the same three functions for every class, reading the
compared fields through an :func:`operator.attrgetter` kept on the class.
"""

from __future__ import annotations

import dataclasses
import operator
import reprlib
from collections.abc import Callable
from typing import Any, TypeVar, dataclass_transform

__all__ = ["node"]

T = TypeVar("T")


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field,))
def node(cls: type[T]) -> type[T]:
    """``@dataclass(frozen=True)``, quicker to create (see the module's docstring)."""
    made: Any = dataclasses.dataclass(frozen=True, eq=False, repr=False)(cls)
    fs = dataclasses.fields(made)
    # kept as static methods: a plain function on the class would become a bound method
    made._node_compared = staticmethod(_getter(tuple(f.name for f in fs if f.compare)))
    made._node_hashed = staticmethod(_getter(tuple(f.name for f in fs
                                                   if (f.compare if f.hash is None
                                                       else f.hash))))
    made._node_shown = tuple(f.name for f in fs if f.repr)
    for name, method in (("__eq__", _eq), ("__hash__", _hash), ("__repr__", _repr)):
        if name not in vars(made):
            setattr(made, name, method)
    return made  # type: ignore[no-any-return]


def _getter(names: tuple[str, ...]) -> Callable[[Any], Any]:
    """The values of ``names`` of an instance, as one value to compare or hash."""
    return operator.attrgetter(*names) if names else _nothing


def _nothing(obj: object) -> tuple[()]:
    return ()


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is self.__class__:
        key = self._node_compared
        return key(self) == key(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(self._node_hashed(self))


@reprlib.recursive_repr()
def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._node_shown)
    return f"{self.__class__.__qualname__}({shown})"
