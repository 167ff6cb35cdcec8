"""``gdrcheck kernel FILE.cu``: check a CUDA kernel (docs/kernels.md): extract a litmus test
per configuration, check it under the models, name the source lines."""

from __future__ import annotations

import sys

import click

from gdrcheck.cli.options import (
    EXIT_CODES,
    check_options,
    engine_option,
    include_option,
    split,
    timeout_option,
    variant_option,
)
from gdrcheck.errors import InputError


@click.command(epilog=EXIT_CODES)
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--kernel", "kernel_name", default=None, help="The __global__ function to "
              "check. Default: every configuration of the file's `// gdrcheck:` lines.")
@click.option("--ranks", type=click.IntRange(min=1), default=None, help="Ranks (PEs).")
@click.option("--grid", type=click.IntRange(min=1), default=1, show_default=True,
              help="CTAs per rank.")
@click.option("--block", type=click.IntRange(min=1), default=1, show_default=True,
              help="Threads per CTA.")
@click.option("--nodes", default=None, help="Each rank's node, comma separated (default: "
              "each rank on its own node).")
@click.option("--arg", "args", multiple=True, help="A scalar parameter: NAME=VALUE, or "
              "NAME=V0,V1,... one value per rank (pe=0,1).")
@click.option("--model", "-m", "models", multiple=True, help="Model (with +variants); "
              "several, comma separated. Default: the --expect models, else the GIN default.")
@click.option("--expect", multiple=True, help="MODEL:VERDICT the run must give (Allowed: an "
              "assert can fail; Forbidden: none can).")
@click.option("--liveness", multiple=True, help="MODEL:Hang|Live the run must give.")
@click.option("--unroll", type=click.IntRange(min=1), default=None,
              help="Times a loop whose exit depends on a value read may run on one path "
              "(default 2).")
@click.option("--init", "init_fn", default=None, help="A __device__ function of the file, "
              "with the kernel's parameters: the host's initialisation of the buffers, run "
              "on every rank before the kernel (constant stores only).")
@click.option("--check", "check_fn", default=None, help="A __device__ function of the file, "
              "with the kernel's parameters: the host's check after the kernel, its asserts "
              "over the buffers' final values (== and != only).")
@click.option("--host-order", type=click.Choice(["final", "stream"]), default="final",
              help="final: the --check asserts read the final state (after every rank's "
              "kernel); stream: --init and --check run in the rank's one kernel thread, "
              "before and after the kernel (stream order, ordered with no other rank).")
@click.option("--emit-litmus", is_flag=True, help="Print the extracted litmus test instead "
              "of checking it.")
@click.option("-D", "--define", "defines", multiple=True, help="NAME or NAME=VALUE: a macro "
              "for clang.")
@click.option("--clang", default=None, help="The clang to compile with (default: "
              "$GDRCHECK_CLANG, else clang++-19, clang-19, newer, clang++).")
@click.option("--show-witness", is_flag=True, help="Print the witness execution (with its "
              "NIC and proxy events), then each thread's events at their source lines.")
@include_option
@variant_option()
@engine_option
@timeout_option()
def kernel(file: str, kernel_name: str | None, ranks: int | None, grid: int, block: int,
           nodes: str | None, args: tuple[str, ...], models: tuple[str, ...],
           expect: tuple[str, ...], liveness: tuple[str, ...], unroll: int | None,
           init_fn: str | None, check_fn: str | None, host_order: str, emit_litmus: bool,
           defines: tuple[str, ...], clang: str | None, show_witness: bool,
           include_dirs: tuple[str, ...], variants: tuple[str, ...], engine: str,
           timeout: float | None) -> None:
    """Check the CUDA kernel in FILE: Allowed when some execution fails a device assert,
    Forbidden when none can, Undefined when the model flags misuse."""
    from gdrcheck.analysis.assumed import check_assumed
    from gdrcheck.analysis.models import check_model_names, expected_verdict, models_for
    from gdrcheck.kernel import file_runs, load_kernel, make_run, read_source
    from gdrcheck.lower import DEFAULT_UNROLL
    from gdrcheck.report.herd import format_result
    from gdrcheck.report.kernel import kernel_summary, source_witness

    extra = split(variants)
    try:
        if kernel_name is not None:
            runs = [make_run(kernel_name, ranks, grid, block, nodes, args, models, expect,
                             liveness, unroll, init=init_fn, check=check_fn,
                             defines=defines, host_order=host_order)]
        else:
            runs = file_runs(read_source(file))
            if not runs:
                raise InputError("no --kernel given and the file has no `// gdrcheck:` line "
                                 "naming a configuration", file)
    except InputError as err:
        if err.path is None:
            err.path = file
        click.echo(err.render(), err=True)
        sys.exit(2)
    bad_input = False
    mismatches = 0
    for run in runs:
        try:
            kt = load_kernel(file, run, clang)
            check_model_names(kt.test, include_dirs)
        except InputError as err:
            if err.path is None:
                err.path = file
            click.echo(err.render(), err=True)
            bad_input = True
            continue
        if emit_litmus:
            click.echo(kt.text, nl=False)
            continue
        options = check_options(engine=engine, timeout=timeout,
                                unroll=run.unroll or unroll or DEFAULT_UNROLL,
                                include_dirs=include_dirs)
        test = kt.test
        for spec in models_for(test, ",".join(run.models) or _default_model(test)):
            want = expected_verdict(test, spec, extra)
            try:
                res = check_assumed(test, kt.kept, spec, extra, options)
            except InputError as err:
                click.echo(err.render(), err=True)
                bad_input = True
                break
            click.echo(format_result(test, res, show_witness))
            for line in kernel_summary(kt, res):
                click.echo(line)
            if show_witness and res.witness is not None:
                for line in source_witness(kt, res.witness):
                    click.echo(line)
            met = None if want is None else want == res.verdict and not res.vacuous
            if want is not None:
                mark = "ok" if met else "MISMATCH"
                if res.vacuous:
                    mark += " (vacuous: no execution completes)"
                click.echo(f"Expect {test.name} {spec}: {want} -> {res.verdict} {mark}")
                mismatches += met is False
            live_want = expected_verdict(test, spec, extra, liveness=True)
            if live_want is not None:
                live = res.liveness_answer
                mark = "ok" if live_want == live else "MISMATCH"
                click.echo(f"Liveness-expect {test.name} {spec}: {live_want} -> {live} {mark}")
                mismatches += live_want != live
            click.echo()
    if mismatches:
        click.echo(f"{mismatches} expectation(s) not met", err=True)
    sys.exit(2 if bad_input else 1 if mismatches else 0)


def _default_model(test: object) -> str | None:
    """Without -m and --expect: nvshmem-api for a kernel that calls NVSHMEM (the GIN
    dialect's default, gin-api, does not describe its calls), else the dialect's default."""
    from gdrcheck.litmus import ast as A

    assert isinstance(test, A.Test)
    if test.expectations:
        return None
    shmem = any(isinstance(i, A.ShmemCall) for th in test.threads for i in th.instrs)
    return "nvshmem-api" if shmem else None
