"""What the commands share: the options of :class:`~gdrcheck.analysis.options.CheckOptions`
(declared once here), the model, variant, format and output options, the consoles, how a
command reports bad input (``file:line:col: message`` on stderr, exit code 2) and prints
lints and JSON.

The conventions every command keeps (docs/output.md, "Command-line conventions"):
``-m/--model`` and ``--variant`` take comma-separated lists and may be repeated
(``-m a,b`` = ``-m a -m b``); ``--format`` chooses the output on stdout, and JSON is always
one shape per command (a list of records for the commands that answer per test and
model, one object for those that answer once); ``-o/--output`` is where the command's
product goes instead of stdout; messages, warnings and progress go to stderr.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from gdrcheck.analysis.options import ENGINES, CheckOptions, split_list
from gdrcheck.errors import InputError
from gdrcheck.lower import DEFAULT_UNROLL

if TYPE_CHECKING:
    from rich.console import Console

    from gdrcheck.litmus import ast as A

F = TypeVar("F", bound=Callable[..., Any])

EXIT_CODES = ("Exit codes: 0 every test ran and met its Expect= and Liveness= entries; "
              "1 an entry was not met; 2 bad input (file:line:col: message).")


def engine_option(f: F) -> F:
    return click.option("--engine", type=click.Choice(ENGINES), default="auto",
                        show_default=True, help="auto: explicit for tiny tests (at most "
                        "32 candidates), else smt; smt: z3 over the relation analysis; "
                        "explicit: every candidate execution (herd7's method).")(f)


def timeout_option(what: str = "per test and model, encoding and every solver call "
                   "included") -> Callable[[F], F]:
    return click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
                        help=f"Time limit {what} (s): reported as Unknown, never as a "
                        "verdict.")


def unroll_option(f: F) -> F:
    return click.option("--unroll", type=int, default=DEFAULT_UNROLL, show_default=True,
                        help="Times a loop body may run on one path.")(f)


def include_option(f: F) -> F:
    return click.option("-I", "include_dirs", multiple=True,
                        type=click.Path(file_okay=False, exists=True),
                        help="Extra directory to search for models (first).")(f)


def variant_option(help: str = "Model variants, comma separated (repeatable).") -> Callable[[F], F]:
    return click.option("--variant", "variants", multiple=True, help=help)


def _joined(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> str | None:
    """``-m a,b -m c`` as ``"a,b,c"`` (None when not given): one string, as
    :func:`gdrcheck.analysis.models.models_for` reads it."""
    return ",".join(split(values)) or None


def model_option(help: str) -> Callable[[F], F]:
    """``-m/--model``: models with variants, comma separated and repeatable; the command
    gets one comma-separated string, or None."""
    return click.option("--model", "-m", "model", multiple=True, callback=_joined,
                        help=help + " Comma separated, or repeat -m.")


def format_option(choices: list[str], default: str | None = "text",
                  help: str | None = None) -> Callable[[F], F]:
    """``--format``: what goes to stdout."""
    return click.option("--format", "fmt", type=click.Choice(choices), default=default,
                        show_default=default is not None, help=help)


def output_option(help: str, *, directory: bool = False) -> Callable[[F], F]:
    """``-o/--output``: where the command's product goes instead of stdout."""
    return click.option("-o", "--output", "output",
                        type=click.Path(dir_okay=directory, file_okay=not directory,
                                        path_type=Path),
                        default=None, help=help)


def print_lints(test: A.Test, *, quiet: bool = False) -> list[dict[str, Any]]:
    """Print the lints of ``test`` on stderr (``file:line:col: warning: ... [Lxxx]``),
    unless ``quiet``; return them as JSON records (``$defs/lint``) either way."""
    from gdrcheck.analysis.lint import lint_test
    from gdrcheck.report.lint import format_lint, lint_json

    found = lint_test(test)
    if not quiet:
        for lint in found:
            click.echo(format_lint(lint), err=True)
    return [lint_json(lint) for lint in found]


def lint_option(f: F) -> F:
    return click.option("--lint/--no-lint", "lints", default=True, show_default=True,
                        help="Print the test's lints on stderr first (`gdrcheck lint`).")(f)


def states_option(help: str) -> Callable[[F], F]:
    return click.option("--states", is_flag=True, help=help)


def check_options(*, engine: str = "auto", timeout: float | None = None,
                  unroll: int = DEFAULT_UNROLL, include_dirs: tuple[str, ...] = (),
                  states: bool = False) -> CheckOptions:
    """The :class:`CheckOptions` of a command's parsed options."""
    return CheckOptions(engine=engine, timeout=timeout, unroll=unroll,
                        include_dirs=tuple(include_dirs), states=states)


def split(values: tuple[str, ...] | list[str]) -> list[str]:
    """Comma-separated, repeatable option values as one list."""
    return split_list(list(values))


def console() -> Console:
    """rich output on stdout; when piped, wide enough that model names are not cut."""
    from rich.console import Console

    out = Console(highlight=False)
    if not out.is_terminal:
        out = Console(highlight=False, width=max(out.width, 140))
    return out


def err_console() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def load_test(path: str, timeout: float | None) -> A.Test:
    """The litmus file ``path``, its parsing bounded by ``timeout`` (``--timeout`` bounds
    the parsing too, docs/limits.md): running out is an InputError (exit 2)."""
    from gdrcheck.engine.deadline import Deadline, Expired
    from gdrcheck.litmus import load_litmus

    try:
        return load_litmus(path, Deadline(timeout).tick)
    except Expired:
        raise InputError(f"timeout after {timeout:g} s while reading the test (--timeout "
                         "bounds its parsing too)", str(path)) from None


def fail(err: InputError, path: str | None = None) -> None:
    """Print ``err`` as ``file:line:col: message`` (with ``path`` when it has none)."""
    if err.path is None and path is not None:
        err.path = path
    click.echo(err.render(), err=True)


def shown(path: Path) -> str:
    """``path`` relative to the working directory when it lies below it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
