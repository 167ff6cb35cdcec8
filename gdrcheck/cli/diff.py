"""``gdrcheck diff -m A -m B [FILES]``: the tests on which two models disagree."""

from __future__ import annotations

import json
import sys

import click

from gdrcheck.cli.options import (
    check_options,
    console,
    engine_option,
    fail,
    include_option,
    timeout_option,
    unroll_option,
)
from gdrcheck.errors import InputError


@click.command()
@click.argument("files", nargs=-1, type=click.Path())
@click.option("--model", "-m", "model_names", multiple=True, required=True,
              help="A model with variants (gin-gdaki+pcie-ro); give it twice.")
@include_option
@engine_option
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@click.option("--all", "every", is_flag=True, help="List the tests where they agree too.")
@timeout_option()
@unroll_option
def diff(files: tuple[str, ...], model_names: tuple[str, ...], include_dirs: tuple[str, ...],
         engine: str, fmt: str, every: bool, timeout: float | None, unroll: int) -> None:
    """List the tests on which two models give different verdicts.

    Both models (with variants) run on every test of FILES (directories are walked;
    default: the litmus library) that both accept:
    `gdrcheck diff -m gin-gdaki -m gin-gdaki+pcie-ro litmus/gin`. Exit code 1 when some
    test differs, 2 on bad input."""
    from gdrcheck.analysis.diff import diff_models
    from gdrcheck.analysis.suite import LIBRARY_DIR
    from gdrcheck.report.diff import diff_json, diff_report

    if len(model_names) != 2:
        click.echo(f"diff needs exactly two --model options (got {len(model_names)})",
                   err=True)
        sys.exit(2)
    paths: list[str] = list(files) or [str(LIBRARY_DIR)]
    try:
        report = diff_models(model_names[0], model_names[1], paths,
                             check_options(engine=engine, timeout=timeout, unroll=unroll,
                                           include_dirs=include_dirs))
    except InputError as err:
        fail(err)
        sys.exit(2)
    for e in report.errors:
        click.echo(e.render(), err=True)
    if fmt == "json":
        click.echo(json.dumps(diff_json(report), indent=2))
    else:
        for part in diff_report(report, every):
            console().print(part)
    sys.exit(2 if report.errors else 1 if report.different else 0)
