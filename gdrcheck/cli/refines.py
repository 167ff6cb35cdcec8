"""``gdrcheck refines IMPL SPEC [FILES]``: does one model refine another on a suite?"""

from __future__ import annotations

import json
import sys

import click

from gdrcheck.cli.options import (
    check_options,
    console,
    engine_option,
    format_option,
    include_option,
    shown,
    states_option,
    timeout_option,
    unroll_option,
)
from gdrcheck.errors import InputError


@click.command(epilog="Exit codes: 0 IMPL refines SPEC on these tests; 1 it does not; 2 bad input.")
@click.argument("impl")
@click.argument("spec")
@click.argument("files", nargs=-1, type=click.Path())
@include_option
@states_option("Compare the final-state sets, outcome by outcome, instead of the verdicts.")
@engine_option
@format_option(["text", "json"], help="JSON: one gdrcheck.refines/1 object.")
@timeout_option("per test and model (an Unknown answer is inconclusive)")
@unroll_option
def refines(impl: str, spec: str, files: tuple[str, ...], include_dirs: tuple[str, ...],
            states: bool, engine: str, fmt: str, timeout: float | None, unroll: int) -> None:
    """Does model IMPL refine model SPEC (everything IMPL allows, SPEC allows)?

    IMPL and SPEC are model names with variants (gin-gdaki+pcie-ro). Both run on every
    test of FILES (directories are walked; default: the project's litmus/ library) that
    both accept. Lists (a) impl allows, spec forbids: not a refinement; (b) impl
    forbids, spec allows: the impl is stronger; (c) impl Undefined where the spec is
    not. A spec verdict of Undefined allows anything. Exit code 1 when (a) is not
    empty, 2 on bad input.
    """

    from gdrcheck.analysis.refine import refine
    from gdrcheck.analysis.suite import LIBRARY_DIR
    from gdrcheck.report.refines import refines_json, refines_report

    paths: list[str] = list(files)
    if not paths:
        if not LIBRARY_DIR.is_dir():
            click.echo(f"no FILES given, and the litmus library {LIBRARY_DIR} is not there",
                       err=True)
            sys.exit(2)
        paths = [shown(LIBRARY_DIR)]
    options = check_options(engine=engine, timeout=timeout, unroll=unroll,
                            include_dirs=include_dirs, states=states)
    try:
        report = refine(impl, spec, paths, options)
    except InputError as err:
        click.echo(err.render(), err=True)
        sys.exit(2)
    for file_err in report.errors:
        click.echo(file_err.render(), err=True)
    if fmt == "json":
        click.echo(json.dumps(refines_json(report), indent=2))
    else:
        for part in refines_report(report):
            console().print(part)
    sys.exit(2 if report.errors else 0 if report.refines else 1)
