"""A real uvicorn server of the playground in a thread, on a free port (for the
browser test and the screenshots)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from starlette.applications import Starlette

from gdrcheck.web.app import Limits, create_app
from gdrcheck.web.protocol import Guard, server_config


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def running_server(limits: Limits | None = None, guard: Guard | None = None,
                   app: Starlette | None = None) -> Iterator[str]:
    """The server as ``gdrcheck serve`` runs it (gdrcheck/web/protocol.py's config), of
    ``app`` or a new application with ``limits``."""
    port = free_port()
    config = server_config(app or create_app(limits=limits), "127.0.0.1", port,
                           guard or Guard())
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
