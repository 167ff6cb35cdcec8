"""``gdrcheck fix`` on the library: every test whose outcome some model of its Expect=
line allows (or flags), fixed under all of them; time per fix and queries.

    python bench/bench_fix.py [--json out.json] [DIR...]

Reports per test: the status (fixed / impossible / unknown), the cost of the repair,
the candidate sets checked (queries) and the seconds; then the median and the maximum,
and, as baselines measured in the same run, the time of one ``check`` of the same test
under the same models (so the ratio says how many checks a fix costs) and the time of
the same fix with every candidate set's test encoded anew (``strategy="reencode"``, the
search before the shared selector encoding) — with the two answers compared.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.fix import fix
from gdrcheck.analysis.models import expected_specs
from gdrcheck.errors import InputError
from gdrcheck.litmus import load_litmus

ROOT = Path(__file__).resolve().parents[1]
FAMILIES = ("classic", "ptx", "ptx75", "gin", "nvshmem", "lsa", "deepep", "realbugs")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="*", type=Path)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--max-queries", type=int, default=400)
    args = ap.parse_args()
    dirs = args.dirs or [ROOT / "litmus" / f for f in FAMILIES]
    rows = []
    for d in dirs:
        for f in sorted(d.glob("*.litmus")):
            test = load_litmus(f)
            specs = expected_specs(test)
            t0 = time.perf_counter()
            try:
                res = [check_test(test, s) for s in specs]
            except InputError as err:  # e.g. a variant a model does not have yet
                print(f"{d.name}/{f.name}: skipped ({err.message})", flush=True)
                continue
            check_s = time.perf_counter() - t0
            if all(r.verdict in ("Forbidden", "Required") for r in res):
                continue
            r = fix(test, specs, max_queries=args.max_queries)
            old = fix(test, specs, max_queries=args.max_queries, strategy="reencode")
            cost = r.repairs[0].cost if r.repairs else None
            old_cost = old.repairs[0].cost if old.repairs else None
            print(f"{d.name}/{f.name}: {r.status} cost {cost if cost is not None else '-'} "
                  f"queries {r.queries} {r.time:.2f} s (re-encoding: {old.status} "
                  f"{old.time:.2f} s)", flush=True)
            rows.append({"test": f"{d.name}/{f.name}", "status": r.status, "cost": cost,
                         "queries": r.queries, "candidates": r.candidates,
                         "strategy": r.strategy, "shared_edits": r.shared_edits,
                         "fallbacks": r.fallbacks, "mismatches": r.mismatches,
                         "seconds": r.time, "check_seconds": check_s,
                         "reencode_status": old.status, "reencode_cost": old_cost,
                         "reencode_queries": old.queries, "reencode_seconds": old.time})
    t = Table(title=f"gdrcheck fix on {len(rows)} library tests with an allowed outcome")
    for c in ("test", "status", "cost", "queries", "shared", "s", "re-encoding s",
              "× one check"):
        t.add_column(c)
    for r in rows:
        t.add_row(r["test"], r["status"], str(r["cost"]), str(r["queries"]),
                  f"{r['shared_edits']}/{r['candidates']}", f"{r['seconds']:.2f}",
                  f"{r['reencode_seconds']:.2f}",
                  f"{r['seconds'] / max(r['check_seconds'], 1e-6):.0f}")
    Console().print(t)
    secs = [r["seconds"] for r in rows]
    old_secs = [r["reencode_seconds"] for r in rows]
    qs = [r["queries"] for r in rows]
    if rows:
        differ = [r["test"] for r in rows if (r["status"], r["cost"])
                  != (r["reencode_status"], r["reencode_cost"])]
        Console().print(
            f"time per fix: median {statistics.median(secs):.2f} s, max {max(secs):.2f} s, "
            f"total {sum(secs):.1f} s; re-encoding each set: median "
            f"{statistics.median(old_secs):.2f} s, max {max(old_secs):.2f} s, total "
            f"{sum(old_secs):.1f} s (ratio of totals {sum(secs) / sum(old_secs):.2f}, median "
            f"ratio {statistics.median(a / b for a, b in zip(secs, old_secs, strict=True)):.2f}"
            f"); queries: median {statistics.median(qs)}, max {max(qs)}; fixed "
            f"{sum(r['status'] == 'fixed' for r in rows)}, impossible "
            f"{sum(r['status'] == 'impossible' for r in rows)}, unknown "
            f"{sum(r['status'] == 'unknown' for r in rows)}; sets by the fallback "
            f"{sum(r['fallbacks'] for r in rows)}, mismatches "
            f"{sum(r['mismatches'] for r in rows)}; answers that differ: {differ or 'none'}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
