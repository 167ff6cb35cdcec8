"""What the commands share: the options of :class:`~gdrcheck.analysis.options.CheckOptions`
(declared once here), the model and variant options, the consoles, and how a command
reports bad input (``file:line:col: message`` on stderr, exit code 2).
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

    from gdrcheck.litmus.ast import Test

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


def variant_option(help: str = "Model variants, comma separated.") -> Callable[[F], F]:
    return click.option("--variant", "variants", multiple=True, help=help)


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


def load_test(path: str, timeout: float | None) -> Test:
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
