"""Find ``.cat`` models by name and load them with their includes expanded.

Search path, in order: the ``-I`` directories given by the caller, then the
models shipped with the package (:data:`SPECS_DIR`, ``gdrcheck/specs`` found through
:mod:`importlib.resources`: in a checkout a link to the project's ``specs/``, in a
wheel a copy of it; the environment variable ``GDRCHECK_SPECS`` replaces it). An
``include "f.cat"`` is looked up first next to the including file, then along the same
search path.

A model says which kinds of instructions it gives a meaning to with a comment
pragma at top level of its own file (not of the files it includes)::

    (* @accepts: PTX GIN *)

The words are :data:`FEATURES`; without the pragma a model accepts
:data:`DEFAULT_ACCEPTS` (the classic x86 and PTX models).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.resources
import os
import pickle
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import field
from pathlib import Path

from gdrcheck.cat import ast
from gdrcheck.dataclass_cache import dataclass
from gdrcheck.errors import CatError, Pos
from gdrcheck.grammar_cache import cache_dir
from gdrcheck.limits import MAX_MODEL_BYTES, read_limited

SPECS_DIR: Path = Path(str(importlib.resources.files("gdrcheck") / "specs")).resolve()
"""The shipped models (package data ``gdrcheck/specs``, the project's ``specs/``);
``$GDRCHECK_SPECS``, when set, is searched instead (see :func:`specs_dir`)."""

# herd's library files: gdrcheck defines their relations (po-loc, rfe, fr, ...)
# as built-ins, so an include of one that is not on the search path is skipped.
BUILTIN_INCLUDES = frozenset({"stdlib.cat", "cos.cat"})

FEATURES: tuple[str, ...] = ("X86", "PTX", "PTX75", "MULTIMEM", "GIN", "SHMEM", "HOST")
"""The words of an ``(* @accepts: ... *)`` pragma, in display order."""

DEFAULT_ACCEPTS: frozenset[str] = frozenset({"X86", "PTX"})
"""What a model without an ``@accepts`` pragma accepts: x86 and PTX instructions."""


def specs_dir() -> Path:
    """``$GDRCHECK_SPECS`` if it is set (read at every call), else :data:`SPECS_DIR`."""
    env = os.environ.get("GDRCHECK_SPECS")
    return Path(env) if env else SPECS_DIR


def search_path(include_dirs: Sequence[str | Path] = ()) -> list[Path]:
    """The directories searched for models, in order."""
    return [Path(d) for d in include_dirs] + [specs_dir()]


@dataclass(frozen=True)
class SourceFile:
    """One file of a loaded model."""

    path: Path
    text: str


@dataclass(frozen=True)
class LoadedModel:
    """A model with every ``include`` replaced by the included statements.

    ``stmts`` may mix statements of several files; :meth:`source_of` tells
    which file a statement (at any depth, e.g. inside an ``if variant``) comes
    from, so that an error found while interpreting it can name that file::

        except CatError as err:
            src = model.source_of(stmt)
            raise err.with_context(str(src.path), src.text)
    """

    name: str
    path: Path
    title: str | None
    stmts: tuple[ast.Stmt, ...]
    variants: tuple[ast.VariantDecl, ...]
    variant_names: frozenset[str]
    files: tuple[SourceFile, ...]
    """Every file read, the model itself first."""
    accepts: frozenset[str]
    """The kinds of instructions the model describes (its ``@accepts`` pragma)."""
    _origin: dict[int, int] = field(repr=False, compare=False)

    def source_of(self, stmt: ast.Stmt) -> SourceFile:
        """The file that ``stmt`` (one of this model's statements) was read from."""
        return self.files[self._origin.get(id(stmt), 0)]

    def path_of(self, stmt: object) -> tuple[str, str]:
        """(file name, file text) of ``stmt``: how the engines place a check's position."""
        src = self.source_of(stmt)  # type: ignore[arg-type]
        return str(src.path), src.text


def find_model(name: str, include_dirs: Sequence[str | Path] = ()) -> Path:
    """The file for model ``name``: an existing file path as is, else ``name``
    or ``name.cat`` in the include directories, then in ``specs/``."""
    given = Path(name)
    if _is_file(given):
        return given
    found = _search(name, search_path(include_dirs))
    if found is not None:
        return found
    dirs = ", ".join(str(d) for d in search_path(include_dirs))
    models = ", ".join(available_models(include_dirs)) or "none"
    raise CatError(
        f"cannot find model '{name}' (searched {dirs}; available models: {models})", name
    )


_INSTRUCTION_WORDS = frozenset(
    "let flag acyclic irreflexive empty include if show unshow variant".split())
"""The keywords that start an instruction (cat.lark's ``stmt``): a file whose first
token is one of them (or ``~``, a negated check) has no title."""

_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*'?")
"""cat.lark's ``ID``."""


def _has_title(path: Path) -> bool:
    """herd's convention: a model file starts with its name (a title); a file meant
    only to be included (ptx-defs.cat, pcie.cat, ...) does not.

    Only the file's first token is read (after comments and blanks), as cat.lark's
    ``start: [title] stmt*`` decides: a string or a name that is not a keyword is a
    title, an instruction keyword (or ``~``) is not. Parsing the whole file to list
    names cost most of a small check's start-up (issue 24). A file whose first token
    is neither (a syntax error), or that cannot be read, is listed: running it reports
    the error."""
    try:
        with path.open("rb") as f:
            head = f.read(_HEADER_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return True
    i = _first_token(head)
    if i is None:  # an unterminated comment, or a header longer than we read
        return True
    if i == len(head):
        return False  # nothing but comments: no title
    if head[i] == '"':
        return True
    if head[i] == "~":
        return False
    word = _ID.match(head, i)
    if word is None or word.group() == "_":
        return True
    # a name is a title; another keyword (``rec``, ``procedure``, ...) is an error
    return word.group() not in _INSTRUCTION_WORDS


_HEADER_BYTES = 1 << 20
"""How much of a file :func:`_has_title` reads to find its first token."""


def _first_token(text: str) -> int | None:
    """The offset of the first token of cat source ``text`` (``len(text)`` when there is
    none), skipping blanks and comments as the cat lexer does (``(* *)`` nests, ``//``
    and ``#`` to the end of the line); None inside an unterminated comment."""
    i, n = 0, len(text)
    while True:
        i = _BLANKS.match(text, i).end()  # type: ignore[union-attr]  # \s* always matches
        if i == n:
            return n
        if text.startswith("(*", i):
            depth = 0
            for mark in _COMMENT_MARKS.finditer(text, i):
                depth += 1 if mark.group() == "(*" else -1
                if depth == 0:
                    i = mark.end()
                    break
            else:
                return None
        elif text.startswith("//", i) or text[i] == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
        else:
            return i


_BLANKS = re.compile(r"\s*")
"""Blanks (``str.isspace``: the same characters)."""
_COMMENT_MARKS = re.compile(r"\(\*|\*\)")
"""An opening or closing comment mark, tried in that order at each offset."""


def _listed(path: Path) -> bool:
    """Whether :func:`available_models` lists the model file ``path``."""
    return (path.is_file() and path.name not in BUILTIN_INCLUDES
            and not path.name.startswith("_") and _has_title(path))


def model_available(name: str, include_dirs: Sequence[str | Path] = ()) -> bool:
    """``name in available_models(include_dirs)``, reading only the files of that name
    (a fast start: docs/performance.md, "Start-up, issue 24")."""
    return any(p.stem == name and _listed(p)
               for d in search_path(include_dirs) if d.is_dir() for p in d.glob("*.cat"))


def available_models(include_dirs: Sequence[str | Path] = ()) -> list[str]:
    """Names of the models on the search path: files with a title line; include-only
    fragments, herd's library files and ``_private`` files are left out."""
    names: set[str] = set()
    for d in search_path(include_dirs):
        if d.is_dir():
            names.update(p.stem for p in d.glob("*.cat") if _listed(p))
    return sorted(names)


def load_model(name: str, include_dirs: Sequence[str | Path] = (),
               tick: Callable[[], None] | None = None) -> LoadedModel:
    """Find, parse and expand the model ``name``. Raises :class:`CatError`. ``tick`` (a
    deadline's poll) is called while its files are parsed."""
    path = find_model(name, include_dirs)
    loader = _Loader(search_path(include_dirs), tick)
    model, index = loader.parse(path)
    stmts = loader.expand(model.stmts, path.parent, {path.resolve()}, index)
    variants: dict[str, ast.VariantDecl] = {}
    for decl in _variant_decls(stmts):
        variants.setdefault(decl.name, decl)  # the first declaration of a name wins
    used = {n for cond in _conditions(stmts) for n in _cond_names(cond)}
    return LoadedModel(
        name=path.stem,
        path=path,
        title=model.title,
        stmts=stmts,
        variants=tuple(variants.values()),
        variant_names=frozenset(variants.keys() | used),
        files=tuple(loader.files),
        accepts=parse_accepts(loader.files[0].text, str(path)),
        _origin=loader.origin,
    )


_ACCEPTS = re.compile(r"\s*@accepts\b\s*:?(.*)", re.DOTALL)


def parse_accepts(text: str, path: str | None = None) -> frozenset[str]:
    """The features named by the ``(* @accepts: ... *)`` pragmas among the top-level
    comments of ``text`` (their union), or :data:`DEFAULT_ACCEPTS` when there is none.
    Words are separated by spaces or commas; case does not matter."""
    found: set[str] | None = None
    for offset, body in _top_comments(text):
        m = _ACCEPTS.match(body)
        if m is None:
            continue
        words = [w.upper() for w in re.split(r"[\s,]+", m.group(1).strip()) if w]
        bad = [w for w in words if w not in FEATURES]
        if bad or not words:
            what = f"unknown feature '{bad[0]}'" if bad else "no feature named"
            raise CatError(f"@accepts pragma: {what} (use {', '.join(FEATURES)})",
                           path, _pos_at(text, offset), text)
        found = (found or set()) | set(words)
    return DEFAULT_ACCEPTS if found is None else frozenset(found)


def _top_comments(text: str) -> Iterable[tuple[int, str]]:
    """(offset, body) of every top-level ``(* body *)`` comment; strings and line
    comments are skipped as the cat lexer does. Unterminated comments end the scan
    (the parser reports them)."""
    i, n = 0, len(text)
    while i < n:
        if text[i] == '"':
            i += 1
            while i < n and text[i] not in '"\n':
                i += 1
            i += 1
        elif text.startswith("(*", i):
            start, depth, j = i, 0, i
            while j < n:
                if text.startswith("(*", j):
                    depth += 1
                    j += 2
                elif text.startswith("*)", j):
                    depth -= 1
                    j += 2
                    if depth == 0:
                        break
                else:
                    j += 1
            if depth:
                return
            yield start, text[start + 2:j - 2]
            i = j
        elif text.startswith("//", i) or text[i] == "#":
            while i < n and text[i] != "\n":
                i += 1
        else:
            i += 1


def _pos_at(text: str, offset: int) -> Pos:
    line = text.count("\n", 0, offset) + 1
    return Pos(line, offset - (text.rfind("\n", 0, offset) + 1) + 1)


def _search(name: str, dirs: Iterable[Path]) -> Path | None:
    candidates = [name] if name.endswith(".cat") else [name, name + ".cat"]
    for d in dirs:
        for cand in candidates:
            p = d / cand
            if _is_file(p):
                return p
    return None


def _is_file(path: Path) -> bool:
    """``path.is_file()``, False for a name the system refuses (too long, ...)."""
    try:
        return path.is_file()
    except OSError:
        return False


class _Loader:
    """Reads files and splices includes, recording where each statement came from."""

    def __init__(self, dirs: list[Path], tick: Callable[[], None] | None = None) -> None:
        self.dirs = dirs
        self.tick = tick
        self.files: list[SourceFile] = []
        self.origin: dict[int, int] = {}
        self._parsed: dict[Path, tuple[ast.Model, int]] = {}

    def parse(self, path: Path) -> tuple[ast.Model, int]:
        """The parsed file and its index in ``files`` (each file is read once)."""
        key = path.resolve()
        if key not in self._parsed:
            data = read_limited(path, MAX_MODEL_BYTES, "a model file", CatError)
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as err:
                raise _not_utf8(data, err, str(path)) from None
            model = parse_cached(text, str(path), self.tick)
            self.files.append(SourceFile(path, text))
            self._parsed[key] = (model, len(self.files) - 1)
        return self._parsed[key]

    def expand(
        self,
        stmts: Iterable[ast.Stmt],
        here: Path,
        seen: set[Path],
        file_index: int,
    ) -> tuple[ast.Stmt, ...]:
        """``stmts`` with includes spliced in; ``seen`` holds the files already
        included on this path (each file is included once, cycles are cut).

        The branches of an ``if`` are expanded separately; a file counts as
        included after the ``if`` only when both branches included it.
        """
        out: list[ast.Stmt] = []
        for stmt in stmts:
            if isinstance(stmt, ast.Include):
                out.extend(self._include(stmt, here, seen, file_index))
                continue
            if isinstance(stmt, ast.IfVariant):
                seen_then, seen_else = set(seen), set(seen)
                stmt = ast.IfVariant(
                    stmt.cond,
                    self.expand(stmt.then, here, seen_then, file_index),
                    self.expand(stmt.otherwise, here, seen_else, file_index),
                    pos=stmt.pos,
                )
                seen |= seen_then & seen_else
            self.origin[id(stmt)] = file_index
            out.append(stmt)
        return tuple(out)

    def _include(
        self, stmt: ast.Include, here: Path, seen: set[Path], file_index: int
    ) -> tuple[ast.Stmt, ...]:
        target = Path(stmt.filename)
        found = target if target.is_absolute() else _search(stmt.filename, [here, *self.dirs])
        if found is None or not found.is_file():
            if target.name in BUILTIN_INCLUDES:
                return ()
            src = self.files[file_index]
            dirs = ", ".join(str(d) for d in [here, *self.dirs])
            raise CatError(
                f"cannot find included file '{stmt.filename}' (searched {dirs})",
                str(src.path),
                stmt.pos,
                src.text,
            )
        key = found.resolve()
        if key in seen:
            return ()
        seen.add(key)
        model, index = self.parse(found)
        return self.expand(model.stmts, found.parent, seen, index)


# --------------------------------------------------------------------------
# Parsed files kept on disk (a fast start: docs/performance.md, "Start-up, issue 24")
# --------------------------------------------------------------------------

_PARSER_FILES = ("cat.lark", "parser.py", "ast.py")
"""What the parse of a text depends on, besides the text and its path: a change to one
of these (or another lark, another Python) makes every kept parse old."""


@functools.cache
def _parser_tag() -> str:
    from lark import __version__ as lark_version

    here = Path(__file__).parent
    digest = hashlib.sha256(f"{lark_version}\0{sys.version}".encode())
    for name in _PARSER_FILES:
        digest.update(b"\0" + (here / name).read_bytes())
    return digest.hexdigest()


def parse_cached(text: str, path: str, tick: Callable[[], None] | None = None) -> ast.Model:
    """``parse_cat(text, path, tick)``, kept on disk: the parse of a file is read back
    while its text, its path and the parser (:data:`_PARSER_FILES`, lark, Python) are
    those it was made from. One file per model path (``cat-model-*.pickle``) in the
    cache directory of :mod:`gdrcheck.grammar_cache` (``GDRCHECK_CACHE_DIR=off``: none);
    a file that cannot be read is parsed again and written again (to a temporary file
    renamed over it); a directory that cannot be written keeps nothing. A syntax error
    is never kept: the next load reports it again."""
    where = cache_dir()
    if where is None:
        return _parse(text, path, tick)
    file = where / f"cat-model-{hashlib.sha256(path.encode()).hexdigest()[:20]}.pickle"
    key = hashlib.sha256(f"{path}\0{_parser_tag()}\0{text}".encode()).hexdigest()
    try:
        kept = pickle.loads(file.read_bytes())
        if (isinstance(kept, tuple) and len(kept) == 2 and kept[0] == key
                and isinstance(kept[1], ast.Model)):
            return kept[1]
    except Exception:  # a missing or damaged file (any error of unpickling): parsed again
        pass
    model = _parse(text, path, tick)
    try:
        where.mkdir(parents=True, exist_ok=True)
        tmp = file.with_name(f"{file.name}.{os.getpid()}.tmp")
        tmp.write_bytes(pickle.dumps((key, model), pickle.HIGHEST_PROTOCOL))
        os.replace(tmp, file)
    except OSError:
        pass
    return model


def _parse(text: str, path: str, tick: Callable[[], None] | None) -> ast.Model:
    from gdrcheck.cat.parser import parse_cat  # only for a file not kept (start-up time)

    return parse_cat(text, path, tick)


def _not_utf8(data: bytes, err: UnicodeDecodeError, path: str) -> CatError:
    """The first byte that is not UTF-8, at its line and column (characters)."""
    before = data[: err.start].decode("utf-8", errors="replace")
    line = before.count("\n") + 1
    col = len(before) - (before.rfind("\n") + 1) + 1
    return CatError(f"the model file is not UTF-8 text: byte 0x{data[err.start]:02x} cannot "
                    "start or continue a character", path, Pos(line, col),
                    data.decode("utf-8", errors="replace"))


def _variant_decls(stmts: Iterable[ast.Stmt]) -> Iterable[ast.VariantDecl]:
    for stmt in stmts:
        if isinstance(stmt, ast.VariantDecl):
            yield stmt
        elif isinstance(stmt, ast.IfVariant):
            yield from _variant_decls(stmt.then)
            yield from _variant_decls(stmt.otherwise)


def _conditions(stmts: Iterable[ast.Stmt]) -> Iterable[ast.VCond]:
    for stmt in stmts:
        if isinstance(stmt, ast.IfVariant):
            yield stmt.cond
            yield from _conditions(stmt.then)
            yield from _conditions(stmt.otherwise)


def _cond_names(cond: ast.VCond) -> Iterable[str]:
    if isinstance(cond, ast.VName):
        yield cond.name
    elif isinstance(cond, ast.VNot):
        yield from _cond_names(cond.arg)
    else:
        yield from _cond_names(cond.left)
        yield from _cond_names(cond.right)
