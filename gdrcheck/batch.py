"""Batch runs (``gdrcheck run``): many tests × models over a pool of worker processes,
results appended to a JSONL file as they finish, resumable after a crash.

A *job* is one litmus file under one model (``NAME+VARIANT+...``); its *key* is
``FILE::MODEL`` (the file as given or as found in a directory, normalised). Each
finished job appends one line to the results file: the ``gdrcheck.check/1`` record of
:func:`gdrcheck.report.json.result_json` with the ``key`` first, or, when the job could
not be checked, an error line (schema ``gdrcheck.run-error/1``, verdict ``Error``, the
message in ``reason``). A line is written with a single ``os.write`` on a descriptor
opened with ``O_APPEND``, then fsync'ed: after a crash (even ``kill -9``) the file holds
every finished job, and at worst a truncated last line. A rerun with the same results
file skips the keys already there (the last line of a key wins when there are
several), cuts a truncated last line off, and runs the rest.

Workers are separate processes (``forkserver`` where available, else ``spawn``), each
running one job at a time; a worker that dies (a crash of z3, a signal) gives an
``Error`` line for its job and is replaced; a worker that runs past ``kill_after``
seconds is killed and its job gives ``Unknown`` (``--timeout`` is also handed to the
solver, which answers Unknown by itself when it can). ``jobs=0`` runs the jobs one
after the other in the calling process (no isolation, no guard).
"""

from __future__ import annotations

import json
import multiprocessing
import multiprocessing.connection
import os
import signal
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gdrcheck.engine.result import Result
from gdrcheck.errors import InputError
from gdrcheck.litmus import ast as A
from gdrcheck.lower import DEFAULT_UNROLL
from gdrcheck.runner import ModelSpec

ERROR_SCHEMA = "gdrcheck.run-error/1"
"""The schema of an error line of a results file."""

Record = dict[str, Any]
JobFn = Callable[["Job"], Record]


@dataclass(frozen=True)
class Job:
    """One litmus file under one model."""

    key: str
    file: str
    model: str
    engine: str = "smt"
    timeout: float | None = None
    include_dirs: tuple[str, ...] = ()
    unroll: int = DEFAULT_UNROLL
    states: bool = False


def job_key(file: str, model: str) -> str:
    return f"{file}::{model}"


ANY_MODEL = "*"
"""The model of the key of a file that could not be parsed when the models were to
come from its Expect= line."""


# --------------------------------------------------------------------------
# One job (runs in a worker)
# --------------------------------------------------------------------------


def error_record(job: Job, message: str, test: A.Test | None = None, seconds: float = 0.0
                 ) -> Record:
    """The line of a job that could not be checked."""
    return {
        "key": job.key,
        "schema": ERROR_SCHEMA,
        "test": None if test is None else test.name,
        "file": job.file,
        "model": job.model,
        "engine": job.engine,
        "verdict": "Error",
        "reason": message,
        "time": round(seconds, 6),
        "expect": _expect(test, job.model, None),
    }


def _expected(test: A.Test, model: str, liveness: bool = False) -> str | None:
    try:
        spec = ModelSpec.parse(model)
    except InputError:
        return None
    for e in test.liveness_expectations if liveness else test.expectations:
        if e.model == spec.name and set(e.variants) == set(spec.variants):
            return e.verdict
    return None


def _expect(test: A.Test | None, model: str, verdict: str | None) -> dict[str, Any] | None:
    if test is None:
        return None
    want = _expected(test, model)
    return None if want is None else {"verdict": want, "met": want == verdict}


def execute(job: Job) -> Record:
    """Check one job; bad input gives an error record (never an exception)."""
    from gdrcheck.litmus import load_litmus
    from gdrcheck.report.json import result_json
    from gdrcheck.runner import check_test

    start = time.perf_counter()
    test: A.Test | None = None
    try:
        test = load_litmus(job.file)
        res = check_test(test, job.model, engine=job.engine, include_dirs=job.include_dirs,
                         timeout=job.timeout, states=job.states, unroll=job.unroll)
    except InputError as err:
        if err.path is None:
            err.path = job.file
        return error_record(job, err.render(), test, time.perf_counter() - start)
    except RecursionError:
        return error_record(job, "the test is too large to check (recursion limit)", test,
                            time.perf_counter() - start)
    return {"key": job.key, **result_json(test, res, _expect(test, job.model, res.verdict))}


