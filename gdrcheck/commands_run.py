"""``gdrcheck run``: check many litmus files in parallel, resumably (gdrcheck/batch.py)."""

from __future__ import annotations

import os
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from gdrcheck.errors import InputError
from gdrcheck.runner import ENGINES, ModelSpec

if TYPE_CHECKING:
    from rich.console import Console

    from gdrcheck.batch import BatchReport, Record

VERDICT_ORDER = ("Allowed", "Forbidden", "Required", "Undefined", "Unknown", "Error")


def _split(values: tuple[str, ...]) -> list[str]:
    return [x.strip() for v in values for x in v.split(",") if x.strip()]


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--model", "-m", help="Models, comma separated (NAME or NAME+VARIANT+...). "
              "Default: for each file, the models of its Expect= lines, else its dialect's "
              "default model.")
@click.option("--variant", "variants", multiple=True, help="Variants added to every model, "
              "comma separated.")
@click.option("--jobs", "-j", type=click.IntRange(min=0), default=None,
              help="Worker processes (default: the number of CPUs; 0: in this process, "
              "without isolation).")
@click.option("--results", "-o", "results", required=True,
              type=click.Path(dir_okay=False, path_type=Path),
              help="JSONL file: one line per finished job, appended; the keys already "
              "there are skipped (resume).")
@click.option("--timeout", type=float, default=None, help="Solver timeout per job (s): "
              "Unknown, never a verdict.")
@click.option("--kill-after", type=float, default=None, help="Kill a job's worker after "
              "this many seconds and record Unknown (default: 10 x --timeout + 30 with "
              "--timeout, else never).")
@click.option("--junit", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write a JUnit XML report (one testcase per test and model).")
@click.option("-I", "include_dirs", multiple=True, type=click.Path(file_okay=False),
              help="Extra directory to search for models (first).")
@click.option("--engine", type=click.Choice(ENGINES), default="smt", show_default=True)
@click.option("--states", is_flag=True, help="List every final state in the records.")
@click.option("--unroll", type=int, default=2, show_default=True,
              help="Times a loop body may run on one path.")
def run(paths: tuple[str, ...], model: str | None, variants: tuple[str, ...],
        jobs: int | None, results: Path, timeout: float | None, kill_after: float | None,
        junit: Path | None, include_dirs: tuple[str, ...], engine: str, states: bool,
        unroll: int) -> None:
    """Check the litmus files of PATHS (directories are walked) under their models, on
    a pool of worker processes, appending one JSON line per (file, model) to --results.

    A rerun with the same --results skips what is already there: after an interruption
    (even kill -9) only the jobs in flight are redone. Exit code 0 when every Expect= and
    Liveness= entry is met, 1 when one is not (or a job expected to answer is Unknown),
    2 when a job could not be checked (Error lines) or on bad options.
    """
    from gdrcheck.batch import run_batch

    try:
        models = [ModelSpec.parse(m) for m in _split((model,))] if model else None
    except InputError as err:
        click.echo(err.message, err=True)
        sys.exit(2)
    if models and any(m.name == "all" for m in models):
        click.echo("gdrcheck run does not take --model all: name the models", err=True)
        sys.exit(2)
    if kill_after is None and timeout is not None:
        kill_after = 10 * timeout + 30
    workers = (os.cpu_count() or 1) if jobs is None else jobs
    console = _err_console()
    missing = [p for p in paths if not Path(p).exists()]
    for p in missing:
        click.echo(f"{p}: no such file or directory", err=True)
    progress = _progress(console)
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
                           variants=_split(variants), workers=workers, engine=engine,
                           timeout=timeout, kill_after=kill_after, include_dirs=include_dirs,
                           unroll=unroll, states=states, on_start=on_start,
                           on_record=on_record)
    except KeyboardInterrupt:
        if progress is not None:
            progress.stop()
        click.echo(f"interrupted: the finished jobs are in {results}; rerun to resume",
                   err=True)
        sys.exit(130)
    except OSError as err:
        if progress is not None:
            progress.stop()
        click.echo(f"{results}: {err.strerror or err}", err=True)
        sys.exit(2)
    if progress is not None:
        progress.stop()
    print_summary(report, _out_console())
    if junit is not None:
        write_junit(report, junit)
    code = report.exit_code
    if missing:
        code = 2
    sys.exit(code)


