"""``gdrcheck sweep``: the verdict under every combination of a model's variants."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from gdrcheck.cli.options import (
    check_options,
    console,
    fail,
    format_option,
    include_option,
    load_test,
    model_option,
    timeout_option,
    unroll_option,
)
from gdrcheck.errors import InputError


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@model_option("Model (variants written NAME+V are fixed on). Default: the models of the "
              "test's Expect= lines, else the dialect's default.")
@include_option
@format_option(["text", "json"], help="JSON: a list of gdrcheck.sweep/1 records.")
@click.option("--all", "every", is_flag=True, help="List every combination, however many.")
@timeout_option("per test and model: the lowering, the encoding and every query")
@unroll_option
def sweep(files: tuple[str, ...], model: str | None, include_dirs: tuple[str, ...],
          fmt: str, every: bool, timeout: float | None, unroll: int) -> None:
    """Under which combinations of a model's variants is the outcome of FILES allowed?

    The variants are free Booleans in one z3 encoding; lists the verdict of each
    combination, the minimal variant sets that change the default verdict, and which
    variants cannot matter for the test (inert)."""
    from gdrcheck.analysis.models import ModelSpec, models_for
    from gdrcheck.analysis.sweep import sweep_test
    from gdrcheck.report.sweep import sweep_json, sweep_report

    options = check_options(timeout=timeout, unroll=unroll, include_dirs=include_dirs)
    bad = False
    records: list[dict[str, Any]] = []
    out = console()
    for path in files:
        try:
            test = load_test(path, timeout)
            specs = models_for(test, model)
        except InputError as err:
            fail(err, path)
            bad = True
            continue
        seen: list[ModelSpec] = []
        for spec in specs:
            if not model:  # the models of the Expect= lines, each swept once
                spec = ModelSpec(spec.name)
            if spec in seen:
                continue
            seen.append(spec)
            try:
                r = sweep_test(test, spec, options)
            except InputError as err:
                fail(err, path)
                bad = True
                continue
            if fmt == "json":
                records.append(sweep_json(test, r))
            else:
                for part in sweep_report(test, r, every):
                    out.print(part)
                out.print()
    if fmt == "json":
        click.echo(json.dumps(records, indent=2))  # always a list (docs/output.md)
    sys.exit(2 if bad else 0)
