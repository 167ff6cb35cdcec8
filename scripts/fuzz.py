"""Mutation fuzzer: malformed litmus tests through every gdrcheck command, in-process.

Each input is a test of the litmus library (litmus/**) mutated a few times: lines
deleted, duplicated or swapped; tokens replaced by tokens taken from the whole corpus;
a piece of a line repeated; a condition nested in parentheses or negations many times;
huge integers and long names. The input runs through one command of the CLI (click's
CliRunner on gdrcheck.cli.main, exceptions caught): check (several forms), explain,
sweep, diff, refines, run and hw run. An input fails when the command raised anything but
SystemExit, exited with a code outside {0, 1, 2}, or printed a traceback. An input that
takes longer than --hang seconds is reported as a hang.

    python scripts/fuzz.py --n 100000 --seed 1 --jobs 16 --summary fuzz-summary.json

prints a line of figures every --every inputs and, at the end, the inputs run, the
failures (each with its command and the input saved under --out), the hangs and the wall
time; --summary PATH writes the same as JSON (counts, each failure with its command,
input and traceback, the slowest inputs with their times, the wall time). Inputs
--start .. --n - 1 are run; --shard I/M runs the I-th of M equal slices of that range
(a long run split over machines: the same inputs whatever the split, each input having
its own random source). Needs only the gdrcheck checkout and z3-solver, lark, click,
rich (hypothesis for the test suite); no Dask (``run`` is fuzzed with ``-j 0``, in
process). tests/test_fuzz.py runs a fixed-seed slice of it in the default suite.
"""

from __future__ import annotations

import argparse
import heapq
import json
import multiprocessing
import os
import random
import re
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

LIBRARY = ROOT / "litmus"
TOKEN_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*|-?[0-9]+|\$-?[0-9]+|\S")

HUGE = "340282366920938463463374607431768211456"
EXTRA_TOKENS = (HUGE, "-" + HUGE, "x" * 300, "P99", "99:r0", "@", "@-1", "~", "(", ")",
                "/\\", "\\/", "=", "!=", "==", "Variant=", "Expect=", "sig=", "va",
                "\xff", "é", "\t", "", "0", "-1", "r1", "[", "]", "{", "}", ";", "|", ",")

# Commands: arguments before and after the file. Weighted towards check.
TIMEOUT = "1"
COMMANDS: tuple[tuple[str, ...], ...] = (
    ("check", "--timeout", TIMEOUT),
    ("check", "--timeout", TIMEOUT),
    ("check", "--timeout", TIMEOUT),
    # the limit is per test and model: -m all runs up to 11 models, so half the limit
    # keeps its whole budget under the 10 s that counts as a hang
    ("check", "--timeout", "0.5", "-m", "all"),
    ("check", "--timeout", TIMEOUT, "--format", "json"),
    ("check", "--timeout", TIMEOUT, "--engine", "explicit"),
    ("check", "--timeout", TIMEOUT, "--engine", "auto"),
    ("check", "--timeout", TIMEOUT, "--states", "--show-witness"),
    ("explain", "--timeout", TIMEOUT),
    ("sweep", "--timeout", TIMEOUT),
    ("diff", "--timeout", TIMEOUT, "-m", "gin-api", "-m", "gin-gdaki"),
    ("refines", "--timeout", TIMEOUT, "gin-gdaki", "gin-api"),
    ("fix", "--timeout", TIMEOUT),
    ("run", "-j", "0", "--timeout", TIMEOUT),
    # where a GPU is (the long run on the H200): few iterations, since the point is the
    # input handling, not the GPU's time (compiling with nvcc takes some seconds)
    ("hw", "run", "--iterations", "1000"),
)


def corpus() -> list[str]:
    return [p.read_text(encoding="utf-8") for p in sorted(LIBRARY.rglob("*.litmus"))]


def corpus_tokens(texts: list[str]) -> list[str]:
    tokens = sorted({t for text in texts for t in TOKEN_RE.findall(text)})
    return tokens + list(EXTRA_TOKENS)


