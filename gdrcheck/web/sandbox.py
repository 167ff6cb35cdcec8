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
    says what went wrong (``timeout``, ``crashed``, ``failed``)."""

    status: str
    value: Any = None
    message: str = ""


def _child(conn: Connection, target: Callable[[Any], Any], arg: Any,
           memory_bytes: int | None) -> None:
    if memory_bytes:
        try:
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        except (ValueError, OSError):
            pass
    try:
        value = target(arg)
    except MemoryError:
        conn.send(("failed", "the check ran out of memory"))
    except RecursionError:
        conn.send(("failed", "the test is too large to check (recursion limit)"))
    except Exception as err:  # a bug of the checker: say so, keep serving
        conn.send(("failed", f"internal error: {type(err).__name__}: {err}"))
    else:
        conn.send(("ok", value))
    conn.close()


def run_isolated(target: Callable[[Any], Any], arg: Any, timeout: float,
                 memory_mb: int | None = 4096) -> Outcome:
    """``target(arg)`` in a fresh worker process; ``target`` and the value it returns
    must pickle. Killed after ``timeout`` seconds."""
    recv, send = _CONTEXT.Pipe(duplex=False)
    proc = _CONTEXT.Process(target=_child, daemon=True,
                            args=(send, target, arg,
                                  None if memory_mb is None else memory_mb << 20))
    proc.start()
    send.close()
    try:
        if not recv.poll(timeout):
            proc.kill()
            return Outcome("timeout", message=f"the check took longer than {timeout:g} s "
                           "and was stopped")
        try:
            status, value = recv.recv()
        except EOFError:
            proc.join(5)
            return Outcome("crashed", message="the worker checking the test died "
                           f"(exit code {proc.exitcode})")
        if status == "ok":
            return Outcome("ok", value)
        return Outcome("failed", message=str(value))
    finally:
        recv.close()
        proc.join(5)
        if proc.is_alive():
            proc.kill()
            proc.join(5)


def start_workers(include_dirs: tuple[str, ...] = ()) -> None:
    """Start the fork server now (it loads the models: about a second), not on the
    first request. The ``-I`` directories reach it through the environment; the fork
    server is started once per process, so the first call's directories count."""
    from gdrcheck.web.warm import INCLUDE_ENV

    os.environ[INCLUDE_ENV] = os.pathsep.join(include_dirs)
    run_isolated(int, "0", 120)
