"""gdrcheck serve against hostile requests (issue 25 items 1 and 4): models by name
only, inside specs/ and the -I directories, errors that name no server path and quote
no file outside them; POSTs only as JSON from the page's own origin."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed "
                    "(pip install 'gdrcheck[web]')")
pytest.importorskip("httpx", reason="Starlette's test client needs httpx")

with warnings.catch_warnings():  # Starlette 1.x asks for httpx2 over httpx
    warnings.simplefilter("ignore", DeprecationWarning)
    from starlette.testclient import TestClient  # noqa: E402

from gdrcheck.web.app import Limits, create_app  # noqa: E402
from gdrcheck.web.served import served_models  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SB = (ROOT / "litmus" / "classic" / "SB.litmus").read_text()
SECRET = "root:$6$SECRETHASH:19000:0:99999:7:::\n"
"""What /etc/shadow looks like: its first character in an error was the leak."""


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(limits=Limits(timeout=60, workers=1)))


def _no_leak(text: str, *secrets: str) -> None:
    for s in (str(ROOT), "/etc/", "SECRET", *secrets):
        assert s not in text, (s, text)


def test_a_model_is_named_never_given_by_a_path(client: TestClient, tmp_path: Path) -> None:
    shadow = tmp_path / "shadow"
    shadow.write_text(SECRET)
    evil = tmp_path / "evil.cat"
    evil.write_text('"evil"\ninclude "../../../../../../etc/passwd"\nacyclic po as x\n')
    probes = [str(shadow), "/etc/shadow", "/etc/passwd", "../../etc/passwd",
              "specs/../../etc/passwd", str(evil), str(tmp_path / "missing.cat"),
              "..", ".", "sc/../sc", "sc\\..\\x", "sc+../../x", "x86tso\x00", "~root",
              str(ROOT / "specs" / "sc.cat")]
    answers = set()
    for model in probes:
        for endpoint in ("/api/check", "/api/sweep", "/api/fix"):
            r = client.post(endpoint, json={"text": SB, "models": [model]})
            assert r.status_code == 400, (model, endpoint, r.text)
            _no_leak(r.text, str(tmp_path))
            answers.add(r.json()["error"]["message"])
    # one answer for a file that exists and one that does not: no existence oracle
    assert len(answers) == 1, answers
    r = client.post("/api/check", json={"text": SB, "models": ["sc"],
                                        "variants": ["../../etc/passwd"]})
    assert r.status_code == 400
    # a name that is no served model: refused, by the name the client gave
    for name in ("nosuch", "sc.cat"):
        r = client.post("/api/check", json={"text": SB, "models": [name]})
        assert r.status_code == 400 and f"no model '{name}'" in r.json()["error"]["message"]


def _include_dir(tmp_path: Path) -> tuple[Path, Path]:
    """An -I directory with models that lead outside it, and the secrets they reach."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "shadow").write_text(SECRET)
    # a valid model outside: served only through a link or an include, both refused
    (outside / "fine.cat").write_text('"fine"\n(* @accepts: X86 *)\nacyclic po | rf as '
                                      'SECRETFINE\n')
    (outside / "frag.cat").write_text("let SECRETFRAG = po\n")
    inc = tmp_path / "mine"
    inc.mkdir()
    (inc / "linked.cat").symlink_to(outside / "fine.cat")
    (inc / "shadowlink.cat").symlink_to(outside / "shadow")
    (inc / "passwd.cat").write_text('"passwd"\n(* @accepts: X86 *)\n'
                                    'include "../../../../../../../../etc/passwd"\n'
                                    "acyclic po as x\n")
    (inc / "absolute.cat").write_text(f'"absolute"\n(* @accepts: X86 *)\n'
                                      f'include "{outside / "frag.cat"}"\nacyclic po as x\n')
    (inc / "dotdot.cat").write_text('"dotdot"\n(* @accepts: X86 *)\n'
                                    'include "../outside/frag.cat"\nacyclic po as x\n')
    # a model of its own, with an error only a check finds: named by its -I place
    (inc / "undef.cat").write_text('"undef"\n(* @accepts: X86 *)\nacyclic po | nosuchrel '
                                   "as x\n")
    (inc / "ok.cat").write_text('"ok"\n(* @accepts: X86 *)\nacyclic po | rf | co | fr '
                                "as sc\n")
    return inc, outside


