"""``gdrcheck explain``, ``gdrcheck sweep`` and ``gdrcheck diff`` (registered by cli.py),
and the ``--graph`` / ``--explain`` additions to ``gdrcheck check``.

gdrcheck.cli is imported inside the functions only: cli.py imports this module at its
end, and ``python -m gdrcheck.cli`` runs cli.py as ``__main__``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

from gdrcheck.errors import InputError
from gdrcheck.runner import ENGINES, ModelSpec

if TYPE_CHECKING:
    from rich.console import Console

    from gdrcheck.diff import DiffReport
    from gdrcheck.engine.result import Result
    from gdrcheck.litmus import ast as A
    from gdrcheck.sweep import SweepResult

SHOW = ("witness", "all")


def _console() -> Console:
    from gdrcheck.cli import _console as console

    return console()


def _fail(err: InputError, path: str | None = None) -> None:
    if err.path is None and path is not None:
        err.path = path
    click.echo(err.render(), err=True)


def _models(test: A.Test, model: str | None) -> list[ModelSpec]:
    from gdrcheck.cli import models_for

    return models_for(test, model)


# --------------------------------------------------------------------------
# check --graph / --explain
# --------------------------------------------------------------------------


def graph_after_check(test: A.Test, spec: ModelSpec, extra: Sequence[str], res: Result, *,
                      path: str, index: int, several: bool, show: str,
                      include_dirs: Sequence[str], unroll: int,
                      timeout: float | None) -> None:
    """Draw one result of ``gdrcheck check --graph PATH`` (``-`` prints the DOT)."""
    from gdrcheck.report.graph import numbered, result_dot, write_graph

    dot = result_dot(test, spec, res, variants=extra, show=show, include_dirs=include_dirs,
                     unroll=unroll, timeout=timeout)
    if dot is None:
        click.echo(f"{test.name} {res.model}: nothing to draw ({res.verdict})", err=True)
        return
    if path == "-":
        click.echo(dot, nl=False)
        return
    target = numbered(path, index, test.name if several else "", res.model)
    written, message = write_graph(dot, target)
    click.echo(message or f"Graph {test.name} {res.model}: {written}", err=True)


def explain_after_check(test: A.Test, spec: ModelSpec, extra: Sequence[str], *,
                        include_dirs: Sequence[str], unroll: int,
                        timeout: float | None) -> str:
    from gdrcheck.explain import explain_text

    return explain_text(test, spec, extra, include_dirs=include_dirs, unroll=unroll,
                        timeout=timeout)


# --------------------------------------------------------------------------
# explain
# --------------------------------------------------------------------------


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--model", "-m", help="Model with variants (gin-gdaki+pcie-ro); several, "
              "comma separated. Default: the models of the test's Expect= lines, else the "
              "dialect's default.")
@click.option("-I", "include_dirs", multiple=True, type=click.Path(file_okay=False),
              help="Extra directory to search for models (first).")
@click.option("--variant", "variants", multiple=True, help="Model variants, comma separated.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@click.option("--graph", "graph", default=None, help="Also draw the execution explained "
              "(.dot, .svg, .png, .pdf; '-' prints the DOT).")
@click.option("--show", type=click.Choice(SHOW), default="witness", show_default=True,
              help="With --graph: 'all' also draws the model's synchronisation relations.")
@click.option("--timeout", type=float, default=None, help="Solver timeout (s).")
@click.option("--unroll", type=int, default=2, show_default=True,
              help="Times a loop body may run on one path.")
def explain(files: tuple[str, ...], model: str | None, include_dirs: tuple[str, ...],
            variants: tuple[str, ...], fmt: str, graph: str | None, show: str,
            timeout: float | None, unroll: int) -> None:
    """Why each model forbids the outcome of FILES: the checks that rule it out and,
    for each, a shortest cycle of named edges (po, rf, fr, publish-strong (R-GIN-3),
    nic-sync (R-GDR-4), ...) on a candidate execution that violates only that check.
    An allowed outcome gets its witness execution."""
    from gdrcheck.explain import explain as run_explain
    from gdrcheck.explain import explanation_json, format_explanation
    from gdrcheck.litmus import load_litmus

    extra = [v.strip() for x in variants for v in x.split(",") if v.strip()]
    bad = False
    records: list[dict[str, Any]] = []
    n = 0
    for path in files:
        try:
            test = load_litmus(path)
            specs = _models(test, model)
        except InputError as err:
            _fail(err, path)
            bad = True
            continue
        for spec in specs:
            try:
                x = run_explain(test, spec, extra, include_dirs=include_dirs,
                                timeout=timeout, unroll=unroll)
            except InputError as err:
                _fail(err, path)
                bad = True
                continue
            if fmt == "json":
                records.append(explanation_json(x))
            else:
                click.echo(format_explanation(x))
                click.echo()
            if graph and x.result is not None:
                graph_after_check(test, spec, extra, x.result, path=graph, index=n,
                                  several=len(files) > 1 or len(specs) > 1, show=show,
                                  include_dirs=include_dirs, unroll=unroll, timeout=timeout)
            n += 1
    if fmt == "json":
        click.echo(json.dumps(records[0] if len(records) == 1 else records, indent=2))
    sys.exit(2 if bad else 0)


# --------------------------------------------------------------------------
# sweep
# --------------------------------------------------------------------------


def _mark(on: bool) -> str:
    return "✓" if on else "·"


def print_sweep(test: A.Test, r: SweepResult, console: Console, every: bool) -> None:
    from rich.table import Table

    from gdrcheck.report.herd import format_prop
    from gdrcheck.sweep import TABLE_ROWS, expected_for

    console.print(f"Sweep {r.test} {r.model}: {r.quantifier} "
                  f"({format_prop(test.condition.prop)})", markup=False)
    n = len(r.swept)
    if r.fixed:
        console.print(f"Fixed: {', '.join(r.fixed)}", markup=False)
    console.print(f"{n} variant(s) swept: {len(r.relevant)} can change this test"
                  + (f" ({', '.join(r.relevant)})" if r.relevant else "")
                  + f", {len(r.inert)} inert" + (f" ({', '.join(r.inert)})" if r.inert else ""),
                  markup=False)
    console.print(f"Default (no variant): {r.default}", markup=False)
    counts = r.counts()
    console.print("Combinations: " + ", ".join(f"{v} {k}" for k, v in counts.items())
                  + f" (of {2 ** n})", markup=False)
    flips = r.flips()
    if flips:
        t = Table(title=f"Minimal variant sets that change the verdict ({r.default} by default)")
        t.add_column("variants")
        t.add_column("verdict")
        t.add_column("expected")
        for f in flips:
            t.add_row(" + ".join(f.variants), f.verdict,
                      expected_for(test, r, f.variants) or "")
        console.print(t)
    else:
        console.print("No combination changes the verdict.", markup=False)
    rows = r.rows()
    if r.relevant and (every or len(rows) <= TABLE_ROWS):
        t = Table(title="Every combination of the variants that can change this test"
                  + (" (inert ones change nothing)" if r.inert else ""))
        for v in r.relevant:
            t.add_column(v, justify="center")
        t.add_column("verdict")
        t.add_column("flags")
        t.add_column("expected")
        for combo, verdict in rows:
            t.add_row(*(_mark(v in combo) for v in r.relevant), verdict,
                      ", ".join(r.flags.get(combo, ())), expected_for(test, r, combo) or "")
        console.print(t)
    elif r.relevant:
        console.print(f"({len(rows)} combinations of the relevant variants: --all lists them)",
                      markup=False)
    console.print(f"Time {r.test} {r.time:.3f} ({r.queries} solver queries)", markup=False)


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--model", "-m", help="Model (variants written NAME+V are fixed on); several, "
              "comma separated. Default: the models of the test's Expect= lines, else the "
              "dialect's default.")
@click.option("-I", "include_dirs", multiple=True, type=click.Path(file_okay=False),
              help="Extra directory to search for models (first).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@click.option("--all", "every", is_flag=True, help="List every combination, however many.")
@click.option("--timeout", type=float, default=None, help="Solver timeout per query (s).")
@click.option("--unroll", type=int, default=2, show_default=True,
              help="Times a loop body may run on one path.")
def sweep(files: tuple[str, ...], model: str | None, include_dirs: tuple[str, ...],
          fmt: str, every: bool, timeout: float | None, unroll: int) -> None:
    """Under which combinations of a model's variants is the outcome of FILES allowed?

    The variants are free Booleans in one z3 encoding; lists the verdict of each
    combination, the minimal variant sets that change the default verdict, and which
    variants cannot matter for the test (inert)."""
    from gdrcheck.litmus import load_litmus
    from gdrcheck.sweep import sweep_json, sweep_test

    bad = False
    records: list[dict[str, Any]] = []
    console = _console()
    for path in files:
        try:
            test = load_litmus(path)
            specs = _models(test, model)
        except InputError as err:
            _fail(err, path)
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
                r = sweep_test(test, spec, include_dirs=include_dirs, timeout=timeout,
                               unroll=unroll)
            except InputError as err:
                _fail(err, path)
                bad = True
                continue
            if fmt == "json":
                records.append(sweep_json(test, r))
            else:
                print_sweep(test, r, console, every)
                console.print()
    if fmt == "json":
        click.echo(json.dumps(records[0] if len(records) == 1 else records, indent=2))
    sys.exit(2 if bad else 0)


# --------------------------------------------------------------------------
# diff
# --------------------------------------------------------------------------


def print_diff(r: DiffReport, console: Console, every: bool) -> None:
    from rich.table import Table

    t = Table(title=f"Tests on which {r.a} and {r.b} disagree")
    t.add_column("test")
    t.add_column("file")
    t.add_column(r.a)
    t.add_column(r.b)
    t.add_column("rejected by")
    rows = r.rows if every else r.different + r.inconclusive
    for x in rows:
        why = "; ".join(f"{s.verdict}: {', '.join(s.axioms or s.flags) or s.reason or '-'}"
                        for s in (x.a, x.b) if s.verdict in ("Forbidden", "Required",
                                                              "Undefined", "Unknown",
                                                              "Error"))
        t.add_row(x.test, x.file, x.a.verdict, x.b.verdict, why)
    if rows:
        console.print(t)
    console.print(f"{len(r.rows)} compared: {len(r.same)} same, {len(r.different)} different, "
                  f"{len(r.inconclusive)} inconclusive; {len(r.skipped)} skipped (not "
                  f"accepted by both), {len(r.errors)} unreadable", markup=False)


@click.command()
@click.argument("files", nargs=-1, type=click.Path())
@click.option("--model", "-m", "model_names", multiple=True, required=True,
              help="A model with variants (gin-gdaki+pcie-ro); give it twice.")
@click.option("-I", "include_dirs", multiple=True, type=click.Path(file_okay=False),
              help="Extra directory to search for models (first).")
@click.option("--engine", type=click.Choice(ENGINES), default="smt", show_default=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@click.option("--all", "every", is_flag=True, help="List the tests where they agree too.")
@click.option("--timeout", type=float, default=None, help="Solver timeout per test (s).")
@click.option("--unroll", type=int, default=2, show_default=True,
              help="Times a loop body may run on one path.")
def diff(files: tuple[str, ...], model_names: tuple[str, ...], include_dirs: tuple[str, ...],
         engine: str, fmt: str, every: bool, timeout: float | None, unroll: int) -> None:
    """List the tests on which two models give different verdicts.

    Both models (with variants) run on every test of FILES (directories are walked;
    default: the litmus library) that both accept:
    `gdrcheck diff -m gin-gdaki -m gin-gdaki+pcie-ro litmus/gin`. Exit code 1 when some
    test differs, 2 on bad input."""
    from gdrcheck.diff import diff_json, diff_models
    from gdrcheck.refine import LIBRARY_DIR

    if len(model_names) != 2:
        click.echo(f"diff needs exactly two --model options (got {len(model_names)})",
                   err=True)
        sys.exit(2)
    paths: list[str] = list(files) or [str(LIBRARY_DIR)]
    try:
        report = diff_models(model_names[0], model_names[1], paths, engine=engine,
                             include_dirs=include_dirs, timeout=timeout, unroll=unroll)
    except InputError as err:
        _fail(err)
        sys.exit(2)
    for e in report.errors:
        click.echo(e.render(), err=True)
    if fmt == "json":
        click.echo(json.dumps(diff_json(report), indent=2))
    else:
        print_diff(report, _console(), every)
    sys.exit(2 if report.errors else 1 if report.different else 0)
