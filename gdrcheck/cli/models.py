"""``gdrcheck models``: the models on the search path, what they accept, their variants."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

import click

from gdrcheck.cli.options import console, format_option, include_option
from gdrcheck.errors import InputError

if TYPE_CHECKING:
    from gdrcheck.cat.loader import LoadedModel

SCHEMA = "gdrcheck.model/1"


@click.command()
@include_option
@click.option("--long", "long_", is_flag=True, help="A table with every variant and what it "
              "means, and each model's file.")
@format_option(["text", "json"], help="JSON: a list of gdrcheck.model/1 records (every "
               "variant with its text).")
def models(include_dirs: tuple[str, ...], long_: bool, fmt: str) -> None:
    """List the models: one line each (name, how many variants, the @accepts features,
    title); --long for the variants themselves. A model file that does not load is
    reported (``file:line:col``) and the others are listed; the exit code is then 2."""
    from gdrcheck.analysis.models import get_model
    from gdrcheck.cat.loader import available_models

    loaded: list[LoadedModel] = []
    failed = False
    for name in available_models(include_dirs):
        try:
            loaded.append(get_model(name, include_dirs))
        except InputError as err:  # reported on stderr; the others are still listed
            click.echo(err.render(), err=True)
            failed = True
    if fmt == "json":
        click.echo(json.dumps([model_json(m) for m in loaded], indent=2))
    elif long_:
        console().print(_table(loaded))
    else:
        from gdrcheck.cat.loader import FEATURES

        rows = [(m.name, _count(len(m.variant_names), "variant"),
                 " ".join(f for f in FEATURES if f in m.accepts), m.title or "") for m in loaded]
        widths = [max((len(r[i]) for r in rows), default=0) for i in range(3)]
        for row in rows:
            click.echo("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=False))
                       + "  " + row[3])
    if failed:
        sys.exit(2)


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def model_json(m: LoadedModel) -> dict[str, Any]:
    """One model as JSON (``$defs/model`` in docs/json-schema.json)."""
    docs = {v.name: v.doc for v in m.variants}
    return {
        "schema": SCHEMA,
        "name": m.name,
        "title": m.title,
        "accepts": sorted(m.accepts),
        "variants": [{"name": v, "doc": docs.get(v)} for v in sorted(m.variant_names)],
        "file": str(m.path),
    }


def _table(loaded: list[LoadedModel]) -> Any:
    from rich.table import Table

    table = Table(title="gdrcheck models")
    table.add_column("model")
    table.add_column("title")
    table.add_column("accepts (dialects)")
    table.add_column("variants")
    table.add_column("file")
    for m in loaded:
        docs = {v.name: v.doc for v in m.variants}
        vs = ", ".join(f"{v} ({docs[v]})" if docs.get(v) else v
                       for v in sorted(m.variant_names)) or "-"
        table.add_row(m.name, m.title or "", accepts_text(m.accepts), vs, str(m.path))
    return table


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
