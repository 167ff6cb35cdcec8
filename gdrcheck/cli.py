"""The ``gdrcheck`` command line.

Exit codes: 0 — every test ran and met its expectations; 1 — an expectation
(``Expect=``) was not met, or a verdict is Unknown where one was expected;
2 — bad input (a malformed litmus test or model, an unknown option value).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from gdrcheck.cat.loader import FEATURES, LoadedModel
from gdrcheck.errors import InputError, UnsupportedError
from gdrcheck.litmus import ast as A
from gdrcheck.litmus.features import test_features
from gdrcheck.report.herd import format_result
from gdrcheck.report.json import result_json
from gdrcheck.report.table import Row, result_table
from gdrcheck.runner import ENGINES, ModelSpec, accepts, check_test, get_model, load_models

if TYPE_CHECKING:
    from rich.console import Console

ALL = "all"
"""``--model all``: every model that accepts the test."""

DEFAULT_MODEL = {"X86": "x86tso", "PTX": "ptx", "GIN": "gin-api"}


def _split(values: Sequence[str]) -> list[str]:
    out: list[str] = []
    for v in values:
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out


def models_for(test: A.Test, model: str | None) -> list[ModelSpec]:
    """The models to run: --model, else every model named in Expect=, else the
    dialect's default."""
    if model:
        return [ModelSpec.parse(m) for m in _split([model])]
    exp = [ModelSpec(e.model, e.variants) for e in test.expectations]
    if exp:
        seen: list[ModelSpec] = []
        for m in exp:
            if m not in seen:
                seen.append(m)
        return seen
    return [ModelSpec(DEFAULT_MODEL[test.arch])]


def parse_all(model: str | None) -> tuple[str, ...] | None:
    """The variants of ``--model all`` / ``all+VARIANT+...``; None when --model names
    models (or is not given)."""
    if not model:
        return None
    specs = [ModelSpec.parse(m) for m in _split([model])]
    if all(s.name != ALL for s in specs):
        return None
    if len(specs) > 1:
        raise InputError(f"--model {ALL} cannot be combined with other models ('{model}')")
    return specs[0].variants


def all_runs(test: A.Test, models: dict[str, LoadedModel], variants: Sequence[str]
             ) -> list[tuple[ModelSpec, list[str]]]:
    """``--model all``: every model that accepts ``test``, each with the requested
    variants it has. Raises UnsupportedError when no model accepts the test."""
    runs: list[tuple[ModelSpec, list[str]]] = [
        (ModelSpec(name, tuple(v for v in variants if v in m.variant_names)), [])
            for name, m in models.items() if accepts(m, test)]
    if not runs:
        needs = ", ".join(f for f in FEATURES if f in test_features(test))
        raise UnsupportedError(f"no model accepts test '{test.name}' (it uses {needs})",
                               test.path)
    return runs


def expected_verdict(test: A.Test, spec: ModelSpec, extra_variants: Sequence[str],
                     liveness: bool = False) -> str | None:
    """The Expect= verdict (or, with ``liveness``, the Liveness= answer: Hang or Live)
    for exactly this model and set of variants."""
    want = set(spec.variants) | set(extra_variants)
    for e in test.liveness_expectations if liveness else test.expectations:
        if e.model == spec.name and set(e.variants) == want:
            return e.verdict
    return None


def _console() -> Console:
    """rich output; when piped, wide enough that model names are not cut."""
    from rich.console import Console

    console = Console(highlight=False)
    if not console.is_terminal:
        console = Console(highlight=False, width=max(console.width, 140))
    return console


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="gdrcheck")
def main() -> None:
    """gdrcheck: herd7-style checking of litmus tests for GPUs, NICs and x86."""


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--model", "-m", help="Model name (a spec in specs/ or -I dirs), optionally "
              "with variants: ptx, x86tso, sc, NAME+VARIANT; several, comma separated; "
              "'all' (or all+VARIANT) for every model that accepts the test. Default: the "
              "models named in the test's Expect= lines, else the dialect's default.")
@click.option("-I", "include_dirs", multiple=True, type=click.Path(file_okay=False),
              help="Extra directory to search for models (first).")
