"""The litmus front end: parse (and print) X86, PTX and GIN litmus tests."""

from __future__ import annotations

from pathlib import Path

from gdrcheck.errors import LitmusError
from gdrcheck.litmus.ast import Test
from gdrcheck.litmus.parser import parse_litmus
from gdrcheck.litmus.printer import print_litmus

__all__ = ["load_litmus", "parse_litmus", "print_litmus"]


def load_litmus(path: str | Path) -> Test:
    """Read and parse a litmus file; the Test carries its path and text."""
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise LitmusError(f"cannot read the file: {reason}", name) from None
    return parse_litmus(text, name)