class Mutator:
    """Mutations of litmus texts, from one random source."""

    def __init__(self, texts: list[str], rng: random.Random, tokens: list[str],
                 small: bool = False) -> None:
        self.texts = texts
        self.tokens = tokens
        self.rng = rng
        self.repeats = (2, 5, 10) if small else (2, 10, 100, 1000)

    def mutate(self, text: str) -> str:
        for _ in range(self.rng.randint(1, 3)):
            op = self.rng.choice((self.delete, self.duplicate, self.swap, self.replace,
                                  self.replace, self.replace, self.repeat, self.nest,
                                  self.splice))
            text = op(text)
        return text

    def _lines(self, text: str) -> list[str]:
        return text.split("\n")

    def delete(self, text: str) -> str:
        lines = self._lines(text)
        if len(lines) > 1:
            del lines[self.rng.randrange(len(lines))]
        return "\n".join(lines)

    def duplicate(self, text: str) -> str:
        lines = self._lines(text)
        i = self.rng.randrange(len(lines))
        lines.insert(i, lines[i])
        return "\n".join(lines)

    def swap(self, text: str) -> str:
        lines = self._lines(text)
        i, j = self.rng.randrange(len(lines)), self.rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
        return "\n".join(lines)

    def replace(self, text: str) -> str:
        spans = [m.span() for m in TOKEN_RE.finditer(text)]
        if not spans:
            return text
        start, end = self.rng.choice(spans)
        return text[:start] + self.rng.choice(self.tokens) + text[end:]

    def repeat(self, text: str) -> str:
        """A piece of the text repeated many times (a long row, a long condition)."""
        if not text:
            return text
        start = self.rng.randrange(len(text))
        end = min(len(text), start + self.rng.randint(1, 40))
        times = self.rng.choice(self.repeats)
        return text[:start] + text[start:end] * times + text[end:]

    def nest(self, text: str) -> str:
        """The condition's proposition nested in parentheses, negations or conjunctions."""
        m = re.search(r"(~?\s*exists|forall)\s*", text)
        if m is None:
            return text
        depth = self.rng.choice((5, 50, 300, 600, 1200))
        body = text[m.end():].strip()
        kind = self.rng.randrange(3)
        if kind == 0:
            body = "(" * depth + body + ")" * depth
        elif kind == 1:
            body = "~" * depth + body
        else:
            body = "(" * depth + (body + " /\\ ") + (" true) /\\ " * (depth - 1)) + "true)"
        return text[: m.end()] + body + "\n"

    def splice(self, text: str) -> str:
        """Lines of another test of the corpus spliced in."""
        other = self._lines(self.rng.choice(self.texts))
        lines = self._lines(text)
        i = self.rng.randrange(len(lines) + 1)
        j = self.rng.randrange(len(other))
        return "\n".join(lines[:i] + other[j : j + self.rng.randint(1, 3)] + lines[i:])


@dataclass(frozen=True)
class Case:
    index: int
    command: tuple[str, ...]
    text: str


def cases(n: int, seed: int, start: int = 0, small: bool = False) -> Iterator[Case]:
    """Inputs ``start`` .. ``n - 1`` of the run with ``seed`` (each from its own random
    source, so a slice of a run is the same whatever the number of workers). ``small``:
    pieces are repeated at most 10 times (the suite's profile; nesting stays deep)."""
    texts = corpus()
    tokens = corpus_tokens(texts)
    for i in range(start, n):
        rng = random.Random(f"{seed}:{i}")
        mutator = Mutator(texts, rng, tokens, small)
        text = mutator.mutate(rng.choice(texts))
        yield Case(i, rng.choice(COMMANDS), text)


@dataclass(frozen=True)
class Outcome:
    index: int
    command: tuple[str, ...]
    exit_code: int
    seconds: float
    failure: str | None  # None: a clean answer


