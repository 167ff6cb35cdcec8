"""``gdrcheck validate PEER_FOLDER...``: gdrcheck against the peers' published verdicts
(herd7's x86 verdicts, Dartagnan's PTX expectations)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from gdrcheck.cli.options import console, engine_option, fail
from gdrcheck.errors import InputError


@click.command(epilog="Exit codes: 0 every difference is a known one; 1 an unexpected "
               "difference; 2 a folder is not a peer suite.")
@click.argument("folders", nargs=-1, type=click.Path(file_okay=False))
@engine_option
def validate(folders: tuple[str, ...], engine: str) -> None:
    """Run each peer suite of FOLDERS (a herd7-verdicts.csv or *-expected.csv beside its
    tests) and list the tests where gdrcheck's verdict differs from the peer's. Without
    FOLDERS: the suites herd-x86, dat3m-ptx and dat3m-ptx75 of the folder that the
    environment variable GDRCHECK_PEERS names (docs/peer-differences.md)."""
    from gdrcheck.analysis.validate import (
        PEER_SUITES,
        PEERS_ENV,
        Row,
        peers_dir,
        summarize,
        validate_folder,
    )
    from gdrcheck.report.validate import validation_report

    if not folders:
        base = peers_dir()
        if base is None:
            click.echo(f"no FOLDERS given and {PEERS_ENV} is not set: name the peer suites' "
                       f"folder ({PEERS_ENV}=DIR, holding {', '.join(PEER_SUITES)}) or give "
                       "the folders", err=True)
            sys.exit(2)
        folders = tuple(str(base / name) for name in PEER_SUITES)

    out = console()
    every: list[Row] = []
    for folder in folders:
        try:
            rows = validate_folder(Path(folder), engine)
        except InputError as err:
            fail(err)
            sys.exit(2)
        every += rows
        for part in validation_report(folder, rows):
            out.print(part)
    _, _, bad = summarize(every)
    sys.exit(1 if bad else 0)
