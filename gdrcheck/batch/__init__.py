"""Batch runs (``gdrcheck run``): many tests × models over a pool of worker processes,
results appended to a JSONL file as they finish, resumable after a crash.

A *job* is one litmus file under one model (``NAME+VARIANT+...``); its *key* is
``FILE::MODEL`` (the file as given or as found in a directory, normalised). Each
finished job appends one line to the results file: the ``gdrcheck.check/2`` record of
:func:`gdrcheck.report.json.result_json` with the ``key`` first, or, when the job could
not be checked, an error line (schema ``gdrcheck.run-error/1``, verdict ``Error``, the
message in ``reason``). A line is written with a single ``os.write`` on a descriptor
opened with ``O_APPEND`` (fsync'ed once a second and at the end): after the run is
killed (even ``kill -9``) the file holds every finished job, and at worst a truncated
last line; a crash of the machine loses at most the last second. A rerun with the same results
file skips the keys already there (the last line of a key wins when there are
several), cuts a truncated last line off, and runs the rest.

Jobs run on Dask distributed (:mod:`gdrcheck.batch.cluster`): an embedded LocalCluster
of ``workers`` single-threaded processes, or the running cluster at ``scheduler``. A
worker that dies mid-job is restarted and the job retried; a job that kills every
worker it runs on gives an ``Error`` line; a job running past ``kill_after`` seconds
gives ``Unknown`` and its worker is restarted; a cluster left with no worker for
``lost_after`` seconds gives an ``Error`` line for each job not run, and the run ends;
several small jobs travel in one Dask task (a chunk), split into single jobs when it
fails (``--timeout`` is also handed to the solver, which answers Unknown by itself when
it can). A run of
:data:`~gdrcheck.batch.plan.LOAD_ON_CLUSTER` files or more starts the cluster first and
parses the files on its workers. ``workers=0`` runs the jobs one after the other in the
calling process (no isolation, no guard).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from functools import partial
from pathlib import Path
from typing import Any

from gdrcheck.analysis.models import LoadedModel, ModelSpec
from gdrcheck.analysis.options import DEFAULT_OPTIONS, CheckOptions
from gdrcheck.analysis.suite import litmus_files
from gdrcheck.batch.jobs import (
    ERROR_SCHEMA,
    Job,
    JobFn,
    Record,
    error_record,
    execute,
    rechecked,
)
from gdrcheck.batch.plan import LOAD_ON_CLUSTER, Loader, Plan, load_files, plan, plan_files
from gdrcheck.batch.results import NotResults, ResultsFile, read_results
from gdrcheck.batch.summary import BatchReport, Mismatch
from gdrcheck.litmus import ast as A

__all__ = ["ERROR_SCHEMA", "BatchReport", "Job", "JobFn", "Mismatch", "NotResults", "Plan",
           "Record", "ResultsFile", "execute", "plan", "read_results", "run_batch", "run_jobs"]


def run_jobs(jobs: Sequence[Job], workers: int, on_record: Callable[[Record], None], *,
             tests: dict[str, A.Test | None] | None = None, kill_after: float | None = None,
             job_fn: JobFn = execute, scheduler: str | None = None,
             chunk: int | None = None, client: Any = None,
             lost_after: float | None = None) -> None:
    """Run ``jobs`` on Dask (``workers`` local worker processes, or the cluster at
    ``scheduler``, or that of ``client`` when one is given; ``workers=0`` and no
    scheduler: in this process), calling ``on_record`` with each record as its job
    finishes. ``chunk``: jobs per Dask task (default:
    :func:`gdrcheck.batch.cluster.chunk_size`). ``lost_after``: seconds with no worker in
    the cluster after which the jobs not run are Error lines (default:
    :data:`gdrcheck.batch.cluster.LOST_AFTER`)."""
    tests = tests or {}
    if client is not None:
        if jobs:
            from gdrcheck.batch.cluster import LOST_AFTER, run_on_cluster

            run_on_cluster(jobs, client, on_record, tests=tests, kill_after=kill_after,
                           job_fn=job_fn, chunk=chunk,
                           lost_after=LOST_AFTER if lost_after is None else lost_after)
        return
    if workers <= 0 and scheduler is None:
        for j in jobs:
            try:
                rec = job_fn(j)
            except Exception as exc:  # a bug in a layer: the run goes on
                rec = error_record(j, f"{type(exc).__name__}: {exc}", tests.get(j.key))
            on_record(rec)
        return
    if not jobs:
        return
    from gdrcheck.batch.cluster import LOST_AFTER, dask_client, run_on_cluster

    with dask_client(workers, scheduler, warm=[job_fn.__module__]) as client:
        run_on_cluster(jobs, client, on_record, tests=tests, kill_after=kill_after,
                       job_fn=job_fn, chunk=chunk,
                       lost_after=LOST_AFTER if lost_after is None else lost_after)


def run_batch(
    paths: Sequence[str | Path],
    results: Path,
    *,
    models: Sequence[ModelSpec] | None = None,
    variants: Sequence[str] = (),
    workers: int = 1,
    options: CheckOptions = DEFAULT_OPTIONS,
    kill_after: float | None = None,
    scheduler: str | None = None,
    job_fn: JobFn = execute,
    chunk: int | None = None,
    on_start: Callable[[int, int], None] | None = None,
    on_record: Callable[[Record], None] | None = None,
    lost_after: float | None = None,
    every: Mapping[str, LoadedModel] | None = None,
) -> BatchReport:
    """Plan the jobs, skip those already in ``results``, run the others, append their
    lines to ``results``. ``on_start(todo, resumed)`` is called before the first job,
    ``on_record`` after each line is written. ``every``: ``--model all`` (the loaded
    models; :func:`gdrcheck.batch.plan.plan`). A ``results`` that is not a results file
    (:func:`gdrcheck.batch.results.read_results`) is refused before any work:
    :class:`NotResults`."""
    start = time.perf_counter()
    done = read_results(results, repair=True)
    files = litmus_files(paths)
    with ExitStack() as stack:
        client = None
        load: Loader = load_files
        if (workers > 0 or scheduler is not None) and len(files) >= LOAD_ON_CLUSTER:
            # a large run: the cluster starts first and its workers parse the files
            from gdrcheck.batch.cluster import dask_client, load_on_cluster

            client = stack.enter_context(dask_client(workers, scheduler,
                                                     warm=[job_fn.__module__]))
            load = partial(load_on_cluster, client) if lost_after is None \
                else partial(load_on_cluster, client, lost_after=lost_after)
        p = plan_files(files, models, variants, options, load, every)
        return _run_plan(p, results, done, workers, kill_after, scheduler, job_fn,
                         chunk, on_start, on_record, start, client, lost_after)


def _run_plan(p: Plan, results: Path, done: dict[str, Record], workers: int,
              kill_after: float | None, scheduler: str | None, job_fn: JobFn,
              chunk: int | None, on_start: Callable[[int, int], None] | None,
              on_record: Callable[[Record], None] | None, start: float,
              client: Any, lost_after: float | None = None) -> BatchReport:
    """The rest of :func:`run_batch`, once the plan is made (``client``: the cluster
    that parsed the files, if one did; ``done``: the records already in ``results``)."""
    wanted = set(p.keys)
    report = BatchReport({k: rechecked(v, p.tests.get(k)) for k, v in done.items()
                          if k in wanted}, p.tests)
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
        run_jobs(todo, workers, write, tests=p.tests, kill_after=kill_after, job_fn=job_fn,
                 scheduler=scheduler, chunk=chunk, client=client, lost_after=lost_after)
    finally:
        out.close()
        report.seconds = time.perf_counter() - start
    return report
