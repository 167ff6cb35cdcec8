"""``gdrcheck fix FILE``: the cheapest strengthenings that make the outcome Forbidden
under every named model."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from gdrcheck.cli.options import (
    check_options,
    fail,
    format_option,
    include_option,
    lint_option,
    model_option,
    output_option,
    print_lints,
    split,
    timeout_option,
    unroll_option,
    variant_option,
)
from gdrcheck.errors import InputError


def _catalogue() -> str:
    from gdrcheck.analysis.fix_liveness import HANG_CATALOGUE
    from gdrcheck.analysis.strengthen import CATALOGUE

    return ("Catalogue: " + "; ".join(f"{s.name} ({s.doc})" for s in CATALOGUE) + ". "
            "With --liveness also: " + "; ".join(f"{n} ({d})" for n, d, _ in HANG_CATALOGUE)
            + ".")


@click.command(epilog="Exit codes: 0 a repair was found (or nothing to fix); 1 no "
               "catalogued strengthening forbids the outcome, or the search is Unknown; "
               "2 bad input.")
@click.argument("file", type=click.Path(dir_okay=False))
@model_option("Target models with variants, or 'all' (every model that accepts the "
              "test). Default: the models of the test's Expect= lines, else the dialect's "
              "default.")
@variant_option("Variants added to every target model, comma separated.")
@click.option("--every-variant", is_flag=True, help="Forbidden under every combination of "
              "each model's variants (one sweep per model and candidate).")
@click.option("--max-cost", type=click.IntRange(min=0), default=None,
              help="Only sets of edits costing at most this much.")
@click.option("--all-minimal", is_flag=True, help="Every minimal-cost repair, not only one.")
@output_option("Write the (first) repaired file here: FILE's text with the repair's edits "
               "made in it.")
@click.option("--write", "in_place", is_flag=True, help="Edit FILE in place: make the (first) "
              "repair's edits in its text (comments, Expect= lines and layout kept).")
@format_option(["text", "json"], help="JSON: one gdrcheck.fix/1 object.")
@include_option
@timeout_option("for the whole search, every query included (as for sweep)")
@unroll_option
@lint_option
@click.option("--liveness", "liveness_", is_flag=True, help="Repair a hang instead: the "
              "cheapest change after which the test is Live under every target and its "
              "condition still holds (its Expect= verdict, else Allowed for exists and "
              "Required for forall). The default for a test with Liveness= lines and no "
              "Expect= line (docs/liveness.md).")
def fix(file: str, model: str | None, variants: tuple[str, ...], every_variant: bool,
        max_cost: int | None, all_minimal: bool, output: Path | None, in_place: bool,
        fmt: str, include_dirs: tuple[str, ...], timeout: float | None, unroll: int,
        lints: bool = True, liveness_: bool = False) -> None:
    """The cheapest set of program strengthenings (fences, release/acquire, scopes, strong
    signals, flushes, contexts, strict windows, shmem.fence/quiet, ...) that makes the
    outcome of FILE Forbidden under every target model, proved minimal; each repair as an
    edit of FILE's own text (a diff of its lines) with its cost, then re-checked."""
    from gdrcheck.analysis.fix import fix as run_fix
    from gdrcheck.analysis.models import ModelSpec, all_runs, load_models, models_for, parse_all
    from gdrcheck.engine.deadline import Deadline, Expired
    from gdrcheck.litmus import load_litmus
    from gdrcheck.report.fix import fix_json, format_fix

    options = check_options(timeout=timeout, unroll=unroll, include_dirs=include_dirs)
    extra = split(variants)
    budget = Deadline(timeout)  # the whole command: parsing, loading and the search
    try:
        test = load_litmus(file, budget.tick)
        print_lints(test, quiet=not lints)
        every = parse_all(model)
        if every is not None:
            models, errors = load_models(include_dirs, budget.tick)
            if errors:
                raise errors[0]
            targets = [s.with_variants(extra) for s, _ in
                       all_runs(test, models, list(every))]
        else:
            targets = [s.with_variants(extra) for s in models_for(test, model)]
            if not model:  # the models of the Expect= lines, each once
                targets = list(dict.fromkeys(ModelSpec(s.name, s.variants) for s in targets))
        if liveness_ or (test.liveness_expectations and not test.expectations):
            from gdrcheck.analysis.fix_liveness import fix_liveness

            if every_variant:
                raise InputError("fix --liveness: --every-variant is not supported (name "
                                 "the variants with --model)")
            result = fix_liveness(test, targets, max_cost=max_cost,
                                  all_minimal=all_minimal, options=options, deadline=budget)
        else:
            result = run_fix(test, targets, every_variant=every_variant,
                             max_cost=max_cost, all_minimal=all_minimal, options=options,
                             deadline=budget)
    except InputError as err:
        fail(err, file)
        sys.exit(2)
    except Expired:
        click.echo(f"{file}: timeout after {timeout:g} s while reading the test and its "
                   "models (--timeout bounds the whole command)", err=True)
        sys.exit(2)
    if fmt == "json":
        rec: dict[str, Any] = fix_json(test, result)
        click.echo(json.dumps(rec, indent=2))
    else:
        click.echo(format_fix(test, result))
    targets_out = ([output] if output is not None else []) + ([Path(file)] if in_place else [])
    for path in targets_out if result.repairs else []:
        try:
            # newline="": the text keeps the user's line endings as they were
            path.write_text(result.repairs[0].text, encoding="utf-8", newline="")
        except OSError as err:
            click.echo(f"{path}: cannot write the repaired test: {err.strerror or err}",
                       err=True)
            sys.exit(2)
        click.echo(f"wrote the repaired test to {path}", err=True)
    sys.exit(0 if result.status in ("fixed", "already") else 1)


fix.help = (fix.help or "") + "\n\n" + _catalogue()
