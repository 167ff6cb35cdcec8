"""``gdrcheck run`` (gdrcheck/batch/, gdrcheck/cli/run.py): parallel jobs, one
JSON line each, resume after kill -9, errors that do not stop the run, JUnit XML."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gdrcheck.analysis.models import ModelSpec
from gdrcheck.batch import Job, execute, read_results, run_batch
from gdrcheck.cli import main
from gdrcheck.litmus import load_litmus

ROOT = Path(__file__).resolve().parents[2]
CLASSIC = ROOT / "litmus" / "classic"
PTX = ROOT / "litmus" / "ptx"
SB = CLASSIC / "SB.litmus"
MP = CLASSIC / "MP.litmus"
LIVENESS = ROOT / "litmus" / "gin" / "20-aggregate-doorbell-liveness.litmus"


def expected_keys(*dirs: Path) -> set[str]:
    """FILE::MODEL for every Expect= model of every file (files as the run names them)."""
    keys = set()
    for d in dirs:
        for f in sorted(d.rglob("*.litmus")):
            test = load_litmus(f)
            for e in test.expectations:
                keys.add(f"{os.path.normpath(f)}::{ModelSpec(e.model, e.variants)}")
    return keys


def lines_of(path: Path) -> list[dict[str, Any]]:
    text = path.read_text()
    assert text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def cli(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(main, ["run", *args])
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture(scope="module")
def line_validator() -> Any:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "docs" / "json-schema.json").read_text())
    return jsonschema.Draft202012Validator({**schema, "oneOf": [{"$ref": "#/$defs/run-line"}]})


# --------------------------------------------------------------------------
# A run writes one line per (test, model)
# --------------------------------------------------------------------------


def test_classic_with_two_workers(tmp_path: Path, line_validator: Any) -> None:
    out = tmp_path / "out.jsonl"
    junit = tmp_path / "junit.xml"
    code, stdout, _ = cli(str(CLASSIC), "--jobs", "2", "--results", str(out),
                          "--junit", str(junit))
    assert code == 0, stdout
    lines = lines_of(out)
    keys = [rec["key"] for rec in lines]
    assert len(keys) == len(set(keys))
    assert set(keys) == expected_keys(CLASSIC)
    for rec in lines:
        line_validator.validate(rec)
        assert rec["schema"] == "gdrcheck.check/2"
        assert rec["key"] == f"{rec['file']}::{rec['model']}"
        assert rec["expect"]["met"] is True
    assert "expectations met" in stdout and "expectations not met" in stdout
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == (
        str(len(keys)), "0", "0")
    # a rerun finds everything done, writes nothing, and answers the same
    before = out.read_bytes()
    code, stdout, stderr = cli(str(CLASSIC), "--jobs", "2", "--results", str(out))
    assert code == 0
    assert out.read_bytes() == before
    assert f"{len(keys)} job(s) already in" in stderr
    assert f"0 / {len(keys)}" in stdout


def test_models_and_variants_from_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    code, _, _ = cli(str(SB), str(MP), str(LIVENESS), "--model", "gin-gdaki",
                     "--variant", "pcie-ro", "--jobs", "0", "--results", str(out))
    recs = {r["key"]: r for r in lines_of(out)}
    assert set(recs) == {f"{os.path.normpath(p)}::gin-gdaki+pcie-ro" for p in (SB, MP, LIVENESS)}
    # gin-gdaki does not describe x86: those two are errors, the GIN test runs
    assert [recs[k]["verdict"] for k in sorted(recs)] == ["Error", "Error", "Forbidden"]
    assert "does not describe X86 instructions" in recs[sorted(recs)[0]]["reason"]
    assert code == 2


def test_mismatches_exit_1_and_junit_counts_failures(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "SB.litmus").write_text(SB.read_text())
    (tests / "SB-wrong.litmus").write_text(
        SB.read_text().replace("x86tso:Allowed", "x86tso:Forbidden"))
    (tests / "live-wrong.litmus").write_text(
        LIVENESS.read_text().replace("gin-gdaki:Hang", "gin-gdaki:Live"))
    out, junit = tmp_path / "out.jsonl", tmp_path / "junit.xml"
    code, stdout, _ = cli(str(tests), "--jobs", "2", "--results", str(out),
                          "--junit", str(junit))
    assert code == 1
    assert f"MISMATCH {os.path.normpath(tests / 'SB-wrong.litmus')}::x86tso: Expect Forbidden, " \
           "got Allowed" in stdout
    assert "::gin-gdaki: Liveness Live, got Hang" in stdout
    root = ET.parse(junit).getroot()
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == 2 + 2 + 3
    failed = {c.get("name"): c.find("failure") for c in cases if c.find("failure") is not None}
    assert set(failed) == {"SB x86tso", "20-aggregate-doorbell-liveness gin-gdaki"}
    assert failed["SB x86tso"].get("message") == "Expect Forbidden, got Allowed"  # type: ignore
    assert root.get("failures") == "2" and root.get("errors") == "0"


def test_timeout_gives_unknown_and_exit_1(tmp_path: Path, line_validator: Any) -> None:
    out = tmp_path / "out.jsonl"
    code, stdout, _ = cli(str(CLASSIC / "IRIW.litmus"), "--model", "x86tso", "--engine",
                          "explicit", "--timeout", "1e-9", "--jobs", "1", "--results", str(out))
    assert code == 1
    (rec,) = lines_of(out)
    line_validator.validate(rec)
    assert rec["verdict"] == "Unknown" and rec["engine"] == "explicit"
    # the limit bounds the model's loading too (docs/limits.md): a worker that has not
    # loaded x86tso yet runs out there
    assert rec["reason"] in ("timeout while enumerating candidates",
                             "timeout while loading the model")
    assert rec["expect"] == {"verdict": "Forbidden", "met": False}
    assert "Expect Forbidden, got Unknown" in stdout


def test_bad_options_exit_2(tmp_path: Path) -> None:
    out = str(tmp_path / "out.jsonl")
    assert cli(str(SB), "--model", "x86tso+", "--results", out)[0] == 2
    assert cli(str(SB), "--model", "all,sc", "--results", out)[0] == 2  # all, or names
    code, _, stderr = cli(str(tmp_path / "nothere"), str(SB), "--jobs", "0", "--results", out)
    assert code == 2 and "nothere: no such file or directory" in stderr
    assert len(lines_of(Path(out))) == 2  # SB still ran


# --------------------------------------------------------------------------
# Errors do not stop the run
# --------------------------------------------------------------------------


def test_broken_model_gives_error_lines_and_the_run_goes_on(tmp_path: Path,
                                                            line_validator: Any) -> None:
    models = tmp_path / "models"
    models.mkdir()
    (models / "bad.cat").write_text('"bad"\nacyclic po | nosuchrel as sc\n')
    out, junit = tmp_path / "out.jsonl", tmp_path / "junit.xml"
    code, stdout, _ = cli(str(SB), str(MP), "--model", "bad,x86tso", "-I", str(models),
                          "--jobs", "2", "--results", str(out), "--junit", str(junit))
    assert code == 2
    recs = {r["key"]: r for r in lines_of(out)}
    assert len(recs) == 4
    for rec in recs.values():
        line_validator.validate(rec)
    bad = recs[f"{os.path.normpath(SB)}::bad"]
    assert bad["schema"] == "gdrcheck.run-error/1" and bad["verdict"] == "Error"
    assert bad["reason"].startswith(f"{models / 'bad.cat'}:2:14: unbound name 'nosuchrel'")
    assert bad["test"] == "SB" and bad["expect"] is None
    assert recs[f"{os.path.normpath(SB)}::x86tso"]["verdict"] == "Allowed"
    assert recs[f"{os.path.normpath(MP)}::x86tso"]["verdict"] == "Forbidden"
    assert "ERROR " in stdout
    root = ET.parse(junit).getroot()
    assert root.get("errors") == "2" and root.get("failures") == "0"
    errors = root.findall("./testsuite/testcase/error")
    assert all("unbound name 'nosuchrel'" in (e.text or "") for e in errors)


def test_unparsable_file_is_an_error_line(tmp_path: Path, line_validator: Any) -> None:
    bad = tmp_path / "bad.litmus"
    bad.write_text("X86 bad\n{ x=0; }\n P0 ;\n MOVE [x],$1 ;\nexists (x=1)\n")
    out = tmp_path / "out.jsonl"
    code, _, _ = cli(str(bad), str(SB), "--jobs", "0", "--results", str(out))
    assert code == 2
    recs = {r["key"]: r for r in lines_of(out)}
    err = recs[f"{bad}::*"]
    line_validator.validate(err)
    assert err["verdict"] == "Error" and err["test"] is None
    assert err["reason"].startswith(f"{bad}:4:")
    assert len(recs) == 3  # the file that does not parse, SB under x86tso and sc


def crashing_job(job: Job) -> dict[str, Any]:
    """A job function whose worker dies on MP (a crash of the solver, say)."""
    if "MP.litmus" in job.key:
        os._exit(3)
    return execute(job)


HANG = 3600.0
"""How long hanging_job sleeps on MP: far longer than a run that kills it may take on a
loaded machine (starting a cluster of two workers took 23 s at a load of 10 on 2 cores)."""


def hanging_job(job: Job) -> dict[str, Any]:
    """A job function that never answers on MP."""
    if "MP.litmus" in job.key:
        time.sleep(HANG)
    return execute(job)


def raising_job(job: Job) -> dict[str, Any]:
    if "MP.litmus" in job.key:
        raise RuntimeError("a bug")
    return execute(job)


def test_a_worker_that_dies_gives_an_error_line(tmp_path: Path, line_validator: Any) -> None:
    out = tmp_path / "out.jsonl"
    report = run_batch([SB, MP, CLASSIC / "LB.litmus"], out, models=[ModelSpec("x86tso")],
                       workers=2, job_fn=crashing_job)
    recs = {r["key"]: r for r in lines_of(out)}
    assert len(recs) == 3
    for rec in recs.values():
        line_validator.validate(rec)
    mp = recs[f"{os.path.normpath(MP)}::x86tso"]
    assert mp["verdict"] == "Error"
    # Dask retried it on a restarted worker each time, then gave up
    assert mp["reason"].startswith("the worker process died running this job")
    assert mp["expect"] == {"verdict": "Forbidden", "met": False}
    assert recs[f"{os.path.normpath(SB)}::x86tso"]["verdict"] == "Allowed"
    assert report.exit_code == 2


def test_a_hung_worker_is_killed_and_gives_unknown(tmp_path: Path, line_validator: Any
                                                   ) -> None:
    out = tmp_path / "out.jsonl"
    start = time.monotonic()
    report = run_batch([SB, MP], out, models=[ModelSpec("x86tso")], workers=2,
                       kill_after=1.0, job_fn=hanging_job)
    assert time.monotonic() - start < HANG / 15
    recs = {r["key"]: r for r in lines_of(out)}
    for rec in recs.values():
        line_validator.validate(rec)
    mp = recs[f"{os.path.normpath(MP)}::x86tso"]
    assert mp["verdict"] == "Unknown" and mp["schema"] == "gdrcheck.check/2"
    assert "the worker was killed" in mp["reason"]
    assert mp["expect"] == {"verdict": "Forbidden", "met": False}
    assert report.exit_code == 1


def slow_job(job: Job) -> dict[str, Any]:
    time.sleep(0.4)
    return execute(job)


@pytest.mark.parametrize("chunk", [None, 3])
def test_a_worker_killed_mid_run_loses_nothing(tmp_path: Path, line_validator: Any,
                                               chunk: int | None) -> None:
    """A real scheduler and two workers on 127.0.0.1 (--scheduler); one worker is killed
    with SIGKILL mid-run: its job (or chunk of three) is retried, every line is written
    once."""
    from distributed import Client, LocalCluster

    out = tmp_path / "out.jsonl"
    files = sorted(CLASSIC.glob("*.litmus"))[:10]
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        victim = sorted(client.run(os.getpid).values())[0]
        killer = threading.Timer(1.0, os.kill, (victim, signal.SIGKILL))
        killer.start()
        try:
            report = run_batch(files, out, models=[ModelSpec("x86tso")],
                               scheduler=cluster.scheduler_address, job_fn=slow_job,
                               chunk=chunk)
        finally:
            killer.cancel()
        assert victim not in client.run(os.getpid).values()  # it was killed, and replaced
    recs = {r["key"]: r for r in lines_of(out)}
    assert set(recs) == {f"{os.path.normpath(f)}::x86tso" for f in files}
    assert all(r["verdict"] != "Error" for r in recs.values())
    for rec in recs.values():
        line_validator.validate(rec)
    assert report.exit_code == 0


def test_an_exception_in_a_job_gives_an_error_line(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    for workers in (0, 1):
        out.unlink(missing_ok=True)
        run_batch([SB, MP], out, models=[ModelSpec("x86tso")], workers=workers,
                  job_fn=raising_job)
        recs = {r["key"]: r for r in lines_of(out)}
        assert recs[f"{os.path.normpath(MP)}::x86tso"]["reason"] == "RuntimeError: a bug"
        assert recs[f"{os.path.normpath(SB)}::x86tso"]["verdict"] == "Allowed"


# --------------------------------------------------------------------------
# Several jobs per Dask task (chunks), split when one fails
# --------------------------------------------------------------------------

EIGHT = [SB, MP, CLASSIC / "LB.litmus", CLASSIC / "2+2W.litmus", CLASSIC / "IRIW.litmus",
         CLASSIC / "R.litmus", CLASSIC / "S.litmus", CLASSIC / "CoRR.litmus"]
"""Eight x86 tests, MP among them: two chunks of four under x86tso."""


def without_times(value: Any) -> Any:
    """A record without its timings (the only fields that differ between two runs)."""
    if isinstance(value, dict):
        return {k: without_times(v) for k, v in value.items() if k != "time"}
    if isinstance(value, list):
        return [without_times(v) for v in value]
    return value


def task_stamped_job(job: Job) -> dict[str, Any]:
    """execute, and the key of the Dask task that ran the job."""
    from distributed import get_worker

    return {**execute(job), "task": get_worker().get_current_task()}


def test_chunk_size() -> None:
    from gdrcheck.batch.cluster import MAX_CHUNK, chunk_size

    assert chunk_size(3, 2) == 1  # a run of few jobs keeps one job per task
    assert chunk_size(164, 1) == MAX_CHUNK == 16
    assert chunk_size(200, 2) == 12  # eight chunks per worker thread
    assert chunk_size(10_423, 16) == 16
    assert chunk_size(10, 0) == 1


def test_chunks_are_used_and_give_the_records_of_single_jobs(tmp_path: Path) -> None:
    files = sorted(CLASSIC.glob("*.litmus"))
    models = [ModelSpec("x86tso")]
    run_batch(files, tmp_path / "serial.jsonl", models=models, workers=0)
    run_batch(files, tmp_path / "chunks.jsonl", models=models, workers=2, chunk=4,
              job_fn=task_stamped_job)
    serial = {r["key"]: r for r in lines_of(tmp_path / "serial.jsonl")}
    chunks = {r["key"]: r for r in lines_of(tmp_path / "chunks.jsonl")}
    assert len(serial) == len(files)
    tasks = {r.pop("task") for r in chunks.values()}
    assert len(tasks) == -(-len(files) // 4)  # ceil: four jobs per task, the last fewer
    assert all(t.endswith(("-x4", f"-x{len(files) % 4}")) for t in tasks), tasks
    assert without_times(chunks) == without_times(serial)


def test_a_job_that_kills_its_worker_inside_a_chunk(tmp_path: Path, line_validator: Any
                                                    ) -> None:
    """The chunk dies on every worker it runs on, is split, and only MP is an Error line."""
    out = tmp_path / "out.jsonl"
    report = run_batch(EIGHT, out, models=[ModelSpec("x86tso")], workers=2, chunk=4,
                       job_fn=crashing_job)
    recs = {r["key"]: r for r in lines_of(out)}
    assert set(recs) == {f"{os.path.normpath(f)}::x86tso" for f in EIGHT}
    for rec in recs.values():
        line_validator.validate(rec)
    mp = recs.pop(f"{os.path.normpath(MP)}::x86tso")
    assert mp["verdict"] == "Error"
    assert mp["reason"].startswith("the worker process died running this job")
    assert mp["expect"] == {"verdict": "Forbidden", "met": False}
    assert all(r["schema"] == "gdrcheck.check/2" and r["expect"]["met"] for r in recs.values())
    assert report.exit_code == 2


def test_a_hung_job_inside_a_chunk_gives_unknown_alone(tmp_path: Path, line_validator: Any
                                                       ) -> None:
    out = tmp_path / "out.jsonl"
    start = time.monotonic()
    report = run_batch(EIGHT, out, models=[ModelSpec("x86tso")], workers=2, chunk=4,
                       kill_after=1.0, job_fn=hanging_job)
    assert time.monotonic() - start < HANG / 15
    recs = {r["key"]: r for r in lines_of(out)}
    assert set(recs) == {f"{os.path.normpath(f)}::x86tso" for f in EIGHT}
    for rec in recs.values():
        line_validator.validate(rec)
    mp = recs.pop(f"{os.path.normpath(MP)}::x86tso")
    assert mp["verdict"] == "Unknown" and "the worker was killed" in mp["reason"]
    assert all(r["expect"]["met"] for r in recs.values())
    assert report.exit_code == 1


def test_an_exception_inside_a_chunk_gives_one_error_line(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    run_batch(EIGHT, out, models=[ModelSpec("x86tso")], workers=1, chunk=4,
              job_fn=raising_job)
    recs = {r["key"]: r for r in lines_of(out)}
    mp = recs.pop(f"{os.path.normpath(MP)}::x86tso")
    assert mp["reason"] == "RuntimeError: a bug" and mp["test"] == "MP"
    assert mp["expect"] == {"verdict": "Forbidden", "met": False}
    assert len(recs) == 7 and all(r["expect"]["met"] for r in recs.values())


# --------------------------------------------------------------------------
# Resume
# --------------------------------------------------------------------------


def test_kill_9_then_resume(tmp_path: Path, line_validator: Any) -> None:
    out = tmp_path / "out.jsonl"
    args = [sys.executable, "-m", "gdrcheck.cli", "run", str(CLASSIC), str(PTX),
            "--jobs", "1", "--results", str(out)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    want = expected_keys(CLASSIC, PTX)
    from gdrcheck.batch.cluster import chunk_size
    assert chunk_size(len(want), 1) > 1  # the run sends several jobs per Dask task
    proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if out.exists() and out.read_bytes().count(b"\n") >= 5:
                break
            time.sleep(0.01)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # the run, its fork server and workers
        proc.wait()
    first = out.read_bytes()
    assert 5 <= first.count(b"\n") < len(want), "the run was not interrupted"
    # a half-written line, as a kill in the middle of a write could leave
    with out.open("ab") as f:
        f.write(b'{"key":"' + str(CLASSIC).encode() + b'/SB.lit')
    done_before = set(read_results(out))
    r = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"{len(done_before)} job(s) already in" in r.stderr
    lines = lines_of(out)  # every line is JSON: the half-written one was cut off
    keys = [rec["key"] for rec in lines]
    assert len(keys) == len(set(keys)), "duplicate keys"
    assert set(keys) == want
    # the lines of the first run are kept as they were
    assert out.read_bytes().startswith(first[:first.rfind(b"\n") + 1])
    for rec in lines:
        line_validator.validate(rec)


def test_resume_skips_done_keys_and_redoes_a_truncated_line(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    run_batch([SB], out, workers=0)
    (sb_sc, sb_tso) = out.read_text().splitlines()
    # keep the first line, truncate the second in the middle
    out.write_text(sb_sc + "\n" + sb_tso[:40])
    report = run_batch([SB, MP], out, workers=0)
    assert (report.resumed, report.new) == (1, 3)
    lines = lines_of(out)
    assert lines[0] == json.loads(sb_sc)
    assert sorted(r["key"] for r in lines) == sorted(
        f"{os.path.normpath(p)}::{m}" for p in (SB, MP) for m in ("sc", "x86tso"))
    assert report.exit_code == 0


def test_results_file_that_cannot_be_written(tmp_path: Path) -> None:
    code, _, stderr = cli(str(SB), "--results", str(tmp_path / "no" / "such" / "dir.jsonl"))
    assert code == 2
    assert "No such file or directory" in stderr


def test_chunk_budget() -> None:
    """K for the one job that may hang, plus 2 T + 1 s (at most K) for each other."""
    from gdrcheck.analysis.options import CheckOptions
    from gdrcheck.batch.cluster import chunk_budget
    from gdrcheck.batch.jobs import Job

    timed = [Job(f"k{i}", "f", "sc", CheckOptions(timeout=5.0)) for i in range(4)]
    assert chunk_budget(timed[:1], 80.0) == 80.0
    assert chunk_budget(timed, 80.0) == 80.0 + 3 * 11.0
    untimed = [Job(f"u{i}", "f", "sc") for i in range(3)]
    assert chunk_budget(untimed, 10.0) == 30.0  # no time limit: K each
    assert chunk_budget(timed, 8.0) == 32.0  # never more than K each


# --------------------------------------------------------------------------
# A large run parses its files on the cluster's workers
# --------------------------------------------------------------------------


def test_files_parsed_on_the_cluster_give_the_plan_made_here(tmp_path: Path) -> None:
    from distributed import Client, LocalCluster

    from gdrcheck.analysis.suite import litmus_files
    from gdrcheck.batch.cluster import load_on_cluster
    from gdrcheck.batch.plan import load_files, plan_files

    bad = tmp_path / "bad.litmus"
    bad.write_text("X86 bad\n{ x=0; }\n P0 ;\n MOVE [x],$1 ;\nexists (x=1)\n")
    files = litmus_files([CLASSIC, bad, PTX])
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        remote = load_on_cluster(client, files)
        planned = plan_files(files, load=lambda fs: load_on_cluster(client, fs))
    here = load_files(files)
    assert remote == here  # the same tests (dataclass equality), the same error messages
    assert isinstance(remote[files.index(os.path.normpath(bad))], str)
    local = plan_files(files)
    assert planned.jobs == local.jobs and planned.failed == local.failed
    assert planned.tests == local.tests


def test_a_large_run_plans_on_the_cluster_and_answers_as_in_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gdrcheck.batch as batch
    import gdrcheck.batch.cluster as cluster

    used: list[int] = []
    real = cluster.load_on_cluster

    def spy(client: Any, files: Any) -> Any:
        used.append(len(files))
        return real(client, files)

    monkeypatch.setattr(batch, "LOAD_ON_CLUSTER", 4)
    monkeypatch.setattr(cluster, "load_on_cluster", spy)
    files = sorted(CLASSIC.glob("*.litmus"))
    models = [ModelSpec("x86tso")]
    run_batch(files, tmp_path / "serial.jsonl", models=models, workers=0)
    run_batch(files, tmp_path / "dask.jsonl", models=models, workers=2)
    assert used == [len(files)]
    serial = {r["key"]: r for r in lines_of(tmp_path / "serial.jsonl")}
    dask = {r["key"]: r for r in lines_of(tmp_path / "dask.jsonl")}
    assert without_times(dask) == without_times(serial)



def loader_that_kills_workers_on_mp(files: Any) -> Any:
    """load_files, except that a worker process parsing MP dies (the driver, whose pid
    is in $GDRCHECK_TEST_DRIVER, parses it); each death leaves a file in
    $GDRCHECK_TEST_DEATHS."""
    from gdrcheck.batch.plan import load_files

    if (str(os.getpid()) != os.environ["GDRCHECK_TEST_DRIVER"]
            and any(f.endswith("MP.litmus") for f in files)):
        Path(os.environ["GDRCHECK_TEST_DEATHS"], str(os.getpid())).touch()
        os._exit(3)
    return load_files(files)


def test_a_slice_whose_worker_dies_is_parsed_in_the_driver(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from distributed import Client, LocalCluster

    from gdrcheck.analysis.suite import litmus_files
    from gdrcheck.batch.cluster import load_on_cluster
    from gdrcheck.batch.plan import load_files

    monkeypatch.setenv("GDRCHECK_TEST_DRIVER", str(os.getpid()))
    monkeypatch.setenv("GDRCHECK_TEST_DEATHS", str(tmp_path))
    files = litmus_files([CLASSIC])
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        got = load_on_cluster(client, files, loader=loader_that_kills_workers_on_mp)
    assert list(tmp_path.iterdir())  # a worker did die on the slice of MP
    assert got == load_files(files)


def test_a_cluster_of_one_thread_parses_in_the_driver() -> None:
    from distributed import Client, LocalCluster

    from gdrcheck.analysis.suite import litmus_files
    from gdrcheck.batch.cluster import load_on_cluster
    from gdrcheck.batch.plan import load_files

    where: list[int] = []

    def loader(files: Any) -> Any:
        where.append(os.getpid())
        return load_files(files)

    files = litmus_files([CLASSIC])
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        got = load_on_cluster(client, files, loader=loader)
    assert where == [os.getpid()] and got == load_files(files)
