"""Planning a run: every file of the paths under each of its models, as jobs; the
files that cannot be parsed become error lines (the run goes on)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gdrcheck.analysis.models import ModelSpec, expected_specs
from gdrcheck.analysis.options import DEFAULT_OPTIONS, CheckOptions
from gdrcheck.analysis.suite import litmus_files
from gdrcheck.batch.jobs import ANY_MODEL, Job, Record, error_record, job_key
from gdrcheck.errors import InputError
from gdrcheck.litmus import ast as A
from gdrcheck.litmus import load_litmus


@dataclass
class Plan:
    """The jobs of a run, and the lines of the files that could not be parsed."""

    jobs: list[Job] = field(default_factory=list)
    failed: list[Record] = field(default_factory=list)
    tests: dict[str, A.Test | None] = field(default_factory=dict)  # by key

    @property
    def keys(self) -> list[str]:
        return [j.key for j in self.jobs] + [r["key"] for r in self.failed]


def plan(paths: Iterable[str | Path], models: Sequence[ModelSpec] | None = None,
         variants: Sequence[str] = (), options: CheckOptions = DEFAULT_OPTIONS) -> Plan:
    """The jobs: every file of ``paths`` under each of ``models`` (default: the models
    of its Expect= line, else its dialect's default model), with ``variants`` added."""
    out = Plan()

    def job(file: str, spec: ModelSpec) -> Job:
        m = str(spec.with_variants(variants))
        return Job(job_key(file, m), file, m, options)

    for file in litmus_files(paths):
        try:
            test = load_litmus(file)
        except (InputError, RecursionError) as err:
            # A file that cannot be read or parsed is an Error line; the run goes on.
            message = (err.render() if isinstance(err, InputError)
                       else f"{file}: the test is too large to parse (recursion limit)")
            for spec in models or [ModelSpec(ANY_MODEL)]:
                j = job(file, spec)
                if j.key not in out.tests:
                    out.tests[j.key] = None
                    out.failed.append(error_record(j, message))
            continue
        specs = list(models) if models else expected_specs(test)
        for spec in specs:
            j = job(file, spec)
            if j.key not in out.tests:
                out.tests[j.key] = test
                out.jobs.append(j)
    return out
