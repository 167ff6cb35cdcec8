"""The litmus front end: parse (and print) X86, PTX and GIN litmus tests."""

from __future__ import annotations

from pathlib import Path

from gdrcheck.errors import LitmusError, Pos
from gdrcheck.litmus.ast import Test
from gdrcheck.litmus.library import resolve
from gdrcheck.litmus.parser import parse_litmus
from gdrcheck.litmus.printer import print_litmus

__all__ = ["load_litmus", "parse_litmus", "print_litmus"]


def load_litmus(path: str | Path) -> Test:
    """Read and parse a litmus file; the Test carries its path and text. A name of the
    shipped library (``lib:gin/01-MP+put+strongsig.litmus``) is read from the library
    (:func:`gdrcheck.litmus.library.resolve`); the Test's path is then the file's."""
    file = resolve(path)
    name = str(file)
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise LitmusError(f"cannot read the file: {exc.strerror or exc}", name) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _not_utf8(data, exc, name) from None
    return parse_litmus(text, name)


def _not_utf8(data: bytes, exc: UnicodeDecodeError, name: str) -> LitmusError:
    """The first byte that is not UTF-8, at its line and column (characters)."""
    before = data[: exc.start].decode("utf-8-sig", errors="replace")
    line = before.count("\n") + 1
    col = len(before) - (before.rfind("\n") + 1) + 1
    source = data.decode("utf-8-sig", errors="replace")
    return LitmusError(f"the file is not UTF-8 text: byte 0x{data[exc.start]:02x} cannot "
                       "start or continue a character", name, Pos(line, col), source)
