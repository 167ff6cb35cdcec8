"""Running the jobs of ``gdrcheck run`` on Dask distributed.

By default an embedded :class:`distributed.LocalCluster` (one single-threaded worker
process per ``--jobs``, each under a nanny that restarts it when it dies); with
``--scheduler tcp://HOST:PORT``, a running cluster (``dask scheduler`` and ``dask
worker`` on the machines, or dask-jobqueue / dask-kubernetes). The same job function
runs on either: a pure function of a picklable :class:`~gdrcheck.batch.jobs.Job`.

Jobs travel in *chunks*: a Dask task runs the jobs of its chunk one after the other in
the worker and returns their records (the scheduler costs about 5 ms per task, a job of
a generated suite 10-40 ms). The chunk size is :func:`chunk_size`: 1 for a run of few
jobs, at most :data:`MAX_CHUNK`, so that every worker thread still gets about
:data:`CHUNKS_PER_THREAD` chunks to balance the load.

What users rely on is kept:

- each record reaches ``on_record`` (the JSONL writer, the progress bar) in this
  process as its chunk finishes, every job exactly once;
- crash isolation: a worker that dies mid-chunk is restarted by its nanny and the chunk
  retried on a worker (Dask's ``allowed-failures``); a chunk that kills every worker it
  runs on, or that fails in any other way, is split: its jobs are submitted again one
  per task. A single job that kills every worker it runs on becomes an ``Error`` line
  ("the worker process died ...") and the run goes on;
- ``kill_after``: a chunk still running after :func:`chunk_budget` (``kill_after`` for
  one job plus, for each other, the time a job that is not hung takes at most: twice its
  own time limit plus 1 s, at most ``kill_after``) is cancelled, its worker restarted,
  and its jobs submitted again one per task (splitting redoes work, it never changes an
  answer); a single job still running after ``kill_after`` seconds gives
  ``Unknown`` and its worker is restarted (a hung z3 call cannot be interrupted in its
  thread);
- an exception in a job becomes an ``Error`` line (the other jobs of its chunk are
  recorded normally);
- a run ends: no wait on the cluster is unbounded. The embedded cluster keeps its
  workers: Dask's SpecCluster closes, for good, a nanny whose worker has not registered
  again within ``distributed.deploy.lost-worker-timeout`` (15 s), and a worker's restart
  under CPU contention takes longer than that (25 s measured on 2 cores with 4 busy
  processes), which left a run with no worker and its jobs queued forever; the embedded
  cluster gets :data:`LOST_WORKER_TIMEOUT` instead, and a nanny it closes anyway is
  started again (:class:`_Workers`). A cluster with no worker for :data:`LOST_AFTER`
  seconds (a ``--scheduler`` whose workers all left, say) gets an ``Error`` line for each
  job not run, and the run ends.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import count
from typing import Any

from gdrcheck.batch.jobs import Job, JobFn, Record, error_record, unknown_record
from gdrcheck.batch.plan import Loaded, load_files
from gdrcheck.litmus import ast as A

POLL = 0.25
"""Seconds between two looks at the running jobs (for ``kill_after``)."""

WAKE = 0.005
"""Seconds between two looks for finished jobs."""

MAX_CHUNK = 16
"""The most jobs in one Dask task."""

CHUNKS_PER_THREAD = 8
"""How many chunks each worker thread should get at least (load balance: the last
chunks to finish keep few workers busy)."""

LOADS_PER_THREAD = 4
"""Parse tasks per worker thread when the files are parsed on the cluster."""

LOST_AFTER = 120.0
"""Seconds a run waits while its cluster has no worker at all (every worker died and
none has come back yet) before the jobs not run become ``Error`` lines and the run ends.
A worker's restart took 25 s on a 2-core machine with 4 busy processes."""

