"""The summary of ``gdrcheck run`` (:class:`gdrcheck.batch.BatchReport`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gdrcheck.batch.summary import BatchReport

if TYPE_CHECKING:
    from rich.table import Table

VERDICT_ORDER = ("Allowed", "Forbidden", "Required", "Undefined", "Unknown", "Error")


def summary_table(report: BatchReport) -> Table:
    """The verdict counts, the expectations met and not met, the time."""
    from rich.table import Table

    counts = report.verdicts()
    met, failed, errored = report.expectations()
    table = Table(title=f"gdrcheck run: {len(report.records)} job(s)")
    table.add_column("verdict")
    table.add_column("jobs", justify="right")
    for v in [*VERDICT_ORDER, *sorted(set(counts) - set(VERDICT_ORDER))]:
        if counts.get(v):
            table.add_row(v, str(counts[v]))
    table.add_section()
    table.add_row("expectations met", str(met))
    table.add_row("expectations not met", str(failed))
    if errored:
        table.add_row("expectations not checked (Error)", str(errored))
    table.add_row("run now / resumed", f"{report.new} / {report.resumed}")
    table.add_row("time", f"{report.seconds:.1f} s")
    return table


def problem_lines(report: BatchReport) -> list[str]:
    """One line per unmet expectation and per error."""
    lines: list[str] = []
    for m in report.mismatches():
        what = "Liveness" if m.kind == "liveness" else "Expect"
        lines.append(f"MISMATCH {m.key}: {what} {m.want}, got {m.got}")
    for rec in report.errors:
        first = str(rec.get("reason") or "").splitlines()[:1]
        lines.append(f"ERROR {rec['key']}: {first[0] if first else ''}")
    return lines
