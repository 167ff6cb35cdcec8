"""``gdrcheck serve``: the web playground on this machine (gdrcheck/web/, docs/web.md)."""

from __future__ import annotations

import sys

import click

from gdrcheck.cli.options import include_option


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind. The default answers this machine only; another "
              "address exposes a checker that runs submitted tests to the network.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535))
@click.option("--timeout", "job_timeout", default=60.0, show_default=True,
              type=click.FloatRange(min=0.1), help="Seconds one request may take; its "
              "worker process is then killed.")
@click.option("--max-body", default=256 * 1024, show_default=True,
              type=click.IntRange(min=1024), help="Largest request body, in bytes.")
@click.option("--workers", default=None, type=click.IntRange(min=1),
              help="Checks run at once (default: the number of CPUs less one), at a lower "
              "CPU priority; one more worker runs the cheap ones first (docs/web.md).")
@include_option
def serve(host: str, port: int, job_timeout: float, max_body: int, workers: int | None,
          include_dirs: tuple[str, ...]) -> None:
    """Serve the playground: an editor for a litmus test, the shipped library (and the
    litmus files of the -I directories), Check, Sweep, the verdicts, explanations and
    pictures. Needs the 'web' extra: pip install 'gdrcheck[web]'."""
    try:
        import uvicorn

        from gdrcheck.web.app import Limits, create_app
        from gdrcheck.web.protocol import server_config
    except ImportError as err:
        click.echo(f"gdrcheck serve needs the 'web' extra ({err.name} is missing): "
                   "pip install 'gdrcheck[web]'", err=True)
        sys.exit(2)
    limits = Limits(max_body=max_body, timeout=job_timeout)
    if workers is not None:
        limits.workers = workers
    app = create_app(include_dirs, limits, hosts=(host,))
    if host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(f"warning: serving on {host}: anyone who reaches it can run checks",
                   err=True)
    click.echo(f"gdrcheck playground: http://{'127.0.0.1' if host == '0.0.0.0' else host}"
               f":{port}/", err=True)
    uvicorn.Server(server_config(app, host, port)).run()
