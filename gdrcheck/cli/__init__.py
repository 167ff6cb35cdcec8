"""The ``gdrcheck`` command line: the click group and its commands, one module per
command family (each defines its command; none imports this module back).

The group loads a command's module only when that command runs (or when ``--help``
lists the commands), so ``gdrcheck --version`` and ``gdrcheck check`` do not pay for
the imports of the others (docs/performance.md, "Start-up").

Exit codes: 0 — every test ran and met its expectations; 1 — an expectation
(``Expect=``) was not met, or a verdict is Unknown where one was expected;
2 — bad input (a malformed litmus test or model, an unknown option value).
"""

from __future__ import annotations

import importlib

import click

from gdrcheck import __version__

__all__ = ["main", "COMMANDS"]

COMMANDS: dict[str, str] = {
    "check": "gdrcheck.cli.check",
    "refines": "gdrcheck.cli.refines",
    "models": "gdrcheck.cli.models",
    "run": "gdrcheck.cli.run",
    "explain": "gdrcheck.cli.explain",
    "sweep": "gdrcheck.cli.sweep",
    "diff": "gdrcheck.cli.diff",
    "fix": "gdrcheck.cli.fix",
    "serve": "gdrcheck.cli.serve",
    "generate": "gdrcheck.cli.generate",
    "hw": "gdrcheck.cli.hw",
    "verdicts": "gdrcheck.cli.verdicts",
    "validate": "gdrcheck.cli.validate",
    "docs": "gdrcheck.cli.docs",
    "library": "gdrcheck.cli.library",
    "lint": "gdrcheck.cli.lint",
    "kernel": "gdrcheck.cli.kernel",
}
"""Command name -> the module that defines it (a click command of the same name)."""


class LazyGroup(click.Group):
    """A group whose commands are imported on first use (from :data:`COMMANDS`)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            command = getattr(importlib.import_module(COMMANDS[cmd_name]), cmd_name)
            assert isinstance(command, click.Command), cmd_name
            self.add_command(command, cmd_name)
        return self.commands.get(cmd_name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="gdrcheck")
def main() -> None:
    """gdrcheck: herd7-style checking of litmus tests for GPUs, NICs and x86.

    New here? 'gdrcheck docs tutorial' walks through a first test (check, explain, fix,
    sweep); 'gdrcheck docs litmus-format' is the reference of the test format;
    'gdrcheck library' lists the shipped tests, each usable by its lib: name
    (gdrcheck check lib:gin/01-MP+put+strongsig.litmus --model all).
    """
