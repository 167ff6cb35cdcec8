"""A real playground server (uvicorn, as ``gdrcheck serve`` runs it) under the attacks
of issue 25 items 2 and 3: a normal request is answered within a few seconds while
they go on, and abandoned work is dropped. The attackers come from their own loopback
addresses (tests/web/attack.py); the attack is scaled to a small shared machine."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

pytest.importorskip("uvicorn", reason="the web extra is not installed "
                    "(pip install 'gdrcheck[web]')")
pytest.importorskip("httpx", reason="the attack tests use httpx")

from gdrcheck.gen.families import family  # noqa: E402
from gdrcheck.web.app import Limits, create_app  # noqa: E402
from gdrcheck.web.protocol import Guard  # noqa: E402
from tests.web.attack import (  # noqa: E402
    Slowloris,
    address,
    post_bytes,
    send_and_leave_open,
    timed_get,
    timed_post,
)
from tests.web.server import running_server  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SB = (ROOT / "litmus" / "classic" / "SB.litmus").read_text()

ANSWER_S = 8.0
"""What "within a few seconds" means here: a normal request takes 0.03 s (GET) to
0.5 s (a check of SB) on an idle machine of 2 cores; this one is shared (at a load
of 14 a check of SB alone took 2-3 s), so a check may take 3 times what one took on
the same server just before the attack, on top. (Before issue 25 none was answered:
every request 503, or no answer in 25 s.)"""

CHECK = {"text": SB, "models": ["sc"]}


def _check_bound(url: str) -> float:
    """ANSWER_S plus 3 times a check of SB on this server now, with no attack."""
    status, took, _ = timed_post(url, "/api/check", CHECK)
    assert status == 200
    return ANSWER_S + 3 * took


def _loopback_aliases_work() -> bool:
    try:
        with socket.socket() as s:
            s.bind((address(0), 0))
        return True
    except OSError:
        return False


pytestmark = pytest.mark.skipif(not _loopback_aliases_work(),
                                reason="cannot bind 127.0.0.2 (not Linux loopback)")


def test_slow_connections_do_not_lock_others_out() -> None:
    # 200 connections sending a header a byte every 0.5 s, never finishing it (the
    # issue: 63 such made every other request 503, 200 for 60 s refused 18/18 probes)
    guard = Guard(request_timeout=3.0)
    with running_server(Limits(workers=1), guard) as url:
        bound = _check_bound(url)
        sources = [address(i) for i in range(20)]
        with Slowloris(url, sources, per_source=10, interval=0.5) as attack:
            probes = []
            t_end = time.monotonic() + 8
            while time.monotonic() < t_end:
                probes.append(timed_get(url, "/api/models"))
                time.sleep(0.5)
            check = timed_post(url, "/api/check", CHECK)
        print(f"slowloris: a check before {(bound - ANSWER_S) / 3:.2f} s; "
              f"{attack.opened} connections opened, probes (status, s): "
              f"{[(s, round(t, 2)) for s, t in probes]}; check {check[:2]}; "
              f"lifetimes max {max(attack.lifetimes, default=0):.1f} s")
        assert all(status == 200 and took < ANSWER_S for status, took in probes), probes
        assert check[0] == 200 and check[1] < bound, (check[1], bound)
        # each connection was closed at its request deadline, and opened again
        assert attack.lifetimes and max(attack.lifetimes) < guard.request_timeout + 3
        assert attack.opened > 200


def test_slow_bodies_are_cut_at_the_deadline() -> None:
    # the header whole, then the body a byte every 0.5 s: the deadline covers it too
    guard = Guard(request_timeout=2.0)
    app = create_app(limits=Limits(workers=1))
    with running_server(app=app, guard=guard) as url:
        sources = [address(i) for i in range(10)]
        with Slowloris(url, sources, per_source=5, interval=0.5, body=True) as attack:
            time.sleep(5)
            probes = [timed_get(url, "/api/models") for _ in range(3)]
            queued = app.state.scheduler.counts()
        print(f"slow bodies: {attack.opened} opened, lifetimes max "
              f"{max(attack.lifetimes, default=0):.1f} s, probes {probes}")
        assert all(status == 200 and took < ANSWER_S for status, took in probes), probes
        assert attack.lifetimes and max(attack.lifetimes) < guard.request_timeout + 3
        assert queued == {"waiting": 0, "running": 0}  # no job for a request not whole


def _get_once_more_if_closed(url: str, path: str, tries: int = 3) -> tuple[int, float]:
    """A GET, sent again (``tries`` in all) while the server closes the connection before
    answering (status 0), as an HTTP client may retry an idempotent request on a closed
    connection (RFC 9110 §9.2.2). From the attacker's own address the probe's connection
    can be among the oldest waiting ones when a burst of the attack arrives before the
    server has read it; it is then closed like the attacker's (one address, no tell), and
    two bursts in a row closed it twice (a full run of 2026-12-07). The time is that of all
    the tries together."""
    status, took = timed_get(url, path)
    for _ in range(tries - 1):
        if status != 0:
            break
        status, more = timed_get(url, path)
        took += more
    return status, took


def test_slow_connections_of_the_probes_own_address() -> None:
    # the same attack from the address of the normal client (no per-address tell):
    # one address keeps at most per_client connections waiting, the oldest go first
    guard = Guard(request_timeout=30.0, per_client=16)
    with running_server(Limits(workers=1), guard) as url:
        with Slowloris(url, ["127.0.0.1"], per_source=80, interval=0.5) as attack:
            time.sleep(1)
            probes = [_get_once_more_if_closed(url, "/api/models") for _ in range(5)]
        print(f"slowloris from 127.0.0.1: {attack.opened} opened, probes {probes}")
        assert all(status == 200 and took < ANSWER_S for status, took in probes), probes
        # the server closed the oldest waiting ones, long before their deadline
        assert len(attack.lifetimes) >= 80 - guard.per_client


def test_abandoned_heavy_checks_are_dropped_and_a_normal_check_is_answered() -> None:
    # heavy checks: a test of 1,000 instructions (SB-500: 500 threads, a write and a
    # read each), 27 s for x86tso on an idle machine, two from each of 8 clients
    _, heavy = family("SB", 500)
    limits = Limits(timeout=20, workers=1, per_client=2)
    app = create_app(limits=limits)
    sched = app.state.scheduler
    with running_server(app=app) as url:
        bound = _check_bound(url)
        request = post_bytes(url, "/api/check", {"text": heavy, "models": ["x86tso"]})
        socks = [send_and_leave_open(url, address(i), request)
                 for i in range(8) for _ in range(2)]
        deadline = time.monotonic() + 30
        while sched.counts()["waiting"] + sched.counts()["running"] < len(socks):
            assert time.monotonic() < deadline, sched.counts()
            time.sleep(0.1)
        # a third heavy check from one of them: over its bound, refused at once
        over = send_and_leave_open(url, address(0), request)
        over.settimeout(10)
        assert over.recv(100).startswith(b"HTTP/1.1 429")
        over.close()
        # a normal check, while they are queued and one runs
        during = [timed_post(url, "/api/check", CHECK) for _ in range(3)]
        busy = sched.counts()
        # every attacker goes away: their queued work is dropped, the running one killed
        t_gone = time.monotonic()
        for s in socks:
            s.close()
        while sched.counts() != {"waiting": 0, "running": 0}:
            assert time.monotonic() - t_gone < 10, sched.counts()
            time.sleep(0.05)
        dropped = time.monotonic() - t_gone
        after = timed_post(url, "/api/check", CHECK)
    print(f"heavy attack: a check before {(bound - ANSWER_S) / 3:.2f} s; queue while it "
          f"lasted {busy}; normal checks "
          f"{[round(t, 2) for _, t, _ in during]} s; all dropped {dropped:.2f} s after the "
          f"attackers left; a check then {after[1]:.2f} s")
    assert busy["waiting"] >= len(socks) - 2
    for status, took, out in [*during, after]:
        assert status == 200 and took < bound, (status, took, bound)
        assert out["results"][0]["record"]["verdict"] == "Forbidden"  # SB.litmus Expect=
