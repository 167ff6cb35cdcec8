"""``gdrcheck library [PATTERN]``: the litmus tests shipped with the package, by the
``lib:`` names every command accepts (``gdrcheck check lib:gin/01-MP+put+strongsig.litmus``)."""

from __future__ import annotations

import sys

import click


@click.command()
@click.argument("pattern", required=False)
@click.option("--paths", is_flag=True, help="Print each test's file path instead of its "
              "lib: name.")
def library(pattern: str | None, paths: bool) -> None:
    """List the shipped litmus tests (their lib: names), or those matching PATTERN (a
    shell pattern such as 'gin/0*' or a substring such as 'strongsig'). Any command that
    takes a test accepts the name: gdrcheck check lib:gin/01-MP+put+strongsig.litmus;
    a folder too: gdrcheck run lib:gin -o out.jsonl."""
    from gdrcheck.litmus.library import LIB_PREFIX, LIBRARY_DIR, library_tests

    names = library_tests(pattern)
    if not names:
        where = f" matching {pattern!r}" if pattern else ""
        click.echo(f"no shipped litmus test{where} (library: {LIBRARY_DIR})", err=True)
        sys.exit(2)
    for n in names:
        click.echo(str(LIBRARY_DIR / n) if paths else LIB_PREFIX + n)
