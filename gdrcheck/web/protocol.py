"""uvicorn's HTTP/1.1 protocol with a deadline for receiving a request (issue 25 item 2).

uvicorn has no header or body timeout: ``timeout_keep_alive`` only runs between
requests and is reset by every byte received, so a client that sends a byte now and
then holds its connection for ever, and ``limit_concurrency`` counts such connections:
a few dozen of them made every other request 503. (The same gap, and the same fix: a
protocol class with a deadline for the whole request, in xorbitsai/inference pull
request 5213.) :func:`guarded_h11` makes a subclass of uvicorn's h11 protocol that

- closes a connection that has not sent a complete request (headers and body)
  :attr:`Guard.request_timeout` seconds after it opened or after its last response
  (a keep-alive connection waits again);
- lets one client (an IP address) have at most :attr:`Guard.per_client` connections
  waiting for their request, and all clients :attr:`Guard.waiting`: one more closes
  that client's connection (or anyone's, for the total) that has waited longest, so a
  new connection, which sends its request at once, is served and the idle ones go.

A request being answered (its job running) is not waiting: its deadline is off.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol


@dataclass(frozen=True)
class Guard:
    request_timeout: float = 10.0
    """Seconds a connection has to send its request (headers and body)."""
    per_client: int = 16
    """Connections of one client that may wait for their request at once."""
    waiting: int = 256
    """Connections of all clients that may wait for their request at once."""


def guarded_h11(guard: Guard) -> type[H11Protocol]:
    """A protocol class for ``uvicorn.Config(http=...)``, with its own count of the
    connections waiting (one per server)."""
    waiting: OrderedDict[Any, None] = OrderedDict()
    by_client: dict[str, OrderedDict[Any, None]] = {}

    class GuardedH11(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None
        _armed_cycle: object = None

        def _host(self) -> str:
            return self.client[0] if self.client else "?"

        def _arm(self) -> None:
            self._disarm()
            self._armed_cycle = self.cycle
            self._deadline = self.loop.call_later(guard.request_timeout, self._expired)
            waiting[self] = None
            mine = by_client.setdefault(self._host(), OrderedDict())
            mine[self] = None
            if len(mine) > guard.per_client:
                next(iter(mine))._evict()
            if len(waiting) > guard.waiting:
                next(iter(waiting))._evict()

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None
            waiting.pop(self, None)
            mine = by_client.get(self._host())
            if mine is not None:
                mine.pop(self, None)
                if not mine:
                    del by_client[self._host()]

        def _received(self) -> bool:
            """Whether a request newer than the one armed for came in whole."""
            cycle = self.cycle
            return cycle is not None and cycle is not self._armed_cycle \
                and not cycle.more_body

        def _evict(self) -> None:
            self._disarm()
            if not self.transport.is_closing():
                self.transport.close()

        def _expired(self) -> None:
            self._deadline = None
            if not self._received():
                self._evict()

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self._deadline is not None and self._received():
                self._disarm()

        def on_response_complete(self) -> None:
            if not self.transport.is_closing():
                self._arm()  # before a pipelined request is taken up
            super().on_response_complete()
            if self._deadline is not None and self._received():
                self._disarm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return GuardedH11


LIMIT_CONCURRENCY = 1024
"""uvicorn's ``limit_concurrency`` (connections or requests at once, then 503): far
above what the guard lets wait, so idle connections cannot reach it."""


def server_config(app: Any, host: str, port: int, guard: Guard = Guard(),
                  log_level: str = "warning") -> Any:
    """The ``uvicorn.Config`` of ``gdrcheck serve``: the guarded h11 protocol, keep-alive
    5 s, no proxy headers (a client cannot choose its address for the per-client
    bounds with ``X-Forwarded-For``)."""
    import uvicorn

    return uvicorn.Config(app, host=host, port=port, log_level=log_level,
                          http=guarded_h11(guard), limit_concurrency=LIMIT_CONCURRENCY,
                          timeout_keep_alive=5, proxy_headers=False)
