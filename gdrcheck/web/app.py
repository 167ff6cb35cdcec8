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

Safety: the server binds 127.0.0.1 unless told otherwise (:mod:`gdrcheck.cli.serve`);
a request body over :attr:`Limits.max_body` bytes is refused (413); every question
about a submitted test runs in a worker process, killed after :attr:`Limits.timeout`
seconds (:mod:`gdrcheck.web.sandbox`), at most :attr:`Limits.workers` at once; files
are read only from the list of :mod:`gdrcheck.web.library`; requests must name this
host (``Host``: the bound address, ``localhost`` or ``127.0.0.1``), against DNS
rebinding.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from gdrcheck.web import jobs
from gdrcheck.web.library import Library
from gdrcheck.web.sandbox import run_isolated, start_workers

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
    """Checks run at once; more wait their turn."""


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
    start_workers(dirs)
    gate = asyncio.Semaphore(lim.workers)

    async def isolated(target: Callable[[dict[str, Any]], dict[str, Any]],
                       req: dict[str, Any]) -> Response:
        async with gate:
            out = await run_in_threadpool(run_isolated, target, req, lim.timeout,
                                          lim.memory_mb)
        if out.status == "ok":
            return JSONResponse(out.value)
        code = 504 if out.status == "timeout" else 500
        return JSONResponse({"error": {"message": out.message, "line": None, "col": None,
                                       "location": jobs.FILENAME}, "status": out.status},
                            status_code=code)

    def question(target: Callable[[dict[str, Any]], dict[str, Any]]
                 ) -> Callable[[Request], Any]:
        async def endpoint(request: Request) -> Response:
            try:
                body = await _body_json(request, lim.max_body)
                text = body.get("text", "")
                if not isinstance(text, str):
                    raise ValueError("text must be a string")
                req = {"text": text, "models": _strings(body.get("models")),
                       "variants": _strings(body.get("variants")), "include_dirs": dirs}
            except TooLarge:
                return JSONResponse({"error": {
                    "message": f"the request is larger than {lim.max_body} bytes",
                    "line": None, "col": None, "location": ""}}, status_code=413)
            except ValueError as err:  # json.JSONDecodeError is one
                return JSONResponse({"error": {"message": f"bad request: {err}", "line": None,
                                               "col": None, "location": ""}},
                                    status_code=400)
            return await isolated(target, req)
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
        Route("/api/accepting", question(jobs.accepting_job), methods=["POST"]),
        Route("/api/check", question(jobs.check_job), methods=["POST"]),
        Route("/api/sweep", question(jobs.sweep_job), methods=["POST"]),
        Route("/api/fix", question(jobs.fix_job), methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes,
                     middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=allowed)])
