"""Hostile clients of a running playground (tests/web/server.py), for the tests of
issue 25 items 2 and 3. Each hostile client has an address of its own on the loopback
network (127.0.0.2, 127.0.0.3, ...: Linux answers all of 127/8), so the per-client
bounds see them as different clients."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx


def address(i: int) -> str:
    """The loopback address of hostile client ``i`` (0, 1, ...)."""
    return f"127.0.{2 + i // 250}.{2 + i % 250}"


def post_bytes(url: str, path: str, body: dict[str, object]) -> bytes:
    host = urlsplit(url).netloc
    data = json.dumps(body).encode()
    return (f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n\r\n").encode() + data


def send_and_leave_open(url: str, source: str, request: bytes) -> socket.socket:
    """A connection from ``source`` that sends ``request`` whole and reads nothing;
    closing the socket is the client going away."""
    parts = urlsplit(url)
    s = socket.socket()
    s.bind((source, 0))
    s.connect((parts.hostname, parts.port))
    s.sendall(request)
    return s


def timed_get(url: str, path: str, timeout: float = 30.0) -> tuple[int, float]:
    """(status, seconds) of a normal request on a new connection."""
    t0 = time.monotonic()
    try:
        r = httpx.get(url + path, timeout=timeout)
        status = r.status_code
    except httpx.HTTPError:
        status = 0
    return status, time.monotonic() - t0


def timed_post(url: str, path: str, body: dict[str, object], timeout: float = 60.0
               ) -> tuple[int, float, dict[str, object]]:
    t0 = time.monotonic()
    r = httpx.post(url + path, json=body, timeout=timeout)
    return r.status_code, time.monotonic() - t0, r.json()


@dataclass
class Slowloris:
    """``per_source`` connections from each of ``sources`` that send a request's
    header (``body``: its header whole, then its body) a byte every ``interval``
    seconds, never finishing it; a connection the server closes is opened again at
    once (as the attack does)."""

    url: str
    sources: list[str]
    per_source: int
    interval: float = 0.5
    body: bool = False
    opened: int = 0
    lifetimes: list[float] = field(default_factory=list)
    """Seconds each connection the server closed had lived."""
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def __enter__(self) -> Slowloris:
        ready = threading.Event()
        self._thread = threading.Thread(target=asyncio.run, args=(self._main(ready),),
                                        daemon=True)
        self._thread.start()
        ready.wait(30)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(30)

    async def _main(self, ready: threading.Event) -> None:
        conns = [asyncio.create_task(self._one(src)) for src in self.sources
                 for _ in range(self.per_source)]
        while self.opened < len(conns):
            await asyncio.sleep(0.05)
        ready.set()
        while not self._stop.is_set():
            await asyncio.sleep(0.1)
        for c in conns:
            c.cancel()
        await asyncio.gather(*conns, return_exceptions=True)

    async def _one(self, source: str) -> None:
        parts = urlsplit(self.url)
        head = (f"POST /api/check HTTP/1.1\r\nHost: {parts.netloc}\r\n"
                "Content-Type: application/json\r\nX-Slow: ").encode()
        if self.body:
            head = (f"POST /api/check HTTP/1.1\r\nHost: {parts.netloc}\r\n"
                    "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
                    '{"text": "').encode()
        while not self._stop.is_set():
            try:
                reader, writer = await asyncio.open_connection(
                    parts.hostname, parts.port, local_addr=(source, 0))
            except OSError:
                await asyncio.sleep(self.interval)
                continue
            self.opened += 1
            t0 = time.monotonic()
            sent = 0
            closed = False
            try:
                while not self._stop.is_set():
                    if self.body and sent == 0:
                        writer.write(head)  # the header at once, then the body slowly
                        sent = len(head)
                    else:
                        writer.write(head[sent:sent + 1] if sent < len(head) else b"a")
                        sent += 1
                    await writer.drain()
                    try:
                        data = await asyncio.wait_for(reader.read(1024), self.interval)
                    except TimeoutError:
                        continue
                    if not data or data.startswith(b"HTTP/"):
                        closed = True  # closed (or answered) by the server
                        break
            except OSError:
                closed = True
            finally:
                writer.close()
            if closed:
                self.lifetimes.append(time.monotonic() - t0)
