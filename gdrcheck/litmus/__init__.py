"""The litmus front end: parse (and print) X86, PTX and GIN litmus tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from gdrcheck.errors import LitmusError, Pos
from gdrcheck.limits import MAX_LITMUS_BYTES, read_limited
from gdrcheck.litmus.ast import Test
from gdrcheck.litmus.library import resolve
from gdrcheck.litmus.parser import parse_litmus
from gdrcheck.litmus.printer import print_litmus

__all__ = ["load_litmus", "parse_litmus", "print_litmus"]


def load_litmus(path: str | Path, tick: Callable[[], None] | None = None) -> Test:
    """Read and parse a litmus file; the Test carries its path and text. A name of the
    shipped library (``lib:gin/01-MP+put+strongsig.litmus``) is read from the library
    (:func:`gdrcheck.litmus.library.resolve`); the Test's path is then the file's. A file
    over :data:`~gdrcheck.limits.MAX_LITMUS_BYTES` is refused (read with that bound, so a
    device such as /dev/zero is too); ``tick`` (a deadline's poll) is called while
    parsing."""
    file = resolve(path)
    name = str(file)
    data = read_limited(file, MAX_LITMUS_BYTES, "a litmus test", LitmusError)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _not_utf8(data, exc, name) from None
    return parse_litmus(text, name, tick)


def _not_utf8(data: bytes, exc: UnicodeDecodeError, name: str) -> LitmusError:
    """The first byte that is not UTF-8, at its line and column (characters)."""
    before = data[: exc.start].decode("utf-8-sig", errors="replace")
    line = before.count("\n") + 1
    col = len(before) - (before.rfind("\n") + 1) + 1
    source = data.decode("utf-8-sig", errors="replace")
    return LitmusError(f"the file is not UTF-8 text: byte 0x{data[exc.start]:02x} cannot "
                       "start or continue a character", name, Pos(line, col), source)
