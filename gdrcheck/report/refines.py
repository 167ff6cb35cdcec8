"""Reports of ``gdrcheck refines``: a rich summary and the JSON schema
``gdrcheck.refines/1`` (docs/output.md, docs/json-schema.json ``$defs/refines``)."""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from rich.table import Table

from gdrcheck.analysis.refine import Answer, Comparison, RefinementReport

SCHEMA = "gdrcheck.refines/1"


def _answer_json(a: Answer) -> dict[str, Any]:
    return {
        "model": a.model,
        "verdict": a.verdict,
        "positive": a.positive,
        "negative": a.negative,
        "states": None if a.states is None else [dict(s) for s in a.states],
        "time": round(a.time, 6),
        "reason": a.reason,
    }


def comparison_json(c: Comparison) -> dict[str, Any]:
    return {
        "test": c.test,
        "file": c.file,
        "quantifier": c.quantifier,
        "status": c.status,
        "impl": _answer_json(c.impl),
        "spec": _answer_json(c.spec),
        "impl_extra": list(c.impl_extra),
        "spec_extra": list(c.spec_extra),
    }


def refines_json(r: RefinementReport) -> dict[str, Any]:
    lists = {
        "violations": r.violations,
        "stronger": r.stronger,
        "impl_undefined": r.impl_undefined,
        "spec_undefined": r.spec_undefined,
        "inconclusive": r.inconclusive,
        "agree": r.agree,
    }
    return {
        "schema": SCHEMA,
        "impl": r.impl,
        "spec": r.spec,
        "mode": r.mode,
        "engine": r.engine,
        "refines": r.refines,
        "counts": {
            "compared": len(r.comparisons),
            **{k: len(v) for k, v in lists.items()},
            "skipped": len(r.skipped),
            "errors": len(r.errors),
        },
        **{k: [comparison_json(c) for c in v] for k, v in lists.items()},
        "skipped": [{"file": s.file, "test": s.test, "reason": s.reason} for s in r.skipped],
        "errors": [{"file": e.path, "message": e.render()} for e in r.errors],
    }


def _verdicts_table(title: str, r: RefinementReport, rows: list[Comparison],
                    extra: str | None) -> Table:
    """One row per test (its file, or its name); with ``extra``, a column of the
    states only one side reaches."""
    table = Table(title=title, title_justify="left")
    table.add_column("test", overflow="fold")
    table.add_column(f"impl {r.impl}")
    table.add_column(f"spec {r.spec}")
    if extra is not None:
        table.add_column(extra, overflow="fold")
    for c in rows:
        cells = [c.file or c.test, _verdict_cell(c.impl), _verdict_cell(c.spec)]
        if extra is not None:
            what = c.impl_extra if extra.startswith("impl") else c.spec_extra
            cells.append("\n".join(what))
        table.add_row(*cells)
    return table


def _verdict_cell(a: Answer) -> str:
    if a.verdict in ("Unknown", "Error") and a.reason:
        return f"{a.verdict}: {a.reason}"
    return a.verdict


def refines_report(r: RefinementReport) -> list[RenderableType]:
    """The summary, then one table per non-empty list."""
    from rich.text import Text

    out: list[RenderableType] = []
    states = r.mode == "states"
    extra_i = "impl-only states" if states else None
    extra_s = "spec-only states" if states else None
    a_title = ("(a) states the impl reaches and the spec does not: NOT a refinement"
               if states else "(a) impl allows, spec forbids: NOT a refinement")
    b_title = ("(b) states the spec reaches and the impl does not: the impl is stronger"
               if states else "(b) impl forbids, spec allows: the impl is stronger")
    sections: list[tuple[str, list[Comparison], str | None]] = [
        (a_title, r.violations, extra_i),
        (b_title, r.stronger, extra_s),
        ("(c) impl Undefined where the spec is not", r.impl_undefined, None),
        ("inconclusive (Unknown or error)", r.inconclusive, None),
    ]
    for title, rows, extra in sections:
        if rows:
            out.append(_verdicts_table(f"{title} ({len(rows)})", r, rows, extra))
            out.append(Text(""))
    if r.skipped:
        out.append(Text(f"skipped {len(r.skipped)} test(s) not accepted by both models"))
    summary = Table(title=f"refines {r.impl} {r.spec} ({r.mode}, {r.engine})",
                    title_justify="left", show_header=False)
    summary.add_column("what")
    summary.add_column("tests", justify="right")
    for label, n in (
        ("compared", len(r.comparisons)),
        ("agree", len(r.agree)),
        ("(a) impl allows, spec forbids" if not states else "(a) impl-only states",
         len(r.violations)),
        ("(b) impl forbids, spec allows" if not states else "(b) spec-only states",
         len(r.stronger)),
        ("(c) impl Undefined, spec not", len(r.impl_undefined)),
        ("spec Undefined (anything goes)", len(r.spec_undefined)),
        ("inconclusive", len(r.inconclusive)),
        ("skipped (not accepted by both)", len(r.skipped)),
        ("unreadable files", len(r.errors)),
    ):
        summary.add_row(label, str(n))
    out.append(summary)
    if not r.comparisons:
        out.append(Text("no test was compared"))
    elif r.refines:
        out.append(Text(f"{r.impl} refines {r.spec} on these tests"))
    else:
        out.append(Text(f"{r.impl} does NOT refine {r.spec}: {len(r.violations)} test(s)"))
    return out
