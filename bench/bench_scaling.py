"""Scaling benchmark over the generated families (issue 5): time against size, the z3
engine against the explicit enumerator, in one run.

    python bench/bench_scaling.py [--quick] [--json out.json] [--png docs/scaling.png]

Families (gdrcheck/gen/families.py): SB-n, LB-n, IRIW-k, MP-chain-n, ISA2-n under
x86tso; GIN fan-in n ranks x n puts, fan-out and ring under gin-api and gin-gdaki.
The explicit enumerator runs only while a size takes it under --explicit-cap seconds
(it is exponential). Targets: SB-40 and IRIW-20 under 10 s, GIN fan-in 8x8 under 10 s
(z3). The PNG needs matplotlib (pip install matplotlib); without it the table and the
JSON are still written.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.gen.families import family
from gdrcheck.litmus import parse_litmus

SERIES = [
    # (family, dialect, model, sizes, width)
    ("SB", "x86", "x86tso", [2, 4, 8, 16, 24, 32, 40], 1),
    ("LB", "x86", "x86tso", [2, 4, 8, 16, 24, 32, 40], 1),
    ("IRIW", "x86", "x86tso", [2, 4, 6, 8, 12, 16, 20], 1),
    ("MP-chain", "x86", "x86tso", [2, 4, 8, 16, 24], 1),
    ("ISA2", "x86", "x86tso", [2, 4, 8, 16, 24], 1),
    ("gin-fan-in", "gin", "gin-api", [2, 3, 4, 6, 8], 0),
    ("gin-fan-in", "gin", "gin-gdaki", [2, 3, 4, 6, 8], 0),
    ("gin-fan-out", "gin", "gin-api", [2, 3, 4, 6, 8], 2),
    ("gin-ring", "gin", "gin-api", [2, 4, 6, 8, 12], 1),
]
QUICK = {"SB": [2, 8, 40], "LB": [2, 8], "IRIW": [2, 6, 20], "MP-chain": [2, 8],
         "ISA2": [2, 8], "gin-fan-in": [2, 8], "gin-fan-out": [2, 4], "gin-ring": [2, 6]}


def _time(text: str, name: str, model: str, engine: str, timeout: float) -> tuple[str, float]:
    test = parse_litmus(text, f"{name}.litmus")
    t0 = time.perf_counter()
    res = check_test(test, model, options=CheckOptions(engine=engine, timeout=timeout))
    return res.verdict, time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a few sizes per family")
    ap.add_argument("--explicit-cap", type=float, default=5.0,
                    help="stop the explicit engine on a family after a size takes longer")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--png", type=Path)
    args = ap.parse_args()
    rows = []
    for fam, dialect, model, sizes, width in SERIES:
        if args.quick:
            sizes = [s for s in sizes if s in QUICK[fam]] or sizes[:2]
        explicit_on = True
        for n in sizes:
            name, text = family(fam, n, dialect, width or n)
            verdict, tz = _time(text, name, model, "smt", args.timeout)
            te: float | None = None
            if explicit_on:
                try:
                    v2, te = _time(text, name, model, "explicit", args.timeout)
                    if v2 == "Unknown":  # ran out of time: no figure
                        te = None
                    elif v2 != verdict and verdict != "Unknown":
                        print(f"DISAGREE {name} {model}: smt {verdict}, explicit {v2}",
                              file=sys.stderr)
                        return 1
                except Exception:  # noqa: BLE001 - the enumerator's own limit
                    te = None
                if te is None or te > args.explicit_cap:
                    explicit_on = False
            rows.append({"family": fam, "model": model, "size": n, "test": name,
                         "verdict": verdict, "smt": tz, "explicit": te,
                         "ratio": (te / tz) if te else None})
            ratio = f"{te / tz:8.1f}x" if te else "        -"
            te_s = f"{te:8.3f}" if te is not None else "       -"
            print(f"{name:22} {model:10} {verdict:10} z3 {tz:8.3f} s  explicit {te_s} s "
                  f"{ratio}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    if args.png:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("matplotlib is not installed: no plot (pip install matplotlib)",
                  file=sys.stderr)
            return 0
        fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
        for ax, fams in ((axes[0], ["SB", "LB", "IRIW", "MP-chain", "ISA2"]),
                         (axes[1], ["gin-fan-in", "gin-fan-out", "gin-ring"])):
            for key in sorted({(r["family"], r["model"]) for r in rows
                               if r["family"] in fams}):
                pts = [r for r in rows if (r["family"], r["model"]) == key]
                ax.plot([r["size"] for r in pts], [r["smt"] for r in pts], "o-",
                        label=f"{key[0]} {key[1]} (z3)")
                ex = [r for r in pts if r["explicit"] is not None]
                if ex:
                    ax.plot([r["size"] for r in ex], [r["explicit"] for r in ex], "x--",
                            label=f"{key[0]} {key[1]} (explicit)")
            ax.set_yscale("log")
            ax.set_xlabel("size")
            ax.set_ylabel("seconds")
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7)
        axes[0].set_title("classic families (x86tso)")
        axes[1].set_title("GIN families")
        fig.tight_layout()
        fig.savefig(args.png, dpi=110)
        print(f"wrote {args.png}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
