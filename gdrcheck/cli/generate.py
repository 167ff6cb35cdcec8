"""``gdrcheck generate``: diy-style tests from cycles of edges, or families by size."""

from __future__ import annotations

import sys
from pathlib import Path

import click

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
@click.option("--width", type=int, default=1, show_default=True,
              help="GIN fans: words per put group.")
@click.option("-o", "out", type=click.Path(file_okay=False), default=None,
              help="Directory to write NAME.litmus files into (default: print them).")
def generate(cycles: tuple[str, ...], dialect: str, scope: str, fam: str | None,
             sizes: tuple[int, ...], width: int, out: str | None) -> None:
    """Generate litmus tests: each CYCLE is a quoted list of edges, e.g.
    'Fre PodWR Fre PodWR' (herd's diy names; GIN adds PutdWW, PutSigdWW, PutSigXdWW,
    PutFlushSigXdWW). The test's condition says the cycle was observed."""
    made: list[tuple[str, str]] = []
    try:
        if fam is not None:
            if cycles:
                raise InputError("give either cycles or --family, not both")
            for n in sizes or (2,):
                made.append(family(fam, n, dialect, width))
        else:
            if not cycles:
                raise InputError("give at least one cycle, e.g. 'Fre PodWR Fre PodWR'")
            for c in cycles:
                edges = c.replace(",", " ").split()
                text = build_cycle(edges, dialect, scope)
                made.append(("+".join(edges), text))
        for name, text in made:
            parse_litmus(text, f"{name}.litmus")  # every generated test parses
    except InputError as err:
        click.echo(err.render(), err=True)
        sys.exit(2)
    if out is None:
        for _, text in made:
            click.echo(text)
        return
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    for name, text in made:
        (d / f"{name}.litmus").write_text(text)
    click.echo(f"wrote {len(made)} test(s) to {d}", err=True)
