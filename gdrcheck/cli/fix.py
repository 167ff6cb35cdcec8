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
@click.option("--kernel", "kernel_name", default=None, help="FILE.cu: the __global__ function "
              "(with --ranks: the configuration of the options; without: the file's "
              "`// gdrcheck:` configurations of that kernel).")
@click.option("--ranks", type=click.IntRange(min=1), default=None, help="FILE.cu: ranks (PEs).")
@click.option("--grid", type=click.IntRange(min=1), default=1, help="FILE.cu: CTAs per rank.")
@click.option("--block", type=click.IntRange(min=1), default=1,
              help="FILE.cu: threads per CTA.")
@click.option("--nodes", default=None, help="FILE.cu: each rank's node, comma separated.")
@click.option("--arg", "args", multiple=True, help="FILE.cu: a scalar parameter, NAME=VALUE "
              "or NAME=V0,V1,... (one per rank).")
@click.option("--init", "init_fn", default=None, help="FILE.cu: the host's init function.")
@click.option("--check", "check_fn", default=None, help="FILE.cu: the host's check function.")
@click.option("--host-order", type=click.Choice(["final", "stream"]), default="final",
              help="FILE.cu: where the host code runs (docs/kernels.md).")
@click.option("-D", "--define", "defines", multiple=True, help="FILE.cu: a macro for clang.")
@click.option("--clang", default=None, help="FILE.cu: the clang to compile with.")
def fix(file: str, model: str | None, variants: tuple[str, ...], every_variant: bool,
        max_cost: int | None, all_minimal: bool, output: Path | None, in_place: bool,
        fmt: str, include_dirs: tuple[str, ...], timeout: float | None, unroll: int,
        lints: bool = True, kernel_name: str | None = None, ranks: int | None = None,
        grid: int = 1, block: int = 1, nodes: str | None = None, args: tuple[str, ...] = (),
        init_fn: str | None = None, check_fn: str | None = None, host_order: str = "final",
        defines: tuple[str, ...] = (), clang: str | None = None,
        liveness_: bool = False) -> None:
    """The cheapest set of program strengthenings (fences, release/acquire, scopes, strong
    signals, flushes, contexts, strict windows, shmem.fence/quiet, ...) that makes the
    outcome of FILE Forbidden under every target model, proved minimal; each repair as an
    edit of FILE's own text (a diff of its lines) with its cost, then re-checked. A CUDA
    kernel (FILE.cu) is repaired through its extracted test and each repair reported at the
    kernel's source lines, in the API's spelling (docs/kernels.md, "Fix")."""
    if file.endswith(".cu"):
        kernel_spec = (kernel_name, ranks, grid, block, nodes, args, init_fn, check_fn,
                       host_order, defines, clang)
        _fix_kernel(file, kernel_spec, model, variants, every_variant, max_cost, all_minimal,
                    output, in_place, fmt, include_dirs, timeout, unroll)
        return
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


def _fix_kernel(file: str, spec: tuple[Any, ...], model: str | None, variants: tuple[str, ...],
                every_variant: bool, max_cost: int | None, all_minimal: bool,
                output: Path | None, in_place: bool, fmt: str, include_dirs: tuple[str, ...],
                timeout: float | None, unroll: int) -> None:
    """``gdrcheck fix FILE.cu``: each configuration's extracted test repaired, the repairs at
    the source lines."""
    from gdrcheck.analysis.fix import fix as run_fix
    from gdrcheck.analysis.models import ModelSpec, models_for
    from gdrcheck.engine.deadline import Deadline, Expired
    from gdrcheck.kernel import file_runs, load_kernel, make_run, read_source
    from gdrcheck.litmus import ast as A
    from gdrcheck.report.fix import format_kernel_fix, kernel_fix_json

    (kernel_name, ranks, grid, block, nodes, args, init_fn, check_fn, host_order, defines,
     clang) = spec
    if output is not None or in_place:
        click.echo(f"{file}: -o and --write write a repaired litmus test; a kernel's repair is "
                   "reported at its source lines, to be made by hand", err=True)
        sys.exit(2)
    extra = split(variants)
    records: list[dict[str, Any]] = []
    status_ok = True
    try:
        if ranks is not None:
            runs = [make_run(kernel_name, ranks, grid, block, nodes, args, init=init_fn,
                             check=check_fn, defines=defines, host_order=host_order)]
        else:
            runs = [r for r in file_runs(read_source(file))
                    if kernel_name is None or r.config.kernel == kernel_name]
            if not runs:
                raise InputError("no configuration to repair: give --kernel NAME --ranks R "
                                 "(and the other options of gdrcheck kernel), or a "
                                 "`// gdrcheck:` line" + (f" for --kernel {kernel_name}"
                                                          if kernel_name else ""), file)
        for run in runs:
            budget = Deadline(timeout)
            kt = load_kernel(file, run, clang)
            options = check_options(timeout=timeout, unroll=run.unroll or unroll,
                                    include_dirs=include_dirs)
            names = model or ",".join(m for m in run.models
                                      if any(e.rpartition(":")[0] == m for e in run.expect))
            if not names and not kt.test.expectations:
                names = "nvshmem-api" if any(isinstance(i, A.ShmemCall)
                                             for th in kt.test.threads for i in th.instrs) else ""
            targets = list(dict.fromkeys(ModelSpec(s.name, s.variants) for s in
                                         models_for(kt.test, names or None)))
            targets = [t.with_variants(extra) for t in targets]
            result = run_fix(kt.test, targets, every_variant=every_variant, max_cost=max_cost,
                             all_minimal=all_minimal, options=options, deadline=budget)
            status_ok &= result.status in ("fixed", "already")
            if fmt == "json":
                records.append(kernel_fix_json(kt, result))
            else:
                click.echo(format_kernel_fix(kt, result))
                click.echo()
    except InputError as err:
        fail(err, file)
        sys.exit(2)
    except Expired:
        click.echo(f"{file}: timeout after {timeout:g} s while reading the kernel and its "
                   "models (--timeout bounds each configuration)", err=True)
        sys.exit(2)
    if fmt == "json":
        click.echo(json.dumps(records[0] if len(records) == 1 else records, indent=2))
    sys.exit(0 if status_ok else 1)


fix.help = (fix.help or "") + "\n\n" + _catalogue()
