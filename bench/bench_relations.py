"""Relation encodings benchmark: the z3 engine as it runs against itself without its
relation analyses, in the same run.

    python bench/bench_relations.py [--timeout 300] [--big] [--json out.json]

The analyses (docs/cat.md): one-sided closures (gdrcheck/cat/polarity.py), demanded pairs
(gdrcheck/cat/demand.py) and closures after program order (SymbolicBackend.after_po).
``SmtEngine(one_sided=False, demand=False)`` is the engine without any of them. Each test
is checked under its model with both, in one process, and the ratio printed with the two
verdicts (which must be equal: the script exits 1 otherwise).

The tests: the larger library tests of the GIN, NVSHMEM and PTX 7.5 folders (their
Expect= models), and with ``--big`` the extracted test of NCCL's 02_alltoall_gin at
3 ranks (kernels/nccl/02_alltoall_gin.cu; needs clang 19 and llvmlite), whose check
without the analyses takes about 90 s on this project's 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from gdrcheck.analysis.check import prepare
from gdrcheck.engine.smt import SmtEngine
from gdrcheck.litmus import ast as A
from gdrcheck.litmus import parse_litmus
from gdrcheck.lower import lower

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ["litmus/gin", "litmus/nvshmem", "litmus/ptx75"]
LARGEST = 6
"""Tests per folder: the ones with the most lines."""


def _library() -> list[tuple[A.Test, str]]:
    out = []
    for folder in LIBRARY:
        paths = sorted((ROOT / folder).glob("*.litmus"),
                       key=lambda p: -len(p.read_text().splitlines()))[:LARGEST]
        for p in paths:
            test = parse_litmus(p.read_text(), str(p))
            models = sorted({e.model for e in test.expectations})
            out.extend((test, m) for m in models[:1])
    return out


def _alltoall() -> tuple[A.Test, str]:
    from gdrcheck.api import kernel_test

    test = kernel_test(ROOT / "kernels/nccl/02_alltoall_gin.cu", "PureGinAlltoAllKernel<float>",
                       3, block=2, args={"sendoffset": 0, "recvoffset": 0, "count": 1},
                       init="host_init", check="host_check", host_order="stream")
    return test, "gin-api"


def _run(test: A.Test, model: str, on: bool, timeout: float, unroll: int) -> tuple[str, float]:
    _, loaded, chosen = prepare(test, model)
    prog = lower(test, unroll)
    t0 = time.perf_counter()
    res = SmtEngine(timeout=timeout, one_sided=on, demand=on).run(
        prog, loaded.stmts, chosen, test, model)
    return str(res.verdict), time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--big", action="store_true", help="also the 3-rank alltoall")
    ap.add_argument("--json")
    args = ap.parse_args()
    cases = [(t, m, 2) for t, m in _library()]
    if args.big:
        t, m = _alltoall()
        cases.append((t, m, 1))
    rows: list[dict[str, Any]] = []
    same = True
    print(f"{'test':44s} {'model':10s} {'with':>8s} {'without':>8s} {'ratio':>6s} verdicts")
    for test, model, unroll in cases:
        v_on, t_on = _run(test, model, True, args.timeout, unroll)
        v_off, t_off = _run(test, model, False, args.timeout, unroll)
        same &= v_on == v_off
        rows.append({"test": test.name, "model": model, "with_s": round(t_on, 3),
                     "without_s": round(t_off, 3), "verdict": v_on, "verdict_without": v_off})
        print(f"{test.name[:44]:44s} {model:10s} {t_on:8.3f} {t_off:8.3f} "
              f"{t_off / t_on:6.1f} {v_on}{'' if v_on == v_off else ' != ' + v_off}")
    load = os.getloadavg()[0]
    print(f"(load average {load:.1f} on {os.cpu_count()} cores)")
    if args.json:
        Path(args.json).write_text(json.dumps({"load": load, "rows": rows}, indent=1) + "\n")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
