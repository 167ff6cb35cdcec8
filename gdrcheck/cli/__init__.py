"""The ``gdrcheck`` command line: the click group and its commands, one module per
command family (each defines its command; none imports this module back).

Exit codes: 0 — every test ran and met its expectations; 1 — an expectation
(``Expect=``) was not met, or a verdict is Unknown where one was expected;
2 — bad input (a malformed litmus test or model, an unknown option value).
"""

from __future__ import annotations

import click

from gdrcheck.cli.check import check
from gdrcheck.cli.diff import diff
from gdrcheck.cli.explain import explain
from gdrcheck.cli.generate import generate
from gdrcheck.cli.hw import hw
from gdrcheck.cli.models import models
from gdrcheck.cli.refines import refines
from gdrcheck.cli.run import run
from gdrcheck.cli.serve import serve
from gdrcheck.cli.sweep import sweep
from gdrcheck.cli.validate import validate
from gdrcheck.cli.verdicts import verdicts

__all__ = ["main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="gdrcheck")
def main() -> None:
    """gdrcheck: herd7-style checking of litmus tests for GPUs, NICs and x86."""


for command in (check, refines, models, run, explain, sweep, diff, generate, hw, verdicts,
                validate, serve):
    main.add_command(command)
