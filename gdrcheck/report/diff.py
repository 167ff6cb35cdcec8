"""The reports of ``gdrcheck diff`` (:mod:`gdrcheck.analysis.diff`): rich text and
JSON (``gdrcheck.diff/1``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gdrcheck.analysis.diff import DiffReport, Row, Side

if TYPE_CHECKING:
    from rich.console import RenderableType

SCHEMA = "gdrcheck.diff/1"


def _side_json(s: Side) -> dict[str, Any]:
    return {"verdict": s.verdict, "axioms": list(s.axioms), "flags": list(s.flags),
            "time": round(s.time, 6), "reason": s.reason}


def diff_json(r: DiffReport) -> dict[str, Any]:
    def row(x: Row) -> dict[str, Any]:
        return {"test": x.test, "file": x.file, "quantifier": x.quantifier,
                "a": _side_json(x.a), "b": _side_json(x.b)}

    return {
        "schema": SCHEMA,
        "a": r.a,
        "b": r.b,
        "engine": r.engine,
        "counts": {"compared": len(r.rows), "same": len(r.same),
                   "different": len(r.different), "inconclusive": len(r.inconclusive),
                   "skipped": len(r.skipped), "errors": len(r.errors)},
        "different": [row(x) for x in r.different],
        "inconclusive": [row(x) for x in r.inconclusive],
        "skipped": [{"file": s.file, "test": s.test, "reason": s.reason} for s in r.skipped],
        "errors": [{"file": e.path, "message": e.message} for e in r.errors],
    }


def diff_report(r: DiffReport, every: bool) -> list[RenderableType]:
    from rich.text import Text

    out: list[RenderableType] = []
    from rich.table import Table

    t = Table(title=f"Tests on which {r.a} and {r.b} disagree")
    t.add_column("test")
    t.add_column("file")
    t.add_column(r.a)
    t.add_column(r.b)
    t.add_column("rejected by")
    rows = r.rows if every else r.different + r.inconclusive
    for x in rows:
        why = "; ".join(f"{s.verdict}: {', '.join(s.axioms or s.flags) or s.reason or '-'}"
                        for s in (x.a, x.b) if s.verdict in ("Forbidden", "Required",
                                                              "Undefined", "Unknown",
                                                              "Error"))
        t.add_row(x.test, x.file, x.a.verdict, x.b.verdict, why)
    if rows:
        out.append(t)
    out.append(Text(f"{len(r.rows)} compared: {len(r.same)} same, {len(r.different)} different, "
                  f"{len(r.inconclusive)} inconclusive; {len(r.skipped)} skipped (not "
                  f"accepted by both), {len(r.errors)} unreadable"))
    return out