def run_case(case: Case, workdir: Path) -> Outcome:
    from click.testing import CliRunner

    from gdrcheck.cli import main

    began = time.monotonic()
    path = workdir / f"fuzz{case.index}.litmus"
    path.write_bytes(_encoded(case.text))
    args = list(case.command)
    results = workdir / f"fuzz{case.index}.jsonl"
    if args[0] == "run":
        args += ["-o", str(results)]
    args.append(str(path))
    result = CliRunner().invoke(main, args, catch_exceptions=True)
    failure = None
    exc = result.exception
    if exc is not None and not isinstance(exc, SystemExit):
        import traceback

        failure = "".join(traceback.format_exception(exc))
    elif result.exit_code not in (0, 1, 2):
        failure = f"exit code {result.exit_code}\n{result.output}"
    elif "Traceback" in result.output:
        failure = result.output
    for leftover in (path, results):
        leftover.unlink(missing_ok=True)
    return Outcome(case.index, case.command, result.exit_code, time.monotonic() - began,
                   failure)


def _encoded(text: str) -> bytes:
    """The input's bytes: UTF-8, except that a mutation inserting '\\xff' makes it
    Latin-1 (so that some inputs are not UTF-8)."""
    if "\xff" in text:
        return text.encode("latin-1", "replace")
    return text.encode("utf-8")


_WARMED = False


def _warm_gpu() -> None:
    """Once per worker process, where a GPU and nvcc are (the long run on the H200): one
    untimed `hw run` of a library test, so that CUDA's start in the process and the first
    compile are not counted against the first input that reaches the GPU (the second long
    run's only input over 10 s was such a first `hw run`, 13.4 s; 2.3-3.0 s when warm)."""
    global _WARMED
    if _WARMED:
        return
    _WARMED = True
    if shutil.which("nvcc") is None or shutil.which("nvidia-smi") is None:
        return
    from click.testing import CliRunner

    from gdrcheck.cli import main

    CliRunner().invoke(main, ["hw", "run", "--iterations", "1000",
                              str(LIBRARY / "ptx" / "MP+weaks.litmus")])


def _worker(args: tuple[int, int, int, str, bool]) -> list[Outcome]:
    """Run inputs ``start`` .. ``stop - 1``; the input in flight is written to
    ``inflight/<pid>`` so that the parent can name an input that kills or hangs it."""
    seed, start, stop, inflight_dir, small = args
    _warm_gpu()
    mark = Path(inflight_dir) / str(os.getpid())
    out = []
    with tempfile.TemporaryDirectory(prefix="gdrfuzz") as tmp:
        for c in cases(stop, seed, start, small):
            mark.write_text(f"{c.index} {time.time()}")
            out.append(run_case(c, Path(tmp)))
    mark.unlink(missing_ok=True)
    return out


@dataclass
class Tally:
    done: int = 0
    failures: int = 0
    hangs: int = 0
    crashes: int = 0
    slowest: float = 0.0
    problems: list[dict[str, object]] = field(default_factory=list)
    """Each failure, hang and worker death: its input, command and what happened."""
    times: list[tuple[float, int, str]] = field(default_factory=list)
    """The slowest inputs: (seconds, index, command), at most SLOWEST of them."""


SLOWEST = 25
"""How many of the slowest inputs the summary lists."""


def _note_time(tally: Tally, o: Outcome) -> None:
    item = (o.seconds, o.index, " ".join(o.command))
    if len(tally.times) < SLOWEST:
        heapq.heappush(tally.times, item)
    elif item > tally.times[0]:
        heapq.heapreplace(tally.times, item)


def _problem(tally: Tally, kind: str, seed: int, index: int, what: str, small: bool,
             seconds: float | None = None) -> None:
    case = next(cases(index + 1, seed, index, small))
    tally.problems.append({"kind": kind, "index": index, "command": " ".join(case.command),
                           "seconds": None if seconds is None else round(seconds, 3),
                           "what": what, "input": case.text})


def write_summary(path: Path, opts: argparse.Namespace, first: int, stop: int,
                  tally: Tally, wall: float, stopped_at: int | None) -> None:
    """The run's figures as JSON (the format is described in docs/input-rules.md)."""
    summary = {
        "seed": opts.seed, "first": first, "stop": stop, "jobs": opts.jobs,
        "small": opts.small, "hang_seconds": opts.hang, "kill_after": opts.kill_after,
        "python": sys.version.split()[0],
        "inputs": tally.done, "failures": tally.failures, "hangs": tally.hangs,
        "worker_deaths": tally.crashes, "wall_seconds": round(wall, 1),
        "inputs_per_second": round(tally.done / wall, 2) if wall else None,
        "stopped_at": stopped_at,
        "problems": tally.problems,
        "slowest": [{"index": i, "command": c, "seconds": round(t, 3)}
                    for t, i, c in sorted(tally.times, reverse=True)],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(summary, indent=1, ensure_ascii=True) + "\n")


