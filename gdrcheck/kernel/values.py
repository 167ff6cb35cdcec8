"""The values of the per-thread interpretation (docs/kernels.md, "Extraction").

A value is concrete (an ``int``: ids, arguments, constants, what is computed from them), a
pointer into a kernel parameter's buffer on some rank, a register of the litmus thread
(what was read from memory, and what is computed from it), or a condition over registers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gdrcheck.kernel.binary32 import FVal


@dataclass(frozen=True)
class Ptr:
    """``offset`` bytes into the buffer of kernel parameter ``base`` on rank ``rank``."""

    base: str
    rank: int
    offset: int


@dataclass(frozen=True)
class Sym:
    """A litmus register."""

    reg: str


Scalar = int | Sym


@dataclass(frozen=True)
class Flt:
    """A float known without a value read: an exact binary32 value, or an interval of them
    (what ``rsqrtf`` of a constant gives; gdrcheck/kernel/binary32.py)."""

    value: FVal


@dataclass(frozen=True)
class Cmp:
    """``a op b`` with op in eq, ne, lt, le, gt, ge (the litmus branch conditions)."""

    op: str
    a: Scalar
    b: Scalar


@dataclass(frozen=True)
class BoolOp:
    op: Literal["and", "or"]
    a: Cond
    b: Cond


@dataclass(frozen=True)
class Not:
    c: Cond


Cond = Cmp | BoolOp | Not


@dataclass(frozen=True)
class CondInt:
    """A condition widened to an integer (0 or 1): ``zext i1``."""

    c: Cond


@dataclass(frozen=True)
class Opaque:
    """A value the extraction cannot use: why, said when it is used."""

    why: str


@dataclass(frozen=True)
class FSym:
    """A float computed from values read: a table from the registers' values (each row one
    combination that may occur) to the binary32 result (exact, or an interval). A register
    read from a float location holds the float's code (binary32.encode), so a load is the
    table from each code the location's writes may store to the float it stands for
    (docs/kernels.md, "Floats in memory")."""

    regs: tuple[str, ...]
    rows: tuple[tuple[tuple[int, ...], FVal], ...]


Value = int | Flt | FSym | Ptr | Sym | Cmp | BoolOp | Not | CondInt | Opaque

NEGATED = {"eq": "ne", "ne": "eq", "lt": "ge", "ge": "lt", "gt": "le", "le": "gt"}


def negate(c: Cond) -> Cond:
    """``not c`` with the negation pushed to the comparisons."""
    if isinstance(c, Cmp):
        return Cmp(NEGATED[c.op], c.a, c.b)
    if isinstance(c, Not):
        return c.c
    return BoolOp("or" if c.op == "and" else "and", negate(c.a), negate(c.b))


def is_cond(v: Value) -> bool:
    return isinstance(v, (Cmp, BoolOp, Not))
