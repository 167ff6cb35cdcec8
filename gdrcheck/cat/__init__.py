"""The cat front end: parse ``.cat`` models and load them with includes expanded.

``parse_cat(text, path)`` gives the :class:`~gdrcheck.cat.ast.Model` of one file;
``load_model(name, include_dirs)`` finds a model on the search path (``-I``
directories, then ``specs/``) and splices its includes. Errors are
:class:`~gdrcheck.errors.CatError` with ``file:line:col``.
"""

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
