"""``gdrcheck run``: check many litmus files in parallel, resumably (gdrcheck/batch/)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from gdrcheck.cli.options import (
    check_options,
    console,
    engine_option,
    err_console,
    include_option,
    split,
    states_option,
    timeout_option,
    unroll_option,
)
from gdrcheck.errors import InputError

if TYPE_CHECKING:
    from rich.console import Console

    from gdrcheck.batch import Record


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--model", "-m", "model", multiple=True,
              help="Models, comma separated or repeated (NAME or NAME+VARIANT+...); 'all' "
              "(or all+VARIANT) for every model that accepts each file, as in check. "
              "Default: for each file, the models of its Expect= lines, else its dialect's "
              "default model.")
@click.option("--variant", "variants", multiple=True, help="Variants added to every model, "
              "comma separated.")
@click.option("--jobs", "-j", type=click.IntRange(min=0), default=None,
              help="Worker processes of the embedded Dask cluster (default: the number of "
              "CPUs; 0: in this process, without isolation).")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run on the Dask cluster of this scheduler (tcp://HOST:PORT; started "
              "with `dask scheduler` and `dask worker ADDRESS`) instead of an embedded one.")
@click.option("--results", "-o", "results", required=True,
              type=click.Path(dir_okay=False, path_type=Path),
              help="JSONL file: one line per finished job, appended; the keys already "
              "there are skipped (resume).")
@timeout_option("per job")
@click.option("--kill-after", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Kill a job's worker after "
              "this many seconds and record Unknown (default: 10 x --timeout + 30 with "
              "--timeout, else never).")
@click.option("--junit", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write a JUnit XML report (one testcase per test and model).")
@click.option("--html", "html_dir", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="Also write a static HTML report to this directory: a "
              "tests x models matrix and a page per test (text, verdicts, explanation, "
              "picture); it opens from the file system.")
@include_option
@engine_option
@states_option("List every final state in the records.")
@unroll_option
def run(paths: tuple[str, ...], model: tuple[str, ...], variants: tuple[str, ...],
        jobs: int | None, scheduler: str | None, results: Path, timeout: float | None,
        kill_after: float | None,
        junit: Path | None, include_dirs: tuple[str, ...], engine: str, states: bool,
        unroll: int, html_dir: Path | None = None) -> None:
    """Check the litmus files of PATHS (directories are walked) under their models, on
    Dask workers, appending one JSON line per (file, model) to --results.

    A rerun with the same --results skips what is already there: after an interruption
    (even kill -9) only the jobs in flight are redone. Exit code 0 when every Expect= and
    Liveness= entry is met, 1 when one is not (or a job expected to answer is Unknown),
    2 when a job could not be checked (Error lines) or on bad options.
    """
    from gdrcheck.analysis.models import ModelSpec, load_models, parse_all
    from gdrcheck.batch import NotResults, run_batch
    from gdrcheck.litmus.library import is_library_name, resolve
    from gdrcheck.report.batch import problem_lines, summary_table
    from gdrcheck.report.junit import write_junit

    names = split(model)
    every = None
    variant_list = split(variants)
    bad_models = False
    try:
        all_variants = parse_all(",".join(names)) if names else None
        models = None if all_variants is not None else \
            [ModelSpec.parse(m) for m in names] or None
    except InputError as err:
        click.echo(err.message, err=True)
        sys.exit(2)
    if all_variants is not None:  # --model all: every model that accepts each file
        every, load_errors = load_models(include_dirs)
        for load_err in load_errors:
            click.echo(load_err.render(), err=True)
            bad_models = True
        variant_list = list(dict.fromkeys([*all_variants, *variant_list]))
        known = set().union(*(m.variant_names for m in every.values()))
        unknown = [v for v in variant_list if v not in known]
        if unknown:
            click.echo(f"no model has variant {', '.join(unknown)} (variants: "
                       f"{', '.join(sorted(known)) or 'none'})", err=True)
            sys.exit(2)
    if kill_after is None and timeout is not None:
        kill_after = 10 * timeout + 30
    workers = (os.cpu_count() or 1) if jobs is None else jobs
    progress_console = err_console()
    missing = [p for p in paths if not is_library_name(p) and not Path(p).exists()]
    for p in missing:
        click.echo(f"{p}: no such file or directory", err=True)
    for p in [p for p in paths if is_library_name(p)]:
        try:
            resolve(p)
        except InputError as err:
            click.echo(err.render(), err=True)
            missing.append(p)
    progress = _progress(progress_console)
    state: dict[str, Any] = {"task": None}

    def on_start(todo: int, resumed: int) -> None:
        if resumed:
            click.echo(f"{resumed} job(s) already in {results}: skipped", err=True)
        if progress is not None:
            progress.start()
            state["task"] = progress.add_task("checking", total=todo)

    def on_record(rec: Record) -> None:
        if progress is not None and state["task"] is not None:
            progress.advance(state["task"])

    try:
        report = run_batch([p for p in paths if p not in missing], results, models=models,
                           variants=variant_list, workers=workers, every=every,
                           options=check_options(engine=engine, timeout=timeout,
                                                 unroll=unroll, include_dirs=include_dirs,
                                                 states=states),
                           kill_after=kill_after, scheduler=scheduler, on_start=on_start,
                           on_record=on_record)
    except KeyboardInterrupt:
        if progress is not None:
            progress.stop()
        click.echo(f"interrupted: the finished jobs are in {results}; rerun to resume",
                   err=True)
        sys.exit(130)
    except NotResults as err:
        if progress is not None:
            progress.stop()
        click.echo(err.message, err=True)
        sys.exit(2)
    except OSError as err:
        if progress is not None:
            progress.stop()
        click.echo(f"{results}: {err.strerror or err}", err=True)
        sys.exit(2)
    if progress is not None:
        progress.stop()
    console().print(summary_table(report))
    for line in problem_lines(report):  # plain lines (no wrapping, no markup), for grep
        click.echo(line)
    if junit is not None:
        try:
            write_junit(report, junit)
        except OSError as err:
            click.echo(f"{junit}: cannot write the JUnit report: {err.strerror or err}",
                       err=True)
            sys.exit(2)
    if html_dir is not None:
        from gdrcheck.report.html import write_html_report

        # with --model all, each record's model already has the variants it takes
        index = write_html_report(report.records, report.tests, html_dir,
                                  variant_list if every is None else (),
                                  check_options(engine=engine, timeout=timeout, unroll=unroll,
                                                include_dirs=include_dirs, states=False))
        click.echo(f"HTML report: {index}", err=True)
    code = report.exit_code
    if missing or bad_models:
        code = 2
    sys.exit(code)


def _progress(console: Console) -> Any:
    """A progress bar on stderr; None when stderr is not a terminal."""
    if not console.is_terminal:
        return None
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    # its refresh thread is harmless: workers come from a fork server (or spawn), never
    # from a fork of this process
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TimeRemainingColumn(), console=console,
                    refresh_per_second=4, transient=True)
