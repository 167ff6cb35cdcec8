"""Start-up benchmark: fresh processes, against ``python -c pass`` in the same run.

    python bench/bench_startup.py [--repeat 15] [--json out.json] [--check]
                                  [--before OTHER_CHECKOUT]

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

With ``--before DIR`` the two gdrcheck commands are also run from the checkout DIR
(another worktree, an older commit), interleaved with the others, and printed as
``before: ...``: a before/after comparison in one session, under the same load.

With ``--check`` the exit status is 1 when a median's excess over ``python -c pass``
is over its target: issue 24's 0.05 s for ``--version`` and 0.12 s for the check,
less the floor of the machine they were set on (``python -c pass`` 0.015 s), so
0.035 s and 0.105 s of excess. On a loaded machine every figure grows, ``python -c
pass``'s too: compare the excesses, and the CPU times.
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

TARGETS = {"gdrcheck --version": 0.035, "gdrcheck check SB -m x86tso": 0.105}
"""Median wall-clock seconds over ``python -c pass``, at most (issue 24: 0.05 s and 0.12 s
in all on a machine where ``python -c pass`` takes 0.015 s)."""


def run_once(argv: list[str], env: dict[str, str], cwd: Path = ROOT) -> tuple[float, float]:
    """(wall, cpu) seconds of one fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--json", default=None, help="Write the figures here.")
    ap.add_argument("--check", action="store_true", help="Exit 1 when a target is missed.")
    ap.add_argument("--before", type=Path, default=None, metavar="DIR",
                    help="Also run the gdrcheck commands from this checkout (the baseline).")
    args = ap.parse_args()
    pycache = tempfile.mkdtemp(prefix="gdrcheck-bench-pycache-")
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONPYCACHEPREFIX=pycache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    runs: dict[str, tuple[list[str], dict[str, str], Path]] = {
        name: (argv, env, ROOT) for name, argv in COMMANDS.items()}
    if args.before is not None:
        other = args.before.resolve()
        before_env = dict(env, PYTHONPATH=str(other))
        for name, argv in COMMANDS.items():
            if name.startswith("gdrcheck"):
                runs[f"before: {name}"] = (argv, before_env, other)
    for argv, run_env, cwd in runs.values():  # warm: byte code and the grammars' tables
        run_once(argv, run_env, cwd)
    walls: dict[str, list[float]] = {name: [] for name in runs}
    cpus: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.repeat):
        for name, (argv, run_env, cwd) in runs.items():
            wall, cpu = run_once(argv, run_env, cwd)
            walls[name].append(wall)
            cpus[name].append(cpu)
    floor_wall = statistics.median(walls["python -c pass"])
    floor_cpu = statistics.median(cpus["python -c pass"])
    print(f"{'command':38} {'wall':>8} {'cpu':>8} {'wall - pass':>12} {'cpu - pass':>11} "
          f"{'target':>8}")
    report: dict[str, dict[str, float | None]] = {}
    missed = []
    for name in runs:
        wall, cpu = statistics.median(walls[name]), statistics.median(cpus[name])
        target = TARGETS.get(name)
        if target is not None and wall - floor_wall > target:
            missed.append(name)
        shown = f"{target:.3f}" if target is not None else "-"
        print(f"{name:38} {wall:8.3f} {cpu:8.3f} {wall - floor_wall:12.3f} "
              f"{cpu - floor_cpu:11.3f} {shown:>8}")
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
