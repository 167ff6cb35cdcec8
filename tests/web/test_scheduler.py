"""The order and the bounds of gdrcheck serve's jobs (gdrcheck/web/scheduler.py), with
real worker processes running ``time.sleep``."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")

from gdrcheck.web.scheduler import Busy, Lanes, Scheduler, estimate  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def test_the_estimate_orders_a_small_test_before_a_large_one() -> None:
    from gdrcheck.gen.families import family

    sb = (ROOT / "litmus" / "classic" / "SB.litmus").read_text()
    _, big = family("SB", 500)  # 1,000 instructions
    lanes = Lanes()
    assert estimate("check", sb, 0) <= lanes.small < estimate("check", big, 1)
    assert estimate("accepting", sb, 0) < estimate("check", sb, 0) < estimate("sweep", sb, 0)
    # every library test under all its (at most 12) models is a fast-lane job
    worst = max(estimate("check", p.read_text(), 12) for p in (ROOT / "litmus").rglob(
        "*.litmus"))
    assert worst <= lanes.small, worst


def _run(coro: object) -> object:
    return asyncio.run(coro)  # type: ignore[arg-type]


def test_cheap_jobs_first_and_per_client_bounds() -> None:
    async def main() -> list[str]:
        s = Scheduler(Lanes(slow=1, fast=0, per_client=3), timeout=30, memory_mb=None)
        order: list[str] = []

        async def job(name: str, client: str, cost: int, secs: float) -> None:
            await s.run(client, cost, time.sleep, secs)
            order.append(name)

        first = asyncio.create_task(job("first", "a", 10_000, 1.0))
        await asyncio.sleep(0.3)  # it runs; the rest wait
        rest = [asyncio.create_task(job("expensive", "a", 10_000, 0.1)),
                asyncio.create_task(job("cheap", "a", 10, 0.1)),
                asyncio.create_task(job("other client", "b", 10_000, 0.1))]
        await asyncio.sleep(0.1)
        with pytest.raises(Busy) as over:  # a fourth job of client a
            await s.run("a", 1, time.sleep, 0)
        assert over.value.status == 429
        await asyncio.gather(first, *rest)
        return order

    # b has nothing running: its job first; then a's, the cheaper first
    assert _run(main()) == ["first", "other client", "cheap", "expensive"]


def test_a_cheap_job_that_runs_long_leaves_the_fast_lane() -> None:
    async def main() -> tuple[float, float, dict[str, int]]:
        s = Scheduler(Lanes(slow=1, fast=1, budget=0.5), timeout=30, memory_mb=None)
        t0 = time.monotonic()
        slow = asyncio.create_task(s.run("a", 10, time.sleep, 2.0))  # estimated cheap
        await asyncio.sleep(1.2)  # moved to the slow lane after 0.5 s
        moved = s.counts()
        out = await s.run("b", 10, time.sleep, 0.1)
        fast = time.monotonic() - t0
        assert out.status == "ok"
        assert (await slow).status == "ok"
        return fast, time.monotonic() - t0, moved

    fast, total, moved = _run(main())  # type: ignore[misc]
    assert moved == {"waiting": 0, "running": 1}
    assert fast < 1.2 + 1.0  # not behind the 2 s job
    assert total >= 2.0  # which ran again, in full, in the slow lane


def test_a_job_past_its_time_is_stopped_wherever_it_runs() -> None:
    async def main() -> tuple[str, float]:
        s = Scheduler(Lanes(slow=1, fast=1, budget=0.3), timeout=1.0, memory_mb=None)
        t0 = time.monotonic()
        out = await s.run("a", 10, time.sleep, 30)
        return out.status, time.monotonic() - t0

    status, took = _run(main())  # type: ignore[misc]
    assert status == "timeout" and took < 5


def test_a_cancelled_job_leaves_the_queue_or_is_killed() -> None:
    async def main() -> tuple[dict[str, int], dict[str, int], float]:
        s = Scheduler(Lanes(slow=1, fast=0), timeout=60, memory_mb=None)
        running = asyncio.create_task(s.run("a", 10, time.sleep, 60))
        queued = asyncio.create_task(s.run("b", 10, time.sleep, 60))
        await asyncio.sleep(0.5)
        before = s.counts()
        t0 = time.monotonic()
        queued.cancel()
        running.cancel()
        await asyncio.gather(running, queued, return_exceptions=True)
        while s.counts()["running"]:
            await asyncio.sleep(0.02)
        return before, s.counts(), time.monotonic() - t0

    before, after, took = _run(main())  # type: ignore[misc]
    assert before == {"waiting": 1, "running": 1}
    assert after == {"waiting": 0, "running": 0} and took < 5
