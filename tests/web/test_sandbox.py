"""The worker processes of gdrcheck serve (gdrcheck/web/sandbox.py)."""

from __future__ import annotations

import os
import time

from gdrcheck.web.jobs import check_job
from gdrcheck.web.sandbox import run_isolated


def test_a_job_runs_in_a_worker() -> None:
    text = "X86 T\n{ x=0; }\n P0 ;\n MOV EAX,[x] ;\nexists (0:EAX=0)\n"
    out = run_isolated(check_job, {"text": text, "models": ["sc"]}, 60)
    assert out.status == "ok"
    # the only write of x is its initial 0: the outcome exists (herd: Allowed)
    assert out.value["results"][0]["record"]["verdict"] == "Allowed"


def test_a_worker_past_its_time_is_killed() -> None:
    t0 = time.monotonic()
    out = run_isolated(time.sleep, 60, 0.5)
    assert out.status == "timeout" and time.monotonic() - t0 < 10


def test_a_worker_that_dies_is_reported() -> None:
    out = run_isolated(os._exit, 3, 30)
    assert out.status == "crashed" and "exit code 3" in out.message


def test_a_worker_that_raises_is_reported() -> None:
    out = run_isolated(int, "not a number", 30)
    assert out.status == "failed" and "ValueError" in out.message