def _err_console() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def _out_console() -> Console:
    from rich.console import Console

    console = Console(highlight=False)
    if not console.is_terminal:
        console = Console(highlight=False, width=max(console.width, 120))
    return console


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


def print_summary(report: BatchReport, console: Console) -> None:
    from rich.table import Table

    counts = report.verdicts()
    met, failed, errored = report.expectations()
    table = Table(title=f"gdrcheck run: {len(report.records)} job(s)")
    table.add_column("verdict")
    table.add_column("jobs", justify="right")
    for v in [*VERDICT_ORDER, *sorted(set(counts) - set(VERDICT_ORDER))]:
        if counts.get(v):
            table.add_row(v, str(counts[v]))
    table.add_section()
    table.add_row("expectations met", str(met))
    table.add_row("expectations not met", str(failed))
    if errored:
        table.add_row("expectations not checked (Error)", str(errored))
    table.add_row("run now / resumed", f"{report.new} / {report.resumed}")
    table.add_row("time", f"{report.seconds:.1f} s")
    console.print(table)
    # plain lines (no wrapping, no markup): one per mismatch and error, for grep
    for m in report.mismatches():
        what = "Liveness" if m.kind == "liveness" else "Expect"
        click.echo(f"MISMATCH {m.key}: {what} {m.want}, got {m.got}")
    for rec in report.errors:
        first = str(rec.get("reason") or "").splitlines()[:1]
        click.echo(f"ERROR {rec['key']}: {first[0] if first else ''}")


def write_junit(report: BatchReport, path: Path) -> None:
    """JUnit XML: one testcase per job (classname: the file, name: test name and model);
    a failure when an Expect= or Liveness= entry is not met, an error for an Error line."""
    mismatches: dict[str, list[str]] = {}
    for m in report.mismatches():
        what = "Liveness" if m.kind == "liveness" else "Expect"
        mismatches.setdefault(m.key, []).append(f"{what} {m.want}, got {m.got}")
    suite = ET.Element("testsuite", name="gdrcheck", tests=str(len(report.records)),
                       failures=str(len(mismatches)), errors=str(len(report.errors)),
                       skipped="0", time=f"{report.seconds:.3f}")
    for key in sorted(report.records):
        rec = report.records[key]
        case = ET.SubElement(suite, "testcase", classname=str(rec.get("file")),
                             name=f"{rec.get('test') or '?'} {rec.get('model')}",
                             time=f"{float(rec.get('time') or 0):.6f}")
        if rec.get("verdict") == "Error":
            err = ET.SubElement(case, "error", message=str(rec.get("reason") or "")
                                .splitlines()[0] if rec.get("reason") else "error")
            err.text = str(rec.get("reason") or "")
        elif key in mismatches:
            fail = ET.SubElement(case, "failure", message="; ".join(mismatches[key]))
            detail = [f"verdict {rec.get('verdict')}"]
            if rec.get("axioms"):
                detail.append("axioms: " + ", ".join(rec["axioms"]))
            if rec.get("flags"):
                detail.append("flags: " + ", ".join(rec["flags"]))
            if rec.get("liveness"):
                detail.append("liveness: " + ", ".join(rec["liveness"]))
            if rec.get("reason"):
                detail.append(f"reason: {rec['reason']}")
            fail.text = "\n".join(detail)
    root = ET.Element("testsuites", tests=suite.get("tests", "0"),
                      failures=suite.get("failures", "0"), errors=suite.get("errors", "0"),
                      time=suite.get("time", "0"))
    root.append(suite)
    ET.indent(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
