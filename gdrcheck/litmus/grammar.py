"""The lark side of the front end: one LALR parser, built on first use (its tables kept
on disk by :mod:`gdrcheck.grammar_cache`), three entry points.

:func:`parse_section` parses a piece of a litmus file (the init block, the
condition, one cell) so that every token carries its line and column in the
ORIGINAL file, and turns lark's exceptions into :class:`LitmusError`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import (
    LarkError,
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
)
from lark.lexer import PatternStr

from gdrcheck.errors import LitmusError, Pos
from gdrcheck.grammar_cache import cached_lark, ticking_parse

_GRAMMAR_FILE = Path(__file__).with_name("litmus.lark")


@functools.cache
def litmus_parser() -> Lark:
    """The LALR parser of litmus.lark (built once per process)."""
    return cached_lark(
        "litmus",
        _GRAMMAR_FILE.read_text(encoding="utf-8"),
        start=["init_items", "conds", "cell"],
        propagate_positions=True,
        maybe_placeholders=True,
    )


# What to call a terminal in "expected ..." messages (string terminals are quoted).
_TERMINAL_NAMES = {
    "NAME": "a name",
    "INT": "an integer",
    "IMM": "an immediate ($n)",
    "MNEMONIC": "an instruction",
    "QUANT": "'exists', '~exists' or 'forall'",
    "CMPOP": "a comparison",
}

# What the end of a section is, in "expected ..." messages.
_END_NAMES = {
    "init_items": "'}'",
    "conds": "the end of the file",
    "cell": "the end of the cell",
}

_SECTION_NAMES = {
    "init_items": "the init block",
    "conds": "the condition",
    "cell": "the instruction",
}


def token_pos(tok: Token) -> Pos:
    return Pos(tok.line or 0, tok.column or 0)


def tree_pos(tree: Tree | Token) -> Pos:
    """Position of the first token of a tree (or of a token)."""
    if isinstance(tree, Token):
        return token_pos(tree)
    meta = tree.meta
    if not meta.empty:
        return Pos(meta.line, meta.column)
    for child in tree.children:
        if isinstance(child, (Tree, Token)):
            return tree_pos(child)
    return Pos(0, 0)


def _describe_terminal(name: str, start: str) -> str:
    if name == "$END":
        return _END_NAMES.get(start, "end of input")
    if name in _TERMINAL_NAMES:
        return _TERMINAL_NAMES[name]
    try:
        pattern = litmus_parser().get_terminal(name).pattern
    except KeyError:
        return name
    if isinstance(pattern, PatternStr):
        return repr(pattern.value)
    return name.lower()


def _expected(names: set[str] | frozenset[str] | None, start: str = "") -> str:
    if not names:
        return ""
    if start == "cell":
        # After an operand a ',' is what is missing; before one, any operand will do.
        if "COMMA" in names:
            return "; expected ','"
        if {"NAME", "INT"} <= set(names):
            return "; expected an operand"
    described = sorted({_describe_terminal(n, start) for n in names})
    if len(described) == 1:
        return f"; expected {described[0]}"
    if len(described) > 8:
        return ""
    return "; expected " + ", ".join(described[:-1]) + " or " + described[-1]


def _end_pos(text: str) -> Pos:
    """The position just after the last non-blank character of ``text``."""
    stripped = text.rstrip()
    line = stripped.count("\n") + 1
    col = len(stripped) - (stripped.rfind("\n") + 1) + 1
    return Pos(line, col)


def parse_section(start: str, text: str, at: Pos, what: str | None = None,
                  tick: Callable[[], None] | None = None) -> Tree:
    """Parse ``text`` (which starts at ``at`` in the file) from entry point ``start``;
    ``tick`` (a deadline's poll) is called every :data:`TICK_TOKENS` tokens."""
    padded = "\n" * (at.line - 1) + " " * (at.col - 1) + text
    where = what or _SECTION_NAMES[start]
    try:
        if tick is None:
            return litmus_parser().parse(padded, start=start)
        return ticking_parse(litmus_parser(), padded, tick, start=start)
    except UnexpectedInput as exc:
        raise _convert(exc, padded, where, start) from None
    except LarkError as exc:  # pragma: no cover - defensive: never leak lark errors
        raise LitmusError(f"cannot parse {where}: {exc}", None, at) from None


def _convert(exc: UnexpectedInput, padded: str, where: str, start: str) -> LitmusError:
    if isinstance(exc, UnexpectedToken):
        tok = exc.token
        # The interactive parser knows exactly what could come next (LALR's
        # 'expected' set may include tokens that a default reduction would reject).
        names = set(exc.expected)
        if exc.interactive_parser is not None:
            names = set(exc.interactive_parser.accepts())
        if tok.type == "$END":
            names.discard("$END")
            expected = _expected(names, start)
            return LitmusError(f"unexpected end of {where}{expected}", None, _end_pos(padded))
        expected = _expected(names, start)
        return LitmusError(f"unexpected {str(tok)!r} in {where}{expected}", None, token_pos(tok))
    if isinstance(exc, UnexpectedCharacters):
        return LitmusError(
            f"unexpected character {exc.char!r} in {where}{_expected(exc.allowed, start)}",
            None,
            Pos(exc.line, exc.column),
        )
    if isinstance(exc, UnexpectedEOF):
        expected = _expected(set(exc.expected), start)
        return LitmusError(f"unexpected end of {where}{expected}", None, _end_pos(padded))
    return LitmusError(f"cannot parse {where}", None, Pos(exc.line, exc.column))
