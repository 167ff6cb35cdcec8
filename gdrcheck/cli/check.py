"""``gdrcheck check``: the verdict of each test under its models (herd's layout, a table
per test, or JSON)."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from gdrcheck.analysis.options import SHOW
from gdrcheck.cat.loader import LoadedModel
from gdrcheck.cli.options import (
    EXIT_CODES,
    check_options,
    console,
    engine_option,
    err_console,
    format_option,
    include_option,
    lint_option,
    model_option,
    print_lints,
    split,
    states_option,
    timeout_option,
    unroll_option,
    variant_option,
)
from gdrcheck.cli.pictures import draw, explanation_text
from gdrcheck.errors import InputError


@click.command(epilog=EXIT_CODES)
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@model_option("Model name (a spec in specs/ or -I dirs, or the path of a .cat file), "
              "optionally with variants: ptx, x86tso, sc, NAME+VARIANT; 'all' (or "
              "all+VARIANT) for every model that accepts the test. Default: the models "
              "named in the test's Expect= lines, else the dialect's default.")
@include_option
@variant_option("Model variants, comma separated (with --model all: applied to the models "
                "that have them).")
@engine_option
@format_option(["text", "herd", "table", "json"], None, "Output: text (a line with the "
               "verdict in words, then herd's layout), herd (herd's layout alone, for herd's "
               "tools), a table per test (one row per model), or JSON (a list of records). "
               "Default: table with --model all, else text.")
@timeout_option()
@states_option("List every reachable final state (herd's States; exponential in general).")
@click.option("--show-witness", is_flag=True, help="Print the witness execution.")
@unroll_option
@click.option("--graph", default=None, help="Draw each result's execution (.dot, .svg, .png, "
              ".pdf; '-' prints the DOT on stdout, the report then goes to stderr; several "
              "results: out-TEST-MODEL.svg). A forbidden "
              "outcome draws the candidate execution of `gdrcheck explain`.")
@click.option("--show", type=click.Choice(SHOW), default="witness",
              show_default=True, help="With --graph: 'all' also draws the model's show "
              "relations (else its synchronisation steps: sync, gin-hb, ...).")
@click.option("--explain", "explain_", is_flag=True, help="After each herd result, print "
              "the explanation of `gdrcheck explain`.")
@lint_option
@click.option("--liveness", "liveness_", is_flag=True, help="Also ask whether a blocking "
              "wait or a spin loop can block forever in a fair execution: Hang (with the "
              "stuck threads), Live, or Unknown when the loop bound or the time limit did "
              "not cover every execution (docs/liveness.md).")
def check(files: tuple[str, ...], model: str | None, include_dirs: tuple[str, ...],
          variants: tuple[str, ...], engine: str, fmt: str | None, timeout: float | None,
          states: bool, show_witness: bool, unroll: int, graph: str | None = None,
          show: str = "witness", explain_: bool = False, lints: bool = True,
          liveness_: bool = False) -> None:
    """Check litmus FILES: the verdict of each condition under the model."""

    from gdrcheck.analysis.check import check_test
    from gdrcheck.analysis.models import (
        all_runs,
        check_model_names,
        expected_verdict,
        load_models,
        models_for,
        parse_all,
    )
    from gdrcheck.engine.deadline import Deadline, Expired
    from gdrcheck.litmus import load_litmus
    from gdrcheck.report.herd import format_report, format_result
    from gdrcheck.report.json import result_json
    from gdrcheck.report.table import Row, result_table

    options = check_options(engine=engine, timeout=timeout, unroll=unroll,
                            include_dirs=include_dirs, states=states).overlay(
                                liveness=liveness_)
    extra = split(variants)
    bad_input = False
    mismatches = 0
    records: list[dict[str, Any]] = []
    try:
        all_variants = parse_all(model)
    except InputError as err:
        click.echo(err.message, err=True)
        sys.exit(2)
    all_mode = all_variants is not None
    fmt = fmt or ("table" if all_mode else "text")
    # --graph -: the DOT alone on stdout (`| dot -Tsvg`), the report on stderr
    to_err = graph == "-"
    models: dict[str, LoadedModel] = {}
    wanted: list[str] = []
    if all_variants is not None:
        try:
            models, errors = load_models(include_dirs, Deadline(timeout).tick)
        except Expired:
            click.echo(f"timeout after {timeout:g} s while loading the models (--timeout "
                       "bounds the loading too)", err=True)
            sys.exit(2)
        for load_err in errors:
            click.echo(load_err.render(), err=True)
            bad_input = True
        wanted = list(dict.fromkeys([*all_variants, *extra]))
        known = set().union(*(m.variant_names for m in models.values()))
        unknown = [v for v in wanted if v not in known]
        if unknown:
            click.echo(f"no model has variant {', '.join(unknown)} (variants: "
                       f"{', '.join(sorted(known)) or 'none'})", err=True)
            sys.exit(2)
    for path in files:
        # --timeout bounds each question from the start: the file's parsing (and the
        # loading of the models its Expect= lines name) counts in its first question
        reading = Deadline(timeout)
        first: Deadline | None = reading
        try:
            test = load_litmus(path, reading.tick)
            found = print_lints(test, quiet=not lints)
            check_model_names(test, include_dirs, reading.tick)
            runs = (all_runs(test, models, wanted) if all_mode
                    else [(spec, extra) for spec in models_for(test, model)])
        except InputError as err:
            if err.path is None:
                err.path = path
            click.echo(err.render(), err=True)
            bad_input = True
            continue
        except Expired:
            click.echo(f"{path}: timeout after {timeout:g} s while reading the test (--timeout "
                       "bounds its parsing too)", err=True)
            bad_input = True
            continue
        rows: list[Row] = []
        for spec, ex in runs:
            want = expected_verdict(test, spec, ex)
            deadline, first = first or Deadline(timeout), None
            try:
                res = check_test(test, spec, ex, options, deadline)
            except (InputError, RecursionError) as exc:
                if isinstance(exc, InputError):
                    if exc.path is None:
                        exc.path = path
                    click.echo(exc.render(), err=True)
                    message = exc.message
                else:
                    message = "the test is too large to check (recursion limit)"
                    click.echo(f"{path}: {message}", err=True)
                bad_input = True
                if not all_mode:
                    break
                rows.append(Row(str(spec), None, want, message))
                continue
            # a vacuous answer (no execution completes) meets no expectation
            met = None if want is None else want == res.verdict and not res.vacuous
            if met is False:
                mismatches += 1
            live_want = expected_verdict(test, spec, ex, liveness=True)
            live = res.liveness_answer
            if live_want is not None and live_want != live:
                mismatches += 1
            rows.append(Row(res.model, res, want, live_expected=live_want))
            if graph:
                draw(test, spec, ex, res, options, path=graph, index=len(rows) - 1,
                     several=len(files) > 1 or len(runs) > 1, show=show)
            if fmt == "json":
                records.append(result_json(test, res, None if want is None else
                                           {"verdict": want, "met": met}, lints=found))
            elif fmt in ("text", "herd"):
                click.echo(format_report(test, res, show_witness, want) if fmt == "text"
                           else format_result(test, res, show_witness), err=to_err)
                if want is not None:
                    mark = "ok" if met else "MISMATCH"
                    if res.vacuous:
                        mark += " (vacuous: no execution completes)"
                    click.echo(f"Expect {test.name} {spec}: {want} -> {res.verdict} {mark}",
                               err=to_err)
                if live_want is not None:
                    mark = "ok" if live_want == live else "MISMATCH"
                    click.echo(f"Liveness-expect {test.name} {spec}: {live_want} -> {live} "
                               f"{mark}", err=to_err)
                if explain_:
                    click.echo(explanation_text(test, spec, ex, options), err=to_err)
                click.echo(err=to_err)
        if fmt == "table" and rows:
            (err_console() if to_err else console()).print(
                result_table(f"{test.name} ({path})", rows))
    if fmt == "json":  # always a list, however many records (docs/output.md)
        click.echo(json.dumps(records, indent=2), err=to_err)
    elif mismatches:
        click.echo(f"{mismatches} expectation(s) not met", err=True)
    sys.exit(2 if bad_input else 1 if mismatches else 0)
