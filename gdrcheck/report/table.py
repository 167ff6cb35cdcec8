"""One table per test, one row per model (``gdrcheck check --format table``, the
default of ``--model all``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gdrcheck.dataclass_cache import dataclass
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
    live_expected: str | None = None
    """The test's Liveness= answer for this model (None: there is none)."""

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


def _live(row: Row) -> str:
    res = row.result
    got = res.liveness_answer if res is not None and (res.live or row.live_expected) else None
    if got is None:
        return "-"
    if row.live_expected is None:
        return got
    return f"{got} {'✓' if got == row.live_expected else '✗ expected ' + row.live_expected}"


def result_table(title: str, rows: list[Row]) -> Table:
    """Columns: model, verdict, expected, match (✓ / ✗ / -), ms, axioms/flags, and the
    liveness answer when one was asked (``--liveness``, ``Liveness=`` entries)."""
    from rich.table import Table  # rich only for tables (start-up time of herd output)

    table = Table(title=title, title_justify="left")
    table.add_column("model")
    table.add_column("verdict")
    table.add_column("expected")
    table.add_column("match", justify="center")
    table.add_column("ms", justify="right")
    table.add_column("axioms/flags")
    live = any(r.live_expected is not None or (r.result is not None and r.result.live)
               for r in rows)
    if live:
        table.add_column("liveness")
    for row in rows:
        mark = "-" if row.met is None else "✓" if row.met else "✗"
        res = row.result
        extra = [_live(row)] if live else []
        if res is None:
            table.add_row(row.model, "Error", row.expected or "-", mark, "-", row.error or "",
                          *extra)
        else:
            table.add_row(row.model, res.verdict, row.expected or "-", mark,
                          f"{res.time * 1000:.1f}", _notes(res), *extra)
    return table
