"""The models the playground serves, and what its errors may say (issue 25 item 1).

A request names a model by its name only (``NAME`` or ``NAME+VARIANT+...``, no path),
looked up in :func:`served_models`: the models of ``specs/`` and of the ``-I``
directories whose every file (the model and what it includes) lies, links resolved,
inside one of those directories. A model file that is a link out of its directory, or
that includes a file outside them (``include "../../etc/passwd"``), is not served.

Errors sent to a client name files by :func:`display_path` (``specs/x.cat``,
``-I NAME/x.cat``), never by their place on the server, and an error about a file
outside the served directories says only that the model does not load: no server path
and no byte of such a file reaches a client.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Collection, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from gdrcheck.analysis.models import ModelSpec, get_model
from gdrcheck.cat.loader import LoadedModel, available_models, specs_dir
from gdrcheck.errors import InputError

FILENAME = "test.litmus"
"""The name of the submitted test in answers (it has no file on the server)."""

_WORD = r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}"
MODEL_NAME = re.compile(rf"{_WORD}(?:\+{_WORD})*")
"""``NAME`` or ``NAME+VARIANT+...``: letters, digits, ``_ . -``; no ``/``, no ``\\``."""
VARIANT_NAME = re.compile(_WORD)


class BadModelName(ValueError):
    """A ``models`` or ``variants`` entry that is not a served name (answered 400)."""


def _shown(value: str) -> str:
    """The client's own string, cut short, for a message."""
    text = value if len(value) <= 64 else value[:61] + "..."
    return text.encode("ascii", "backslashreplace").decode("ascii")


@lru_cache(maxsize=8)
def roots(include_dirs: tuple[str, ...]) -> tuple[tuple[Path, str], ...]:
    """Each served directory, links resolved, with its name in messages."""
    named = [(Path(d), f"-I {Path(d).name}") for d in include_dirs]
    named.append((specs_dir(), "specs"))
    out: list[tuple[Path, str]] = []
    for d, shown in named:
        try:
            out.append((d.resolve(), shown))
        except OSError:
            continue
    return tuple(out)


def display_path(path: str | Path, include_dirs: tuple[str, ...]) -> str | None:
    """``specs/x.cat`` or ``-I NAME/x.cat`` for a file inside a served directory (links
    resolved); None for any other file."""
    try:
        real = Path(path).resolve()
    except (OSError, RuntimeError):
        return None
    for root, shown in roots(include_dirs):
        if real.is_relative_to(root):
            return f"{shown}/{real.relative_to(root).as_posix()}"
    return None


def _inside(model: LoadedModel, include_dirs: tuple[str, ...]) -> bool:
    return all(display_path(f.path, include_dirs) is not None for f in model.files)


@lru_cache(maxsize=8)
def _served(include_dirs: tuple[str, ...]) -> tuple[tuple[str, LoadedModel], ...]:
    out: list[tuple[str, LoadedModel]] = []
    for name in available_models(include_dirs):
        try:
            model = get_model(name, include_dirs)
        except InputError:
            continue  # a model that does not load is not served
        if _inside(model, include_dirs):
            out.append((name, model))
        else:
            print(f"gdrcheck serve: model '{name}' is not served: a file of it lies "
                  "outside specs/ and the -I directories", file=sys.stderr)
    return tuple(out)


def served_models(include_dirs: Sequence[str] = ()) -> dict[str, LoadedModel]:
    """The models a request may name, by name (see the module's text)."""
    return dict(_served(tuple(include_dirs)))


def model_spec(text: str, served: Collection[str]) -> ModelSpec:
    """The served model ``text`` names (``NAME+VARIANT+...``). Raises BadModelName for
    anything else: a path, ``..``, a name not served."""
    if not MODEL_NAME.fullmatch(text):  # a path, say: not echoed
        raise BadModelName("a model is named NAME or NAME+VARIANT+... (the names of "
                           "GET /api/models), never by a path")
    spec = ModelSpec.parse(text)
    if spec.name not in served:
        raise BadModelName(f"no model '{_shown(spec.name)}' (the models are those of "
                           "GET /api/models)")
    return spec


def variant_name(text: str) -> str:
    if not VARIANT_NAME.fullmatch(text):
        raise BadModelName("a variant is named by a word (letters, digits, _ . -)")
    return text


def _scrub(message: str, include_dirs: tuple[str, ...]) -> str:
    """``message`` with every served directory's place on the server replaced by its
    name (``searched /srv/x/specs`` -> ``searched specs``)."""
    for root, shown in roots(include_dirs):
        message = message.replace(str(root), shown)
    for d in include_dirs:
        message = message.replace(str(Path(d)), f"-I {Path(d).name}")
    return message


def error_json(err: InputError, include_dirs: tuple[str, ...] = ()) -> dict[str, Any]:
    """``{message, line, col, location}`` of ``err`` as a client may see it."""
    line, col = err.pos.line or None, err.pos.col or None
    if err.path == FILENAME:
        return {"message": _scrub(err.message, include_dirs), "line": line, "col": col,
                "location": err.location()}
    if err.path is None:
        return {"message": _scrub(err.message, include_dirs), "line": None, "col": None,
                "location": ""}
    shown = display_path(err.path, include_dirs)
    if shown is None:
        return {"message": "a model does not load (a file it names lies outside specs/ "
                "and the -I directories, or cannot be read)", "line": None, "col": None,
                "location": ""}
    # a served model's own error: its place in that file, not a place in the test
    where = f"{shown}:{err.pos.line}:{max(err.pos.col, 1)}" if err.pos.line else shown
    return {"message": f"{where}: {_scrub(err.message, include_dirs)}", "line": None,
            "col": None, "location": where}