def test_models_that_lead_outside_the_directories_are_not_served(tmp_path: Path) -> None:
    inc, outside = _include_dir(tmp_path)
    served = served_models((str(inc),))
    assert {"ok", "undef", "sc"} <= set(served)
    assert not {"linked", "shadowlink", "passwd", "absolute", "dotdot"} & set(served)
    c = TestClient(create_app([str(inc)], Limits(timeout=60, workers=1)))
    names = {m["name"] for m in c.get("/api/models").json()["models"]}
    assert names == set(served)
    for model in ("linked", "shadowlink", "passwd", "absolute", "dotdot"):
        r = c.post("/api/check", json={"text": SB, "models": [model]})
        assert r.status_code == 400, r.text
        _no_leak(r.text, str(tmp_path), "SECRETFINE", "SECRETFRAG", "root:")
    # every served model that accepts SB by default, none of the refused ones
    r = c.post("/api/check", json={"text": SB})
    assert r.status_code == 200
    ran = {x["model"] for x in r.json()["results"]}
    assert "ok" in ran and not {"linked", "passwd", "absolute", "dotdot"} & ran
    _no_leak(r.text, str(tmp_path), "SECRETFINE", "SECRETFRAG")
    acc = c.post("/api/accepting", json={"text": SB}).json()["models"]
    assert "ok" in acc and "linked" not in acc
    # the served model's own error: at its -I place, not at a server path
    (res,) = c.post("/api/check", json={"text": SB, "models": ["undef"]}).json()["results"]
    err = res["error"]
    assert err["location"].startswith("-I mine/undef.cat"), err
    assert err["line"] is None  # a place in the model, not in the editor's test
    _no_leak(json.dumps(res), str(tmp_path))
    # a test whose Expect= names a model that is not served (it reads a file outside)
    for name in ("passwd", "shadowlink", "linked"):
        text = SB.replace("X86 SB", f"X86 SB\nExpect={name}:Allowed")
        r = c.post("/api/check", json={"text": text, "models": ["ok"]})
        _no_leak(r.text, str(tmp_path), "SECRETFINE", "root:")


def test_internal_errors_name_no_server_path(monkeypatch: pytest.MonkeyPatch) -> None:
    from gdrcheck.web import jobs
    from tests.web import hostile

    monkeypatch.setattr(jobs, "check_job", hostile.read_missing)
    c = TestClient(create_app(limits=Limits(timeout=60, workers=1)))
    r = c.post("/api/check", json={"text": SB})
    assert r.status_code == 500 and r.json()["status"] == "failed"
    assert "FileNotFoundError" in r.json()["error"]["message"]
    _no_leak(r.text, hostile.MISSING)


def test_only_json_from_this_page_is_accepted(client: TestClient) -> None:
    body = json.dumps({"text": SB, "models": ["sc"]})
    # what a page of another site can send with no preflight: refused
    for ctype in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data",
                  "text/plain; charset=utf-8", None):
        headers = {} if ctype is None else {"content-type": ctype}
        r = client.post("/api/check", content=body, headers=headers)
        assert r.status_code == 415, (ctype, r.status_code)
    for headers in ({"origin": "http://evil.example"}, {"origin": "null"},
                    {"origin": "http://testserver.evil.example"},
                    {"origin": "http://testserver:9999"},
                    {"sec-fetch-site": "cross-site"}, {"sec-fetch-site": "same-site"}):
        r = client.post("/api/check", content=body,
                        headers={"content-type": "application/json", **headers})
        assert r.status_code == 403, (headers, r.status_code)
    # the page's own: its origin, or no Origin at all (curl, the CLI's users)
    for headers in ({"origin": "http://testserver", "sec-fetch-site": "same-origin"},
                    {"content-type": "application/json; charset=utf-8"}, {}):
        r = client.post("/api/check", content=body,
                        headers={"content-type": "application/json", **headers})
        assert r.status_code == 200, (headers, r.text)