def shard_range(start: int, stop: int, shard: str | None) -> tuple[int, int]:
    """The slice ``I/M`` (0 <= I < M) of inputs ``start .. stop - 1``: M contiguous,
    near-equal parts."""
    if not shard:
        return start, stop
    m = re.fullmatch(r"(\d+)/(\d+)", shard)
    if m is None or not 0 <= int(m[1]) < int(m[2]):
        raise SystemExit(f"--shard {shard}: write I/M with 0 <= I < M")
    i, parts = int(m[1]), int(m[2])
    size = stop - start
    return start + size * i // parts, start + size * (i + 1) // parts


def _save(out: Path, seed: int, index: int, what: str, small: bool) -> None:
    out.mkdir(parents=True, exist_ok=True)
    case = next(cases(index + 1, seed, index, small))
    (out / f"input{index}.litmus").write_bytes(_encoded(case.text))
    (out / f"input{index}.txt").write_text(f"{' '.join(case.command)}\n{what}\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=2000, help="inputs to run")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--start", type=int, default=0, help="first input (resume)")
    ap.add_argument("--hang", type=float, default=10.0, help="seconds that count as a hang")
    ap.add_argument("--kill-after", type=float, default=120.0,
                    help="kill a worker whose input runs this long (counted as a hang)")
    ap.add_argument("--small", action="store_true",
                    help="repeat pieces at most 10 times (the suite's profile)")
    ap.add_argument("--max-seconds", type=float, default=0.0,
                    help="stop starting new inputs after this many seconds (0: never)")
    ap.add_argument("--every", type=int, default=1000, help="print figures every N inputs")
    ap.add_argument("--out", type=Path, default=Path("fuzz-failures"),
                    help="directory for the failing and hanging inputs")
    ap.add_argument("--shard", default=None, metavar="I/M",
                    help="run the I-th of M equal slices of --start .. --n - 1")
    ap.add_argument("--summary", type=Path, default=None, metavar="PATH",
                    help="write the figures, failures and slowest inputs as JSON")
    opts = ap.parse_args(argv)
    first, stop = shard_range(opts.start, opts.n, opts.shard)
    chunk = 25
    todo: list[tuple[int, int, int]] = [(opts.seed, s, min(s + chunk, stop))
                                        for s in range(first, stop, chunk)]
    began = time.monotonic()
    tally = Tally()
    inflight = Path(tempfile.mkdtemp(prefix="gdrfuzz-inflight"))
    ctx = multiprocessing.get_context("spawn")
    next_report = opts.every

    def record(o: Outcome) -> None:
        nonlocal next_report
        tally.done += 1
        tally.slowest = max(tally.slowest, o.seconds)
        _note_time(tally, o)
        if o.seconds > opts.hang:
            tally.hangs += 1
            _save(opts.out, opts.seed, o.index, f"took {o.seconds:.1f} s", opts.small)
            _problem(tally, "hang", opts.seed, o.index, f"took {o.seconds:.1f} s",
                     opts.small, o.seconds)
            print(f"HANG input {o.index} ({' '.join(o.command)}): {o.seconds:.1f} s", flush=True)
        if o.failure is not None:
            tally.failures += 1
            _save(opts.out, opts.seed, o.index, o.failure, opts.small)
            _problem(tally, "failure", opts.seed, o.index, o.failure, opts.small, o.seconds)
            print(f"FAILURE input {o.index} ({' '.join(o.command)}):\n{o.failure}", flush=True)
        if tally.done >= next_report:
            next_report += opts.every
            wall = time.monotonic() - began
            print(f"{tally.done} inputs, {tally.failures} failures, {tally.hangs} hangs, "
                  f"{tally.crashes} crashes, slowest {tally.slowest:.2f} s, {wall:.0f} s "
                  f"({tally.done / wall:.1f}/s)", flush=True)

    out_of_time = False
    while todo and not out_of_time:
        killed: int | None = None
        todo.sort()
        with ProcessPoolExecutor(opts.jobs, mp_context=ctx) as pool:
            futures: dict[Future[list[Outcome]], tuple[int, int, int]] = {}
            pending: set[Future[list[Outcome]]] = set()
            queue = list(todo)
            broken = False
            while (pending or queue) and not broken:
                # Chunks go in order, a few ahead of the workers: when --max-seconds
                # stops the run, the inputs done are those before the first one left.
                out_of_time = bool(opts.max_seconds) and time.monotonic() - began > opts.max_seconds
                while queue and len(pending) < 2 * opts.jobs and not out_of_time:
                    t = queue.pop(0)
                    f = pool.submit(_worker, (*t, str(inflight), opts.small))
                    futures[f] = t
                    pending.add(f)
                if not pending:
                    break
                finished, pending = wait(pending, timeout=5, return_when=FIRST_COMPLETED)
                for f in finished:
                    try:
                        outcomes = f.result()
                    except BrokenProcessPool:
                        broken = True
                        continue
                    todo.remove(futures[f])
                    for o in outcomes:
                        record(o)
                now = time.time()
                for mark in list(inflight.iterdir()):
                    try:
                        running, since = mark.read_text().split()
                    except (OSError, ValueError):
                        continue
                    if killed is None and now - float(since) > opts.kill_after:
                        print(f"HANG input {running}: over {opts.kill_after:g} s, worker "
                              "killed", flush=True)
                        killed = int(mark.name)
                        os.kill(killed, signal.SIGKILL)
            pool.shutdown(cancel_futures=True)
        # A worker died (killed for hanging, or a crash): its input in flight is the
        # culprit (every one in flight, for a crash); the other inputs are redone.
        for mark in list(inflight.iterdir()):
            try:
                index = int(mark.read_text().split()[0])
            except (OSError, ValueError):
                continue
            finally:
                mark.unlink(missing_ok=True)
            if killed is not None and int(mark.name) != killed:
                continue  # an innocent worker stopped with the pool: its chunk is redone
            piece = next((t for t in todo if t[1] <= index < t[2]), None)
            if piece is None:
                continue
            what = (f"hung: killed after {opts.kill_after:g} s" if killed is not None
                    else "the worker died on this input (or on one in flight with it)")
            if killed is not None:
                tally.hangs += 1
            else:
                tally.crashes += 1
            tally.done += 1
            _save(opts.out, opts.seed, index, what, opts.small)
            _problem(tally, "hang" if killed is not None else "worker death", opts.seed,
                     index, what, opts.small, opts.kill_after if killed is not None else None)
            print(f"WORKER DIED input {index}: {what}", flush=True)
            todo.remove(piece)
            todo += [t for t in ((piece[0], piece[1], index), (piece[0], index + 1, piece[2]))
                     if t[1] < t[2]]
    shutil.rmtree(inflight, ignore_errors=True)
    stopped_at = min(t[1] for t in todo) if todo else None
    if stopped_at is not None:
        print(f"stopped by --max-seconds: inputs {first} .. {stopped_at - 1} "
              f"done; resume with --start {stopped_at}", flush=True)
    wall = time.monotonic() - began
    if opts.summary is not None:
        write_summary(opts.summary, opts, first, stop, tally, wall, stopped_at)
    print(f"done: {tally.done} inputs (seed {opts.seed}), {tally.failures} failures "
          f"(tracebacks), {tally.hangs} hangs over {opts.hang:g} s, {tally.crashes} worker "
          f"deaths, slowest {tally.slowest:.2f} s, wall {wall:.0f} s "
          f"({tally.done / wall:.1f} inputs/s, {opts.jobs} jobs)", flush=True)
    return 1 if tally.failures or tally.hangs or tally.crashes else 0


if __name__ == "__main__":
    sys.exit(main())
