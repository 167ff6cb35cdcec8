"""The LALR parsers of the two grammars (litmus.lark, cat.lark), built once per grammar
and kept on disk, so that a fresh process loads the tables (a few ms) instead of
computing them (about 0.1 s each; docs/performance.md, "Start-up").

The tables go to ``$GDRCHECK_CACHE_DIR`` if it is set, else to
``$XDG_CACHE_HOME/gdrcheck``, else to ``~/.cache/gdrcheck``; ``GDRCHECK_CACHE_DIR=off``
turns the cache off. A file's name holds a hash of the grammar text, the parser
options and the lark and Python versions, so an edited grammar or an upgraded lark
never reads old tables (lark checks its own hash of the same inputs inside the file).
Reading and writing are lark's ``cache=`` option, which never fails a parse: when the
directory cannot be created or written the parser is built in memory and nothing is
kept, and a file that cannot be read back (half written by a process that runs at the
same time, or damaged) is rebuilt and written again.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # lark is imported where a parser is built (gdrcheck.dataclass_cache
    from lark import Lark  # reads cache_dir before lark is needed)

OFF = "off"
"""``GDRCHECK_CACHE_DIR=off``: build every parser in memory."""


def cache_dir() -> Path | None:
    """Where the parse tables are kept (None: the cache is off)."""
    env = os.environ.get("GDRCHECK_CACHE_DIR")
    if env:
        return None if env == OFF else Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return Path(xdg) / "gdrcheck"
    try:
        return Path.home() / ".cache" / "gdrcheck"
    except RuntimeError:  # no home directory to be found
        return None


def cache_file(name: str, grammar: str, options: dict[str, Any]) -> Path | None:
    """The cache file of grammar ``name`` (``litmus``, ``cat``) with these options."""
    from lark import __version__ as lark_version

    where = cache_dir()
    if where is None:
        return None
    hashed = {k: v for k, v in sorted(options.items()) if k != "postlex"}
    key = f"{grammar}\0{hashed!r}\0{lark_version}\0{sys.version_info[:2]}"
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:20]
    return where / f"{name}-{digest}.lark"


def cached_lark(name: str, grammar: str, **options: Any) -> Lark:
    """``Lark(grammar, parser="lalr", **options)``, its tables read from the cache when
    they are there and written to it when they are not (see the module's docstring)."""
    from lark import Lark

    options = {"parser": "lalr", **options}
    final = cache_file(name, grammar, options)
    if final is None:
        return Lark(grammar, **options)
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
    except OSError:
        return Lark(grammar, **options)
    return Lark(grammar, cache=str(final), **options)


TICK_TOKENS = 256
"""How many tokens :func:`ticking_parse` reads between two polls of its deadline."""


def ticking_parse(parser: Lark, text: str, tick: Callable[[], None], **options: Any) -> Any:
    """``parser.parse(text, **options)`` with ``tick`` called every :data:`TICK_TOKENS`
    tokens, so that a time limit bounds the parse of a large input. A syntax error is
    the one ``parse`` raises, with the interactive parser at the failing token (what
    the "expected ..." messages read)."""
    from lark.exceptions import UnexpectedToken

    ip = parser.parse_interactive(text, **options)
    try:
        for count, _tok in enumerate(ip.iter_parse()):
            if count % TICK_TOKENS == 0:
                tick()
        return ip.feed_eof()
    except UnexpectedToken as exc:
        if exc.interactive_parser is None:
            exc.interactive_parser = ip
        raise
