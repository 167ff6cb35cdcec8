"""A fast start (issue 12): what a fresh ``gdrcheck`` process imports, and the parse
tables kept on disk. The times themselves are measured by bench/bench_startup.py
(docs/performance.md, "Start-up"); here, what would bring the slow start back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gdrcheck import grammar_cache

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys
from gdrcheck.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def _modules(*args: str, cache: Path) -> set[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), GDRCHECK_CACHE_DIR=str(cache))
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    return set(json.loads(proc.stderr.strip().splitlines()[-1]))


def test_version_imports_no_command(tmp_path: Path) -> None:
    mods = _modules("--version", cache=tmp_path)
    heavy = {"z3", "lark", "rich", "networkx", "hypothesis", "gdrcheck.analysis",
             "gdrcheck.litmus", "gdrcheck.cli.check"}
    assert not heavy & mods, heavy & mods


def test_the_script_answers_version_without_click(tmp_path: Path) -> None:
    # the console script and python -m gdrcheck: gdrcheck.__main__.entry (issue 24)
    probe = ("import json, sys; from gdrcheck.__main__ import entry; entry(); "
             "print(json.dumps(sorted(sys.modules)), file=sys.stderr)")
    env = dict(os.environ, PYTHONPATH=str(ROOT), GDRCHECK_CACHE_DIR=str(tmp_path))
    proc = subprocess.run([sys.executable, "-c", probe, "--version"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    from gdrcheck import __version__

    assert proc.stdout == f"gdrcheck, version {__version__}\n"
    mods = set(json.loads(proc.stderr.strip().splitlines()[-1]))
    assert not {"click", "importlib.metadata", "gdrcheck.cli"} & mods
    # the group's own --version says the same
    from click.testing import CliRunner

    from gdrcheck.cli import main

    assert CliRunner().invoke(main, ["--version"]).output == proc.stdout


def test_the_version_is_the_installed_one() -> None:
    import importlib.metadata

    from gdrcheck import __version__

    assert importlib.metadata.version("gdrcheck") == __version__


UNUSED = {"networkx", "rich", "hypothesis", "gdrcheck.analysis.explain",
          "gdrcheck.engine.replay", "gdrcheck.cli.run", "gdrcheck.batch", "gdrcheck.gen",
          "gdrcheck.report.graph"}


def test_a_check_imports_only_what_it_uses(tmp_path: Path) -> None:
    # the default engine, auto: SB's 4 candidates go to the enumerator, z3's engine
    # module is not loaded, nor z3 itself (gdrcheck/lazy.py: issue 24)
    mods = _modules("check", "litmus/classic/SB.litmus", "-m", "x86tso", cache=tmp_path)
    assert {"gdrcheck.engine.explicit", "lark", "gdrcheck.lower.x86"} <= mods  # it did run
    # nor the pictures, nor the other dialects' lowerers (issue 24)
    unused = UNUSED | {"gdrcheck.engine.smt", "z3", "gdrcheck.analysis.drawing",
                       "gdrcheck.lower.gin", "gdrcheck.lower.ptx", "gdrcheck.lower.host",
                       "gdrcheck.lower.multimem"}
    assert not unused & mods, unused & mods


def test_a_check_with_z3_imports_only_what_it_uses(tmp_path: Path) -> None:
    mods = _modules("check", "litmus/classic/SB.litmus", "-m", "x86tso", "--engine", "smt",
                    cache=tmp_path)
    assert {"gdrcheck.engine.smt", "z3", "lark"} <= mods  # it did run
    unused = UNUSED | {"gdrcheck.engine.explicit"}
    assert not unused & mods, unused & mods


def test_the_script_runs_lark_without_the_regex_module(tmp_path: Path) -> None:
    # lark imports `regex` when it is installed (about 0.01 s) and needs it only for
    # Lark(regex=True) and \p{...} terminals: the script keeps it out (issue 24)
    probe = ("import sys; from gdrcheck.__main__ import entry\ntry:\n    entry()\n"
             "except SystemExit:\n    pass\n"
             "print(repr(sys.modules.get('regex', 'absent')), file=sys.stderr)")
    env = dict(os.environ, PYTHONPATH=str(ROOT), GDRCHECK_CACHE_DIR=str(tmp_path))
    proc = subprocess.run([sys.executable, "-c", probe, "check", "litmus/classic/SB.litmus",
                           "-m", "x86tso"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert "Verdict SB x86tso Allowed" in proc.stdout, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] in ("None", "'absent'")
    for grammar in (ROOT / "gdrcheck").rglob("*.lark"):
        assert "\\p{" not in grammar.read_text(), grammar
    for source in (ROOT / "gdrcheck").rglob("*.py"):
        assert "regex=True" not in source.read_text(), source


def test_every_command_is_listed_and_loads(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from gdrcheck.cli import COMMANDS, main

    out = CliRunner().invoke(main, ["--help"]).output
    for name in COMMANDS:
        assert f"  {name} " in out, name
        assert main.get_command(None, name) is not None  # type: ignore[arg-type]


GRAMMAR = 'start: WORD+\n%import common.WORD\n%ignore " "\n'


def test_the_tables_are_kept_and_read_back(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GDRCHECK_CACHE_DIR", str(tmp_path / "c"))
    p1 = grammar_cache.cached_lark("t", GRAMMAR)
    (kept,) = (tmp_path / "c").glob("t-*.lark")
    p2 = grammar_cache.cached_lark("t", GRAMMAR)  # read from the file
    assert p1.parse("a b").children == p2.parse("a b").children
    # another grammar text: another file, never the old tables
    grammar_cache.cached_lark("t", GRAMMAR.replace("WORD+", "WORD WORD"))
    assert len(list((tmp_path / "c").glob("t-*.lark"))) == 2
    # a damaged file is rebuilt
    kept.write_bytes(b"not a pickle")
    assert grammar_cache.cached_lark("t", GRAMMAR).parse("a").children == ["a"]


def test_no_cache_where_nothing_can_be_written(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache directory would be")
    monkeypatch.setenv("GDRCHECK_CACHE_DIR", str(blocked / "sub"))
    assert grammar_cache.cached_lark("t", GRAMMAR).parse("a b").children == ["a", "b"]
    if os.geteuid() != 0:  # root writes anywhere
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        monkeypatch.setenv("GDRCHECK_CACHE_DIR", str(ro))
        assert grammar_cache.cached_lark("t", GRAMMAR).parse("a").children == ["a"]
        assert not list(ro.iterdir())
    monkeypatch.setenv("GDRCHECK_CACHE_DIR", "off")
    assert grammar_cache.cache_dir() is None
    assert grammar_cache.cached_lark("t", GRAMMAR).parse("a").children == ["a"]
