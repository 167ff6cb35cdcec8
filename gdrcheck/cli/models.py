"""``gdrcheck models``: the models on the search path, what they accept, their variants."""

from __future__ import annotations

import sys

import click

from gdrcheck.cli.options import console, include_option
from gdrcheck.errors import InputError


@click.command()
@include_option
def models(include_dirs: tuple[str, ...]) -> None:
    """List the models and their variants. A model file that does not load is reported
    (``file:line:col``) and the others are listed; the exit code is then 2."""
    from rich.table import Table

    from gdrcheck.analysis.models import get_model
    from gdrcheck.cat.loader import available_models

    table = Table(title="gdrcheck models")
    table.add_column("model")
    table.add_column("title")
    table.add_column("accepts (dialects)")
    table.add_column("variants")
    table.add_column("file")
    failed = False
    for name in available_models(include_dirs):
        try:
            m = get_model(name, include_dirs)
        except InputError as err:  # listed on stderr; the others are still listed
            click.echo(err.render(), err=True)
            failed = True
            continue
        docs = {v.name: v.doc for v in m.variants}
        vs = ", ".join(f"{v} ({docs[v]})" if docs.get(v) else v
                       for v in sorted(m.variant_names)) or "-"
        table.add_row(name, m.title or "", accepts_text(m.accepts),
                      vs, str(m.path))
    console().print(table)
    if failed:
        sys.exit(2)


def accepts_text(accepts: frozenset[str]) -> str:
    """The dialects of the tests a model accepts, and in GIN tests which instructions:
    ``PTX (7.5+); GIN (PTX 7.5+, multimem, GIN calls)``: 7.5+ when the model accepts the
    PTX 7.5 constructs (proxies, shared memory, mbarriers, TMA copies)."""
    ptx = "PTX (7.5+)" if "PTX75" in accepts else "PTX"
    out: list[str] = [w for d, w in (("X86", "X86"), ("PTX", ptx)) if d in accepts]
    inside = [w for f, w in (("PTX", "PTX 7.5+" if "PTX75" in accepts else "PTX"),
                             ("MULTIMEM", "multimem"), ("GIN", "GIN calls"),
                             ("SHMEM", "NVSHMEM calls"), ("HOST", "host calls"))
              if f in accepts]
    if "GIN" in accepts or "SHMEM" in accepts or "PTX" in accepts or "HOST" in accepts:
        out.append(f"GIN ({', '.join(inside)})")
    return "; ".join(out) or "-"