LOST_WORKER_TIMEOUT = "1h"
"""``distributed.deploy.lost-worker-timeout`` of the embedded cluster: how long it waits
for a dead worker's nanny to bring it back before closing the nanny (Dask's 15 s is
shorter than a restart on a loaded machine)."""

RESTART_TIMEOUT = 60.0
"""Seconds the scheduler is given to kill the worker of an overdue job (its nanny then
starts a new one; the run does not wait for it)."""

RESTORE_EVERY = 1.0
"""Seconds between two looks at the embedded cluster's nannies."""


@contextmanager
def dask_client(workers: int, scheduler: str | None = None, warm: Sequence[str] = ()
                ) -> Iterator[Any]:
    """A client of the cluster at ``scheduler``, else of an embedded LocalCluster with
    ``workers`` single-threaded worker processes, each of which imports the modules of
    ``warm`` and checks a small test before it takes a job
    (:mod:`gdrcheck.batch.warm`)."""
    import dask
    from distributed import Client, LocalCluster

    if scheduler is not None:
        with Client(scheduler, timeout="30s") as client:
            yield client
        return
    preload = [*dask.config.get("distributed.worker.preload", []), "gdrcheck.batch.warm"]
    with dask.config.set({"distributed.deploy.lost-worker-timeout": LOST_WORKER_TIMEOUT}), \
            LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True,
                         dashboard_address=None, silence_logs=logging.ERROR,
                         preload=preload, env={"GDRCHECK_WARM": ",".join(warm)}) as cluster, \
            Client(cluster) as client:
        yield client


class _Workers:
    """The cluster's workers, looked at while a run waits on it: a nanny that the
    embedded cluster closed (its ``worker_spec`` still names it) is started again, and
    :meth:`lost` says when the cluster has had no worker for ``lost_after`` seconds."""

    def __init__(self, client: Any, lost_after: float) -> None:
        from distributed import SpecCluster

        self.client = client
        self.lost_after = lost_after
        cluster = getattr(client, "cluster", None)
        self.cluster: Any = cluster if isinstance(cluster, SpecCluster) else None
        self.none_since: float | None = None
        self.looked = self.restored = float("-inf")

    def lost(self, now: float) -> bool:
        """Whether the cluster has had no worker for ``lost_after`` seconds (looked at
        every :data:`POLL` seconds at most)."""
        if now - self.looked >= POLL:
            self.looked = now
            self._restore(now)
            if self.client.nthreads():
                self.none_since = None
            elif self.none_since is None:
                self.none_since = now
        return self.none_since is not None and now - self.none_since >= self.lost_after

    def _restore(self, now: float) -> None:
        cluster = self.cluster
        if cluster is None or now - self.restored < RESTORE_EVERY:
            return
        self.restored = now
        if cluster.loop is not None:  # None once the cluster is closed
            cluster.loop.add_callback(_restore_nannies, cluster)

    def reason(self) -> str:
        return (f"not run: the cluster had no worker for {self.lost_after:g} s (its workers "
                "died or left and none came back)")


def _restore_nannies(cluster: Any) -> None:
    """Start again the nannies of ``cluster`` (a SpecCluster) that are gone: closed by
    the cluster (lost-worker-timeout) or closed by themselves (a worker that failed to
    start again). Runs in the cluster's event loop."""
    from distributed.core import Status

    if cluster.status not in (Status.running, Status.created):
        return
    for name, nanny in list(cluster.workers.items()):
        if nanny.status in (Status.closed, Status.failed):
            del cluster.workers[name]
    # a name still registered is a worker on its way out: its nanny cannot start yet
    registered = {w.get("name") for w in cluster.scheduler_info.get("workers", {}).values()}
    if set(cluster.worker_spec) - set(cluster.workers) - registered:
        cluster.scale(len(cluster.worker_spec))  # starts the nannies it lacks


