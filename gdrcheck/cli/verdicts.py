"""``gdrcheck verdicts [DIR...] [-o docs/verdicts.md]``: the verdicts page of the library.

The page is deterministic (no timings; the total time goes to stderr).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from gdrcheck.cli.options import check_options, engine_option, output_option, timeout_option


@click.command(epilog="Exit codes: 0 every expectation met; 1 one is not (the page is "
                "written either way); 2 a DIR does not exist.")
@click.argument("dirs", nargs=-1, type=click.Path())
@output_option("Write the page here (default: stdout).")
@engine_option
@timeout_option()
def verdicts(dirs: tuple[str, ...], output: Path | None, engine: str,
             timeout: float | None) -> None:
    """Write the verdicts page of the litmus tests in DIRS (default: litmus/; lib: is the
    shipped library): every test under every model of its Expect= line, one markdown
    table per family directory."""
    from gdrcheck.analysis.verdicts import families_of, run_family
    from gdrcheck.errors import InputError
    from gdrcheck.litmus.library import resolve
    from gdrcheck.report.verdicts import render

    if not dirs and not Path("litmus").is_dir():
        click.echo("no DIR given and there is no litmus/ here (lib: names the shipped "
                   "library)", err=True)
        sys.exit(2)
    try:
        roots = [resolve(d) for d in dirs] or [Path("litmus")]
    except InputError as err:
        click.echo(err.render(), err=True)
        sys.exit(2)
    for root, name in zip(roots, dirs, strict=False):
        if not root.exists():
            click.echo(f"{name}: no such file or directory", err=True)
            sys.exit(2)
    t0 = time.perf_counter()
    options = check_options(engine=engine, timeout=timeout)
    families = [run_family(name, d, files, options)
                for name, d, files in families_of(roots)]
    args = " ".join(dirs or ("litmus",)) + (f" -o {output}" if output else "")
    page = render(families, output.parent if output else Path.cwd(),
                  f"gdrcheck verdicts {args}")
    if output:
        output.write_text(page + "\n", encoding="utf-8")
    else:
        click.echo(page)
    cells = [c for f in families for c in f.cells]
    met = sum(c.met for c in cells)
    bad = len(cells) - met + sum(len(f.errors) for f in families)
    click.echo(f"{len(cells)} expectations, {met} met; {time.perf_counter() - t0:.1f} s",
               err=True)
    sys.exit(1 if bad else 0)
