"""``gdrcheck generate``: diy-style tests from cycles of edges, or families by size."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from gdrcheck.cli.options import output_option
from gdrcheck.errors import InputError
from gdrcheck.gen.cycles import DIALECTS, build_cycle
from gdrcheck.gen.families import FAMILIES, family
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
@click.option("--width", type=int, default=1, show_default=True,
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
            from gdrcheck.gen.enumerate import DEFAULT_EDGES, enumerate_cycles

            if cycles or fam is not None:
                raise InputError("give cycles, --family or --enumerate, one of them")
            names = ([e.strip() for e in edges.split(",") if e.strip()] if edges
                     else list(DEFAULT_EDGES[dialect]))
            for size in sizes or (4,):
                made.extend(("+".join(c), text)
                            for c, text in enumerate_cycles(names, size, dialect, scope))
            made = list(dict(made).items())
        elif fam is not None:
            if cycles:
                raise InputError("give either cycles or --family, not both")
            for n in sizes or (2,):
                made.append(family(fam, n, dialect, width))
        else:
            if not cycles:
                raise InputError("give at least one cycle, e.g. 'Fre PodWR Fre PodWR'")
            for c in cycles:
                cycle = c.replace(",", " ").split()
                text = build_cycle(cycle, dialect, scope)
                made.append(("+".join(cycle), text))
        for name, text in made:
            parse_litmus(text, f"{name}.litmus")  # every generated test parses
    except InputError as err:
        click.echo(err.render(), err=True)
        sys.exit(2)
    if output is None:
        for _, text in made:
            click.echo(text)
        return
    d = output
    d.mkdir(parents=True, exist_ok=True)
    for name, text in made:
        (d / f"{name}.litmus").write_text(text)
    click.echo(f"wrote {len(made)} test(s) to {d}", err=True)
