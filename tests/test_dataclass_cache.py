"""gdrcheck.dataclass_cache: the classes are those ``@dataclasses.dataclass`` makes, in
every module that uses the decorator, with the cache cold, warm, damaged or off
(docs/performance.md, "Start-up, issue 24")."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import os
import subprocess
import sys
import threading
import types
from pathlib import Path
from typing import Any

import pytest

from gdrcheck import dataclass_cache
from gdrcheck.dataclass_cache import dataclass

ROOT = Path(__file__).resolve().parents[1]
IMPORT = "from gdrcheck.dataclass_cache import dataclass\n"
USERS = sorted(p for p in (ROOT / "gdrcheck").rglob("*.py") if IMPORT in p.read_text())


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _standard_copy(path: Path) -> types.ModuleType:
    """The module at ``path`` with the standard decorator (a module of its own)."""
    name = "standard_" + _module_name(path).replace(".", "_")
    text = path.read_text().replace(IMPORT, "from dataclasses import dataclass\n")
    module = types.ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module
    try:
        exec(compile(text, str(path), "exec"), module.__dict__)
    finally:
        del sys.modules[name]
    return module


def _function(f: Any, owner: type) -> tuple[Any, ...]:
    code = f.__code__
    cells = tuple("<the class>" if c.cell_contents is owner else type(c.cell_contents).__name__
                  for c in f.__closure__ or ())
    return (code.co_code, code.co_consts, code.co_names, code.co_varnames, code.co_filename,
            code.co_flags, f.__qualname__, repr(f.__defaults__), repr(f.__kwdefaults__),
            repr(f.__annotations__), cells)


def _shape(cls: type) -> dict[str, Any]:
    """What ``@dataclass`` made of ``cls``, comparable between two copies of its module."""
    out: dict[str, Any] = {
        "names": sorted(set(cls.__dict__) - _RUNTIME), "doc": cls.__doc__,
        "signature": str(inspect.signature(cls)),
        "params": repr(cls.__dataclass_params__),  # type: ignore[attr-defined]
        "match_args": cls.__dict__.get("__match_args__"),
        "fields": [(f.name, f.type, repr(f.default),
                    getattr(f.default_factory, "__qualname__", repr(f.default_factory)),
                    f.init, f.repr, f.hash, f.compare, f.kw_only, repr(f._field_type))
                   for f in cls.__dataclass_fields__.values()],  # type: ignore[attr-defined]
    }
    for name, value in cls.__dict__.items():
        if isinstance(value, types.FunctionType) and name.startswith("__"):
            out[name] = _function(value, cls)
        elif value is None:
            out[name] = None
    return out


# what Python itself adds to a class after it is made: copyreg's cache of slot names, written
# the first time an instance is copied or pickled (an earlier test may have done so)
_RUNTIME = frozenset({"__slotnames__"})


@pytest.mark.parametrize("path", USERS, ids=[_module_name(p) for p in USERS])
def test_every_class_is_the_one_dataclass_makes(path: Path) -> None:
    # the module as imported (its tables read from the cache or compiled) against a copy
    # made with the standard decorator
    module = importlib.import_module(_module_name(path))
    standard = _standard_copy(path)
    names = [name for name, v in vars(standard).items()
             if isinstance(v, type) and v.__module__ == standard.__name__
             and "__dataclass_params__" in vars(v)]
    assert names
    for name in names:
        assert _shape(getattr(module, name)) == _shape(getattr(standard, name)), name


PROBE = """
import json, sys
from gdrcheck import dataclass_cache
import gdrcheck.litmus.ast as A
used = dataclass_cache._USED["gdrcheck.litmus.ast"]
print(json.dumps({"compiled": sorted(dataclass_cache._COMPILED), "used": len(used),
                  "eq": A.LocRef("x", 1) == A.LocRef("x", 1),
                  "repr": repr(A.LocRef("x", 1)), "hash": hash(A.Const(3)) == hash(A.Const(3))}))
"""


def _probe(cache: str) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), GDRCHECK_CACHE_DIR=cache,
               PYTHONHASHSEED="0")
    proc = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    assert out["eq"] and out["hash"] and out["repr"] == "LocRef(name='x', rank=1)"
    return out


def test_cold_warm_damaged_off(tmp_path: Path) -> None:
    cache = tmp_path / "c"
    cold = _probe(str(cache))
    assert "gdrcheck.litmus.ast" in cold["compiled"] and cold["used"] > 100
    file = dataclass_cache_file(cache, "gdrcheck.litmus.ast")
    assert file.is_file()
    warm = _probe(str(cache))
    assert warm["compiled"] == [] and warm["used"] == cold["used"]
    file.write_bytes(b"not marshal data")  # damaged: compiled again, written again
    assert "gdrcheck.litmus.ast" in _probe(str(cache))["compiled"]
    assert _probe(str(cache))["compiled"] == []
    off = _probe("off")
    assert "gdrcheck.litmus.ast" in off["compiled"]
    blocked = tmp_path / "file"  # a cache "directory" that is a file: nothing kept
    blocked.write_text("")
    assert "gdrcheck.litmus.ast" in _probe(str(blocked))["compiled"]


def dataclass_cache_file(cache: Path, module: str) -> Path:
    old = os.environ.get("GDRCHECK_CACHE_DIR")
    os.environ["GDRCHECK_CACHE_DIR"] = str(cache)
    try:
        file = dataclass_cache.table_file(module)
    finally:
        if old is None:
            del os.environ["GDRCHECK_CACHE_DIR"]
        else:
            os.environ["GDRCHECK_CACHE_DIR"] = old
    assert file is not None and file.parent == cache
    return file


def test_the_entries_are_the_texts_compiled_as_exec_compiles_them() -> None:
    # the key is the text dataclasses wrote, so an edited class never meets old code
    @dataclass(frozen=True)
    class P:
        x: int
        y: int = 2

    p = P(1)
    assert (p.x, p.y) == (1, 2) and p == P(1) and repr(p).endswith("P(x=1, y=2)")
    used = dataclass_cache._USED[__name__]
    assert sum(" def __init__(self" in text for text in used) == 1
    for text, code in used.items():
        assert code.co_filename == "<string>" and code.co_flags == compile(
            text, "<string>", "exec", dont_inherit=True).co_flags


def test_another_threads_exec_is_the_builtin() -> None:
    # while a class of ours is made, a dataclass made by another thread compiles as usual
    # and nothing of it goes into our tables
    assert "exec" not in vars(dataclasses)  # the hook is there only while a class is made
    dataclass_cache._making = (threading.get_ident(), "no.such.module")
    ns: dict[str, Any] = {}
    try:
        t = threading.Thread(target=dataclass_cache._exec, args=("def f():\n return 5", {}, ns))
        t.start()
        t.join(10)
    finally:
        dataclass_cache._making = None
    assert ns["f"]() == 5 and "no.such.module" not in dataclass_cache._USED
