"""``@dataclasses.dataclass`` with the methods it writes compiled once and kept on disk,
for a fast start (docs/performance.md, "Start-up, issue 24").

``from gdrcheck.dataclass_cache import dataclass`` is ``dataclasses.dataclass``, applied
when the class is defined, as always. What differs is where the byte code of the methods
it generates comes from: ``dataclasses`` writes each method (``__init__``, ``__repr__``,
``__eq__``, ``__hash__``, a frozen class's ``__setattr__`` and ``__delattr__``) as source
text and compiles it with ``exec``, about 0.1 ms a method; with some 130 classes on the
way to a first verdict that was the largest part of a small check's start-up. Here, while
one of these classes is made, the ``exec`` that ``dataclasses`` calls takes the compiled
code of that exact text from a table kept per module in the cache directory of
:mod:`gdrcheck.grammar_cache` (``GDRCHECK_CACHE_DIR=off``: none), and compiles what is not
there as ``exec`` would (no ``__future__`` flags, file name ``<string>``). The table is
keyed by the source text itself, so an edited class never gets old code, and the file's
name holds the interpreter's version (the byte code's format). A table that cannot be
read is ignored; at exit, the tables of the modules that compiled something are written
(with just the entries this process used, so that old ones do not pile up), each to a
temporary file renamed over the old one; a directory that cannot be written keeps
nothing. Another thread's dataclasses, made meanwhile, go to the real ``exec``.

The classes are the ones ``dataclasses.dataclass`` makes (the same methods, byte code,
fields, ``__match_args__``, docstrings: tests/test_dataclass_cache.py compares every module
that uses this decorator with a copy of it that uses the standard one). The type checker
sees ``dataclasses.dataclass`` itself.
"""

from __future__ import annotations

import atexit
import builtins
import dataclasses
import marshal
import os
import sys
import threading
from pathlib import Path
from types import CodeType
from typing import TYPE_CHECKING, Any

from gdrcheck.grammar_cache import cache_dir

__all__ = ["dataclass", "table_file"]

_TAG = f"{sys.implementation.cache_tag}-{sys.hexversion:x}"
"""The interpreter the byte code is for (the file names hold it)."""

_LOCK = threading.RLock()
_TABLES: dict[str, dict[str, CodeType]] = {}
"""Module -> the table read from its file (source text -> code)."""
_USED: dict[str, dict[str, CodeType]] = {}
"""Module -> the entries this process used (what is written back)."""
_COMPILED: set[str] = set()
"""The modules that compiled something their table lacked."""
_making: tuple[int, str] | None = None
"""(thread, module) of the class being made now."""


def table_file(module: str) -> Path | None:
    """The file of ``module``'s table (None: the cache is off)."""
    where = cache_dir()
    return None if where is None else where / f"dataclasses-{module}-{_TAG}.marshal"


def _table(module: str) -> dict[str, CodeType]:
    table = _TABLES.get(module)
    if table is None:
        table = {}
        file = table_file(module)
        if file is not None:
            try:
                loaded = marshal.loads(file.read_bytes())
            except (OSError, EOFError, ValueError, TypeError):
                loaded = None
            if isinstance(loaded, dict):
                table = {k: v for k, v in loaded.items()
                         if isinstance(k, str) and isinstance(v, CodeType)}
        _TABLES[module] = table
    return table


def _exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:
    """``exec`` for ``dataclasses`` (see the module's docstring)."""
    making = _making
    if making is None or making[0] != threading.get_ident() or not isinstance(source, str):
        builtins.exec(source, globals, locals)
        return
    module = making[1]
    code = _table(module).get(source)
    if code is None:
        code = compile(source, "<string>", "exec", dont_inherit=True)
        if not _COMPILED:
            atexit.register(_write)
        _COMPILED.add(module)
    _USED.setdefault(module, {})[source] = code
    builtins.exec(code, globals, locals)


def _write() -> None:
    """Write the tables of the modules that compiled something (at exit)."""
    import tempfile

    for module in sorted(_COMPILED):
        file = table_file(module)
        if file is None:
            continue
        try:
            file.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=file.parent, prefix=file.name, suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(marshal.dumps(_USED[module]))
                os.replace(tmp, file)
            except BaseException:
                os.unlink(tmp)
                raise
        except OSError:
            continue
    _COMPILED.clear()


def _make(cls: type, options: dict[str, Any]) -> type:
    global _making
    with _LOCK:
        saved = _making
        _making = (threading.get_ident(), cls.__module__)
        dataclasses.exec = _exec  # type: ignore[attr-defined]  # found before the builtin
        try:
            return dataclasses.dataclass(cls, **options)
        finally:
            _making = saved
            if saved is None:
                del dataclasses.exec  # type: ignore[attr-defined]


def _dataclass(cls: type | None = None, /, **options: Any) -> Any:
    """``@dataclasses.dataclass`` (see the module's docstring)."""
    if cls is None:
        return lambda c: _make(c, options)
    return _make(cls, options)


if TYPE_CHECKING:
    from dataclasses import dataclass as dataclass
else:
    dataclass = _dataclass
