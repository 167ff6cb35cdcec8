"""The ``--graph`` and ``--explain`` additions to ``gdrcheck check`` and ``explain``:
one picture (or explanation) per result."""

from __future__ import annotations

from collections.abc import Sequence

import click

from gdrcheck.analysis.models import ModelSpec
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.engine.result import Result
from gdrcheck.litmus import ast as A


def draw(test: A.Test, spec: ModelSpec, extra: Sequence[str], res: Result,
         options: CheckOptions, *, path: str, index: int, several: bool, show: str) -> None:
    """Draw one result to ``path`` (``-`` prints the DOT; several results get numbered
    files)."""
    from gdrcheck.analysis.drawing import drawing_of
    from gdrcheck.report.graph import drawing_dot, numbered, write_graph

    d = drawing_of(test, spec, res, extra, show, options)
    if d is None:
        click.echo(f"{test.name} {res.model}: nothing to draw ({res.verdict})", err=True)
        return
    dot = drawing_dot(d)
    if path == "-":
        click.echo(dot, nl=False)
        return
    target = numbered(path, index, test.name if several else "", res.model)
    try:
        written, message = write_graph(dot, target)
    except OSError as err:
        click.echo(f"{target}: cannot write the picture: {err.strerror or err}", err=True)
        return
    click.echo(message or f"Graph {test.name} {res.model}: {written}", err=True)


def explanation_text(test: A.Test, spec: ModelSpec, extra: Sequence[str],
                     options: CheckOptions) -> str:
    """The text of ``gdrcheck explain`` for one result."""
    from gdrcheck.analysis.explain import explain
    from gdrcheck.report.explain import format_explanation

    return format_explanation(explain(test, spec, extra, options))
