"""Which request's job runs next, and when one is given up (issue 25 item 3).

Every question about a submitted test is a *job* run in a worker process
(:mod:`gdrcheck.web.sandbox`). The scheduler keeps them so that a flood of expensive
or abandoned requests cannot keep a normal one waiting:

- **two lanes**: a *fast* lane of :attr:`Lanes.fast` workers for jobs whose estimated
  cost (:func:`estimate`: the test's size times its models, from the request's text,
  without parsing it) is at most :attr:`Lanes.small`, and a *slow* lane of
  :attr:`Lanes.slow` workers for every job, whose processes run at a lower CPU priority
  (``nice`` 10). A fast-lane job still running after :attr:`Lanes.budget` seconds is
  stopped and queued for the slow lane (with the rest of its time): an estimate that
  was wrong costs the fast lane at most that long;
- **fair order**: the next job is that of the client with the fewest jobs queued or
  running, then the cheapest, then the oldest;
- **per-client bound**: a client (an IP address) has at most :attr:`Lanes.per_client`
  jobs queued or running (:class:`Busy`, answered 429), and at most :attr:`Lanes.queued`
  jobs wait in all (503);
- **cancel**: a job whose caller is cancelled (its client went away: the app cancels
  it) leaves the queue, or its worker is killed.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.concurrency import run_in_threadpool

from gdrcheck.web.sandbox import Outcome, Worker

SLOW_NICE = 10
"""The CPU priority of the slow lane's workers (``nice``): a fast-lane job running at
the same time gets most of a core."""

KIND_WEIGHT = {"accepting": 1, "check": 2, "sweep": 8, "fix": 8}
"""How much more one model costs in each kind of job than in a check (a sweep checks
every combination of variants, a fix many candidate tests)."""

DEFAULT_MODELS = 4
"""The models a request that names none is counted for (its test's accepting ones)."""


def estimate(kind: str, text: str, models: int) -> int:
    """The cost of a job, from the request alone: the test's size (its lines plus its
    ``|`` cells: about its instructions) times its models times the kind's weight."""
    size = sum(1 for line in text.splitlines() if line.strip()) + text.count("|")
    return size * max(models or DEFAULT_MODELS, 1) * KIND_WEIGHT.get(kind, 8)


@dataclass
class Lanes:
    slow: int = 1
    """Workers of the slow lane (every job may run there)."""
    fast: int = 1
    """Workers of the fast lane (jobs estimated at most :attr:`small`)."""
    small: int = 2000
    """The largest estimate of a fast-lane job (SB under 4 models: ~100; every library
    test under its accepting models is far below)."""
    budget: float = 3.0
    """Seconds a job may run in the fast lane before it is moved to the slow one."""
    per_client: int = 4
    """Jobs one client may have queued or running."""
    queued: int = 64
    """Jobs that may wait, of all clients."""


class Busy(Exception):
    """Refused before it is queued: ``status`` 429 (this client has too many jobs) or
    503 (the queue is full)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(eq=False)
class _Job:
    client: str
    cost: int
    target: Callable[[dict[str, Any]], dict[str, Any]]
    req: dict[str, Any]
    timeout: float
    seq: int
    done: asyncio.Future[Outcome]
    small: bool
    worker: Worker | None = None
    cancelled: bool = False
    used: float = 0.0
    """Seconds it ran in the fast lane before it was moved."""
    lane: str = field(default="")


class Scheduler:
    def __init__(self, lanes: Lanes, timeout: float, memory_mb: int | None) -> None:
        self.lanes = lanes
        self.timeout = timeout
        self.memory_mb = memory_mb
        self._waiting: list[_Job] = []
        self._running: list[_Job] = []
        self._seq = itertools.count()
        self._tasks: set[asyncio.Task[None]] = set()

    def _clients(self, jobs: list[_Job]) -> Counter[str]:
        return Counter(j.client for j in jobs)

    async def run(self, client: str, cost: int,
                  target: Callable[[dict[str, Any]], dict[str, Any]],
                  req: dict[str, Any]) -> Outcome:
        """``target(req)`` in a worker when its turn comes. Raises :class:`Busy`; when
        cancelled, the job is dropped (or its worker killed)."""
        mine = sum(1 for j in (*self._waiting, *self._running) if j.client == client)
        if mine >= self.lanes.per_client:
            raise Busy(429, f"this client has {mine} checks queued or running already "
                       f"(at most {self.lanes.per_client}); wait for their answers")
        if len(self._waiting) >= self.lanes.queued:
            raise Busy(503, f"{len(self._waiting)} checks are waiting; try again later")
        job = _Job(client, cost, target, req, self.timeout, next(self._seq),
                   asyncio.get_running_loop().create_future(),
                   small=cost <= self.lanes.small)
        self._waiting.append(job)
        self._dispatch()
        try:
            return await asyncio.shield(job.done)
        except asyncio.CancelledError:
            self._cancel(job)
            raise

    def _cancel(self, job: _Job) -> None:
        job.cancelled = True
        if job in self._waiting:
            self._waiting.remove(job)
        elif job.worker is not None:
            job.worker.kill()

    def _next(self, lane: str) -> _Job | None:
        """The waiting job to start in ``lane``: the client with the fewest jobs
        queued or running first, then the cheapest, then the oldest."""
        fits = [j for j in self._waiting if lane == "slow" or (j.small and not j.used)]
        if not fits:
            return None
        load = self._clients([*self._waiting, *self._running])
        return min(fits, key=lambda j: (load[j.client], j.cost, j.seq))

    def _dispatch(self) -> None:
        for lane, size in (("fast", self.lanes.fast), ("slow", self.lanes.slow)):
            while sum(1 for j in self._running if j.lane == lane) < size:
                job = self._next(lane)
                if job is None:
                    break
                self._waiting.remove(job)
                job.lane = lane
                self._running.append(job)
                task = asyncio.get_running_loop().create_task(self._start(job))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

    async def _start(self, job: _Job) -> None:
        fast = job.lane == "fast"
        left = job.timeout - job.used
        limit = min(left, self.lanes.budget) if fast else left
        t0 = time.monotonic()
        try:
            out = await run_in_threadpool(self._work, job, limit,
                                          0 if fast else SLOW_NICE)
        except asyncio.CancelledError:  # the server stops
            self._cancel(job)
            raise
        except Exception as err:  # a bug here: the caller must hear of it
            out = Outcome("failed", message="internal error: the scheduler",
                          detail=repr(err))
        finally:
            self._running.remove(job)
        if fast and out.status == "timeout" and limit < left and not job.cancelled:
            job.used += time.monotonic() - t0
            job.worker = None
            self._waiting.append(job)  # the slow lane's, with the time it has left
        elif not job.done.done():
            if out.status == "timeout":
                out = Outcome("timeout", message=f"the check took longer than "
                              f"{job.timeout:g} s and was stopped")
            job.done.set_result(out)
        self._dispatch()

    def _work(self, job: _Job, limit: float, nice: int) -> Outcome:
        """In a thread: the job's worker, started and waited for."""
        if job.cancelled:
            return Outcome("cancelled", message="the check was stopped")
        job.worker = Worker(job.target, job.req, self.memory_mb, nice)
        if job.cancelled:
            job.worker.kill()
        return job.worker.wait(limit)

    def counts(self) -> dict[str, int]:
        """Jobs waiting and running (for tests and the log)."""
        return {"waiting": len(self._waiting), "running": len(self._running)}
