"""Running the jobs of ``gdrcheck run`` on Dask distributed.

By default an embedded :class:`distributed.LocalCluster` (one single-threaded worker
process per ``--jobs``, each under a nanny that restarts it when it dies); with
``--scheduler tcp://HOST:PORT``, a running cluster (``dask scheduler`` and ``dask
worker`` on the machines, or dask-jobqueue / dask-kubernetes). The same job function
runs on either: a pure function of a picklable :class:`~gdrcheck.batch.jobs.Job`.

What users rely on is kept:

- each record reaches ``on_record`` (the JSONL writer, the progress bar) as its job
  finishes, in this process;
- crash isolation: a worker that dies mid-job is restarted by its nanny and the job is
  retried on a worker (Dask's ``allowed-failures``); a job that kills every worker it
  runs on becomes an ``Error`` line ("the worker process died ...") and the run goes on;
- ``kill_after``: a job still running after that many seconds gives ``Unknown`` and its
  worker is restarted (a hung z3 call cannot be interrupted in its thread);
- an exception in a job becomes an ``Error`` line.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from gdrcheck.batch.jobs import Job, JobFn, Record, error_record, unknown_record
from gdrcheck.litmus import ast as A

POLL = 0.25
"""Seconds between two looks at the running jobs (for ``kill_after``)."""

WAKE = 0.005
"""Seconds between two looks for finished jobs."""


@contextmanager
def dask_client(workers: int, scheduler: str | None = None) -> Iterator[Any]:
    """A client of the cluster at ``scheduler``, else of an embedded LocalCluster with
    ``workers`` single-threaded worker processes."""
    from distributed import Client, LocalCluster

    if scheduler is not None:
        with Client(scheduler, timeout="30s") as client:
            yield client
        return
    with LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True,
                      dashboard_address=None, silence_logs=logging.ERROR) as cluster, \
            Client(cluster) as client:
        yield client


def _killed(exc: BaseException) -> bool:
    from distributed import KilledWorker

    return isinstance(exc, KilledWorker)


def run_on_cluster(jobs: Sequence[Job], client: Any, on_record: Callable[[Record], None], *,
                   tests: dict[str, A.Test | None] | None = None,
                   kill_after: float | None = None, job_fn: JobFn) -> None:
    """Run ``jobs`` on the cluster of ``client``, calling ``on_record`` with each record
    as its job finishes."""
    from distributed import as_completed

    tests = tests or {}
    pending: dict[Any, Job] = {}
    for i, job in enumerate(jobs):
        pending[client.submit(job_fn, job, key=f"gdrcheck-{i}-{job.key}", pure=False)] = job
    # results are gathered in the client's own thread as jobs finish, and handed over
    # here in batches: a finished job costs O(1) in this process (waiting on every
    # pending future at each step was quadratic, and one result fetched at a time,
    # synchronously, capped the run's throughput whatever the number of workers)
    done = as_completed(list(pending), with_results=True, raise_errors=False)
    first_seen: dict[str, float] = {}
    try:
        while pending:
            deadline = time.monotonic() + POLL
            while not done.has_ready() and time.monotonic() < deadline:
                time.sleep(WAKE)
            for fut, result in done.next_batch(block=False) if done.has_ready() else []:
                # not pending: already recorded (killed as overdue)
                if fut in pending:
                    on_record(_record(fut, result, pending.pop(fut), tests))
            if kill_after is not None and pending:
                _kill_overdue(client, pending, first_seen, kill_after, tests, on_record)
    finally:
        if pending:  # interrupted: the jobs not written are redone by a rerun
            client.cancel(list(pending), force=True)


def _record(fut: Any, result: Any, job: Job, tests: dict[str, A.Test | None]) -> Record:
    if fut.status == "finished":
        rec: Record = result
        return rec
    exc = result if isinstance(result, BaseException) else fut.exception()
    if _killed(exc):
        return error_record(job, f"the worker process died running this job ({exc})",
                            tests.get(job.key))
    return error_record(job, f"{type(exc).__name__}: {exc}", tests.get(job.key))


def _kill_overdue(client: Any, pending: dict[Any, Job], first_seen: dict[str, float],
                  kill_after: float, tests: dict[str, A.Test | None],
                  on_record: Callable[[Record], None]) -> None:
    """Record Unknown for the jobs running past ``kill_after`` and restart their workers."""
    now = time.monotonic()
    by_key = {fut.key: fut for fut in pending}
    overdue: list[tuple[Any, str]] = []
    for worker, keys in client.processing().items():
        for key in keys:
            if key not in by_key:
                continue
            started = first_seen.setdefault(key, now)
            if now - started > kill_after:
                overdue.append((by_key[key], worker))
    if not overdue:
        return
    for fut, _ in overdue:
        job = pending.pop(fut)
        elapsed = now - first_seen[fut.key]
        reason = (f"no answer after {elapsed:.1f} s: the worker was killed "
                  f"(--kill-after {kill_after:g})")
        test = tests.get(job.key)
        on_record(error_record(job, reason, None, elapsed) if test is None
                  else unknown_record(job, test, reason, elapsed))
    client.cancel([fut for fut, _ in overdue], force=True)
    client.restart_workers(sorted({w for _, w in overdue}), raise_for_error=False)
