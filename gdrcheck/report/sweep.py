"""The reports of a sweep (:mod:`gdrcheck.analysis.sweep`): rich text and JSON
(``gdrcheck.sweep/1``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gdrcheck.analysis.sweep import SweepResult, expected_for
from gdrcheck.litmus import ast as A
from gdrcheck.report.herd import format_prop

if TYPE_CHECKING:
    from rich.console import RenderableType

SCHEMA = "gdrcheck.sweep/1"

TABLE_ROWS = 32
"""The text report lists every combination up to this many (else: the minimal sets
that change the verdict, and counts); ``--all`` lists them whatever their number."""


def sweep_json(test: A.Test, r: SweepResult) -> dict[str, object]:
    return {
        "schema": SCHEMA,
        "test": r.test,
        "file": r.file,
        "model": r.model,
        "condition": f"{r.quantifier} ({format_prop(test.condition.prop)})",
        "quantifier": r.quantifier,
        "fixed": list(r.fixed),
        "relevant": list(r.relevant),
        "inert": list(r.inert),
        "default": r.default,
        "counts": r.counts(),
        "combinations": [
            {"variants": sorted(c), "verdict": v, "flags": list(r.flags.get(c, ())),
             "expect": expected_for(test, r, c)}
            for c, v in r.rows()
        ],
        "flips": [{"variants": list(f.variants), "verdict": f.verdict} for f in r.flips()],
        "time": round(r.time, 6),
        "queries": r.queries,
    }


def _mark(on: bool) -> str:
    return "✓" if on else "·"


def sweep_report(test: A.Test, r: SweepResult, every: bool) -> list[RenderableType]:
    from rich.text import Text

    out: list[RenderableType] = []
    from rich.table import Table

    out.append(Text(f"Sweep {r.test} {r.model}: {r.quantifier} "
                  f"({format_prop(test.condition.prop)})"))
    n = len(r.swept)
    if r.fixed:
        out.append(Text(f"Fixed: {', '.join(r.fixed)}"))
    out.append(Text(f"{n} variant(s) swept: {len(r.relevant)} can change this test"
                  + (f" ({', '.join(r.relevant)})" if r.relevant else "")
                  + f", {len(r.inert)} inert" + (f" ({', '.join(r.inert)})" if r.inert else "")))
    out.append(Text(f"Default (no variant): {r.default}"))
    counts = r.counts()
    out.append(Text("Combinations: " + ", ".join(f"{v} {k}" for k, v in counts.items())
                  + f" (of {2 ** n})"))
    flips = r.flips()
    if flips:
        t = Table(title=f"Minimal variant sets that change the verdict ({r.default} by default)")
        t.add_column("variants")
        t.add_column("verdict")
        t.add_column("expected")
        for f in flips:
            t.add_row(" + ".join(f.variants), f.verdict,
                      expected_for(test, r, f.variants) or "")
        out.append(t)
    else:
        out.append(Text("No combination changes the verdict."))
    rows = r.rows()
    if r.relevant and (every or len(rows) <= TABLE_ROWS):
        t = Table(title="Every combination of the variants that can change this test"
                  + (" (inert ones change nothing)" if r.inert else ""))
        for v in r.relevant:
            t.add_column(v, justify="center")
        t.add_column("verdict")
        t.add_column("flags")
        t.add_column("expected")
        for combo, verdict in rows:
            t.add_row(*(_mark(v in combo) for v in r.relevant), verdict,
                      ", ".join(r.flags.get(combo, ())), expected_for(test, r, combo) or "")
        out.append(t)
    elif r.relevant:
        out.append(Text(f"({len(rows)} combinations of the relevant variants: --all lists them)"))
    out.append(Text(f"Time {r.test} {r.time:.3f} ({r.queries} solver queries)"))
    return out
