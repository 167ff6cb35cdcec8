"""Library benchmark: the whole litmus/ library under every model that accepts each test.

    python bench/bench_library.py [--engine smt|explicit|auto] [--json out.json] [DIR...]

Reports
- the total time, and per family directory the number of runs and their time;
- the slowest 10 (test, model) runs;
- every time as a ratio against a baseline measured in the same run: the
  classic and ptx families (litmus/classic, litmus/ptx) under ``sc``, so that
  figures from different machines compare (bench/bench_engines.py does the same
  with its own ratio).
Times are wall-clock seconds in this process, after a warm-up run; a run that
fails (a model that cannot describe the test, a lowering not written yet) is
counted in its family's errors and left out of the times.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.models import accepts, load_models
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.errors import InputError
from gdrcheck.litmus import ast as A
from gdrcheck.litmus import load_litmus

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ("classic", "ptx")
BASELINE_MODEL = "sc"


@dataclass
class Run:
    family: str
    test: str
    file: str
    model: str
    verdict: str
    seconds: float


def family_of(path: Path, root: Path) -> str:
    rel = path.parent.relative_to(root)
    return root.name if str(rel) == "." else rel.as_posix()


def timed(test: A.Test, model: str, engine: str) -> tuple[float, str]:
    t0 = time.perf_counter()
    verdict = check_test(test, model, options=CheckOptions(engine=engine)).verdict
    return time.perf_counter() - t0, verdict


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dirs", nargs="*", type=Path, default=[ROOT / "litmus"])
    ap.add_argument("--engine", default="smt", choices=("smt", "explicit", "auto"))
    ap.add_argument("--json", type=Path, help="Also write the figures here.")
    args = ap.parse_args()
    console = Console(highlight=False)

    models, load_errors = load_models()
    for err in load_errors:
        console.print(f"[red]model does not load[/red]: {err.message}")

    tests: list[tuple[str, Path, A.Test]] = []
    bad_files = 0
    for root in args.dirs:
        for path in sorted(root.rglob("*.litmus")):
            try:
                tests.append((family_of(path, root), path, load_litmus(path)))
            except InputError:
                bad_files += 1

    # warm up imports and z3
    if tests:
        timed(tests[0][2], BASELINE_MODEL, args.engine)

    # the baseline: classic + ptx under sc
    baseline = 0.0
    baseline_n = 0
    for fam, _, test in tests:
        if fam in BASELINE and BASELINE_MODEL in models:
            t, _ = timed(test, BASELINE_MODEL, args.engine)
            baseline += t
            baseline_n += 1

    runs: list[Run] = []
    errors: dict[str, int] = {}
    t_all = time.perf_counter()
    for fam, path, test in tests:
        for name, m in models.items():
            if not accepts(m, test):
                continue
            try:
                t, verdict = timed(test, name, args.engine)
            except (InputError, RecursionError):
                errors[fam] = errors.get(fam, 0) + 1
                continue
            runs.append(Run(fam, test.name, str(path.relative_to(ROOT) if path.is_relative_to(
                ROOT) else path), name, verdict, t))
    wall = time.perf_counter() - t_all
    total = sum(r.seconds for r in runs)

    def ratio(t: float) -> str:
        return f"{t / baseline:.2f}" if baseline else "-"

    fams: dict[str, list[Run]] = {}
    for r in runs:
        fams.setdefault(r.family, []).append(r)
    table = Table(title=f"litmus library, {args.engine} engine", title_justify="left")
    for col, just in (("family", "left"), ("tests", "right"), ("runs", "right"),
                      ("errors", "right"), ("seconds", "right"), ("x baseline", "right")):
        table.add_column(col, justify=just)  # type: ignore[arg-type]
    per_family: dict[str, dict[str, object]] = {}
    for fam in sorted(set(fams) | set(errors)):
        rs = fams.get(fam, [])
        secs = sum(r.seconds for r in rs)
        n_tests = len({r.file for r in rs})
        table.add_row(fam, str(n_tests), str(len(rs)), str(errors.get(fam, 0)),
                      f"{secs:.3f}", ratio(secs))
        per_family[fam] = {"tests": n_tests, "runs": len(rs), "errors": errors.get(fam, 0),
                           "seconds": secs}
    table.add_section()
    table.add_row("total", str(len({r.file for r in runs})), str(len(runs)),
                  str(sum(errors.values())), f"{total:.3f}", ratio(total))
    console.print(table)

    slow = sorted(runs, key=lambda r: r.seconds, reverse=True)[:10]
    st = Table(title="slowest 10 runs", title_justify="left")
    for col in ("family", "test", "model", "verdict", "ms", "x baseline"):
        st.add_column(col, justify="right" if col in ("ms", "x baseline") else "left")
    for r in slow:
        st.add_row(r.family, r.test, r.model, r.verdict, f"{r.seconds * 1000:.1f}",
                   ratio(r.seconds))
    console.print(st)
    console.print(f"baseline: {baseline_n} tests of {'+'.join(BASELINE)} under "
                  f"{BASELINE_MODEL} in {baseline:.3f} s; library wall time {wall:.3f} s"
                  + (f"; {bad_files} file(s) do not parse" if bad_files else ""))

    if args.json:
        args.json.write_text(json.dumps({
            "engine": args.engine,
            "baseline": {"families": list(BASELINE), "model": BASELINE_MODEL,
                         "tests": baseline_n, "seconds": baseline},
            "total_seconds": total,
            "ratio": total / baseline if baseline else None,
            "families": per_family,
            "slowest": [asdict(r) for r in slow],
            "unparsed_files": bad_files,
        }, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
