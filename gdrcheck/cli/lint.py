"""``gdrcheck lint FILES``: the lints of litmus tests (gdrcheck/analysis/lint.py)."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from gdrcheck.analysis.lint import LINTS
from gdrcheck.cli.options import fail, format_option
from gdrcheck.errors import InputError


@click.command(epilog="Exit codes: 0 the files parse (whatever the lints; with --strict: "
               "and none has a lint); 1 --strict and a lint; 2 bad input.")
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option("--strict", is_flag=True, help="Exit 1 when any file has a lint.")
@format_option(["text", "json"])
def lint(files: tuple[str, ...], strict: bool, fmt: str) -> None:
    """Warn about what a careful reviewer of the litmus FILES (directories are walked)
    would point out though the tests are legal: a put or signal without @rank (it
    targets the issuing rank), a declared location nothing accesses, a wait on a signal
    nothing sends, a counted wait the sends cannot reach, a register or location in the
    condition that nothing writes. Each line is `file:line:col: warning: ... [Lxxx]`;
    `gdrcheck check` prints the same lines on stderr."""
    from gdrcheck.analysis.lint import lint_test
    from gdrcheck.analysis.suite import litmus_files
    from gdrcheck.litmus import load_litmus
    from gdrcheck.report.lint import format_lint, lint_json

    bad = False
    records: list[dict[str, Any]] = []
    count = 0
    for path in litmus_files(files):
        try:
            test = load_litmus(path)
        except InputError as err:
            fail(err, path)
            bad = True
            continue
        for found in lint_test(test):
            count += 1
            if fmt == "json":
                records.append(lint_json(found))
            else:
                click.echo(format_lint(found))
    if fmt == "json":
        click.echo(json.dumps(records, indent=2))
    if count:
        click.echo(f"{count} warning(s)", err=True)
    sys.exit(2 if bad else 1 if strict and count else 0)


lint.help = (lint.help or "") + "\n\nCodes: " + "; ".join(
    f"{code} {what}" for code, what in LINTS.items()) + "."
