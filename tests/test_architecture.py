"""The package's layout (docs/architecture.md): no import circles, one direction.

Every import of a gdrcheck module counts, also those inside functions and under
``TYPE_CHECKING``: a circle there is a circle in the design.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "gdrcheck"

LAYERS: dict[str, set[str]] = {
    # the pipeline, bottom up
    "errors": set(),
    "grammar_cache": set(),
    "dataclass_cache": {"grammar_cache"},
    "lazy": set(),
    "limits": {"errors"},
    "litmus": {"errors", "dataclass_cache", "grammar_cache", "limits"},
    "cat": {"errors", "dataclass_cache", "grammar_cache", "lazy", "limits"},
    "lower": {"errors", "dataclass_cache", "litmus"},
    "engine": {"errors", "dataclass_cache", "lazy", "litmus", "cat", "lower"},
    "analysis": {"errors", "dataclass_cache", "litmus", "cat", "lower", "engine"},
    "gen": {"errors", "litmus"},
    # the kernel front end: a CUDA kernel becomes a litmus test
    "kernel": {"errors", "litmus"},
    # the printers read results (of the analysis, of a batch run, of a hardware run)
    "report": {"errors", "dataclass_cache", "litmus", "cat", "lower", "engine", "analysis",
               "batch", "hw", "kernel"},
    # the faces
    "hw": {"errors", "litmus", "lower", "engine", "analysis"},
    "batch": {"errors", "litmus", "engine", "analysis", "report"},
    "api": {"errors", "litmus", "engine", "analysis", "report", "kernel"},
    "pytest_plugin": {"errors", "litmus", "engine", "analysis", "report", "kernel"},
    "cli": {"__init__", "errors", "limits", "litmus", "cat", "lower", "engine", "analysis", "gen",
            "report", "batch", "hw", "web", "kernel"},
    "web": {"errors", "litmus", "cat", "analysis", "report", "api"},
    # the documented names of gen's strategies
    "strategies": {"gen"},
    "gin_strategies": {"gen"},
    "__init__": {"api", "errors"},
    "__main__": {"__init__", "cli"},
}
"""Package (or top-level module) -> the packages it may import."""

QUIET = ("grammar_cache", "dataclass_cache", "lazy", "litmus", "cat", "lower", "engine",
         "analysis", "gen", "kernel")
"""Layers that print nothing and know no command line."""


def _module(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


MODULES = {_module(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imports(path: Path) -> set[str]:
    """The gdrcheck modules ``path`` imports (a name imported from a package that is a
    module of its own counts as that module)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "gdrcheck")
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] != "gdrcheck":
                continue
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                out.add(sub if sub in MODULES else node.module)
    return out


GRAPH = nx.DiGraph()
for _name, _path in MODULES.items():
    GRAPH.add_node(_name)
    for _dep in _imports(_path):
        if _dep != _name:
            GRAPH.add_edge(_name, _dep)


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_import_names_a_module_that_exists() -> None:
    missing = sorted((a, b) for a, b in GRAPH.edges if b not in MODULES)
    assert not missing


def test_no_import_circles() -> None:
    cycles = list(nx.simple_cycles(GRAPH))
    assert not cycles, "import circles: " + "; ".join(" -> ".join(c) for c in cycles[:5])


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_down_the_pipeline(module: str) -> None:
    layer = _layer(module)
    assert layer in LAYERS, f"{module}: a new package must be placed in LAYERS"
    wrong = sorted(d for d in GRAPH.successors(module)
                   if _layer(d) != layer and _layer(d) not in LAYERS[layer])
    assert not wrong, f"{module} ({layer}) may not import {wrong}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _layer(m) in QUIET))
def test_the_pipeline_prints_nothing(module: str) -> None:
    tree = ast.parse(MODULES[module].read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id != "print", f"{module}:{node.lineno} prints"
        if isinstance(node, ast.ImportFrom | ast.Import):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [
                a.name for a in node.names]
            assert not any(n.split(".")[0] in ("click", "rich") for n in names), (
                f"{module}:{node.lineno} imports a terminal library")


def test_command_modules_do_not_import_the_group() -> None:
    back = sorted(m for m in GRAPH.predecessors("gdrcheck.cli") if m != "gdrcheck.cli.__main__"
                  and m != "gdrcheck.__main__")
    assert not back, f"{back} import gdrcheck.cli"


def test_the_pytest_plugin_engines_are_the_analysis_engines() -> None:
    from gdrcheck.analysis.options import ENGINES
    from gdrcheck.pytest_plugin import ENGINES as PLUGIN_ENGINES

    assert PLUGIN_ENGINES == ENGINES
