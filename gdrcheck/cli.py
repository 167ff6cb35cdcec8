"""The ``gdrcheck`` command line.

Exit codes: 0 — every test ran and met its expectations; 1 — an expectation
(``Expect=``) was not met, or a verdict is Unknown where one was expected;
2 — bad input (a malformed litmus test or model, an unknown option value).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

import click

from gdrcheck.errors import InputError
from gdrcheck.litmus import ast as A
from gdrcheck.report.herd import format_result
from gdrcheck.report.json import result_json
from gdrcheck.runner import ENGINES, ModelSpec, check_test, get_model

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


def expected_verdict(test: A.Test, spec: ModelSpec, extra_variants: Sequence[str]
                     ) -> str | None:
    """The Expect= verdict for exactly this model and set of variants."""
    want = set(spec.variants) | set(extra_variants)
    for e in test.expectations:
        if e.model == spec.name and set(e.variants) == want:
            return e.verdict
    return None


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="gdrcheck")
def main() -> None:
    """gdrcheck: herd7-style checking of litmus tests for GPUs, NICs and x86."""


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--model", "-m", help="Model name (a spec in specs/ or -I dirs), optionally "
              "with variants: ptx, x86tso, sc, NAME+VARIANT. Default: the models named in "
              "the test's Expect= lines, else the dialect's default.")
@click.option("-I", "include_dirs", multiple=True, type=click.Path(file_okay=False),
              help="Extra directory to search for models (first).")
@click.option("--variant", "variants", multiple=True, help="Model variants, comma separated.")
@click.option("--engine", type=click.Choice(ENGINES), default="smt", show_default=True)
@click.option("--format", "fmt", type=click.Choice(["herd", "json"]), default="herd",
              show_default=True)
@click.option("--timeout", type=float, default=None, help="Solver timeout per test (s): "
              "reported as Unknown, never as a verdict.")
@click.option("--states", is_flag=True, help="List every reachable final state "
              "(herd's States; exponential in general).")
@click.option("--show-witness", is_flag=True, help="Print the witness execution.")
@click.option("--unroll", type=int, default=2, show_default=True,
              help="Times a loop body may run on one path.")
def check(files: tuple[str, ...], model: str | None, include_dirs: tuple[str, ...],
          variants: tuple[str, ...], engine: str, fmt: str, timeout: float | None,
          states: bool, show_witness: bool, unroll: int) -> None:
    """Check litmus FILES: the verdict of each condition under the model."""
    from gdrcheck.litmus import load_litmus

    extra = _split(variants)
    bad_input = False
    mismatches = 0
    records: list[dict[str, Any]] = []
    for path in files:
        try:
            test = load_litmus(path)
            specs = models_for(test, model)
            for spec in specs:
                res = check_test(test, spec, variants=extra, engine=engine,
                                 include_dirs=include_dirs, timeout=timeout, states=states,
                                 unroll=unroll)
                want = expected_verdict(test, spec, extra)
                met = None if want is None else want == res.verdict
                if met is False:
                    mismatches += 1
                if fmt == "json":
                    records.append(result_json(test, res, None if want is None else
                                               {"verdict": want, "met": met}))
                else:
                    click.echo(format_result(test, res, show_witness))
                    if want is not None:
                        mark = "ok" if met else "MISMATCH"
                        click.echo(f"Expect {test.name} {spec}: {want} -> {res.verdict} {mark}")
                    click.echo()
        except InputError as err:
            if err.path is None:
                err.path = path
            click.echo(err.render(), err=True)
            bad_input = True
        except RecursionError:
            click.echo(f"{path}: the test is too large to check (recursion limit)", err=True)
            bad_input = True
    if fmt == "json":
        single = len(files) == 1 and len(records) == 1
        click.echo(json.dumps(records[0] if single else records, indent=2))
    if mismatches and fmt == "herd":
        click.echo(f"{mismatches} expectation(s) not met", err=True)
    sys.exit(2 if bad_input else 1 if mismatches else 0)


@main.command()
@click.option("-I", "include_dirs", multiple=True, type=click.Path(file_okay=False))
def models(include_dirs: tuple[str, ...]) -> None:
    """List the models and their variants."""
    from rich.console import Console
    from rich.table import Table

    from gdrcheck.cat.loader import available_models

    table = Table(title="gdrcheck models")
    table.add_column("model")
    table.add_column("title")
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
        table.add_row(name, m.title or "", vs, str(m.path))
    Console().print(table)


if __name__ == "__main__":  # pragma: no cover
    main()
