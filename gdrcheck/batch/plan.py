"""Planning a run: every file of the paths under each of its models, as jobs; the
files that cannot be parsed become error lines (the run goes on).

The files are parsed by a *loader* (:data:`Loader`): by default here, one after the
other (:func:`load_files`); a run on Dask parses a large suite on the cluster's workers
instead (:func:`gdrcheck.batch.cluster.load_on_cluster`), where the parse of each file
was the largest serial part of a run (about 12 s of a 39 s run of 10,423 jobs on 16
workers, docs/performance.md)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gdrcheck.analysis.models import ALL, LoadedModel, ModelSpec, all_runs, expected_specs
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


LOAD_ON_CLUSTER = 256
"""From this many files on, a run on Dask parses them on the cluster's workers
(:func:`gdrcheck.batch.cluster.load_on_cluster`); fewer are parsed in the driver, before
any cluster starts (a run with nothing left to do then starts none)."""

Loaded = A.Test | str
"""A parsed file, or the message of its error line (it could not be read or parsed)."""

Loader = Callable[[Sequence[str]], list[Loaded]]
"""Parses files: one :data:`Loaded` per file, in order."""


def load_file(file: str) -> Loaded:
    """The test of ``file``, or the message of its error line."""
    try:
        return load_litmus(file)
    except InputError as err:
        return err.render()
    except RecursionError:
        return f"{file}: the test is too large to parse (recursion limit)"


def load_files(files: Sequence[str]) -> list[Loaded]:
    """:func:`load_file` of each file, one after the other, in this process."""
    return [load_file(f) for f in files]


def plan(paths: Iterable[str | Path], models: Sequence[ModelSpec] | None = None,
         variants: Sequence[str] = (), options: CheckOptions = DEFAULT_OPTIONS,
         load: Loader = load_files, every: Mapping[str, LoadedModel] | None = None
         ) -> Plan:
    """The jobs: every file of ``paths`` under each of ``models`` (default: the models
    of its Expect= line, else its dialect's default model), with ``variants`` added.
    ``every`` (``--model all``: the loaded models): each file under every one of them
    that accepts it, with those of ``variants`` it has (as ``gdrcheck check -m all``); a
    file that none accepts is an error line (model ``all``). ``load`` parses the files
    (default: here, one after the other)."""
    return plan_files(litmus_files(paths), models, variants, options, load, every)


def plan_files(files: Sequence[str], models: Sequence[ModelSpec] | None = None,
               variants: Sequence[str] = (), options: CheckOptions = DEFAULT_OPTIONS,
               load: Loader = load_files, every: Mapping[str, LoadedModel] | None = None
               ) -> Plan:
    """:func:`plan` of ``files`` (as :func:`gdrcheck.analysis.suite.litmus_files` gives
    them)."""
    out = Plan()

    def job(file: str, spec: ModelSpec) -> Job:
        m = str(spec if every is not None else spec.with_variants(variants))
        return Job(job_key(file, m), file, m, options)

    loaded = load(files)
    if len(loaded) != len(files):
        raise ValueError(f"the loader gave {len(loaded)} results for {len(files)} files")
    for file, test in zip(files, loaded, strict=True):
        if isinstance(test, str):
            # A file that cannot be read or parsed is an Error line; the run goes on.
            for spec in models or [ModelSpec(ALL if every is not None else ANY_MODEL)]:
                j = job(file, spec)
                if j.key not in out.tests:
                    out.tests[j.key] = None
                    out.failed.append(error_record(j, test))
            continue
        if every is not None:
            try:
                specs = [spec for spec, _ in all_runs(test, dict(every), variants)]
            except InputError as err:  # no model accepts the test
                j = job(file, ModelSpec(ALL))
                if j.key not in out.tests:
                    out.tests[j.key] = test
                    out.failed.append(error_record(j, err.with_context(file, None).render(),
                                                   test))
                continue
        else:
            specs = list(models) if models else expected_specs(test)
        for spec in specs:
            j = job(file, spec)
            if j.key not in out.tests:
                out.tests[j.key] = test
                out.jobs.append(j)
    return out
