"""The ``--graph`` and ``--explain`` additions to ``gdrcheck check`` and ``explain``:
one picture (or explanation) per result."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from gdrcheck.analysis.models import ModelSpec
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.engine.result import Result
from gdrcheck.litmus import ast as A

if TYPE_CHECKING:  # explain imports z3: only when drawing
    from gdrcheck.analysis.explain import Explanation
    from gdrcheck.analysis.liveness import HangExplanation


def draw(test: A.Test, spec: ModelSpec, extra: Sequence[str], res: Result,
         options: CheckOptions, *, path: str, index: int, several: bool, show: str,
         explanation: Explanation | None = None) -> None:
    """Draw one result to ``path`` (``-`` prints the DOT of the first result; several
    results get numbered files). ``explanation``: the result's, when the caller has
    it (``gdrcheck explain``)."""
    from gdrcheck.analysis.drawing import drawing_of
    from gdrcheck.report.graph import drawing_dots, numbered, renderable, write_graph

    if path == "-" and index > 0:
        click.echo(f"{test.name} {res.model}: not drawn: --graph - prints one picture "
                   "(the first result's; dot renders one graph): give a file name "
                   "(out.svg gives out-TEST-MODEL.svg) or one model", err=True)
        return
    d = drawing_of(test, spec, res, extra, show, options, explanation=explanation)
    if d is None:
        click.echo(f"{test.name} {res.model}: nothing to draw ({res.verdict})", err=True)
        return
    dots = drawing_dots(d)
    if path == "-":
        click.echo(renderable(dots), nl=False)
        return
    target = numbered(path, index, test.name if several else "", res.model)
    try:
        written, message = write_graph(dots[0], target, dots[1:])
    except OSError as err:
        click.echo(f"{target}: cannot write the picture: {err.strerror or err}", err=True)
        return
    click.echo(message or f"Graph {test.name} {res.model}: {written}", err=True)


def draw_hang(test: A.Test, h: HangExplanation, options: CheckOptions, *, path: str,
              index: int) -> None:
    """Draw the stuck execution of a Hang to ``path`` (numbered ``-MODEL-hang``; ``-``
    prints its DOT when it is the first picture)."""
    from gdrcheck.analysis.drawing import hang_drawing
    from gdrcheck.report.graph import drawing_dots, numbered, renderable, write_graph

    d = hang_drawing(test, h, options)
    if d is None:
        return
    dots = drawing_dots(d)
    if path == "-":
        if index == 0:
            click.echo(renderable(dots), nl=False)
        return
    target = numbered(path, index, test.name, f"{h.model}-hang")
    try:
        written, message = write_graph(dots[0], target, dots[1:])
    except OSError as err:
        click.echo(f"{target}: cannot write the picture: {err.strerror or err}", err=True)
        return
    click.echo(message or f"Graph {test.name} {h.model} (the hang): {written}", err=True)


def explanation_text(test: A.Test, spec: ModelSpec, extra: Sequence[str],
                     options: CheckOptions) -> str:
    """The text of ``gdrcheck explain`` for one result."""
    from gdrcheck.analysis.explain import explain
    from gdrcheck.report.explain import format_explanation

    return format_explanation(explain(test, spec, extra, options))
