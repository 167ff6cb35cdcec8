"""Modules imported on first use, for a fast start (docs/performance.md, "Start-up").

``from gdrcheck.lazy import z3`` binds a stand-in that imports z3 (about a third of a
small check's start-up) the first time one of its names is read, so that a check the
explicit engine answers never loads it. The modules that use it write::

    if TYPE_CHECKING:
        import z3
    else:
        from gdrcheck.lazy import z3

(the type checker sees z3 itself). Each name is looked up in the real module once and
then kept on the stand-in, so later reads cost what a module attribute costs.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

__all__ = ["LazyModule", "z3"]


class LazyModule:
    """Stands for the module ``name`` until one of its attributes is read."""

    def __init__(self, name: str) -> None:
        self.__dict__["_lazy_name"] = name

    def __getattr__(self, attr: str) -> Any:  # only for names not kept yet
        module = self.module()
        value = getattr(module, attr)
        self.__dict__[attr] = value
        return value

    def module(self) -> ModuleType:
        """The real module (imported now if it was not)."""
        return importlib.import_module(self.__dict__["_lazy_name"])

    def __repr__(self) -> str:
        return f"<lazy module {self.__dict__['_lazy_name']!r}>"


z3: Any = LazyModule("z3")
