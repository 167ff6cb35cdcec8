"""Each check in a worker process of its own, killed when it runs past its time.

A hostile test can neither hang the server (the worker is killed at the timeout) nor
crash it (a worker that dies, of a segfault, a stack overflow or the memory limit, is
reported as such; the server goes on). Workers are forked from a fork server that has
imported gdrcheck already (``multiprocessing``'s ``forkserver`` start method, with
:mod:`gdrcheck.web.warm` preloaded: the models parsed), so a check starts in
milliseconds, and never from the server itself (its threads and its event loop stay
out of the child).
"""

from __future__ import annotations

import multiprocessing
import os
import resource
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

_CONTEXT = multiprocessing.get_context("forkserver")
_CONTEXT.set_forkserver_preload(["gdrcheck.web.warm"])


@dataclass
class Outcome:
    """What a worker gave back: ``value`` when ``status`` is ``ok``; else ``message``
    says what went wrong (``timeout``, ``crashed``, ``failed``, ``cancelled``), in words
    a client may see; ``detail``: the exception of a ``failed`` worker, for the server's
    log only (it may name server paths)."""

    status: str
    value: Any = None
    message: str = ""
    detail: str = ""


def _child(conn: Connection, target: Callable[[Any], Any], arg: Any,
           memory_bytes: int | None, nice: int) -> None:
    if memory_bytes:
        try:
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        except (ValueError, OSError):
            pass
    if nice:
        try:
            os.nice(nice)
        except OSError:
            pass
    try:
        value = target(arg)
    except MemoryError:
        conn.send(("failed", ("the check ran out of memory", "")))
    except RecursionError:
        conn.send(("failed", ("the test is too large to check (recursion limit)", "")))
    except Exception as err:  # a bug of the checker: say so, keep serving
        conn.send(("failed", (f"internal error: {type(err).__name__}",
                              f"{type(err).__name__}: {err}")))
    else:
        conn.send(("ok", value))
    conn.close()


class Worker:
    """One job in a process of its own: :meth:`wait` for its outcome (blocking, from
    a thread), :meth:`kill` it from anywhere (then :meth:`wait` answers ``cancelled``).
    """

    def __init__(self, target: Callable[[Any], Any], arg: Any,
                 memory_mb: int | None = 4096, nice: int = 0) -> None:
        self._recv, send = _CONTEXT.Pipe(duplex=False)
        self._proc = _CONTEXT.Process(target=_child, daemon=True,
                                      args=(send, target, arg,
                                            None if memory_mb is None else memory_mb << 20,
                                            nice))
        self._proc.start()
        send.close()
        self.killed = False

    def kill(self) -> None:
        self.killed = True
        if self._proc.is_alive():
            self._proc.kill()

    def wait(self, timeout: float) -> Outcome:
        """The outcome; the worker is killed after ``timeout`` seconds."""
        try:
            if not self._recv.poll(timeout):
                self.kill()
                return Outcome("timeout", message=f"the check took longer than "
                               f"{timeout:g} s and was stopped")
            try:
                status, value = self._recv.recv()
            except (EOFError, OSError):
                self._proc.join(5)
                if self.killed:
                    return Outcome("cancelled", message="the check was stopped")
                return Outcome("crashed", message="the worker checking the test died "
                               f"(exit code {self._proc.exitcode})")
            if status == "ok":
                return Outcome("ok", value)
            message, detail = value
            return Outcome("failed", message=message, detail=detail)
        finally:
            self._recv.close()
            self._proc.join(5)
            if self._proc.is_alive():
                self._proc.kill()
                self._proc.join(5)


def run_isolated(target: Callable[[Any], Any], arg: Any, timeout: float,
                 memory_mb: int | None = 4096) -> Outcome:
    """``target(arg)`` in a fresh worker process; ``target`` and the value it returns
    must pickle. Killed after ``timeout`` seconds."""
    return Worker(target, arg, memory_mb).wait(timeout)


def start_workers(include_dirs: tuple[str, ...] = ()) -> None:
    """Start the fork server now (it loads the models: about a second), not on the
    first request. The ``-I`` directories reach it through the environment; the fork
    server is started once per process, so the first call's directories count."""
    from gdrcheck.web.warm import INCLUDE_ENV

    os.environ[INCLUDE_ENV] = os.pathsep.join(include_dirs)
    run_isolated(int, "0", 120)
