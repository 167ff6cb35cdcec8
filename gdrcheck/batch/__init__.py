"""Batch runs (``gdrcheck run``): many tests × models over a pool of worker processes,
results appended to a JSONL file as they finish, resumable after a crash.

A *job* is one litmus file under one model (``NAME+VARIANT+...``); its *key* is
``FILE::MODEL`` (the file as given or as found in a directory, normalised). Each
finished job appends one line to the results file: the ``gdrcheck.check/2`` record of
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

import time
from collections.abc import Callable, Sequence
from pathlib import Path

from gdrcheck.analysis.models import ModelSpec
from gdrcheck.analysis.options import DEFAULT_OPTIONS, CheckOptions
from gdrcheck.batch.jobs import ERROR_SCHEMA, Job, JobFn, Record, execute
from gdrcheck.batch.plan import Plan, plan
from gdrcheck.batch.pool import run_jobs
from gdrcheck.batch.results import ResultsFile, read_results
from gdrcheck.batch.summary import BatchReport, Mismatch

__all__ = ["ERROR_SCHEMA", "BatchReport", "Job", "JobFn", "Mismatch", "Plan", "Record",
           "ResultsFile", "execute", "plan", "read_results", "run_batch", "run_jobs"]


def run_batch(
    paths: Sequence[str | Path],
    results: Path,
    *,
    models: Sequence[ModelSpec] | None = None,
    variants: Sequence[str] = (),
    workers: int = 1,
    options: CheckOptions = DEFAULT_OPTIONS,
    kill_after: float | None = None,
    job_fn: JobFn = execute,
    on_start: Callable[[int, int], None] | None = None,
    on_record: Callable[[Record], None] | None = None,
) -> BatchReport:
    """Plan the jobs, skip those already in ``results``, run the others, append their
    lines to ``results``. ``on_start(todo, resumed)`` is called before the first job,
    ``on_record`` after each line is written."""
    start = time.perf_counter()
    p = plan(paths, models, variants, options)
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
