"""``gdrcheck generate``: diy-style tests from cycles of edges, or families by size."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from gdrcheck.cli.options import output_option
from gdrcheck.errors import InputError
from gdrcheck.gen.cycles import DIALECTS, build_cycle
from gdrcheck.gen.families import FAMILIES, check_family_size, family
from gdrcheck.limits import MAX_LITMUS_BYTES, size_text
from gdrcheck.litmus import parse_litmus


@click.command()
@click.argument("cycles", nargs=-1)
@click.option("--dialect", type=click.Choice(DIALECTS), default="x86", show_default=True)
@click.option("--scope", type=click.Choice(["cta", "gpu", "sys"]), default="sys",
              show_default=True, help="PTX/GIN: the scope of accesses and fences.")
@click.option("--family", "fam", type=click.Choice(FAMILIES), default=None,
              help="Generate a family instead of cycles.")
@click.option("--size", "sizes", type=int, multiple=True,
              help="Family size(s) (repeatable).")
@click.option("--enumerate", "every", is_flag=True,
              help="Every cycle of 2 .. --size edges over --edges (diycross-style), once per "
              "rotation, that makes a test.")
@click.option("--edges", default=None, help="With --enumerate: the edges, comma separated "
              "(default: a set per dialect, see docs/generate.md).")
@click.option("--width", type=click.IntRange(min=1), default=1, show_default=True,
              help="GIN fans: words per put group.")
@output_option("Directory to write NAME.litmus files into (default: print them).",
               directory=True)
def generate(cycles: tuple[str, ...], dialect: str, scope: str, fam: str | None,
             sizes: tuple[int, ...], every: bool, edges: str | None, width: int,
             output: Path | None) -> None:
    """Generate litmus tests: each CYCLE is a quoted list of edges, e.g.
    'Fre PodWR Fre PodWR' (herd's diy names; GIN adds PutdWW, PutSigdWW, PutSigXdWW,
    PutFlushSigXdWW). The test's condition says the cycle was observed."""
    made: list[tuple[str, str]] = []
    try:
        if every:
            from gdrcheck.gen.enumerate import DEFAULT_EDGES, check_enumeration, enumerate_cycles

            if cycles or fam is not None:
                raise InputError("give cycles, --family or --enumerate, one of them")
            names = ([e.strip() for e in edges.split(",") if e.strip()] if edges
                     else list(DEFAULT_EDGES[dialect]))
            wanted = sizes or (4,)
            total = sum(check_enumeration(len(names), size) for size in wanted)  # refused up front
            with _progress("enumerating edge sequences", total) as advance:
                for size in wanted:
                    made.extend(("+".join(c), text) for c, text in
                                enumerate_cycles(names, size, dialect, scope, progress=advance))
            made = list(dict(made).items())
        elif fam is not None:
            if cycles:
                raise InputError("give either cycles or --family, not both")
            for n in sizes or (2,):
                check_family_size(fam, n, width)  # every size refused or not before any is built
            with _progress("building the tests", len(sizes or (2,))) as advance:
                for n in sizes or (2,):
                    made.append(family(fam, n, dialect, width))
                    advance(1)
        else:
            if not cycles:
                raise InputError("give at least one cycle, e.g. 'Fre PodWR Fre PodWR'")
            for c in cycles:
                cycle = c.replace(",", " ").split()
                text = build_cycle(cycle, dialect, scope)
                made.append(("+".join(cycle), text))
        with _progress("parsing the tests back", len(made)) as advance:
            for name, text in made:
                if len(text.encode("utf-8")) > MAX_LITMUS_BYTES:
                    raise InputError(f"the test {name} would be larger than "
                                     f"{size_text(MAX_LITMUS_BYTES)}, the most gdrcheck reads "
                                     "as a test (docs/limits.md)")
                parse_litmus(text, f"{name}.litmus")  # every generated test parses
                advance(1)
    except InputError as err:
        click.echo(err.render() if err.path else err.message, err=True)
        sys.exit(2)
    if output is None:
        for _, text in made:
            click.echo(text)
        return
    d = output
    try:
        d.mkdir(parents=True, exist_ok=True)
        with _progress("writing the tests", len(made)) as advance:
            for name, text in made:
                target = d / f"{name}.litmus"
                target.write_text(text, encoding="utf-8")
                advance(1)
    except OSError as err:
        where = err.filename or d
        click.echo(f"{where}: cannot write the generated tests: {err.strerror or err}",
                   err=True)
        sys.exit(2)
    click.echo(f"wrote {len(made)} test(s) to {d}", err=True)


PROGRESS_FROM = 200
"""Work of fewer steps than this (tests, or thousands of edge sequences) shows no bar."""


@contextmanager
def _progress(what: str, total: int) -> Iterator[Callable[[int], None]]:
    """A rich progress bar on stderr for ``total`` steps, when stderr is a terminal and
    the work is long (:data:`PROGRESS_FROM`); yields the function that advances it."""
    from gdrcheck.cli.options import err_console

    console = err_console()
    if not console.is_terminal or total < PROGRESS_FROM:
        yield lambda _n: None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), TimeRemainingColumn(), console=console,
                  refresh_per_second=4, transient=True) as bar:
        task = bar.add_task(what, total=total)
        yield lambda n: bar.advance(task, n)
