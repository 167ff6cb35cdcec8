"""Batch-run scaling on Dask: a generated suite of at least 10,000 tests × models, on 1
and on 2 worker processes of an embedded LocalCluster.

    python bench/bench_run_scaling.py [--quick] [--workers 1,2] [--json out.json]

The suite is written by ``gdrcheck generate --enumerate`` (diycross-style: every cycle
up to a size over each dialect's default edges): x86 cycles of up to 7 edges under
x86tso and sc, PTX cycles of up to 6 edges under ptx, GIN cycles of up to 6 edges under
gin-api (``--quick``: one size less each). Reports, per worker count, the wall time of
``gdrcheck run``'s library call (``run_batch``: planning, the cluster's start, every
job, the results file), the throughput in jobs per second, and the scaling ratio
against one worker measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from gdrcheck.analysis.models import ModelSpec
from gdrcheck.batch import run_batch
from gdrcheck.gen.enumerate import DEFAULT_EDGES, enumerate_cycles

SUITE = (("x86", 7, ("x86tso", "sc")), ("ptx", 6, ("ptx",)), ("gin", 6, ("gin-api",)))


def write_suite(root: Path, quick: bool) -> list[tuple[Path, tuple[str, ...]]]:
    out = []
    for dialect, size, models in SUITE:
        d = root / dialect
        d.mkdir(parents=True)
        for names, text in enumerate_cycles(DEFAULT_EDGES[dialect], size - quick, dialect):
            (d / f"{'+'.join(names)}.litmus").write_text(text)
        out.append((d, models))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    counts = [int(w) for w in args.workers.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        suite = write_suite(Path(tmp) / "suite", args.quick)
        gen = time.perf_counter() - t0
        ntests = sum(len(list(d.glob("*.litmus"))) for d, _ in suite)
        njobs = sum(len(list(d.glob("*.litmus"))) * len(m) for d, m in suite)
        first: dict[str, str] | None = None
        for run, w in enumerate(counts):
            start = time.perf_counter()
            verdicts: dict[str, int] = {}
            by_key: dict[str, str] = {}
            for i, (d, models) in enumerate(suite):
                # a file per run: a second run with as many workers must not resume
                res = Path(tmp) / f"out-{run}-{w}-{i}.jsonl"
                rep = run_batch([d], res, models=[ModelSpec(m) for m in models], workers=w)
                for k, v in rep.verdicts().items():
                    verdicts[k] = verdicts.get(k, 0) + v
                by_key.update((k, str(r.get("verdict"))) for k, r in rep.records.items())
            wall = time.perf_counter() - start
            first = by_key if first is None else first
            # every run must answer every job as the first run did: name the ones that differ
            differ = {k: [first.get(k), by_key.get(k)] for k in sorted(set(first) | set(by_key))
                      if first.get(k) != by_key.get(k)}
            rows.append({"workers": w, "jobs": njobs, "seconds": wall,
                         "jobs_per_s": njobs / wall, "verdicts": verdicts,
                         "differ_from_first_run": differ})
            if differ:
                print(f"{len(differ)} job(s) answered differently from the first run: {differ}",
                      flush=True)
    base = rows[0]["seconds"]
    table = Table(title=f"gdrcheck run on Dask: {ntests} generated tests, {njobs} jobs "
                        f"(generated in {gen:.1f} s)")
    for col in ("workers", "wall s", "jobs/s", "speed-up vs 1", "verdicts"):
        table.add_column(col)
    for r in rows:
        table.add_row(str(r["workers"]), f"{r['seconds']:.1f}", f"{r['jobs_per_s']:.0f}",
                      f"{base / r['seconds']:.2f}",
                      ", ".join(f"{k} {v}" for k, v in sorted(r["verdicts"].items())))
    Console().print(table)
    if args.json:
        args.json.write_text(json.dumps({"tests": ntests, "jobs": njobs, "rows": rows},
                                        indent=2))


if __name__ == "__main__":
    main()
