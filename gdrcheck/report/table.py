"""One table per test, one row per model (``gdrcheck check --format table``, the
default of ``--model all``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gdrcheck.engine.result import Result

if TYPE_CHECKING:
    from rich.table import Table


@dataclass(frozen=True)
class Row:
    """One model's answer on the test, with its Expect= entry (None: there is none),
    or the error that kept it from running (``result`` None)."""

    model: str
    result: Result | None
    expected: str | None
    error: str | None = None

    @property
    def met(self) -> bool | None:
        if self.expected is None:
            return None
        return (self.result is not None and self.result.verdict == self.expected
                and not self.result.vacuous)


def _notes(res: Result) -> str:
    parts = list(res.axioms) if res.verdict in ("Forbidden", "Required") else []
    parts += [f"flag {f}" for f in res.flags]
    if res.verdict == "Unknown" and res.reason:
        parts.append(res.reason)
    if res.vacuous:
        parts.append(f"VACUOUS: {res.vacuity or 'no execution completes'}")
    return ", ".join(parts) or "-"


def result_table(title: str, rows: list[Row]) -> Table:
    """Columns: model, verdict, expected, match (✓ / ✗ / -), ms, axioms/flags."""
    from rich.table import Table  # rich only for tables (start-up time of herd output)

    table = Table(title=title, title_justify="left")
    table.add_column("model")
    table.add_column("verdict")
    table.add_column("expected")
    table.add_column("match", justify="center")
    table.add_column("ms", justify="right")
    table.add_column("axioms/flags")
    for row in rows:
        mark = "-" if row.met is None else "✓" if row.met else "✗"
        res = row.result
        if res is None:
            table.add_row(row.model, "Error", row.expected or "-", mark, "-", row.error or "")
        else:
            table.add_row(row.model, res.verdict, row.expected or "-", mark,
                          f"{res.time * 1000:.1f}", _notes(res))
    return table
