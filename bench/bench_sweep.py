"""Sweep benchmark: every combination of a model's variants, from one z3 encoding.

    python bench/bench_sweep.py [--sample N] [--json out.json] [FILE:MODEL ...]

For each (test, model) — by default three GIN tests under gin-gdaki, whose 12
variants give 4096 combinations — reports

- the time of ``gdrcheck sweep`` (sweep_test: one encoding, incremental queries);
- the time of running check_test once per combination (the concrete-variant path),
  measured in the same run, and the ratio of the two;
- whether the two agree on every combination.

The target (issue 4): a sweep over a model with 8 or more variants under 5 s.
``--sample N`` runs check_test on N random combinations only and extrapolates its
total (the ratio is then an estimate; agreement is checked on the sample).
Times are wall-clock seconds in this process, after a warm-up run.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.models import get_model
from gdrcheck.analysis.sweep import sweep_test
from gdrcheck.litmus import load_litmus

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = (
    "litmus/gin/09-MP+put+put-flag.litmus:gin-gdaki",
    "litmus/gin/22-MP+put+sig-gdr-none.litmus:gin-gdaki",
    "litmus/deepep/V2-pp-send-recv.litmus:gin-gdaki",
)
TARGET_S = 5.0


@dataclass
class Row:
    test: str
    model: str
    variants: int
    relevant: int
    combinations: int
    queries: int
    sweep_s: float
    checks_s: float
    checked: int
    ratio: float
    agree: bool


def bench(path: str, model: str, sample: int | None, rng: random.Random) -> Row:
    test = load_litmus(ROOT / path)
    names = sorted(get_model(model).variant_names)
    sweep_test(test, model)  # warm-up (model loading, lark, z3)
    t0 = time.perf_counter()
    r = sweep_test(test, model)
    sweep_s = time.perf_counter() - t0
    combos = [[v for v, b in zip(names, bits, strict=True) if b]
              for bits in itertools.product((False, True), repeat=len(names))]
    todo = combos if sample is None else rng.sample(combos, min(sample, len(combos)))
    agree = True
    t0 = time.perf_counter()
    for combo in todo:
        if check_test(test, model, variants=combo).verdict != r.verdict(combo):
            agree = False
    checks_s = time.perf_counter() - t0
    total = checks_s * len(combos) / len(todo)
    return Row(test.name, model, len(names), len(r.relevant), len(combos), r.queries,
               sweep_s, total, len(todo), total / sweep_s, agree)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="*", default=list(DEFAULT), metavar="FILE:MODEL")
    ap.add_argument("--sample", type=int, default=None,
                    help="check_test on this many random combinations only (extrapolated)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    rng = random.Random(4)
    rows = []
    for run in args.runs:
        path, model = run.rsplit(":", 1)
        rows.append(bench(path, model, args.sample, rng))
    t = Table(title="gdrcheck sweep: one encoding vs check_test per combination")
    for col in ("test", "model", "variants", "relevant", "combinations", "queries",
                "sweep s", "check_test s", "ratio", "agree"):
        t.add_column(col, justify="right" if col not in ("test", "model") else "left")
    for row in rows:
        est = "" if row.checked == row.combinations else f" (est. from {row.checked})"
        t.add_row(row.test, row.model, str(row.variants), str(row.relevant),
                  str(row.combinations), str(row.queries), f"{row.sweep_s:.3f}",
                  f"{row.checks_s:.2f}{est}", f"{row.ratio:.0f}x",
                  "yes" if row.agree else "NO")
    Console(width=160).print(t)
    worst = max(r.sweep_s for r in rows)
    ok = worst < TARGET_S and all(r.agree for r in rows)
    print(f"slowest sweep {worst:.3f} s (target < {TARGET_S:.0f} s): "
          f"{'ok' if ok else 'FAILED'}")
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in rows], indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
