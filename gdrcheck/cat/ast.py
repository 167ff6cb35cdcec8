"""The cat AST: a herd7-compatible subset of the cat language, as data.

Produced by :mod:`gdrcheck.cat.parser`, interpreted by
:mod:`gdrcheck.cat.interp` over a relation algebra (concrete or symbolic).
"""

from __future__ import annotations

from dataclasses import field
from typing import Literal

from gdrcheck.dataclass_cache import dataclass
from gdrcheck.errors import NOPOS, Pos


def _pos() -> Pos:
    return field(default=NOPOS, compare=False, repr=False)  # type: ignore[return-value]


# --------------------------------------------------------------------------
# Expressions
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Var:
    """A name: a built-in set/relation (W, po, rf, ...) or a let-bound one."""

    name: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class Empty:
    """``0`` (the empty relation) or ``{}`` (the empty set)."""

    pos: Pos = _pos()


@dataclass(frozen=True)
class Binary:
    """``l | r``, ``l & r``, ``l \\ r``, ``l ; r``, ``l * r`` (cartesian product of sets),
    ``l ++ r`` (set add; treated as union)."""

    op: Literal["|", "&", "\\", ";", "*", "++"]
    left: Expr
    right: Expr
    pos: Pos = _pos()


@dataclass(frozen=True)
class Unary:
    """Postfix ``r+``, ``r*``, ``r?``, ``r^-1``; prefix ``~r`` (complement)."""

    op: Literal["+", "*", "?", "^-1", "~"]
    arg: Expr
    pos: Pos = _pos()


@dataclass(frozen=True)
class Bracket:
    """``[S]``: the identity relation on the set S."""

    arg: Expr
    pos: Pos = _pos()


@dataclass(frozen=True)
class App:
    """Function application: ``domain(r)``, ``range(r)``, ``fencerel(S)``,
    or a user function ``let f(x) = ...``."""

    func: str
    args: tuple[Expr, ...]
    pos: Pos = _pos()


Expr = Var | Empty | Binary | Unary | Bracket | App


# --------------------------------------------------------------------------
# Variant conditions
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class VName:
    """A variant tag: ``"pcie-ro"`` (quotes optional)."""

    name: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class VNot:
    arg: VCond


@dataclass(frozen=True)
class VAnd:
    left: VCond
    right: VCond


@dataclass(frozen=True)
class VOr:
    left: VCond
    right: VCond


VCond = VName | VNot | VAnd | VOr


# --------------------------------------------------------------------------
# Instructions
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Binding:
    """``name = expr`` or ``name(p1, p2) = expr`` (a function)."""

    name: str
    params: tuple[str, ...] | None
    expr: Expr
    pos: Pos = _pos()


@dataclass(frozen=True)
class Let:
    """``let a = e and b = e'`` (simultaneous, non-recursive)."""

    bindings: tuple[Binding, ...]
    pos: Pos = _pos()


@dataclass(frozen=True)
class LetRec:
    """``let rec a = e and b = e'``: the least fixpoint."""

    bindings: tuple[Binding, ...]
    pos: Pos = _pos()


CheckKind = Literal["acyclic", "irreflexive", "empty"]


@dataclass(frozen=True)
class Check:
    """``{flag} {~}acyclic|irreflexive|empty e {as name}``.

    A plain check rejects executions that fail it. A ``flag`` check never
    rejects; when its test holds in a consistent execution the outcome is
    Undefined (herd's ``Flag name``).
    """

    kind: CheckKind
    negated: bool
    expr: Expr
    name: str | None
    flag: bool = False
    pos: Pos = _pos()


@dataclass(frozen=True)
class Include:
    """``include "file.cat"``."""

    filename: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class IfVariant:
    """``if variant "a" then ... {else ...} end`` (also ``if "a" ...``)."""

    cond: VCond
    then: tuple[Stmt, ...]
    otherwise: tuple[Stmt, ...]
    pos: Pos = _pos()


@dataclass(frozen=True)
class Show:
    """``show e as name`` / ``show a, b`` / ``unshow a, b``: drawing hints only."""

    names: tuple[str, ...]
    expr: Expr | None = None
    unshow: bool = False
    pos: Pos = _pos()


@dataclass(frozen=True)
class VariantDecl:
    """``(* @variant NAME default=on|off: description *)`` comments are not
    statements; variants are declared by a ``variant`` instruction:
    ``variant "pcie-ro" "Relaxed Ordering on data windows"``. Optional:
    undeclared variant names used in ``if variant`` are still accepted."""

    name: str
    doc: str
    pos: Pos = _pos()


Stmt = Let | LetRec | Check | Include | IfVariant | Show | VariantDecl


@dataclass(frozen=True)
class Model:
    """A parsed ``.cat`` file (includes not yet expanded)."""

    title: str | None
    stmts: tuple[Stmt, ...]
    path: str | None = field(default=None, compare=False)
    source: str | None = field(default=None, compare=False, repr=False)
