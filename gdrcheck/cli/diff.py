"""``gdrcheck diff -m A,B [FILES]`` (or ``-m A -m B``): the tests on which two models disagree."""

from __future__ import annotations

import json
import sys

import click

from gdrcheck.cli.options import (
    check_options,
    console,
    engine_option,
    fail,
    format_option,
    include_option,
    model_option,
    split,
    timeout_option,
    unroll_option,
)
from gdrcheck.errors import InputError


@click.command()
@click.argument("files", nargs=-1, type=click.Path())
@model_option("The two models, with variants: -m gin-gdaki,gin-gdaki+pcie-ro or "
              "-m gin-gdaki -m gin-gdaki+pcie-ro.")
@include_option
@engine_option
@format_option(["text", "json"], help="JSON: one gdrcheck.diff/1 object.")
@click.option("--all", "every", is_flag=True, help="List the tests where they agree too.")
@timeout_option()
@unroll_option
def diff(files: tuple[str, ...], model: str | None, include_dirs: tuple[str, ...],
         engine: str, fmt: str, every: bool, timeout: float | None, unroll: int) -> None:
    """List the tests on which two models give different verdicts.

    Both models (with variants) run on every test of FILES (directories are walked;
    default: the litmus library) that both accept:
    `gdrcheck diff -m gin-gdaki -m gin-gdaki+pcie-ro litmus/gin`. Exit code 1 when some
    test differs, 2 on bad input."""
    from gdrcheck.analysis.diff import diff_models
    from gdrcheck.analysis.suite import LIBRARY_DIR
    from gdrcheck.report.diff import diff_json, diff_report

    model_names = split([model or ""])
    if len(model_names) != 2:
        click.echo(f"diff needs exactly two models, -m A,B or -m A -m B (got "
                   f"{len(model_names)}: {', '.join(model_names) or 'none'})", err=True)
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
