"""``gdrcheck explain``: why each model forbids an outcome (cycles of named edges)."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from gdrcheck.analysis.drawing import SHOW
from gdrcheck.cli.options import (
    check_options,
    fail,
    include_option,
    load_test,
    split,
    timeout_option,
    unroll_option,
    variant_option,
)
from gdrcheck.cli.pictures import draw
from gdrcheck.errors import InputError


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--model", "-m", help="Model with variants (gin-gdaki+pcie-ro); several, "
              "comma separated. Default: the models of the test's Expect= lines, else the "
              "dialect's default.")
@include_option
@variant_option()
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@click.option("--graph", "graph", default=None, help="Also draw the execution explained "
              "(.dot, .svg, .png, .pdf; '-' prints the DOT).")
@click.option("--show", type=click.Choice(SHOW), default="witness", show_default=True,
              help="With --graph: 'all' also draws the model's synchronisation relations.")
@timeout_option()
@unroll_option
def explain(files: tuple[str, ...], model: str | None, include_dirs: tuple[str, ...],
            variants: tuple[str, ...], fmt: str, graph: str | None, show: str,
            timeout: float | None, unroll: int) -> None:
    """Why each model forbids the outcome of FILES: the checks that rule it out and,
    for each, a shortest cycle of named edges (po, rf, fr, publish-strong (R-GIN-3),
    nic-sync (R-GDR-4), ...) on a candidate execution that violates only that check.
    An allowed outcome gets its witness execution."""
    from gdrcheck.analysis.explain import explain as run_explain
    from gdrcheck.analysis.models import models_for
    from gdrcheck.report.explain import explanation_json, format_explanation

    options = check_options(timeout=timeout, unroll=unroll, include_dirs=include_dirs)
    extra = split(variants)
    bad = False
    records: list[dict[str, Any]] = []
    n = 0
    for path in files:
        try:
            test = load_test(path, timeout)
            specs = models_for(test, model)
        except InputError as err:
            fail(err, path)
            bad = True
            continue
        for spec in specs:
            try:
                x = run_explain(test, spec, extra, options)
            except InputError as err:
                fail(err, path)
                bad = True
                continue
            if fmt == "json":
                records.append(explanation_json(x))
            else:
                click.echo(format_explanation(x))
                click.echo()
            if graph and x.result is not None:
                draw(test, spec, extra, x.result, options, path=graph, index=n,
                     several=len(files) > 1 or len(specs) > 1, show=show)
            n += 1
    if fmt == "json":
        click.echo(json.dumps(records[0] if len(records) == 1 else records, indent=2))
    sys.exit(2 if bad else 0)
