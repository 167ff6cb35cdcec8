"""A run ends when its workers die (issue 24, item 2): a lost worker is replaced, or its
jobs become Error lines, and no wait on the cluster is unbounded.

The hang it fixes: Dask's SpecCluster (LocalCluster's base) closes a nanny for good when
its worker has not registered again within ``distributed.deploy.lost-worker-timeout``
(15 s; distributed 2026.8 ``deploy/spec.py`` ``_update_worker_status``). A nanny restarts
its worker after the worker dies, but under CPU contention that restart (a new Python
process importing distributed, z3 and gdrcheck) took 25 s here, so the cluster closed the
nanny in the middle of it; once every nanny was gone the cluster had no worker, nothing
made one, the jobs stayed queued and ``run_on_cluster`` waited on them forever.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dask
import pytest

# imported before any dask.config.set: distributed's defaults must be in the config by
# then, or leaving the set's block would delete them with the keys it added
from distributed import Client, LocalCluster

from gdrcheck.analysis.models import ModelSpec
from gdrcheck.batch import Job, execute, run_batch, run_jobs
from gdrcheck.batch.plan import plan
from tests.batch.test_batch import EIGHT, MP, ROOT, crashing_job, lines_of, slow_job


def keys(files: list[Path]) -> set[str]:
    return {f"{os.path.normpath(f)}::x86tso" for f in files}


def kills_its_worker_once(job: Job) -> dict[str, Any]:
    """execute, except that the first worker to run MP dies (after leaving the file
    $GDRCHECK_TEST_AFTER, from which on workers start slowly: worker_start.py)."""
    marker = Path(os.environ["GDRCHECK_TEST_AFTER"])
    if "MP.litmus" in job.key and not marker.exists():
        marker.touch()
        os._exit(3)
    return execute(job)


@pytest.fixture
def slow_restarts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Workers that start slowly (or fail to start) once a job killed one: the
    preload tests/batch/worker_start.py, configured by the environment the nannies
    hand to their workers."""
    monkeypatch.setenv("GDRCHECK_TEST_AFTER", str(tmp_path / "a-worker-died"))
    monkeypatch.syspath_prepend(str(ROOT))
    return tmp_path


def test_a_restart_slower_than_the_lost_worker_timeout_keeps_its_worker(
        tmp_path: Path, slow_restarts: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The hang, deterministic: the one worker dies under MP and its restart takes 6 s,
    longer than the cluster's lost-worker-timeout (2 s here, Dask's 15 s scaled down
    with the restart). Before the fix the cluster closed the nanny, no worker was left
    and the run waited forever; now the embedded cluster keeps the nanny, the worker
    comes back and MP, retried, answers."""
    monkeypatch.setenv("GDRCHECK_TEST_START_DELAY", "6")
    out = tmp_path / "out.jsonl"
    with dask.config.set({"distributed.deploy.lost-worker-timeout": "2s",
                          "distributed.worker.preload": ["tests.batch.worker_start"]}):
        report = run_batch(EIGHT, out, models=[ModelSpec("x86tso")], workers=1,
                           job_fn=kills_its_worker_once)
    assert (tmp_path / "a-worker-died").exists()  # MP did kill its worker
    recs = {r["key"]: r for r in lines_of(out)}
    assert set(recs) == keys(EIGHT)
    assert all(r["schema"] == "gdrcheck.check/2" and r["expect"]["met"] for r in recs.values())
    assert report.exit_code == 0


def test_a_nanny_the_cluster_closed_is_started_again(
        slow_restarts: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same death and slow restart on a cluster of the caller's (``client``), which
    keeps Dask's behaviour (a lost-worker-timeout of 1 s here): the cluster closes the
    nanny in the middle of the restart, and the run starts a new one (its worker too
    takes 6 s) instead of waiting forever on a cluster of no worker."""
    monkeypatch.setenv("GDRCHECK_TEST_START_DELAY", "6")
    p = plan(EIGHT, [ModelSpec("x86tso")])
    got: list[dict[str, Any]] = []
    with dask.config.set({"distributed.deploy.lost-worker-timeout": "1s",
                          "distributed.worker.preload": ["tests.batch.worker_start"]}), \
            LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                         dashboard_address=None) as cluster, Client(cluster) as client:
        first = dict(cluster.workers)
        run_jobs(p.jobs, 1, got.append, tests=p.tests, job_fn=kills_its_worker_once,
                 client=client)
        assert len(client.nthreads()) == 1
        assert cluster.workers != first  # the nanny is a new one
    assert (slow_restarts / "a-worker-died").exists()
    recs = {r["key"]: r for r in got}
    assert len(got) == len(recs) and set(recs) == keys(EIGHT)  # every job exactly once
    assert all(r["schema"] == "gdrcheck.check/2" and r["expect"]["met"] for r in recs.values())


def test_jobs_of_a_cluster_left_without_workers_become_error_lines(tmp_path: Path) -> None:
    """A running cluster (--scheduler) whose workers all go and none comes back: after
    ``lost_after`` seconds without a worker the jobs not run are Error lines, the run
    ends (exit code 2)."""
    out = tmp_path / "out.jsonl"
    files = sorted((Path(EIGHT[0]).parent).glob("*.litmus"))[:6]
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        client.wait_for_workers(1, timeout=120)
        retire = threading.Timer(1.0, cluster.scale, (0,))
        retire.start()
        start = time.monotonic()
        try:
            report = run_batch(files, out, models=[ModelSpec("x86tso")],
                               scheduler=cluster.scheduler_address, job_fn=slow_job,
                               lost_after=3.0)
        finally:
            retire.cancel()
        took = time.monotonic() - start
    recs = {r["key"]: r for r in lines_of(out)}
    assert set(recs) == keys(files)  # every job has its line, run or not
    lost = [r for r in recs.values() if r["verdict"] == "Error"]
    assert lost, "the workers went before the last job"
    for rec in lost:
        assert rec["reason"] == ("not run: the cluster had no worker for 3 s (its workers "
                                 "died or left and none came back)")
        assert rec["schema"] == "gdrcheck.run-error/1"
    assert report.exit_code == 2
    assert took < 60, took


@pytest.fixture
def busy_cores() -> Iterator[int]:
    """Two busy processes per core, for the length of a test (CPU contention)."""
    n = 2 * (os.cpu_count() or 1)
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
    try:
        yield n
    finally:
        for h in hogs:
            h.kill()
        for h in hogs:
            h.wait()


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_job_that_kills_its_worker_under_cpu_contention(tmp_path: Path,
                                                          busy_cores: int) -> None:
    """The reported hang, as it happened: the embedded cluster, chunks of four, MP kills
    every worker it runs on, and every core is busy with other processes, so that a
    worker's restart takes longer than the cluster's lost-worker-timeout. Before the fix
    it hung (2 of 2 tries on the project machine, 2 cores and 4 busy processes); now it
    ends with MP an Error line and the other jobs answered."""
    out = tmp_path / "out.jsonl"
    start = time.monotonic()
    report = run_batch(EIGHT, out, models=[ModelSpec("x86tso")], workers=2, chunk=4,
                       job_fn=crashing_job)
    took = time.monotonic() - start
    recs = {r["key"]: r for r in lines_of(out)}
    assert set(recs) == keys(EIGHT)
    mp = recs.pop(f"{os.path.normpath(MP)}::x86tso")
    assert mp["verdict"] == "Error"
    assert all(r["verdict"] != "Error" and r["expect"]["met"] for r in recs.values())
    assert report.exit_code == 2
    print(f"run under contention ({busy_cores} busy processes): {took:.1f} s")