def unknown_record(job: Job, test: A.Test, reason: str, seconds: float) -> Record:
    """The line of a job whose worker was killed for running too long."""
    from gdrcheck.report.json import result_json

    res = Result(test.name, job.model, job.engine, test.condition.quantifier, "Unknown",
                 None, None, time=seconds, reason=reason)
    return {"key": job.key, **result_json(test, res, _expect(test, job.model, "Unknown"))}


def _worker(conn: multiprocessing.connection.Connection, job_fn: JobFn) -> None:
    """A worker process: run the jobs sent on ``conn`` until None or EOF."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles ^C
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        try:
            rec = job_fn(job)
        except Exception as exc:  # a bug in a layer: the run goes on
            rec = error_record(job, f"{type(exc).__name__}: {exc}")
        try:
            conn.send(rec)
        except (BrokenPipeError, OSError):
            return


# --------------------------------------------------------------------------
# The results file
# --------------------------------------------------------------------------


def read_results(path: Path, repair: bool = False) -> dict[str, Record]:
    """The records of a results file by key (the last line of a key wins). Lines that
    are not JSON objects with a key are ignored; with ``repair``, a truncated last line
    (no newline at the end) is cut off the file."""
    if not path.exists():
        return {}
    data = path.read_bytes()
    if repair and data and not data.endswith(b"\n"):
        cut = data.rfind(b"\n") + 1
        os.truncate(path, cut)
        data = data[:cut]
    out: dict[str, Record] = {}
    for line in data.splitlines():
        try:
            rec = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue
        if isinstance(rec, dict) and isinstance(rec.get("key"), str):
            out[rec["key"]] = rec
    return out


class ResultsFile:
    """Appends one line per record: one ``os.write`` on an ``O_APPEND`` descriptor,
    then fsync."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def append(self, rec: Record) -> None:
        data = (json.dumps(rec, separators=(",", ":")) + "\n").encode()
        written = os.write(self.fd, data)
        while written < len(data):  # a short write to a regular file: disk full, a signal
            written += os.write(self.fd, data[written:])
        os.fsync(self.fd)

    def close(self) -> None:
        os.close(self.fd)


# --------------------------------------------------------------------------
# Planning
# --------------------------------------------------------------------------


def litmus_files(paths: Iterable[str | Path]) -> list[str]:
    """The ``.litmus`` files of ``paths`` (directories walked, sorted), normalised,
    without repeats."""
    out: list[str] = []
    for p in map(Path, paths):
        found = sorted(f for f in p.rglob("*.litmus") if f.is_file()) if p.is_dir() else [p]
        out.extend(os.path.normpath(f) for f in found)
    return list(dict.fromkeys(out))


@dataclass
class Plan:
    """The jobs of a run, and the lines of the files that could not be parsed."""

    jobs: list[Job] = field(default_factory=list)
    failed: list[Record] = field(default_factory=list)
    tests: dict[str, A.Test | None] = field(default_factory=dict)  # by key

    @property
    def keys(self) -> list[str]:
        return [j.key for j in self.jobs] + [r["key"] for r in self.failed]


def with_variants(spec: ModelSpec, variants: Sequence[str]) -> ModelSpec:
    extra = tuple(v for v in dict.fromkeys(variants) if v not in spec.variants)
    return ModelSpec(spec.name, spec.variants + extra)


