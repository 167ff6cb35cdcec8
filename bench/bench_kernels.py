"""Kernel benchmark (issue 26, "Speed"): compile + extract + check for every kernel of the
kernels/ library at its `// gdrcheck:` configurations.

    python bench/bench_kernels.py [--json docs/data/bench-kernels.json]

For each configuration: clang's time (compile_to_ir), llvmlite's and the extraction's
(read_module, extract, build_test: the litmus test parsed), and each model's check
(check_test), in one process (start-up excluded; `gdrcheck kernel`'s start is that of any
command: docs/performance.md). Target: every kernel under 10 s on the 2-core machine. The
machine is shared: the load average is recorded with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gdrcheck.analysis.assumed import check_assumed
from gdrcheck.analysis.options import DEFAULT_OPTIONS
from gdrcheck.kernel import file_runs, read_source
from gdrcheck.kernel.calls import Calls
from gdrcheck.kernel.compile import INCLUDE_DIR, compile_to_ir, find_clang
from gdrcheck.kernel.extract import extract
from gdrcheck.kernel.ir import read_module
from gdrcheck.kernel.test import build_test
from gdrcheck.lower import DEFAULT_UNROLL

ROOT = Path(__file__).resolve().parents[1]


def bench_file(path: Path) -> list[dict[str, Any]]:
    source = read_source(path)
    rows = []
    for run in file_runs(source):
        t0 = time.perf_counter()
        text = compile_to_ir(path, None, run.defines)
        t1 = time.perf_counter()
        module = read_module(text, str(path), INCLUDE_DIR)
        kt = build_test(extract(module, run.config, str(path), source, Calls), run.expect,
                        run.liveness)
        t2 = time.perf_counter()
        checks = {}
        for model in run.models:
            t = time.perf_counter()
            options = DEFAULT_OPTIONS.overlay(unroll=run.unroll or DEFAULT_UNROLL)  # as the CLI
            res = check_assumed(kt.test, kt.kept, model, options=options)
            checks[model] = {"s": round(time.perf_counter() - t, 3), "verdict": res.verdict,
                             "vacuous": res.vacuous, "engine": res.engine}
        total = time.perf_counter() - t0
        rows.append({
            "file": path.relative_to(ROOT).as_posix(), "test": kt.test.name,
            "threads": len(kt.test.threads),
            "instructions": sum(len(th.instrs) for th in kt.test.threads),
            "compile_s": round(t1 - t0, 3), "extract_s": round(t2 - t1, 3),
            "checks": checks, "total_s": round(total, 3),
        })
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=None, help="write the figures here")
    args = ap.parse_args()
    rows: list[dict[str, Any]] = []
    for path in sorted((ROOT / "kernels").rglob("*.cu")):
        for row in bench_file(path):
            rows.append(row)
            checks = ", ".join(f"{m} {c['verdict']}{' (vacuous)' if c['vacuous'] else ''} "
                               f"{c['s']:.2f}s" for m, c in row["checks"].items())
            print(f"{row['file']:62s} compile {row['compile_s']:5.2f}s extract "
                  f"{row['extract_s']:5.2f}s | {checks} | total {row['total_s']:5.2f}s",
                  flush=True)
    worst = max(r["total_s"] for r in rows)
    print(f"{len(rows)} configurations; the slowest {worst:.2f}s (target: under 10 s)")
    if args.json:
        record = {"when": datetime.now(UTC).isoformat(timespec="seconds"),
                  "clang": find_clang(), "load_average": os.getloadavg(),
                  "cpus": os.cpu_count(), "python": sys.version.split()[0], "rows": rows}
        Path(args.json).write_text(json.dumps(record, indent=1) + "\n")
    return 0 if worst < 10 else 1


if __name__ == "__main__":
    sys.exit(main())
