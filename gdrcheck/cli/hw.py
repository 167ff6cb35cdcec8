"""``gdrcheck hw``: run PTX litmus tests on a real GPU (gdrcheck/hw/)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from gdrcheck.cli.options import fail
from gdrcheck.errors import InputError

if TYPE_CHECKING:
    from gdrcheck.litmus.ast import Test


@click.group()
def hw() -> None:
    """Run PTX litmus tests on an NVIDIA GPU and hold the model against them."""


@hw.command("run")
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option("--iterations", type=int, default=100_000, show_default=True)
@click.option("--batch", type=int, default=760_320, show_default=True,
              help="Instances per launch.")
@click.option("--stress", type=int, default=0, show_default=True,
              help="Memory-stress blocks per launch.")
@click.option("--stress-mode", type=click.IntRange(0, 1), default=0, show_default=True,
              help="0: atomics on the scratch area; 1: loads and stores.")
@click.option("--ipb", type=int, default=128, show_default=True,
              help="Instance slots per block (a multiple of 32).")
@click.option("--stride", type=int, default=32, show_default=True,
              help="Words between two global locations.")
@click.option("--layout", type=click.Choice(["inst-major", "loc-major"]), default="inst-major",
              show_default=True, help="An instance's locations side by side, or all x then all y.")
@click.option("--sync", "sync_limit", type=int, default=0, show_default=True,
              help="Spins of the per-instance start barrier (0: no barrier).")
@click.option("--config", "config_file", type=click.Path(exists=True, dir_okay=False),
              default=None, help="A harness setting as JSON (bench/bench_hw_power.py --best); "
              "it replaces the options above.")
@click.option("--model", "-m", default=None,
              help="The model the observed states are held against (default: ptx, or ptx75 for "
                   "a test with PTX 7.5 constructs: shared memory, mbarriers, TMA, proxies).")
@click.option("--results", type=click.Path(dir_okay=False), default=None,
              help="Append one JSON line per test here.")
@click.option("--kernels", type=click.Path(file_okay=False), default=None,
              help="Keep each generated kernel source in this directory.")
@click.option("--stand-in", is_flag=True,
              help="Run a test whose threads sit on several GPUs (the LSA tests: PTX on x@k) "
                   "on ONE GPU, one CTA standing in for each GPU and x@k as ordinary memory: "
                   "not an NVLink run.")
@click.option("--one-device", is_flag=True,
              help="Run a test whose threads sit on several GPUs with one launch per GPU of "
                   "the test, each with its own memory and stream, all on GPU 0: the "
                   "multi-GPU path tested on one GPU, not an NVLink run.")
def run_cmd(files: tuple[str, ...], iterations: int, batch: int, stress: int, stress_mode: int,
            ipb: int, stride: int, layout: str, sync_limit: int, config_file: str | None,
            model: str | None,
            results: str | None, kernels: str | None, stand_in: bool, one_device: bool) -> None:
    """Run each PTX test FILE on the GPU and print litmus7-style histograms. A test whose
    threads sit on several GPUs runs on as many GPUs (x@k in GPU k's memory, peer access
    enabled), or with --stand-in / --one-device on one."""
    from gdrcheck.hw.run import Config, NoGpu, check_states, run_test

    if ipb <= 0 or ipb % 32 or stride <= 0 or batch <= 0:
        raise click.BadParameter("--ipb must be a positive multiple of 32; --stride and "
                                 "--batch positive")
    cfg = Config(batch=batch, ipb=ipb, stride=stride, layout=int(layout == "loc-major"),
                 sync_limit=sync_limit, stress=stress, stress_mode=stress_mode)
    if config_file:
        cfg = Config(**json.loads(Path(config_file).read_text()))
    from gdrcheck.litmus import load_litmus
    from gdrcheck.report.hw import format_result

    failures = 0
    bad_input = False
    for path in files:
        try:
            test = load_litmus(path)
            res = run_test(test, iterations, stand_in=stand_in, config=cfg,
                           one_device=one_device)
        except NoGpu as err:
            click.echo(err.message, err=True)
            sys.exit(2)
        except InputError as err:
            if err.path is None:
                err.path = path
            click.echo(err.render(), err=True)
            bad_input = True
            continue
        except Exception as exc:  # noqa: BLE001 - one test's compile or launch failure
            click.echo(f"{path}: could not run on the GPU: {exc}", err=True)
            bad_input = True
            continue
        held = model or _default_model(test)
        try:
            check_states(res, test, held)
        except ImportError as exc:
            click.echo(f"(model check deferred to 'gdrcheck hw report': {exc})", err=True)
        except InputError as err:  # the model does not describe the test, a bad Expect=
            if err.path is None:
                err.path = path
            click.echo(err.render(), err=True)
            bad_input = True
            continue
        failures += bool(res.forbidden_states)
        click.echo(format_result(res) + "\n")
        if res.forbidden_states:
            # a soundness failure of the model: keep a reproducer
            rep = Path(kernels or ".") / f"REPRODUCER-{test.name}"
            rep.mkdir(parents=True, exist_ok=True)
            (rep / f"{test.name}.litmus").write_text(test.source or "")
            (rep / f"{test.name}.cu").write_text(res.source)
            (rep / "result.json").write_text(json.dumps(res.json(), indent=2))
            click.echo(f"SOUNDNESS FAILURE of {held} on {test.name}: reproducer in {rep}",
                       err=True)
        if kernels:
            Path(kernels).mkdir(parents=True, exist_ok=True)
            (Path(kernels) / f"{test.name}.cu").write_text(res.source)
        if results:
            fd = os.open(results, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, (json.dumps(res.json()) + "\n").encode())
            finally:
                os.close(fd)
    sys.exit(2 if bad_input else 1 if failures else 0)


@hw.command("report")
@click.argument("results", type=click.Path(exists=True, dir_okay=False))
@click.option("--model", "-m", default=None,
              help="The model the observed states are held against (default: ptx, or ptx75 for "
                   "a test with PTX 7.5 constructs: shared memory, mbarriers, TMA, proxies).")
def report_cmd(results: str, model: str | None) -> None:
    """Table of a results file: model verdict, observed count / iterations, weak rate;
    observed states are (re)checked against MODEL here."""
    from rich.console import Console
    from rich.table import Table

    from gdrcheck.hw.run import HwResult, check_states
    from gdrcheck.litmus import load_litmus

    table = Table(title=f"gdrcheck hw report ({results})")
    for col in ("test", "device", "model verdict", "observed / iterations", "rate",
                "forbidden states seen"):
        table.add_column(col)
    bad = 0
    try:
        lines = Path(results).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) else "not UTF-8 text"
        click.echo(f"{results}: cannot read the results: {reason}", err=True)
        sys.exit(2)
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
            res = HwResult(d["test"], d.get("file"), d["iterations"], d["histogram"],
                           d["positive"], d["seconds"], d["device"],
                           stand_in=bool(d.get("stand_in")), gpus=int(d.get("gpus", 1)),
                           one_device=bool(d.get("one_device")))
        except (ValueError, KeyError, TypeError) as err:
            click.echo(f"{results}:{number}: not a line of `gdrcheck hw run` "
                       f"({type(err).__name__}: {err})", err=True)
            sys.exit(2)
        path = d.get("file")
        if path and Path(path).exists():
            try:
                test = load_litmus(path)
                check_states(res, test, model or _default_model(test))
            except InputError as err:
                fail(err, path)
                sys.exit(2)
        else:  # the test file is not here: what the run itself found
            res.model, res.model_verdict = d.get("model"), d.get("model_verdict")
            res.forbidden_states = list(d.get("forbidden_states") or [])
        bad += bool(res.forbidden_states)
        where = (" (stand-in)" if res.stand_in else
                 f" ({res.gpus} launches on one GPU)" if res.one_device else
                 f" ({res.gpus} GPUs)" if res.gpus > 1 else "")
        table.add_row(res.test + where, res.device,
                      res.model_verdict or "?",
                      f"{res.positive} / {res.iterations}",
                      f"{res.positive / max(1, res.iterations):.2e}",
                      "; ".join(res.forbidden_states) or "-")
    Console(width=160).print(table)
    sys.exit(1 if bad else 0)


def _default_model(test: Test) -> str:
    """ptx, or ptx75 for a test with PTX 7.5 constructs (PTX 6.0 does not describe them)."""
    from gdrcheck.litmus.features import test_features

    return "ptx75" if "PTX75" in test_features(test) else "ptx"
