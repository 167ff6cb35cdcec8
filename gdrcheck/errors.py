"""Errors that reach the user as ``file:line:col: message`` (exit code 2).

Every layer raises :class:`InputError` (or a subclass) for bad input; the CLI
prints :meth:`InputError.render` and exits with code 2. Nothing else should
escape to the user as a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Pos:
    """A position in a source file: 1-based line and column."""

    line: int = 0
    col: int = 0


NOPOS = Pos(0, 0)


class InputError(Exception):
    """Bad input: a litmus test, a cat model, or a command-line value."""

    def __init__(
        self,
        message: str,
        path: str | None = None,
        pos: Pos | None = None,
        source: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.pos = pos or NOPOS
        self.source = source

    def with_context(self, path: str | None, source: str | None) -> InputError:
        """Fill in the file and its text when the raiser did not know them."""
        if self.path is None:
            self.path = path
        if self.source is None:
            self.source = source
        return self

    def location(self) -> str:
        where = self.path or "<input>"
        if self.pos.line:
            return f"{where}:{self.pos.line}:{max(self.pos.col, 1)}"
        return where

    def render(self) -> str:
        """``file:line:col: message``, then the offending line and a caret."""
        text = f"{self.location()}: {self.message}"
        if self.source is not None and self.pos.line:
            lines = self.source.splitlines()
            if 0 < self.pos.line <= len(lines):
                line = lines[self.pos.line - 1].replace("\t", " ")
                caret = " " * (max(self.pos.col, 1) - 1) + "^"
                text += f"\n  {line}\n  {caret}"
        return text

    def __str__(self) -> str:
        return self.render()


class LitmusError(InputError):
    """A malformed litmus test."""


class CatError(InputError):
    """A malformed cat model (or one that uses something undefined)."""


class UnsupportedError(InputError):
    """Well-formed input that a model or engine cannot give a meaning to yet."""
