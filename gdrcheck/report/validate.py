"""The text of ``gdrcheck validate``: per peer suite, the tests where gdrcheck and the
peer's published verdicts differ."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gdrcheck.analysis.validate import Row, summarize

if TYPE_CHECKING:
    from rich.console import RenderableType


def validation_report(folder: str, rows: Sequence[Row]) -> list[RenderableType]:
    from rich.text import Text

    out: list[RenderableType] = []
    from rich.table import Table

    agree, known, bad = summarize(rows)
    table = Table(title=f"{folder}: {agree}/{len(rows)} agree, {known} known differences, "
                        f"{bad} unexpected")
    for col in ("file", "model", "expected", "gdrcheck", "s", "note"):
        table.add_column(col)
    for r in rows:
        if not r.agrees:
            table.add_row(r.file, r.model, r.expected, r.got, f"{r.time:.2f}", r.note)
    out.append(table)
    times = sorted(r.time for r in rows)
    out.append(Text(f"median time per test: {times[len(times) // 2] * 1000:.1f} ms, "
                  f"total {sum(times):.1f} s"))
    return out
