"""The worker pool of ``gdrcheck run``: separate processes (``forkserver`` where
available, else ``spawn``), one job at a time each; a worker that dies gives an
``Error`` line for its job and is replaced, one that runs past ``kill_after`` is killed
and its job gives ``Unknown``. ``workers=0`` runs the jobs in the calling process."""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gdrcheck.batch.jobs import Job, JobFn, Record, error_record, execute, unknown_record
from gdrcheck.litmus import ast as A


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


def _context() -> Any:
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["gdrcheck.batch.jobs", "gdrcheck.analysis.check"])
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
