"""A job of ``gdrcheck run``: one litmus file under one model, and the results-file line
it gives (a ``gdrcheck.check/2`` record with its key first, or an error line). A job is
a pure function of its picklable :class:`Job`: it runs in a worker process."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.models import ModelSpec, expected_verdict
from gdrcheck.analysis.options import DEFAULT_OPTIONS, CheckOptions
from gdrcheck.engine.result import Result, Verdict
from gdrcheck.errors import InputError
from gdrcheck.litmus import ast as A
from gdrcheck.litmus import load_litmus
from gdrcheck.report.json import result_json

ERROR_SCHEMA = "gdrcheck.run-error/1"
"""The schema of an error line of a results file."""

Record = dict[str, Any]
JobFn = Callable[["Job"], Record]


@dataclass(frozen=True)
class Job:
    """One litmus file under one model: a picklable work item."""

    key: str
    file: str
    model: str
    options: CheckOptions = DEFAULT_OPTIONS


def job_key(file: str, model: str) -> str:
    return f"{file}::{model}"


ANY_MODEL = "*"
"""The model of the key of a file that could not be parsed when the models were to
come from its Expect= line."""


def error_record(job: Job, message: str, test: A.Test | None = None, seconds: float = 0.0
                 ) -> Record:
    """The line of a job that could not be checked."""
    return {
        "key": job.key,
        "schema": ERROR_SCHEMA,
        "test": None if test is None else test.name,
        "file": job.file,
        "model": job.model,
        "engine": job.options.engine,
        "verdict": "Error",
        "reason": message,
        "time": round(seconds, 6),
        "expect": _expect(test, job.model, None),
    }


def expected(test: A.Test, model: str, liveness: bool = False) -> str | None:
    """The Expect= (or Liveness=) entry of ``test`` for exactly ``model``."""
    try:
        spec = ModelSpec.parse(model)
    except InputError:
        return None
    return expected_verdict(test, spec, liveness=liveness)


def _expect(test: A.Test | None, model: str, verdict: str | None, vacuous: bool = False
            ) -> dict[str, Any] | None:
    """The ``expect`` field: the Expect= entry and whether the answer meets it (a vacuous
    answer meets none)."""
    if test is None:
        return None
    want = expected(test, model)
    return None if want is None else {"verdict": want, "met": want == verdict and not vacuous}


def rechecked(rec: Record, test: A.Test | None) -> Record:
    """A record read back from a results file, its ``expect`` computed again from its
    verdict and the test's ``Expect=`` line as it is now (the stored one is not trusted:
    the file may have been edited, or the test since)."""
    if test is None:
        return rec
    verdict = rec.get("verdict")
    return {**rec, "expect": _expect(test, str(rec.get("model")),
                                     None if verdict == "Error" else verdict,
                                     bool(rec.get("vacuous")))}


def execute(job: Job) -> Record:
    """Check one job; bad input gives an error record (never an exception)."""
    start = time.perf_counter()
    test: A.Test | None = None
    try:
        test = load_litmus(job.file)
        res = check_test(test, job.model, options=job.options)
    except InputError as err:
        if err.path is None:
            err.path = job.file
        return error_record(job, err.render(), test, time.perf_counter() - start)
    except RecursionError:
        return error_record(job, "the test is too large to check (recursion limit)", test,
                            time.perf_counter() - start)
    expect = _expect(test, job.model, res.verdict, res.vacuous)
    return {"key": job.key, **result_json(test, res, expect)}


def unknown_record(job: Job, test: A.Test, reason: str, seconds: float) -> Record:
    """The line of a job whose worker was killed for running too long."""
    res = Result(test.name, job.model, job.options.engine, test.condition.quantifier,
                 Verdict.UNKNOWN,
                 None, None, time=seconds, reason=reason)
    return {"key": job.key, **result_json(test, res, _expect(test, job.model, Verdict.UNKNOWN))}
