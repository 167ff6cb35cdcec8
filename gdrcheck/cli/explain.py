"""``gdrcheck explain``: why each model forbids an outcome (cycles of named edges), or
why it allows it (the orders it needs and does not get)."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from gdrcheck.analysis.options import SHOW
from gdrcheck.cli.options import (
    check_options,
    fail,
    format_option,
    include_option,
    lint_option,
    load_test,
    model_option,
    print_lints,
    split,
    timeout_option,
    unroll_option,
    variant_option,
)
from gdrcheck.cli.pictures import draw, draw_hang
from gdrcheck.errors import InputError


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@model_option("Model with variants (gin-gdaki+pcie-ro). Default: the models of the "
              "test's Expect= lines, else the dialect's default.")
@include_option
@variant_option()
@format_option(["text", "json"], help="JSON: a list of gdrcheck.explain/1 records.")
@click.option("--graph", "graph", default=None, help="Also draw the execution explained "
              "(.dot, .svg, .png, .pdf; '-' prints the DOT on stdout, the explanation "
              "then goes to stderr).")
@click.option("--show", type=click.Choice(SHOW), default="witness", show_default=True,
              help="With --graph: 'all' also draws the model's synchronisation relations.")
@timeout_option()
@unroll_option
@lint_option
@click.option("--liveness", "liveness_", is_flag=True, help="Also ask whether a wait or a "
              "spin loop can block forever (as check --liveness; a Liveness= entry asks "
              "it for its model): for a Hang, which thread spins or waits at which line, "
              "what it keeps reading from which write and why no later write changes it; "
              "with --graph, the stuck execution is drawn too (docs/liveness.md).")
def explain(files: tuple[str, ...], model: str | None, include_dirs: tuple[str, ...],
            variants: tuple[str, ...], fmt: str, graph: str | None, show: str,
            timeout: float | None, unroll: int, lints: bool = True,
            liveness_: bool = False) -> None:
    """Why each model forbids the outcome of FILES: the checks that rule it out and,
    for each, a shortest cycle of named edges (po, rf, fr, publish-strong (R-GIN-3),
    nic-sync (R-GDR-4), ...) on a candidate execution that violates only that check.
    An allowed outcome gets why it can happen (the pairs of operations its cycle needs
    ordered that the model leaves unordered, what keeps each out, and the strengthenings
    that order it, checked) and its witness execution."""
    from gdrcheck.analysis.explain import explain as run_explain
    from gdrcheck.analysis.models import models_for
    from gdrcheck.report.explain import explanation_json, format_explanation

    options = check_options(timeout=timeout, unroll=unroll, include_dirs=include_dirs
                            ).overlay(liveness=liveness_)
    extra = split(variants)
    bad = False
    records: list[dict[str, Any]] = []
    n = 0
    to_err = graph == "-"  # the DOT alone on stdout (`| dot -Tsvg`)
    for path in files:
        try:
            test = load_test(path, timeout)
            print_lints(test, quiet=not lints)
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
                click.echo(format_explanation(x), err=to_err)
                click.echo(err=to_err)
            if graph and x.result is not None:
                draw(test, spec, extra, x.result, options, path=graph, index=n,
                     several=len(files) > 1 or len(specs) > 1, show=show, explanation=x)
            n += 1
            if graph and x.hang is not None and x.hang.witness is not None:
                draw_hang(test, x.hang, options, path=graph, index=n)
                n += 1
    if fmt == "json":
        click.echo(json.dumps(records, indent=2), err=to_err)  # always a list (docs/output.md)
    sys.exit(2 if bad else 0)