def plan(paths: Iterable[str | Path], models: Sequence[ModelSpec] | None = None,
         variants: Sequence[str] = (), *, engine: str = "smt", timeout: float | None = None,
         include_dirs: Sequence[str] = (), unroll: int = DEFAULT_UNROLL,
         states: bool = False) -> Plan:
    """The jobs: every file of ``paths`` under each of ``models`` (default: the models
    of its Expect= line, else its dialect's default model), with ``variants`` added."""
    from gdrcheck.api import DEFAULT_MODEL
    from gdrcheck.litmus import load_litmus

    out = Plan()

    def job(file: str, spec: ModelSpec) -> Job:
        m = str(with_variants(spec, variants))
        return Job(job_key(file, m), file, m, engine, timeout, tuple(include_dirs), unroll,
                   states)

    for file in litmus_files(paths):
        try:
            test = load_litmus(file)
        except InputError as err:
            for spec in models or [ModelSpec(ANY_MODEL)]:
                j = job(file, spec)
                if j.key not in out.tests:
                    out.tests[j.key] = None
                    out.failed.append(error_record(j, err.render()))
            continue
        specs = list(models) if models else (
            list(dict.fromkeys(ModelSpec(e.model, e.variants) for e in test.expectations))
            or [ModelSpec(DEFAULT_MODEL[test.arch])])
        for spec in specs:
            j = job(file, spec)
            if j.key not in out.tests:
                out.tests[j.key] = test
                out.jobs.append(j)
    return out


# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------


def _context() -> Any:
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["gdrcheck.batch", "gdrcheck.runner"])
        return ctx
    return multiprocessing.get_context("spawn")


@dataclass
class _Slot:
    proc: Any
    conn: multiprocessing.connection.Connection
    job: Job | None = None
    started: float = 0.0


def _death(exitcode: int | None) -> str:
    if exitcode is None:
        return "the worker process died"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"the worker process died ({name})"
    return f"the worker process exited with code {exitcode}"


def run_jobs(jobs: Sequence[Job], workers: int, on_record: Callable[[Record], None], *,
             tests: dict[str, A.Test | None] | None = None, kill_after: float | None = None,
             job_fn: JobFn = execute) -> None:
    """Run ``jobs`` on ``workers`` processes (0: in this process), calling ``on_record``
    (in this process) with each record as its job finishes."""
    tests = tests or {}
    if workers <= 0:
        for j in jobs:
            try:
                rec = job_fn(j)
            except Exception as exc:
                rec = error_record(j, f"{type(exc).__name__}: {exc}", tests.get(j.key))
            on_record(rec)
        return
    ctx = _context()
    todo = list(reversed(jobs))
    slots: list[_Slot] = []

    def start() -> _Slot:
        parent_conn, child_conn = ctx.Pipe(duplex=True)
        proc = ctx.Process(target=_worker, args=(child_conn, job_fn), daemon=True)
        proc.start()
        child_conn.close()
        return _Slot(proc, parent_conn)

    def finish(slot: _Slot, rec: Record) -> None:
        slot.job = None
        on_record(rec)

    def replace(slot: _Slot) -> None:
        slot.conn.close()
        if slot.proc.is_alive():
            slot.proc.kill()
        slot.proc.join(5)
        new = start() if todo else None
        slots.remove(slot)
        if new is not None:
            slots.append(new)

    try:
        for _ in range(min(workers, len(todo))):
            slots.append(start())
        while todo or any(s.job is not None for s in slots):
            for slot in slots:
                if slot.job is None and todo:
                    slot.job = todo.pop()
                    slot.started = time.monotonic()
                    try:
                        slot.conn.send(slot.job)
                    except (BrokenPipeError, OSError):
                        pass  # the worker is dead: wait() reports it below
            busy = [s for s in slots if s.job is not None]
            if not busy:
                break
            ready = multiprocessing.connection.wait([s.conn for s in busy], timeout=0.5)
            for slot in list(busy):
                job = slot.job
                assert job is not None
                if slot.conn in ready:
                    try:
                        rec = slot.conn.recv()
                    except (EOFError, OSError):
                        slot.proc.join(5)
                        finish(slot, error_record(job, _death(slot.proc.exitcode),
                                                  tests.get(job.key),
                                                  time.monotonic() - slot.started))
                        replace(slot)
                        continue
                    finish(slot, rec)
                elif kill_after is not None and time.monotonic() - slot.started > kill_after:
                    elapsed = time.monotonic() - slot.started
                    slot.proc.kill()
                    test = tests.get(job.key)
                    reason = (f"no answer after {elapsed:.1f} s: the worker was killed "
                              f"(--kill-after {kill_after:g})")
                    finish(slot, error_record(job, reason, None, elapsed) if test is None
                           else unknown_record(job, test, reason, elapsed))
                    replace(slot)
    finally:
        for slot in slots:
            try:
                slot.conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        deadline = time.monotonic() + 5
        for slot in slots:
            if slot.job is not None:
                slot.proc.kill()  # interrupted: its job is not written, and a rerun redoes it
            slot.proc.join(max(0.0, deadline - time.monotonic()))
            if slot.proc.is_alive():
                slot.proc.kill()
                slot.proc.join(1)
            slot.conn.close()