@click.option("--variant", "variants", multiple=True, help="Model variants, comma separated "
              "(with --model all: applied to the models that have them).")
@click.option("--engine", type=click.Choice(ENGINES), default="smt", show_default=True)
@click.option("--format", "fmt", type=click.Choice(["herd", "table", "json"]), default=None,
              help="Output: herd's layout, a table per test (one row per model), or JSON. "
              "Default: table with --model all, else herd.")
@click.option("--timeout", type=float, default=None, help="Solver timeout per test (s): "
              "reported as Unknown, never as a verdict.")
@click.option("--states", is_flag=True, help="List every reachable final state "
              "(herd's States; exponential in general).")
@click.option("--show-witness", is_flag=True, help="Print the witness execution.")
@click.option("--unroll", type=int, default=2, show_default=True,
              help="Times a loop body may run on one path.")
@click.option("--graph", default=None, help="Draw each result's execution (.dot, .svg, .png, "
              ".pdf; '-' prints the DOT; several results: out-TEST-MODEL.svg). A forbidden "
              "outcome draws the candidate execution of `gdrcheck explain`.")
@click.option("--show", type=click.Choice(["witness", "all"]), default="witness",
              show_default=True, help="With --graph: 'all' also draws the model's show "
              "relations (else its synchronisation steps: sync, gin-hb, ...).")
@click.option("--explain", "explain_", is_flag=True, help="After each herd result, print "
              "the explanation of `gdrcheck explain`.")
def check(files: tuple[str, ...], model: str | None, include_dirs: tuple[str, ...],
          variants: tuple[str, ...], engine: str, fmt: str | None, timeout: float | None,
          states: bool, show_witness: bool, unroll: int, graph: str | None = None,
          show: str = "witness", explain_: bool = False) -> None:
    """Check litmus FILES: the verdict of each condition under the model."""

    from gdrcheck.litmus import load_litmus

    extra = _split(variants)
    bad_input = False
    mismatches = 0
    records: list[dict[str, Any]] = []
    try:
        all_variants = parse_all(model)
    except InputError as err:
        click.echo(err.message, err=True)
        sys.exit(2)
    all_mode = all_variants is not None
    fmt = fmt or ("table" if all_mode else "herd")
    console = _console()
    models: dict[str, LoadedModel] = {}
    wanted: list[str] = []
    if all_variants is not None:
        models, errors = load_models(include_dirs)
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
        try:
            test = load_litmus(path)
            runs = (all_runs(test, models, wanted) if all_mode
                    else [(spec, extra) for spec in models_for(test, model)])
        except InputError as err:
            if err.path is None:
                err.path = path
            click.echo(err.render(), err=True)
            bad_input = True
            continue
        rows: list[Row] = []
        for spec, ex in runs:
            want = expected_verdict(test, spec, ex)
            try:
                res = check_test(test, spec, variants=ex, engine=engine,
                                 include_dirs=include_dirs, timeout=timeout, states=states,
                                 unroll=unroll)
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
            met = None if want is None else want == res.verdict
            if met is False:
                mismatches += 1
            live_want = expected_verdict(test, spec, ex, liveness=True)
            live = "Hang" if res.liveness else "Live"
            if live_want is not None and live_want != live:
                mismatches += 1
            rows.append(Row(str(spec), res, want))
            if graph:
                from gdrcheck.commands_explain import graph_after_check
                graph_after_check(test, spec, ex, res, path=graph, index=len(rows) - 1,
                                  several=len(files) > 1 or len(runs) > 1, show=show,
                                  include_dirs=include_dirs, unroll=unroll, timeout=timeout)
            if fmt == "json":
                records.append(result_json(test, res, None if want is None else
                                           {"verdict": want, "met": met}))
            elif fmt == "herd":
                click.echo(format_result(test, res, show_witness))
                if want is not None:
                    mark = "ok" if met else "MISMATCH"
                    click.echo(f"Expect {test.name} {spec}: {want} -> {res.verdict} {mark}")
                if live_want is not None:
                    mark = "ok" if live_want == live else "MISMATCH"
                    click.echo(f"Liveness-expect {test.name} {spec}: {live_want} -> {live} "
                               f"{mark}")
                if explain_:
                    from gdrcheck.commands_explain import explain_after_check
                    click.echo(explain_after_check(test, spec, ex, include_dirs=include_dirs,
                                                   unroll=unroll, timeout=timeout))
                click.echo()
        if fmt == "table" and rows:
            console.print(result_table(f"{test.name} ({path})", rows))
    if fmt == "json":
        single = not all_mode and len(files) == 1 and len(records) == 1
        click.echo(json.dumps(records[0] if single else records, indent=2))
    elif mismatches:
        click.echo(f"{mismatches} expectation(s) not met", err=True)
    sys.exit(2 if bad_input else 1 if mismatches else 0)


