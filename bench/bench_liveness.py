"""Liveness benchmark: the liveness question over the library's tests that ask it.

    python bench/bench_liveness.py [--json out.json] [--repeat N]

For every ``Liveness=`` entry of litmus/ (litmus/hangs and the GIN doorbell tests) and the
small spin-loop tests of tests/analysis/test_liveness.py, reports the time of the liveness
question (gdrcheck.analysis.liveness.liveness, engine ``auto`` and ``smt``) against the
baseline of the same run: the verdict of the test's condition under the same model
(check_test of the test without its Liveness= lines, so without the question), and the
ratio of the two. Each time is the best of
``--repeat`` runs in this process, after a warm-up (the models are loaded once).
The target (issue 27): tens of milliseconds for a two- or three-thread PTX test with spin
loops.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from gdrcheck.analysis.check import check_test, prepare
from gdrcheck.analysis.liveness import liveness
from gdrcheck.analysis.models import ModelSpec
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.litmus import ast as A
from gdrcheck.litmus import load_litmus, parse_litmus

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.analysis.test_liveness import CASES  # noqa: E402
from tests.analysis.test_weak_poll import STRONG, WEAK  # noqa: E402

WEAK_POLL = [(WEAK, "ptx", "Live"), (WEAK, "ptx+weak-poll", "Hang"),
             (STRONG, "ptx+weak-poll", "Live")]
"""The weak-poll variant's tests (tests/analysis/test_weak_poll.py)."""


def _without_liveness(test: A.Test) -> A.Test:
    """The test without its Liveness= lines: check_test asks the question for those."""
    return dataclasses.replace(test, meta=tuple(m for m in test.meta if m.key != "Liveness"))


def _best(fn: object, repeat: int) -> tuple[float, object]:
    out = None
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()  # type: ignore[operator]
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="write the rows as JSON")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="", help="only the tests whose name contains this")
    args = ap.parse_args()
    jobs: list[tuple[str, object, ModelSpec, str | None]] = []
    for f in sorted(ROOT.glob("litmus/**/*.litmus")):
        test = load_litmus(str(f))
        for e in test.liveness_expectations:
            jobs.append((str(f.relative_to(ROOT)), test, ModelSpec(e.model, e.variants),
                         e.verdict))
    for text, model, want in [*CASES, *WEAK_POLL]:
        test = parse_litmus(text)
        jobs.append((f"tests:{test.name}", test, ModelSpec.parse(model), want))
    jobs = [j for j in jobs if args.only in j[0]]
    rows = []
    for name, test, spec, want in jobs:
        row: dict[str, object] = {"test": name, "model": str(spec), "expected": want}
        plain = _without_liveness(test)  # type: ignore[arg-type]
        base, _ = _best(lambda t=plain, s=spec: check_test(t, s), 1)  # warm-up
        base, _ = _best(lambda t=plain, s=spec: check_test(t, s), args.repeat)
        row["check_s"] = round(base, 4)
        for engine in ("auto", "smt"):
            options = CheckOptions(engine=engine)
            _, loaded, chosen = prepare(test, spec, (), options)  # type: ignore[arg-type]
            t, ans = _best(lambda t=test, lo=loaded, c=chosen, o=options:
                           liveness(t, lo, c, o), args.repeat)  # type: ignore[arg-type]
            row[f"{engine}_s"] = round(t, 4)
            row[f"{engine}_answer"] = ans.answer  # type: ignore[attr-defined]
            row[f"{engine}_ratio"] = round(t / base, 2) if base else None
        rows.append(row)
    table = Table(title=f"liveness question (best of {args.repeat})")
    for col in ("test", "model", "expected", "auto", "smt", "check", "auto/check"):
        table.add_column(col)
    for r in rows:
        table.add_row(str(r["test"]), str(r["model"]), str(r["expected"]),
                      f"{r['auto_answer']} {1000 * float(r['auto_s']):.1f} ms",  # type: ignore[arg-type]
                      f"{r['smt_answer']} {1000 * float(r['smt_s']):.1f} ms",  # type: ignore[arg-type]
                      f"{1000 * float(r['check_s']):.1f} ms",  # type: ignore[arg-type]
                      f"{r['auto_ratio']}x")
    Console().print(table)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
