"""The playground's liveness toggle (issue 27 item 3): ``liveness`` in the check request,
the answer in the record, the stuck execution in the explanation and its picture.

Expected answers are those of tests/analysis/test_liveness.py (spin-reset: P1's reset may
come last in coherence, P2 re-reads 0 forever: Hang; spin-set: Live)."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed "
                    "(pip install 'gdrcheck[web]')")
pytest.importorskip("httpx", reason="Starlette's test client needs httpx")

import warnings  # noqa: E402

with warnings.catch_warnings():  # Starlette 1.x asks for httpx2 over httpx
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from gdrcheck.web.app import Limits, create_app  # noqa: E402
from tests.analysis.test_liveness import SPIN_RESET, SPIN_SET  # noqa: E402


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(limits=Limits(timeout=60, workers=1)))


def test_the_toggle_asks_the_question_and_draws_the_hang(client: TestClient) -> None:
    r = client.post("/api/check", json={"text": SPIN_RESET, "models": ["ptx"],
                                        "liveness": True})
    assert r.status_code == 200, r.text
    (res,) = r.json()["results"]
    assert res["record"]["live"] == "Hang"
    assert any("P2 spins forever" in x for x in res["record"]["liveness"])
    live = res["explanation"]["liveness"]
    assert live["answer"] == "Hang" and live["stuck"][0]["thread"] == 2
    assert "execution" not in live  # as the verdict's witness, the picture carries it
    assert "Liveness spin-reset ptx: Hang" in res["explanation_text"]
    assert res["hang_dot"] and "(forever)" in res["hang_dot"]


def test_live_and_not_asked(client: TestClient) -> None:
    r = client.post("/api/check", json={"text": SPIN_SET, "models": ["ptx"],
                                        "liveness": True})
    (res,) = r.json()["results"]
    assert res["record"]["live"] == "Live" and res["hang_dot"] is None
    r = client.post("/api/check", json={"text": SPIN_RESET, "models": ["ptx"]})
    (res,) = r.json()["results"]
    assert res["record"]["live"] is None and res["hang_dot"] is None
    assert res["explanation"]["liveness"] is None


@pytest.mark.parametrize("bad", ["yes", 1, None, [True]])
def test_the_toggle_is_a_boolean(client: TestClient, bad: object) -> None:
    r = client.post("/api/check", json={"text": SPIN_SET, "models": ["ptx"],
                                        "liveness": bad})
    assert r.status_code == 400 and "liveness" in r.json()["error"]["message"]


def test_the_page_has_the_toggle(client: TestClient) -> None:
    page = client.get("/").text
    assert 'id="liveness"' in page and 'id="hang-picture"' in page
    js = client.get("/static/app.js").text
    assert "liveness: $(\"liveness\").checked" in js and "hang_dot" in js
