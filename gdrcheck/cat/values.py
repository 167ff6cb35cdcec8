"""Values of the cat interpreter: event sets and relations with guards.

A set (or relation) maps each event (or pair) that *may* belong to it to a
formula saying when it does: Python ``True`` (it *must* belong: known
statically) or a z3 Boolean term. Pairs that cannot belong are absent. This
one representation is the may/must relation analysis (the keys are the may
set, the ``True`` entries the must set) and the encoding at once; with only
``True`` entries it is an ordinary concrete set, which is what the explicit
enumerator uses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import field
from typing import TYPE_CHECKING, Any, TypeAlias

from gdrcheck.dataclass_cache import dataclass

if TYPE_CHECKING:
    import z3
else:
    from gdrcheck.lazy import z3  # imported on first use (a fast start)

Formula: TypeAlias = "bool | z3.BoolRef"  # only ``True`` is ever stored as a Python bool
Pair = tuple[int, int]


# The connectives below call z3's C API directly: z3.And, z3.Or and z3.Not coerce each
# argument first (its sort, Python constants), which costs several times the term
# itself, and the engines build hundreds of thousands of these terms for a large test.
# The arguments here are always z3 Booleans of the main context (``True`` is dropped
# before), and z3 hash-conses terms: the result is the very term z3.And would give.


def _mk_and(args: list[z3.BoolRef]) -> z3.BoolRef:
    ctx = args[0].ctx
    arr = (z3.Ast * len(args))(*(a.as_ast() for a in args))
    return z3.BoolRef(z3.Z3_mk_and(ctx.ref(), len(args), arr), ctx)


def _mk_or(args: list[z3.BoolRef]) -> z3.BoolRef:
    ctx = args[0].ctx
    arr = (z3.Ast * len(args))(*(a.as_ast() for a in args))
    return z3.BoolRef(z3.Z3_mk_or(ctx.ref(), len(args), arr), ctx)


def f_and(a: Formula, b: Formula) -> Formula:
    if a is True:
        return b
    if b is True:
        return a
    if a.as_ast().value == b.as_ast().value:  # type: ignore[union-attr]
        return a  # x & x (z3 hash-conses: one term, one pointer): po's ex(b) with [_]'s
    return _mk_and([a, b])  # type: ignore[list-item]


def f_and_all(fs: Iterable[Formula]) -> Formula:
    out: list[z3.BoolRef] = []
    for f in fs:
        if f is True:
            continue
        out.append(f)  # type: ignore[arg-type]
    if not out:
        return True
    return out[0] if len(out) == 1 else _mk_and(out)


def f_or(fs: Iterable[Formula]) -> Formula:
    out: list[z3.BoolRef] = []
    for f in fs:
        if f is True:
            return True
        out.append(f)  # type: ignore[arg-type]
    if not out:
        raise ValueError("f_or of nothing: absent entries must be dropped, not or-ed")
    return out[0] if len(out) == 1 else _mk_or(out)


def f_not(a: Formula) -> z3.BoolRef:
    assert a is not True
    ctx = a.ctx  # type: ignore[union-attr]
    return z3.BoolRef(z3.Z3_mk_not(ctx.ref(), a.as_ast()), ctx)  # type: ignore[union-attr]


def to_z3(f: Formula | None) -> z3.BoolRef:
    if f is None:
        return z3.BoolVal(False)
    if f is True:
        return z3.BoolVal(True)
    return f


@dataclass
class SetV:
    m: dict[int, Formula] = field(default_factory=dict)

    def items(self) -> Iterable[tuple[int, Formula]]:
        return self.m.items()


@dataclass
class RelV:
    m: dict[Pair, Formula] = field(default_factory=dict)

    def succ(self) -> dict[int, list[tuple[int, Formula]]]:
        out: dict[int, list[tuple[int, Formula]]] = {}
        for (a, b), f in self.m.items():
            out.setdefault(a, []).append((b, f))
        return out

    def pred(self) -> dict[int, list[tuple[int, Formula]]]:
        out: dict[int, list[tuple[int, Formula]]] = {}
        for (a, b), f in self.m.items():
            out.setdefault(b, []).append((a, f))
        return out

    def is_concrete(self) -> bool:
        return all(f is True for f in self.m.values())


@dataclass
class FunV:
    """A cat function: user-defined (params, body, env) or built in (py)."""

    name: str
    params: tuple[str, ...] = ()
    body: Any = None
    env: dict[str, Any] | None = None
    py: Callable[..., Any] | None = None


Value = SetV | RelV | FunV
