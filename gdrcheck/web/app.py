"""The Starlette application of ``gdrcheck serve`` (docs/web.md).

Pages: ``/`` (the playground) and ``/static/...`` (its files, package data).
JSON endpoints:

- ``GET /api/models``: every model, its title, what it accepts, its variants;
- ``GET /api/library``: the litmus files the page may load; ``GET /api/library/KEY``:
  one of them, by its key in that list;
- ``POST /api/accepting`` ``{text}``: the models that accept the test;
- ``POST /api/check`` ``{text, models, variants}``: per model the ``gdrcheck.check/2``
  record, the ``gdrcheck.explain/1`` explanation and its text, and the picture's DOT;
- ``POST /api/sweep`` ``{text, models}``: per model the ``gdrcheck sweep`` record.

Safety (docs/web.md): the server binds 127.0.0.1 unless told otherwise
(:mod:`gdrcheck.cli.serve`, which also bounds how long a connection may take to send
its request: :mod:`gdrcheck.web.protocol`); requests must name this host (``Host``: the
bound address, ``localhost`` or ``127.0.0.1``), against DNS rebinding; a POST must be
``Content-Type: application/json`` and, when it says where it comes from (``Origin``,
``Sec-Fetch-Site``), come from this page; a request body over :attr:`Limits.max_body`
bytes is refused (413); models are named from :mod:`gdrcheck.web.served`'s list, never
given by path; every question about a submitted test is a job of
:mod:`gdrcheck.web.scheduler` (per-client bounds, cheap jobs first, dropped when its
client goes) run in a worker process, killed after :attr:`Limits.timeout` seconds
(:mod:`gdrcheck.web.sandbox`); files are read only from the list of
:mod:`gdrcheck.web.library`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from gdrcheck.web import jobs
from gdrcheck.web.library import Library
from gdrcheck.web.sandbox import start_workers
from gdrcheck.web.scheduler import Busy, Lanes, Scheduler, estimate
from gdrcheck.web.served import FILENAME, BadModelName, model_spec, variant_name

STATIC = Path(__file__).resolve().parent / "static"


@dataclass
class Limits:
    max_body: int = 256 * 1024
    """Bytes of a request body (a litmus test is a few kB)."""
    timeout: float = 60.0
    """Seconds a worker may take for one request (every model of one check)."""
    memory_mb: int | None = 4096
    """The worker's address-space limit."""
    workers: int = field(default_factory=lambda: max(1, (os.cpu_count() or 2) - 1))
    """Checks run at once in the slow lane (:mod:`gdrcheck.web.scheduler`); more wait
    their turn."""
    fast_workers: int = 1
    """Checks run at once in the fast lane (cheap ones, each at most
    :attr:`fast_budget` seconds there)."""
    fast_budget: float = 3.0
    per_client: int = 4
    """Jobs one client (IP address) may have queued or running."""
    queued: int = 64
    """Jobs that may wait, of all clients."""


def _error(code: int, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "line": None, "col": None,
                                   "location": ""}, **extra}, status_code=code)


def _foreign(request: Request) -> str | None:
    """Why a POST is not the page's own (None when it is): a body that is not JSON
    (a form or ``text/plain`` POST needs no preflight in a browser), or an ``Origin``
    or ``Sec-Fetch-Site`` header naming another site."""
    ctype = request.headers.get("content-type", "")
    if ctype.split(";")[0].strip().lower() != "application/json":
        return "the body must be JSON (Content-Type: application/json)"
    origin = request.headers.get("origin")
    if origin is not None:
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or \
                parts.netloc.lower() != request.headers.get("host", "").lower():
            return "a request from another site (Origin) is refused"
    site = request.headers.get("sec-fetch-site")
    if site is not None and site.lower() not in ("same-origin", "none"):
        return "a request from another site (Sec-Fetch-Site) is refused"
    return None


async def _gone(request: Request) -> None:
    """Returns when the client has gone (its connection closed)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


class TooLarge(Exception):
    pass


async def _body_json(request: Request, limit: int) -> dict[str, Any]:
    """The JSON object of the request's body, read up to ``limit`` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise TooLarge
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLarge
        chunks.append(chunk)
    data = json.loads(b"".join(chunks) or b"{}")
    if not isinstance(data, dict):
        raise ValueError("the body must be a JSON object")
    return data


def _strings(value: object) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("models and variants must be lists of strings")
    return value