def chunk_size(jobs: int, threads: int) -> int:
    """Jobs per Dask task for ``jobs`` jobs on ``threads`` worker threads: 1 for a run of
    few jobs, at most :data:`MAX_CHUNK`, at least :data:`CHUNKS_PER_THREAD` chunks per
    thread otherwise."""
    return max(1, min(MAX_CHUNK, jobs // (max(1, threads) * CHUNKS_PER_THREAD)))


@dataclass(frozen=True)
class Raised:
    """A job of a chunk that raised: the message of its error line (the driver makes
    the line, with the test it knows)."""

    message: str


def run_chunk(job_fn: JobFn, jobs: Sequence[Job]) -> list[Record | Raised]:
    """The Dask task of a chunk: its jobs one after the other, in the worker."""
    out: list[Record | Raised] = []
    for job in jobs:
        try:
            out.append(job_fn(job))
        except Exception as exc:  # a bug in a layer: the other jobs go on
            out.append(Raised(f"{type(exc).__name__}: {exc}"))
    return out


def load_on_cluster(client: Any, files: Sequence[str],
                    loader: Callable[[Sequence[str]], list[Loaded]] = load_files,
                    lost_after: float = LOST_AFTER) -> list[Loaded]:
    """Parse ``files`` on the cluster's workers (the planning of a large run): about
    :data:`LOADS_PER_THREAD` tasks per worker thread (a cluster of one thread: here), each
    ``loader`` (by default
    :func:`load_files`) of a slice, the tests pickled back. A slice whose task fails (its
    worker died, say) is parsed here by ``loader``, so the answer is always ``loader``'s
    own. A cluster with no worker for ``lost_after`` seconds: the slices not parsed yet
    are parsed here."""
    from distributed import wait

    threads = sum(client.nthreads().values())
    if threads < 2:  # one worker thread parses no faster than the driver
        return loader(files)
    size = max(1, -(-len(files) // (threads * LOADS_PER_THREAD)))
    slices = [list(files[i:i + size]) for i in range(0, len(files), size)]
    futures = [client.submit(loader, part, key=f"gdrcheck-load-{i}-{part[0]}", pure=False)
               for i, part in enumerate(slices)]
    out: list[Loaded] = []
    workers = _Workers(client, lost_after)
    try:
        for part, fut in zip(slices, futures, strict=True):
            while not fut.done() and not workers.lost(time.monotonic()):
                try:
                    wait(fut, timeout=POLL)
                except TimeoutError:  # not yet: look at the workers again
                    pass
            try:
                got = fut.result(timeout=0) if fut.done() else loader(part)
            except Exception:  # noqa: BLE001 - a lost worker, a failed task: parse here
                got = loader(part)
            if not isinstance(got, list) or len(got) != len(part):
                got = loader(part)
            out.extend(got)
    finally:
        client.cancel(futures)
    return out


def _killed(exc: BaseException) -> bool:
    from distributed import KilledWorker

    return isinstance(exc, KilledWorker)


class _Tasks:
    """The tasks in flight: which jobs each one runs, submitted as chunks or singly."""

    def __init__(self, client: Any, job_fn: JobFn) -> None:
        from distributed import as_completed

        self.client = client
        self.job_fn = job_fn
        self.pending: dict[Any, list[Job]] = {}
        self.serial = count()
        self.done = as_completed([], with_results=True, raise_errors=False)

    def submit(self, chunk: Sequence[Job]) -> None:
        key = f"gdrcheck-{next(self.serial)}-{chunk[0].key}"
        if len(chunk) == 1:
            fut = self.client.submit(self.job_fn, chunk[0], key=key, pure=False)
        else:
            key += f"-x{len(chunk)}"
            fut = self.client.submit(run_chunk, self.job_fn, list(chunk), key=key, pure=False)
        self.pending[fut] = list(chunk)
        self.done.add(fut)

    def split(self, chunk: Sequence[Job]) -> None:
        """Submit the jobs of a chunk again, one per task."""
        for job in chunk:
            self.submit([job])


class _Clock:
    """When each task started running, as seen from here. A worker holds more tasks than
    it has threads (Dask sends it the next ones early): of the tasks a worker holds, the
    ``nthreads`` seen first (then submitted first) are taken as the ones running; the
    clock of a task starts when it is one of them, not while it waits behind a hung one."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.threads: dict[str, int] = dict(client.nthreads())
        self.seen: dict[str, float] = {}
        self.started: dict[str, float] = {}

    def running(self, worker: str, keys: list[str], now: float) -> list[str]:
        """The tasks taken as running on ``worker`` among the ``keys`` it holds."""
        if worker not in self.threads:  # a new worker (a restarted one has a new address)
            self.threads = dict(self.client.nthreads())
        for key in keys:
            self.seen.setdefault(key, now)
        first = sorted(keys, key=lambda k: (self.seen[k], _serial(k)))
        first = first[:max(1, self.threads.get(worker, 1))]
        for key in first:
            self.started.setdefault(key, now)
        return first


def _serial(key: str) -> int:
    """The submission number in a task's key ``gdrcheck-N-...``."""
    return int(key.split("-", 2)[1])


def run_on_cluster(jobs: Sequence[Job], client: Any, on_record: Callable[[Record], None], *,
                   tests: dict[str, A.Test | None] | None = None,
                   kill_after: float | None = None, job_fn: JobFn,
                   chunk: int | None = None, lost_after: float = LOST_AFTER) -> None:
    """Run ``jobs`` on the cluster of ``client``, calling ``on_record`` with each record
    as its chunk finishes. ``chunk``: jobs per task (default :func:`chunk_size` for the
    cluster's worker threads). After ``lost_after`` seconds with no worker in the
    cluster, each job not run yet gets an ``Error`` line and the run ends."""
    tests = tests or {}
    if chunk is None:
        chunk = chunk_size(len(jobs), sum(client.nthreads().values()))
    tasks = _Tasks(client, job_fn)
    for i in range(0, len(jobs), max(1, chunk)):
        tasks.submit(jobs[i:i + max(1, chunk)])
    # results are gathered in the client's own thread as tasks finish, and handed over
    # here in batches: a finished task costs O(1) in this process (waiting on every
    # pending future at each step was quadratic, and one result fetched at a time,
    # synchronously, capped the run's throughput whatever the number of workers)
    clock = _Clock(client)
    workers = _Workers(client, lost_after)
    pending = tasks.pending
    try:
        while pending:
            if workers.lost(time.monotonic()):
                _give_up(tasks, workers.reason(), tests, on_record)
                break
            deadline = time.monotonic() + POLL
            while not tasks.done.has_ready() and time.monotonic() < deadline:
                time.sleep(WAKE)
            ready = tasks.done.next_batch(block=False) if tasks.done.has_ready() else []
            for fut, result in ready:
                # not pending: already dealt with (cancelled as overdue)
                if fut in pending:
                    _finished(tasks, fut, result, pending.pop(fut), tests, on_record)
            if kill_after is not None and pending:
                _kill_overdue(tasks, clock, kill_after, tests, on_record)
    finally:
        if pending:  # interrupted: the jobs not written are redone by a rerun
            client.cancel(list(pending), force=True)


def _give_up(tasks: _Tasks, reason: str, tests: dict[str, A.Test | None],
             on_record: Callable[[Record], None]) -> None:
    """An Error line for each job not run yet (the cluster has no worker)."""
    tasks.client.cancel(list(tasks.pending), force=True)
    for fut in list(tasks.pending):
        for job in tasks.pending.pop(fut):
            on_record(error_record(job, reason, tests.get(job.key)))


def _finished(tasks: _Tasks, fut: Any, result: Any, chunk: list[Job],
              tests: dict[str, A.Test | None], on_record: Callable[[Record], None]) -> None:
    """Record what a task gave; split a chunk that failed."""
    # a value is a success even when the future is no longer "finished": its result
    # was fetched, then the worker holding it died (the future is "lost" by now)
    if not isinstance(result, BaseException) and fut.status != "error":
        records: list[Record | Raised] = result if len(chunk) > 1 else [result]
        for job, rec in zip(chunk, records, strict=True):
            on_record(error_record(job, rec.message, tests.get(job.key))
                      if isinstance(rec, Raised) else rec)
        return
    if len(chunk) > 1:  # a worker died under it, or it failed: one job per task
        tasks.split(chunk)
        return
    (job,) = chunk
    exc = result if isinstance(result, BaseException) else fut.exception()
    if _killed(exc):
        on_record(error_record(job, f"the worker process died running this job ({exc})",
                               tests.get(job.key)))
    else:
        on_record(error_record(job, f"{type(exc).__name__}: {exc}", tests.get(job.key)))


def _restart(client: Any, workers: list[str]) -> None:
    """Kill ``workers`` (their nannies start new ones), waiting at most
    :data:`RESTART_TIMEOUT` seconds for them to go and not at all for the new ones to
    come (``Client.restart_workers`` waits for them: 25 s a worker on a loaded machine,
    during which no record would be written and every other job's clock would run)."""
    client.sync(client.scheduler.restart_workers, workers=workers, timeout=RESTART_TIMEOUT,
                wait_for_workers=False, on_error="return",
                stimulus_id=f"gdrcheck-kill-after-{time.time()}")


def chunk_budget(chunk: Sequence[Job], kill_after: float) -> float:
    """Seconds a task of ``chunk`` may run before it is split (one job: ``kill_after``).

    A chunk past it is cancelled and its jobs run again one per task, each with its own
    ``kill_after``: splitting never changes an answer, it only redoes work, so the budget
    trades that work for the time it takes to find a hung job. A job that is not hung
    answers within its own time limit T (the check's deadline: 1.1 T + 0.5 s measured,
    tests/engine/test_deadline.py); with room for a loaded machine, 2 T + 1 s, and never
    more than ``kill_after``. The budget is ``kill_after`` for the one job that may hang
    plus that bound for each of the others: with the CLI's default ``kill_after = 10 T +
    30``, a chunk of 16 gets 40 T + 45 s instead of 16 (10 T + 30)."""
    bounds = [kill_after if j.options.timeout is None
              else min(kill_after, 2 * j.options.timeout + 1) for j in chunk]
    return kill_after + sum(bounds) - max(bounds)


def _kill_overdue(tasks: _Tasks, clock: _Clock, kill_after: float,
                  tests: dict[str, A.Test | None],
                  on_record: Callable[[Record], None]) -> None:
    """Restart the workers of the tasks running past their time (``kill_after`` per job
    of the task): a single job gives Unknown, a chunk is split."""
    now = time.monotonic()
    pending = tasks.pending
    by_key = {fut.key: fut for fut in pending}
    overdue: list[tuple[Any, str]] = []
    for worker, keys in tasks.client.processing().items():
        for key in clock.running(worker, [k for k in keys if k in by_key], now):
            if now - clock.started[key] > chunk_budget(pending[by_key[key]], kill_after):
                overdue.append((by_key[key], worker))
    if not overdue:
        return
    tasks.client.cancel([fut for fut, _ in overdue], force=True)
    _restart(tasks.client, sorted({w for _, w in overdue}))
    for fut, _ in overdue:
        chunk = pending.pop(fut)
        if len(chunk) > 1:  # after the restart: its jobs go to workers that answer
            tasks.split(chunk)
            continue
        (job,) = chunk
        elapsed = now - clock.started[fut.key]
        reason = (f"no answer after {elapsed:.1f} s: the worker was killed "
                  f"(--kill-after {kill_after:g})")
        test = tests.get(job.key)
        on_record(error_record(job, reason, None, elapsed) if test is None
                  else unknown_record(job, test, reason, elapsed))
