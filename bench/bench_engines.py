"""Engine benchmark: the z3 engine against the explicit enumerator, in one run.

    python bench/bench_engines.py [--max-explicit-n 8] [--json out.json]

Reports
- the per-test median time on the classic suite (litmus/classic under x86tso,
  litmus/ptx under ptx), warm process, both engines;
- the families SB-n (n = 2..16), LB-n (2..16) and IRIW-k (k = 2..8 readers... as
  IRIW with k writer/reader pairs) under x86tso: time against size, z3 vs explicit
  (the explicit enumerator only up to --max-explicit-n, it is exponential);
- the ratio explicit / z3 on every size both ran.
Times are wall-clock seconds in this process (the first test pays the imports).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.litmus import ast as A
from gdrcheck.litmus import load_litmus

ROOT = Path(__file__).resolve().parents[1]


def _mov_w(loc: str, v: int) -> A.X86Mov:
    return A.X86Mov(A.X86Mem(A.LocRef(loc)), A.Const(v))


def _mov_r(reg: str, loc: str) -> A.X86Mov:
    return A.X86Mov(A.Reg(reg), A.X86Mem(A.LocRef(loc)))


def _eq(t: int, reg: str, v: int) -> A.Cmp:
    return A.Cmp("=", A.RegTerm(t, reg), A.ConstTerm(v))


def _test(name: str, threads: list[list[A.Instr]], prop: A.Prop) -> A.Test:
    ths = tuple(A.Thread(i, A.Placement(), tuple(ins)) for i, ins in enumerate(threads))
    return A.Test("X86", name, None, (), (), ths, (), None, A.Condition("exists", prop))


def sb(n: int) -> A.Test:
    """SB-n: thread i writes x_i then reads x_{i+1}; all reads 0 (Fre PodWR)^n."""
    threads = [[_mov_w(f"x{i}", 1), _mov_r("EAX", f"x{(i + 1) % n}")] for i in range(n)]
    return _test(f"SB-{n}", threads, A.And(tuple(_eq(i, "EAX", 0) for i in range(n))))


def lb(n: int) -> A.Test:
    """LB-n: thread i reads x_i then writes x_{i+1}; all reads 1 (Rfe PodRW)^n."""
    threads = [[_mov_r("EAX", f"x{i}"), _mov_w(f"x{(i + 1) % n}", 1)] for i in range(n)]
    return _test(f"LB-{n}", threads, A.And(tuple(_eq(i, "EAX", 1) for i in range(n))))


def iriw(k: int) -> A.Test:
    """IRIW-k: k writers of x_0..x_{k-1}; k readers, reader j reads x_j then x_{j+1}
    and sees the first write but not the second (a cycle through all writers)."""
    threads: list[list[A.Instr]] = [[_mov_w(f"x{i}", 1)] for i in range(k)]
    conj: list[A.Prop] = []
    for j in range(k):
        t = k + j
        threads.append([_mov_r("EAX", f"x{j}"), _mov_r("EBX", f"x{(j + 1) % k}")])
        conj += [_eq(t, "EAX", 1), _eq(t, "EBX", 0)]
    return _test(f"IRIW-{k}", threads, A.And(tuple(conj)))


def timed(test: A.Test, model: str, engine: str, repeat: int = 1) -> tuple[float, str]:
    best = float("inf")
    verdict = ""
    for _ in range(repeat):
        t0 = time.perf_counter()
        verdict = check_test(test, model, options=CheckOptions(engine=engine)).verdict
        best = min(best, time.perf_counter() - t0)
    return best, verdict


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-explicit-n", type=int, default=8)
    ap.add_argument("--max-n", type=int, default=16)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    out: dict[str, object] = {}

    # warm up imports and z3
    timed(sb(2), "x86tso", "smt")

    print("== classic suite (per-test median, warm process) ==")
    suite = [(p, "x86tso") for p in sorted((ROOT / "litmus/classic").glob("*.litmus"))]
    suite += [(p, "ptx") for p in sorted((ROOT / "litmus/ptx").glob("*.litmus"))]
    per_engine: dict[str, list[float]] = {"smt": [], "explicit": []}
    for path, model in suite:
        test = load_litmus(str(path))
        for eng in per_engine:
            t, _ = timed(test, model, eng, repeat=3)
            per_engine[eng].append(t)
    for eng, ts in per_engine.items():
        if ts:
            print(f"{eng:9s} tests={len(ts)} median={statistics.median(ts) * 1000:.1f} ms "
                  f"max={max(ts) * 1000:.1f} ms")
    out["classic"] = {k: {"median_s": statistics.median(v) if v else None, "n": len(v)}
                      for k, v in per_engine.items()}

    print("\n== families under x86tso ==")
    print(f"{'test':10s} {'verdict':9s} {'smt s':>9s} {'explicit s':>11s} {'ratio':>8s}")
    fam: list[dict[str, object]] = []
    for make, sizes in ((sb, range(2, args.max_n + 1)), (lb, range(2, args.max_n + 1)),
                        (iriw, range(2, 9))):
        for n in sizes:
            test = make(n)
            ts, v = timed(test, "x86tso", "smt")
            te: float | None = None
            if n <= args.max_explicit_n and (make is not iriw or n <= 3):
                te, ve = timed(test, "x86tso", "explicit")
                assert ve == v, f"engines disagree on {test.name}: {v} vs {ve}"
            ratio = f"{te / ts:8.1f}" if te else "       -"
            tex = f"{te:11.3f}" if te is not None else "          -"
            print(f"{test.name:10s} {v:9s} {ts:9.3f} {tex} {ratio}")
            fam.append({"test": test.name, "verdict": v, "smt_s": ts, "explicit_s": te})
    out["families"] = fam
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