def create_app(include_dirs: Sequence[str] = (), limits: Limits | None = None,
               hosts: Sequence[str] = ("127.0.0.1",), library: Library | None = None
               ) -> Starlette:
    """The application; ``include_dirs``: the ``-I`` directories (models searched
    first, and their litmus files listed); ``hosts``: the names requests may use."""
    lim = limits or Limits()
    dirs = tuple(str(d) for d in include_dirs)
    lib = library or Library(dirs)
    catalogue = jobs.models_catalogue(dirs)
    served = {m["name"] for m in catalogue}
    start_workers(dirs)
    scheduler = Scheduler(Lanes(slow=lim.workers, fast=lim.fast_workers,
                                budget=lim.fast_budget, per_client=lim.per_client,
                                queued=lim.queued), lim.timeout, lim.memory_mb)

    async def isolated(request: Request, kind: str,
                       target: Callable[[dict[str, Any]], dict[str, Any]],
                       req: dict[str, Any]) -> Response:
        client = request.client.host if request.client else "?"
        cost = estimate(kind, req["text"], len(req["models"]))
        job = asyncio.ensure_future(scheduler.run(client, cost, target, req))
        gone = asyncio.ensure_future(_gone(request))
        try:
            await asyncio.wait({job, gone}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            gone.cancel()
            if not job.done():  # the client went away: its job is dropped
                job.cancel()
            with contextlib.suppress(asyncio.CancelledError, Busy):
                await job
        if job.cancelled():
            return Response(status_code=499)  # nobody reads it
        try:
            out = job.result()
        except Busy as busy:
            return _error(busy.status, busy.message, status="busy")
        if out.status == "ok":
            return JSONResponse(out.value)
        if out.detail:
            print(f"gdrcheck serve: a worker failed: {out.detail}", file=sys.stderr)
        code = 504 if out.status == "timeout" else 500
        return JSONResponse({"error": {"message": out.message, "line": None, "col": None,
                                       "location": FILENAME}, "status": out.status},
                            status_code=code)

    def question(kind: str, target: Callable[[dict[str, Any]], dict[str, Any]]
                 ) -> Callable[[Request], Any]:
        async def endpoint(request: Request) -> Response:
            refused = _foreign(request)
            if refused is not None:
                return _error(403 if "another site" in refused else 415, refused)
            try:
                body = await _body_json(request, lim.max_body)
                text = body.get("text", "")
                if not isinstance(text, str):
                    raise ValueError("text must be a string")
                models = _strings(body.get("models"))
                for m in models:
                    model_spec(m, served)
                variants = [variant_name(v) for v in _strings(body.get("variants"))]
                liveness = body.get("liveness", False)
                if not isinstance(liveness, bool):
                    raise ValueError("liveness must be true or false")
                req = {"text": text, "models": models, "variants": variants,
                       "include_dirs": dirs, "liveness": liveness}
            except TooLarge:
                return _error(413, f"the request is larger than {lim.max_body} bytes")
            except ClientDisconnect:
                return Response(status_code=499)
            except BadModelName as err:
                return _error(400, f"bad request: {err}")
            except ValueError as err:  # json.JSONDecodeError is one
                return _error(400, f"bad request: {err}")
            return await isolated(request, kind, target, req)
        return endpoint

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def models(request: Request) -> Response:
        return JSONResponse({"models": catalogue})

    async def library_list(request: Request) -> Response:
        return JSONResponse({"tests": lib.listing()})

    async def library_file(request: Request) -> Response:
        key = request.path_params["key"]
        text = lib.text(key)
        if text is None:
            return JSONResponse({"error": {"message": f"no library test '{key}'"}},
                                status_code=404)
        return JSONResponse({"id": key, "text": text})

    allowed = list(dict.fromkeys([*hosts, "127.0.0.1", "localhost", "testserver"]))
    if "0.0.0.0" in hosts or "::" in hosts:
        allowed = ["*"]
    routes = [
        Route("/", index),
        Route("/api/models", models),
        Route("/api/library", library_list),
        Route("/api/library/{key:path}", library_file),
        Route("/api/accepting", question("accepting", jobs.accepting_job), methods=["POST"]),
        Route("/api/check", question("check", jobs.check_job), methods=["POST"]),
        Route("/api/sweep", question("sweep", jobs.sweep_job), methods=["POST"]),
        Route("/api/fix", question("fix", jobs.fix_job), methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes,
                    middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=allowed)])
    app.state.scheduler = scheduler  # its counts, for the tests
    return app
