"""The reports of a sweep (:mod:`gdrcheck.analysis.sweep`): rich text and JSON
(``gdrcheck.sweep/1``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gdrcheck.analysis.sweep import SweepResult, expected_for
from gdrcheck.litmus import ast as A
from gdrcheck.report.herd import format_prop

if TYPE_CHECKING:
    from rich.console import Console

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


def print_sweep(test: A.Test, r: SweepResult, console: Console, every: bool) -> None:
    from rich.table import Table

    console.print(f"Sweep {r.test} {r.model}: {r.quantifier} "
                  f"({format_prop(test.condition.prop)})", markup=False)
    n = len(r.swept)
    if r.fixed:
        console.print(f"Fixed: {', '.join(r.fixed)}", markup=False)
    console.print(f"{n} variant(s) swept: {len(r.relevant)} can change this test"
                  + (f" ({', '.join(r.relevant)})" if r.relevant else "")
                  + f", {len(r.inert)} inert" + (f" ({', '.join(r.inert)})" if r.inert else ""),
                  markup=False)
    console.print(f"Default (no variant): {r.default}", markup=False)
    counts = r.counts()
    console.print("Combinations: " + ", ".join(f"{v} {k}" for k, v in counts.items())
                  + f" (of {2 ** n})", markup=False)
    flips = r.flips()
    if flips:
        t = Table(title=f"Minimal variant sets that change the verdict ({r.default} by default)")
        t.add_column("variants")
        t.add_column("verdict")
        t.add_column("expected")
        for f in flips:
            t.add_row(" + ".join(f.variants), f.verdict,
                      expected_for(test, r, f.variants) or "")
        console.print(t)
    else:
        console.print("No combination changes the verdict.", markup=False)
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
        console.print(t)
    elif r.relevant:
        console.print(f"({len(rows)} combinations of the relevant variants: --all lists them)",
                      markup=False)
    console.print(f"Time {r.test} {r.time:.3f} ({r.queries} solver queries)", markup=False)
