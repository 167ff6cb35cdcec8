"""Find ``.cat`` models by name and load them with their includes expanded.

Search path, in order: the ``-I`` directories given by the caller, then the
project's ``specs/`` directory (:data:`SPECS_DIR`; the environment variable
``GDRCHECK_SPECS`` replaces it). An ``include "f.cat"`` is looked up first
next to the including file, then along the same search path.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gdrcheck.cat import ast
from gdrcheck.cat.parser import parse_cat
from gdrcheck.errors import CatError

SPECS_DIR: Path = Path(__file__).resolve().parents[2] / "specs"
"""The project's models; ``$GDRCHECK_SPECS``, when set, is searched instead (see
:func:`specs_dir`)."""

# herd's library files: gdrcheck defines their relations (po-loc, rfe, fr, ...)
# as built-ins, so an include of one that is not on the search path is skipped.
BUILTIN_INCLUDES = frozenset({"stdlib.cat", "cos.cat"})


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
    _origin: dict[int, int] = field(repr=False, compare=False)

    def source_of(self, stmt: ast.Stmt) -> SourceFile:
        """The file that ``stmt`` (one of this model's statements) was read from."""
        return self.files[self._origin.get(id(stmt), 0)]


def find_model(name: str, include_dirs: Sequence[str | Path] = ()) -> Path:
    """The file for model ``name``: an existing file path as is, else ``name``
    or ``name.cat`` in the include directories, then in ``specs/``."""
    given = Path(name)
    if given.is_file():
        return given
    found = _search(name, search_path(include_dirs))
    if found is not None:
        return found
    dirs = ", ".join(str(d) for d in search_path(include_dirs))
    models = ", ".join(available_models(include_dirs)) or "none"
    raise CatError(
        f"cannot find model '{name}' (searched {dirs}; available models: {models})", name
    )


def available_models(include_dirs: Sequence[str | Path] = ()) -> list[str]:
    """Names of the models on the search path (library and ``_private`` files left out)."""
    names: set[str] = set()
    for d in search_path(include_dirs):
        if d.is_dir():
            names.update(
                p.stem
                for p in d.glob("*.cat")
                if p.is_file() and p.name not in BUILTIN_INCLUDES and not p.name.startswith("_")
            )
    return sorted(names)


def load_model(name: str, include_dirs: Sequence[str | Path] = ()) -> LoadedModel:
    """Find, parse and expand the model ``name``. Raises :class:`CatError`."""
    path = find_model(name, include_dirs)
    loader = _Loader(search_path(include_dirs))
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
        _origin=loader.origin,
    )


def _search(name: str, dirs: Iterable[Path]) -> Path | None:
    candidates = [name] if name.endswith(".cat") else [name, name + ".cat"]
    for d in dirs:
        for cand in candidates:
            p = d / cand
            if p.is_file():
                return p
    return None


class _Loader:
    """Reads files and splices includes, recording where each statement came from."""

    def __init__(self, dirs: list[Path]) -> None:
        self.dirs = dirs
        self.files: list[SourceFile] = []
        self.origin: dict[int, int] = {}
        self._parsed: dict[Path, tuple[ast.Model, int]] = {}

    def parse(self, path: Path) -> tuple[ast.Model, int]:
        """The parsed file and its index in ``files`` (each file is read once)."""
        key = path.resolve()
        if key not in self._parsed:
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as err:
                reason = err.strerror if isinstance(err, OSError) else "not UTF-8 text"
                raise CatError(f"cannot read model file: {reason}", str(path)) from None
            model = parse_cat(text, str(path))
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
