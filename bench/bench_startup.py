"""Start-up benchmark: fresh processes, against ``python -c pass`` in the same run.

    python bench/bench_startup.py [--repeat 15] [--json out.json] [--check]

Runs, each ``--repeat`` times, interleaved (so that a load that comes and goes hits
every command alike), each in a fresh interpreter from the checkout:

- ``python -c pass`` (the floor: the interpreter and site-packages),
- ``gdrcheck --version``,
- ``gdrcheck check litmus/classic/SB.litmus -m x86tso`` (a tiny test to its verdict),

and prints the median wall-clock time and the median CPU time (user + system of the
child) of each, and each one's excess over ``python -c pass``. ``gdrcheck`` is run as
``python -m gdrcheck`` (the console script adds nothing measurable). The parse tables
of the grammars and the byte code are warmed first (one run fills both caches, as the
first run after an install does: ``pip install`` compiles the byte code of a wheel;
docs/performance.md, "Start-up"). The byte code goes to a temporary directory
(``PYTHONPYCACHEPREFIX``) and is written even where ``PYTHONDONTWRITEBYTECODE`` is set,
since without it every run would compile gdrcheck's sources again (about 0.13 s).

With ``--check`` the exit status is 1 when a median wall time is over its target
(0.15 s for ``--version``, 0.35 s for the check). On a loaded machine every figure
grows, ``python -c pass``'s too: compare the excesses, and the CPU times.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

COMMANDS: dict[str, list[str]] = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "gdrcheck --version": [sys.executable, "-m", "gdrcheck", "--version"],
    "gdrcheck check SB -m x86tso": [sys.executable, "-m", "gdrcheck", "check",
                                    "litmus/classic/SB.litmus", "-m", "x86tso"],
}

TARGETS = {"gdrcheck --version": 0.15, "gdrcheck check SB -m x86tso": 0.35}
"""Median wall-clock seconds, at most (issue 12)."""


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, cpu) seconds of one fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--json", default=None, help="Write the figures here.")
    ap.add_argument("--check", action="store_true", help="Exit 1 when a target is missed.")
    args = ap.parse_args()
    pycache = tempfile.mkdtemp(prefix="gdrcheck-bench-pycache-")
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONPYCACHEPREFIX=pycache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    for argv in COMMANDS.values():  # warm: byte code and the grammars' tables
        run_once(argv, env)
    walls: dict[str, list[float]] = {name: [] for name in COMMANDS}
    cpus: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(args.repeat):
        for name, argv in COMMANDS.items():
            wall, cpu = run_once(argv, env)
            walls[name].append(wall)
            cpus[name].append(cpu)
    floor_wall = statistics.median(walls["python -c pass"])
    floor_cpu = statistics.median(cpus["python -c pass"])
    print(f"{'command':30} {'wall':>8} {'cpu':>8} {'wall - pass':>12} {'target':>8}")
    report: dict[str, dict[str, float | None]] = {}
    missed = []
    for name in COMMANDS:
        wall, cpu = statistics.median(walls[name]), statistics.median(cpus[name])
        target = TARGETS.get(name)
        if target is not None and wall > target:
            missed.append(name)
        shown = f"{target:.2f}" if target is not None else "-"
        print(f"{name:30} {wall:8.3f} {cpu:8.3f} {wall - floor_wall:12.3f} {shown:>8}")
        report[name] = {"wall_median_s": wall, "cpu_median_s": cpu,
                        "wall_over_pass_s": wall - floor_wall,
                        "cpu_over_pass_s": cpu - floor_cpu, "target_s": target}
    print(f"({args.repeat} runs each, medians; load average {os.getloadavg()[0]:.2f} on "
          f"{os.cpu_count()} cores)")
    shutil.rmtree(pycache, ignore_errors=True)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    if missed:
        print("over target: " + ", ".join(missed))
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
