"""The fuzz targets (issue 25 item 9): one function per parser, each taking the bytes of
one input, as OSS-Fuzz's Python targets do (atheris). A target returns normally for any
input gdrcheck accepts or refuses properly (an :class:`~gdrcheck.errors.InputError`, a
web answer below 500); anything else it raises is a crash.

- ``litmus``: :func:`gdrcheck.litmus.parse_litmus`, and every test that parses printed
  and parsed again (the round trip must parse);
- ``cat``: :func:`gdrcheck.cat.parser.parse_cat` on the text, then the loader
  (:func:`gdrcheck.cat.loader.load_model`) on the bytes written as a model file in a
  directory of its own, an ``include`` of the shipped models allowed;
- ``results``: :func:`gdrcheck.batch.results.read_results`, the results reader of
  ``gdrcheck run`` (read only), on the bytes written as a results file;
- ``web``: the request bodies of the playground's four POST endpoints, through the
  Starlette application (its validation; the checks behind it are stubbed: they are
  the litmus target's).

Run by ``tests/fuzz/run.py`` (atheris) and replayed by ``tests/fuzz/test_fuzz_targets.py``.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gdrcheck.errors import InputError

CORPUS = Path(__file__).with_name("corpus")
"""The seed corpus, one directory per target."""

_TMP = Path(tempfile.mkdtemp(prefix="gdrcheck-fuzz-"))


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def fuzz_litmus(data: bytes) -> None:
    from gdrcheck.litmus import parse_litmus, print_litmus

    try:
        test = parse_litmus(_text(data), "fuzz.litmus")
    except InputError:
        return
    parse_litmus(print_litmus(test), "printed.litmus")  # what the printer writes parses


def fuzz_cat(data: bytes) -> None:
    from gdrcheck.cat.loader import load_model
    from gdrcheck.cat.parser import parse_cat

    try:
        parse_cat(_text(data), "fuzz.cat")
    except InputError:
        pass
    d = _TMP / "models"
    d.mkdir(exist_ok=True)
    (d / "fuzz.cat").write_bytes(data)
    try:
        load_model("fuzz", [str(d)])
    except InputError:
        pass


def fuzz_results(data: bytes) -> None:
    from gdrcheck.batch.results import NotResults, read_results

    path = _TMP / "results.jsonl"
    path.write_bytes(data)
    try:
        read_results(path)
    except (InputError, NotResults):  # a file that is not a results file is refused
        pass


_ENDPOINTS = ("/api/check", "/api/sweep", "/api/fix", "/api/accepting")
_CLIENT: Any = None


def _web_client() -> Any:
    """One Starlette test client of the application, its workers stubbed: no fork server
    is started and no check runs (each request's validation is what is fuzzed)."""
    global _CLIENT
    if _CLIENT is None:
        from starlette.testclient import TestClient

        import gdrcheck.web.app as app_module
        from gdrcheck.web.sandbox import Outcome

        def answered(target: Callable[..., Any], req: Any, *args: Any, **kw: Any) -> Any:
            return Outcome("ok", {"validated": sorted(req) if isinstance(req, dict) else []})

        for name, stub in (("run_isolated", answered), ("start_workers", lambda *a: None)):
            if hasattr(app_module, name):
                setattr(app_module, name, stub)
        _CLIENT = TestClient(app_module.create_app(), raise_server_exceptions=True)
    return _CLIENT


def fuzz_web(data: bytes) -> None:
    if not data:
        return
    client = _web_client()
    endpoint = _ENDPOINTS[data[0] % len(_ENDPOINTS)]
    r = client.post(endpoint, content=data[1:], headers={
        "content-type": "application/json", "origin": "http://testserver"})
    if r.status_code >= 500:
        raise AssertionError(f"{endpoint} answered {r.status_code}: {r.text[:200]}")


TARGETS: dict[str, Callable[[bytes], None]] = {
    "litmus": fuzz_litmus,
    "cat": fuzz_cat,
    "results": fuzz_results,
    "web": fuzz_web,
}


def warm(name: str) -> None:
    """Do once what the first input of target ``name`` would otherwise pay for: build
    the parsers, load the shipped models, start the web application (15 s on a loaded
    machine: a slow unit that is no input's)."""
    if name == "web":
        _web_client()
    else:
        TARGETS[name](b"")


def corpus(name: str) -> list[Path]:
    """The seed files of target ``name``, sorted."""
    return sorted(p for p in (CORPUS / name).iterdir() if p.is_file())