@main.command()
@click.argument("impl")
@click.argument("spec")
@click.argument("files", nargs=-1, type=click.Path())
@click.option("-I", "include_dirs", multiple=True, type=click.Path(file_okay=False),
              help="Extra directory to search for models (first).")
@click.option("--states", is_flag=True, help="Compare the final-state sets, outcome by "
              "outcome, instead of the verdicts.")
@click.option("--engine", type=click.Choice(ENGINES), default="smt", show_default=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@click.option("--timeout", type=float, default=None, help="Solver timeout per test and "
              "model (s): an Unknown answer is inconclusive.")
@click.option("--unroll", type=int, default=2, show_default=True,
              help="Times a loop body may run on one path.")
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

    from gdrcheck.refine import LIBRARY_DIR, refine
    from gdrcheck.report.refines import print_refines, refines_json

    paths: list[str] = list(files)
    if not paths:
        if not LIBRARY_DIR.is_dir():
            click.echo(f"no FILES given, and the litmus library {LIBRARY_DIR} is not there",
                       err=True)
            sys.exit(2)
        paths = [_shown(LIBRARY_DIR)]
    try:
        report = refine(impl, spec, paths, states=states, engine=engine,
                        include_dirs=include_dirs, timeout=timeout, unroll=unroll)
    except InputError as err:
        click.echo(err.render(), err=True)
        sys.exit(2)
    for file_err in report.errors:
        click.echo(file_err.render(), err=True)
    if fmt == "json":
        click.echo(json.dumps(refines_json(report), indent=2))
    else:
        print_refines(report, _console())
    sys.exit(2 if report.errors else 0 if report.refines else 1)


def _shown(path: Path) -> str:
    """``path`` relative to the working directory when it lies below it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


@main.command()
@click.option("-I", "include_dirs", multiple=True, type=click.Path(file_okay=False))
def models(include_dirs: tuple[str, ...]) -> None:
    """List the models and their variants."""
    from rich.table import Table

    from gdrcheck.cat.loader import available_models

    table = Table(title="gdrcheck models")
    table.add_column("model")
    table.add_column("title")
    table.add_column("accepts")
    table.add_column("variants")
    table.add_column("file")
    for name in available_models(include_dirs):
        try:
            m = get_model(name, include_dirs)
        except InputError as err:
            click.echo(err.render(), err=True)
            sys.exit(2)
        docs = {v.name: v.doc for v in m.variants}
        vs = ", ".join(f"{v} ({docs[v]})" if docs.get(v) else v
                       for v in sorted(m.variant_names)) or "-"
        table.add_row(name, m.title or "", " ".join(f for f in FEATURES if f in m.accepts),
                      vs, str(m.path))
    _console().print(table)


from gdrcheck.commands_run import run  # noqa: E402  (gdrcheck run: gdrcheck/batch.py)

main.add_command(run)

from gdrcheck.commands_explain import diff, explain, sweep  # noqa: E402

main.add_command(explain)
main.add_command(sweep)
main.add_command(diff)

from gdrcheck.commands_generate import generate  # noqa: E402

main.add_command(generate)

from gdrcheck.commands_hw import hw  # noqa: E402

main.add_command(hw)


if __name__ == "__main__":  # pragma: no cover
    main()
