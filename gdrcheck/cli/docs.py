"""``gdrcheck docs [NAME]``: the project's documents, shipped with the package.

The documents are package data (``gdrcheck/docs/*.md``; in a checkout a link to the
project's ``docs/``), found through :mod:`importlib.resources`, so that a wheel user
reads the same pages as a checkout: ``gdrcheck docs tutorial``, ``gdrcheck docs
litmus-format``.
"""

from __future__ import annotations

import importlib.resources
import sys
from pathlib import Path

import click

FIRST = ("tutorial", "litmus-format")
"""The documents listed first: where a newcomer starts."""


def docs_dir() -> Path:
    """The shipped documents (``gdrcheck/docs``)."""
    return Path(str(importlib.resources.files("gdrcheck") / "docs"))


def shipped_docs() -> dict[str, Path]:
    """Document name (the file's stem) -> its file: the tutorial and the format
    reference first, then the others by name."""
    folder = docs_dir()
    found = {p.stem: p for p in sorted(folder.glob("*.md"))} if folder.is_dir() else {}
    return {**{n: found[n] for n in FIRST if n in found},
            **{n: p for n, p in found.items() if n not in FIRST}}


def title(path: Path) -> str:
    """The document's first heading, without its ``#``."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            return line.lstrip("#").strip()
    return ""


@click.command(short_help="Read the shipped documents: tutorial, litmus-format, ...")
@click.argument("name", required=False)
def docs(name: str | None) -> None:
    """Print the document NAME (tutorial, litmus-format, models, ...); without NAME, list
    the documents shipped with gdrcheck."""
    found = shipped_docs()
    if name is None:
        if not found:
            click.echo(f"no documents in {docs_dir()}", err=True)
            sys.exit(2)
        width = max(len(n) for n in found)
        for n, path in found.items():
            click.echo(f"{n:<{width}}  {title(path)}")
        click.echo("\n'gdrcheck docs NAME' prints one (e.g. 'gdrcheck docs tutorial').")
        return
    key = name.removesuffix(".md")
    if key not in found:
        near = [n for n in found if key in n]
        hint = f" (did you mean {', '.join(near)}?)" if near else ""
        click.echo(f"no document {name!r}{hint}; 'gdrcheck docs' lists them", err=True)
        sys.exit(2)
    click.echo(found[key].read_text(encoding="utf-8"), nl=False)
