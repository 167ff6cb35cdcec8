"""Encoding benchmark (issue 18, "Encodings"): three shapes, each against a reference in
the same run.

    python bench/bench_encodings.py [--timeout 60] [--quick] [--json docs/data/bench-encodings.json]

1. **One thread's N writes to one location** (``st.relaxed.gpu x, 1..N``; exists
   ``x == 1``: Forbidden by SC-per-Location, CoWW generalised) under ``ptx`` and ``sc``:
   the z3 engine as it runs (coherence along po-loc fixed before the encoding,
   gdrcheck/engine/implied.py) against the same engine without that step
   (``SmtEngine(prune=False)``, the encoding before it) and the explicit enumerator
   (N! coherence orders: only while that stays under its limit). Target: N = 100 under
   ``ptx`` in under 1 s.
2. **The shared-signal fan-in** (``gdrcheck generate --family gin-fan-in-shared``: n
   senders x k puts, all bumping ONE signal) under gin-api and gin-gdaki, against the
   same engine without the chain facts of gdrcheck/engine/chains.py
   (``SmtEngine(chains=False)``) and the fan-in with one signal per sender
   (``gin-fan-in``). Target: 8 x 8 under 10 s.
3. **Small tests, warm**: the per-test median of litmus/classic under x86tso in this
   process (each test 3 times, the best), for the engines smt, explicit and auto (the
   portfolio), through check_test and through the API (gdrcheck.check). Target: at most
   2 ms (herd7: 1.97 ms per classic x86 test in one process, issue 18).

herd7 is not installed here; the ratios are against gdrcheck's own references. The
machine is shared: the load average is recorded with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import gdrcheck
from gdrcheck.analysis.check import check_test, prepare
from gdrcheck.analysis.models import get_model
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.engine.deadline import Deadline
from gdrcheck.engine.smt import SmtEngine
from gdrcheck.gen.families import family
from gdrcheck.litmus import ast as A
from gdrcheck.litmus import load_litmus, parse_litmus
from gdrcheck.lower import lower

ROOT = Path(__file__).resolve().parents[1]


def n_writes(n: int) -> A.Test:
    """One PTX thread writing 1..n to x; exists x == 1 (the first write co-last)."""
    body = "\n".join(f" st.relaxed.gpu x, {i} ;" for i in range(1, n + 1))
    text = (f"PTX W{n}\n\"one thread's {n} writes to one location\"\n{{ x = 0; }}\n"
            f" P0@cta 0,gpu 0 ;\n{body}\nexists (x == 1)\n")
    return parse_litmus(text, f"W{n}.litmus")


def run_smt(test: A.Test, model: str, prune: bool, timeout: float,
            chains: bool = True) -> tuple[str, float]:
    """check_test's path with the z3 engine, with or without the pruning step (and,
    with it, with or without the chain facts of gdrcheck/engine/chains.py)."""
    t0 = time.perf_counter()
    spec, loaded, chosen = prepare(test, model)
    prog = lower(test)
    eng = SmtEngine(timeout, prune=prune, chains=chains)
    res = eng.run(prog, loaded.stmts, chosen, test, str(spec), path_of=loaded.path_of,
                  deadline=Deadline(timeout))
    return str(res.verdict), time.perf_counter() - t0


def run_check(test: A.Test, model: str, engine: str, timeout: float) -> tuple[str, float]:
    t0 = time.perf_counter()
    try:
        res = check_test(test, model, options=CheckOptions(engine=engine, timeout=timeout))
        verdict = str(res.verdict)
    except Exception as err:  # noqa: BLE001 - the enumerator's own limit
        verdict = f"refused ({type(err).__name__})"
    return verdict, time.perf_counter() - t0


def bench_writes(sizes: list[int], timeout: float) -> list[dict[str, Any]]:
    print("== one thread's N writes to one location ==")
    rows = []
    for model in ("ptx", "sc"):
        get_model(model)
        old_on = True
        for n in sizes:
            test = n_writes(n)
            v, t = run_smt(test, model, True, timeout)
            vo: str | None = None
            to: float | None = None
            if old_on:
                vo, to = run_smt(test, model, False, timeout)
                if vo == "Unknown" or to > timeout / 2:
                    old_on = False  # the next size would only time out
            ve: str | None = None
            te: float | None = None
            if n <= 8:
                ve, te = run_check(test, model, "explicit", timeout)
            for other in (vo, ve):
                if other not in (None, "Unknown") and not other.startswith("refused") \
                        and v != "Unknown" and other != v:
                    raise SystemExit(f"DISAGREE W{n} {model}: {v} vs {other}")
            ratio = to / t if to is not None and vo != "Unknown" else None
            print(f"W{n:<4} {model:4} {v:10} z3 {t:8.3f} s | without pruning "
                  f"{'-' if to is None else f'{to:8.3f} s ({vo})'} | explicit "
                  f"{'-' if te is None else f'{te:8.3f} s ({ve})'}"
                  + (f" | x{ratio:.0f}" if ratio else ""), flush=True)
            rows.append({"test": f"W{n}", "model": model, "n": n, "verdict": v, "smt_s": t,
                         "smt_unpruned_s": to, "smt_unpruned_verdict": vo,
                         "explicit_s": te, "explicit_verdict": ve, "ratio_unpruned": ratio})
    return rows


def bench_fan_in(shapes: list[tuple[int, int]], timeout: float) -> list[dict[str, Any]]:
    print("\n== the shared-signal fan-in (one signal) against one signal per sender ==")
    rows = []
    for model in ("gin-api", "gin-gdaki"):
        get_model(model)
        for n, k in shapes:
            out: dict[str, Any] = {"model": model, "n": n, "k": k}
            for fam in ("gin-fan-in", "gin-fan-in-shared"):
                name, text = family(fam, n, "gin", k)
                test = parse_litmus(text, f"{name}.litmus")
                v, t = run_check(test, model, "smt", timeout)
                out[fam] = {"test": name, "verdict": v, "smt_s": t}
                line = f"{name:26} {model:10} {v:10} z3 {t:8.3f} s"
                if fam == "gin-fan-in-shared":  # the reference: no chain facts
                    vb, tb = run_smt(test, model, True, timeout, chains=False)
                    out[fam].update({"no_chains_verdict": vb, "no_chains_s": tb})
                    line += f" | without chain facts {vb:10} {tb:8.3f} s"
                print(line, flush=True)
            rows.append(out)
    return rows


def bench_small(repeat: int = 3) -> dict[str, Any]:
    print("\n== litmus/classic under x86tso, warm, per-test median ==")
    tests = [load_litmus(str(p)) for p in sorted((ROOT / "litmus/classic").glob("*.litmus"))]
    out: dict[str, Any] = {"tests": len(tests)}
    # "default": no engine named (CheckOptions(), gdrcheck.check(test, model)): what a
    # user gets who does not choose
    for engine in ("smt", "explicit", "auto", "default"):
        opts = CheckOptions() if engine == "default" else CheckOptions(engine=engine)
        named: dict[str, Any] = {} if engine == "default" else {"engine": engine}
        for t in tests:  # warm
            check_test(t, "x86tso", options=opts)
        per: dict[str, list[float]] = {"check_test": [], "api": []}
        for t in tests:
            best_c = best_a = float("inf")
            for _ in range(repeat):
                t0 = time.perf_counter()
                check_test(t, "x86tso", options=opts)
                t1 = time.perf_counter()
                gdrcheck.check(t, "x86tso", **named)
                t2 = time.perf_counter()
                best_c, best_a = min(best_c, t1 - t0), min(best_a, t2 - t1)
            per["check_test"].append(best_c)
            per["api"].append(best_a)
        out[engine] = {k: {"median_ms": statistics.median(v) * 1000, "max_ms": max(v) * 1000}
                       for k, v in per.items()}
        print(f"{engine:9} check_test median {out[engine]['check_test']['median_ms']:.2f} ms "
              f"(max {out[engine]['check_test']['max_ms']:.1f}) | API median "
              f"{out[engine]['api']['median_ms']:.2f} ms", flush=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--timeout", type=float, default=60.0, help="per run, seconds")
    ap.add_argument("--quick", action="store_true", help="fewer sizes")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    load0 = os.getloadavg()[0]
    sizes = [4, 8, 10, 30, 100] if args.quick else [4, 8, 10, 20, 30, 50, 100]
    shapes = [(8, 2), (8, 8)] if args.quick else [(4, 2), (6, 2), (8, 1), (8, 2), (8, 8),
                                                 (12, 1), (16, 1)]
    report: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "cpus": os.cpu_count(), "timeout_s": args.timeout,
    }
    report["small"] = bench_small()
    report["writes"] = bench_writes(sizes, args.timeout)
    report["fan_in"] = bench_fan_in(shapes, args.timeout)
    report["load_average"] = {"start": load0, "end": os.getloadavg()[0]}
    print(f"\n(load average {load0:.2f} at the start, {os.getloadavg()[0]:.2f} at the end, "
          f"{os.cpu_count()} cores)")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