# --------------------------------------------------------------------------
# The report
# --------------------------------------------------------------------------


@dataclass
class Mismatch:
    key: str
    kind: str  # "expect" | "liveness"
    want: str
    got: str


@dataclass
class BatchReport:
    """Every record of the run's keys (the resumed ones and the new ones)."""

    records: dict[str, Record]
    tests: dict[str, A.Test | None]
    new: int = 0
    resumed: int = 0
    seconds: float = 0.0

    def verdicts(self) -> Counter[str]:
        return Counter(str(r.get("verdict")) for r in self.records.values())

    @property
    def errors(self) -> list[Record]:
        return [r for r in self.records.values() if r.get("verdict") == "Error"]

    def mismatches(self) -> list[Mismatch]:
        out: list[Mismatch] = []
        for key, rec in self.records.items():
            if rec.get("verdict") == "Error":
                continue
            exp = rec.get("expect")
            if isinstance(exp, dict) and not exp.get("met"):
                out.append(Mismatch(key, "expect", str(exp.get("verdict")),
                                    str(rec.get("verdict"))))
            test = self.tests.get(key)
            want = None if test is None else _expected(test, str(rec.get("model")), True)
            if want is not None:
                got = "Hang" if rec.get("liveness") else "Live"
                if got != want:
                    out.append(Mismatch(key, "liveness", want, got))
        return out

    def expectations(self) -> tuple[int, int, int]:
        """(met, not met, errored) over Expect= and Liveness= entries."""
        total = errored = 0
        for key, rec in self.records.items():
            test = self.tests.get(key)
            n = 0
            if isinstance(rec.get("expect"), dict):
                n += 1
            if test is not None and _expected(test, str(rec.get("model")), True) is not None:
                n += 1
            if rec.get("verdict") == "Error":
                errored += n
            else:
                total += n
        failed = len(self.mismatches())
        return total - failed, failed, errored

    @property
    def exit_code(self) -> int:
        """0: every expectation met; 1: one is not; 2: a job could not be checked."""
        return 2 if self.errors else 1 if self.mismatches() else 0


def run_batch(
    paths: Sequence[str | Path],
    results: Path,
    *,
    models: Sequence[ModelSpec] | None = None,
    variants: Sequence[str] = (),
    workers: int = 1,
    engine: str = "smt",
    timeout: float | None = None,
    kill_after: float | None = None,
    include_dirs: Sequence[str] = (),
    unroll: int = DEFAULT_UNROLL,
    states: bool = False,
    job_fn: JobFn = execute,
    on_start: Callable[[int, int], None] | None = None,
    on_record: Callable[[Record], None] | None = None,
) -> BatchReport:
    """Plan the jobs, skip those already in ``results``, run the others, append their
    lines to ``results``. ``on_start(todo, resumed)`` is called before the first job,
    ``on_record`` after each line is written."""
    start = time.perf_counter()
    p = plan(paths, models, variants, engine=engine, timeout=timeout,
             include_dirs=include_dirs, unroll=unroll, states=states)
    done = read_results(results, repair=True)
    wanted = set(p.keys)
    report = BatchReport({k: v for k, v in done.items() if k in wanted}, p.tests)
    report.resumed = len(report.records)
    todo = [j for j in p.jobs if j.key not in done]
    failed = [r for r in p.failed if r["key"] not in done]
    if on_start is not None:
        on_start(len(todo) + len(failed), report.resumed)
    out = ResultsFile(results)

    def write(rec: Record) -> None:
        out.append(rec)
        report.records[rec["key"]] = rec
        report.new += 1
        if on_record is not None:
            on_record(rec)

    try:
        for rec in failed:
            write(rec)
        run_jobs(todo, workers, write, tests=p.tests, kill_after=kill_after, job_fn=job_fn)
    finally:
        out.close()
        report.seconds = time.perf_counter() - start
    return report
