"""Mutation fuzzer: malformed litmus tests through every gdrcheck command, in-process.

Each input is a test of the litmus library (litmus/**) mutated a few times: lines
deleted, duplicated or swapped; tokens replaced by tokens taken from the whole corpus;
a piece of a line repeated; a condition nested in parentheses or negations many times;
huge integers and long names. The input runs through one command of the CLI (click's
CliRunner on gdrcheck.cli.main, exceptions caught): check (several forms), explain,
sweep, diff, refines, run and hw run. An input fails when the command raised anything but
SystemExit, exited with a code outside {0, 1, 2}, or printed a traceback. An input that
takes longer than --hang seconds is reported as a hang.

    python scripts/fuzz.py --n 100000 --seed 1 --jobs 2

prints a line of figures every --every inputs and, at the end, the inputs run, the
failures (each with its command and the input saved under --out), the hangs and the wall
time. tests/test_fuzz.py runs a fixed-seed slice of it in the default suite.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import re
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
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
TIMEOUT = "2"
COMMANDS: tuple[tuple[str, ...], ...] = (
    ("check", "--timeout", TIMEOUT),
    ("check", "--timeout", TIMEOUT),
    ("check", "--timeout", TIMEOUT),
    ("check", "--timeout", TIMEOUT, "-m", "all"),
    ("check", "--timeout", TIMEOUT, "--format", "json"),
    ("check", "--timeout", TIMEOUT, "--engine", "explicit"),
    ("check", "--timeout", TIMEOUT, "--states", "--show-witness"),
    ("explain", "--timeout", TIMEOUT),
    ("sweep", "--timeout", TIMEOUT),
    ("diff", "--timeout", TIMEOUT, "-m", "gin-api", "-m", "gin-gdaki"),
    ("refines", "--timeout", TIMEOUT, "gin-gdaki", "gin-api"),
    ("run", "-j", "0", "--timeout", TIMEOUT),
    ("hw", "run"),
)


def corpus() -> list[str]:
    return [p.read_text(encoding="utf-8") for p in sorted(LIBRARY.rglob("*.litmus"))]


def corpus_tokens(texts: list[str]) -> list[str]:
    tokens = sorted({t for text in texts for t in TOKEN_RE.findall(text)})
    return tokens + list(EXTRA_TOKENS)


class Mutator:
    """Mutations of litmus texts, from one random source."""

    def __init__(self, texts: list[str], rng: random.Random) -> None:
        self.texts = texts
        self.tokens = corpus_tokens(texts)
        self.rng = rng

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
        times = self.rng.choice((2, 10, 100, 1000))
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


def cases(n: int, seed: int, start: int = 0) -> Iterator[Case]:
    """Inputs ``start`` .. ``n - 1`` of the run with ``seed`` (each from its own random
    source, so a slice of a run is the same whatever the number of workers)."""
    texts = corpus()
    for i in range(start, n):
        rng = random.Random(f"{seed}:{i}")
        mutator = Mutator(texts, rng)
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

    path = workdir / f"fuzz{case.index}.litmus"
    path.write_bytes(case.text.encode("utf-8", "surrogateescape")
                     if "\xff" not in case.text else case.text.encode("latin-1", "replace"))
    args = list(case.command)
    if args[0] == "run":
        results = workdir / f"fuzz{case.index}.jsonl"
        args += ["-o", str(results), str(path)]
    elif args[0] == "hw":
        args += [str(path)]
    else:
        args += [str(path)]
    runner = CliRunner()
    began = time.monotonic()
    result = runner.invoke(main, args, catch_exceptions=True)
    seconds = time.monotonic() - began
    failure = None
    exc = result.exception
    if exc is not None and not isinstance(exc, SystemExit):
        import traceback

        failure = "".join(traceback.format_exception(exc))
    elif result.exit_code not in (0, 1, 2):
        failure = f"exit code {result.exit_code}\n{result.output}"
    elif "Traceback" in result.output:
        failure = result.output
    for leftover in (path, workdir / f"fuzz{case.index}.jsonl"):
        leftover.unlink(missing_ok=True)
    return Outcome(case.index, case.command, result.exit_code, seconds, failure)


def _worker(args: tuple[int, int, int, int]) -> list[Outcome]:
    n, seed, start, stop = args
    with tempfile.TemporaryDirectory(prefix="gdrfuzz") as tmp:
        return [run_case(c, Path(tmp)) for c in cases(stop, seed, start)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=2000, help="inputs to run")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--start", type=int, default=0, help="first input (resume)")
    ap.add_argument("--hang", type=float, default=10.0, help="seconds that count as a hang")
    ap.add_argument("--every", type=int, default=1000, help="print figures every N inputs")
    ap.add_argument("--out", type=Path, default=Path("fuzz-failures"),
                    help="directory for the failing inputs")
    opts = ap.parse_args(argv)
    chunk = 50
    slices = [(opts.n, opts.seed, s, min(s + chunk, opts.n))
              for s in range(opts.start, opts.n, chunk)]
    began = time.monotonic()
    done = failures = hangs = 0
    slowest = 0.0
    texts: dict[int, str] = {}
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(opts.jobs) as pool:
        for outcomes in pool.imap_unordered(_worker, slices):
            for o in outcomes:
                done += 1
                slowest = max(slowest, o.seconds)
                if o.seconds > opts.hang:
                    hangs += 1
                    print(f"HANG input {o.index} ({' '.join(o.command)}): {o.seconds:.1f} s",
                          flush=True)
                if o.failure is not None:
                    failures += 1
                    opts.out.mkdir(parents=True, exist_ok=True)
                    case = next(cases(o.index + 1, opts.seed, o.index))
                    (opts.out / f"input{o.index}.litmus").write_text(case.text,
                                                                     encoding="utf-8",
                                                                     errors="replace")
                    texts[o.index] = o.failure
                    print(f"FAILURE input {o.index} ({' '.join(o.command)}):\n{o.failure}",
                          flush=True)
                if done % opts.every == 0:
                    wall = time.monotonic() - began
                    print(f"{done} inputs, {failures} failures, {hangs} hangs, slowest "
                          f"{slowest:.2f} s, {wall:.0f} s ({done / wall:.1f}/s)", flush=True)
    wall = time.monotonic() - began
    print(f"done: {done} inputs (seed {opts.seed}), {failures} failures (tracebacks), "
          f"{hangs} hangs over {opts.hang:g} s, slowest {slowest:.2f} s, wall {wall:.0f} s "
          f"({done / wall:.1f} inputs/s, {opts.jobs} jobs)", flush=True)
    return 1 if failures or hangs else 0


if __name__ == "__main__":
    sys.exit(main())
