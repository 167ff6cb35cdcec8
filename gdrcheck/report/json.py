"""The JSON report (schema ``gdrcheck.check/2``: docs/output.md, docs/json-schema.json)."""

from __future__ import annotations

from typing import Any

from gdrcheck.engine.result import Result, Witness
from gdrcheck.litmus import ast as A
from gdrcheck.report.herd import format_prop

SCHEMA = "gdrcheck.check/2"


def witness_json(w: Witness) -> dict[str, Any]:
    return {
        "events": [
            {"id": e.eid, "thread": e.thread, "kind": e.kind, "loc": e.loc, "value": e.value,
             "label": e.label, "tags": list(e.tags), "agent": e.agent}
            for e in w.events
        ],
        "rf": [list(p) for p in w.rf],
        "co": w.co,
        "state": dict(w.state),
        "extra": {k: [list(p) for p in v] for k, v in w.extra.items()},
    }


def result_json(test: A.Test, res: Result, expectation: dict[str, Any] | None = None,
                lints: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The ``gdrcheck.check/2`` record of ``res``; with ``lints`` (``gdrcheck check``'s
    records, ``$defs/lint``) a ``lints`` field at the end."""
    record = {
        "schema": SCHEMA,
        "test": test.name,
        "file": test.path,
        "model": res.model,
        "engine": res.engine,
        "condition": f"{test.condition.quantifier} ({format_prop(test.condition.prop)})",
        "quantifier": res.quantifier,
        "verdict": res.verdict,
        "ok": res.ok,
        "observation": None if res.verdict == "Unknown" else res.observation,
        "positive": res.positive,
        "negative": res.negative,
        "axioms": res.axioms,
        "flags": res.flags,
        "liveness": res.liveness,
        "live": res.live,
        "live_reason": res.live_reason,
        "vacuous": res.vacuous,
        "vacuity": res.vacuity,
        "blocked": [{"thread": w.thread, "row": w.row, "instruction": w.text,
                     "line": w.pos.line or None, "col": w.pos.col or None}
                    for w in res.blocked],
        "states": None if res.states is None else [dict(s) for s in res.states],
        "witness": None if res.witness is None else witness_json(res.witness),
        "time": round(res.time, 6),
        "reason": res.reason,
        "expect": expectation,
    }
    if lints is not None:
        record["lints"] = lints
    return record
