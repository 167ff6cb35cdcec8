"""The cat front end: parse ``.cat`` models and load them with includes expanded.

``parse_cat(text, path)`` gives the :class:`~gdrcheck.cat.ast.Model` of one file;
``load_model(name, include_dirs)`` finds a model on the search path (``-I``
directories, then ``specs/``) and splices its includes. Errors are
:class:`~gdrcheck.errors.CatError` with ``file:line:col``.
"""

from typing import TYPE_CHECKING, Any

from gdrcheck.cat.loader import (
    SPECS_DIR,
    LoadedModel,
    SourceFile,
    available_models,
    find_model,
    load_model,
    search_path,
    specs_dir,
)

if TYPE_CHECKING:
    from gdrcheck.cat.parser import parse_cat

__all__ = [
    "SPECS_DIR",
    "LoadedModel",
    "SourceFile",
    "available_models",
    "find_model",
    "load_model",
    "parse_cat",
    "search_path",
    "specs_dir",
]


def __getattr__(name: str) -> Any:
    if name == "parse_cat":  # imported on first use: a model read back from the cache
        from gdrcheck.cat.parser import parse_cat  # is not parsed (gdrcheck/cat/loader.py)

        return parse_cat
    raise AttributeError(f"module 'gdrcheck.cat' has no attribute '{name}'")
