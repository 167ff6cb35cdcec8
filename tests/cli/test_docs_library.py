"""``gdrcheck docs``, ``gdrcheck library`` and the ``lib:`` names of the shipped litmus
library, accepted wherever a test path is (check, explain, fix, sweep, run, the API, the
pytest plugin).

Verdicts asserted here are the library files' own ``Expect=`` entries: classic/SB is
Allowed under x86tso and Forbidden under sc (Intel SDM Vol.3A §8.2.3.4 Example 8-3;
Lamport 1979), gin/01 Forbidden under gin-api (R-GIN-2, R-GIN-10).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import gdrcheck
from gdrcheck.analysis.suite import litmus_files
from gdrcheck.cli import main
from gdrcheck.errors import InputError
from gdrcheck.litmus.library import LIBRARY_DIR, library_tests, resolve

ROOT = Path(__file__).resolve().parents[2]
SB = "lib:classic/SB.litmus"
GIN01 = "lib:gin/01-MP+put+strongsig.litmus"


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(main, list(args))
    return r.exit_code, r.stdout, r.stderr


# ---- gdrcheck docs


def test_docs_lists_the_tutorial_and_the_format_first() -> None:
    code, out, _ = run("docs")
    assert code == 0
    names = [line.split()[0] for line in out.splitlines() if line.strip()][:-1]
    assert names[:2] == ["tutorial", "litmus-format"]
    assert set(names) == {p.stem for p in (ROOT / "docs").glob("*.md")}
    assert out.splitlines()[0].split(None, 1) == ["tutorial",
                                                  "Tutorial: is my put-then-signal safe?"]


@pytest.mark.parametrize("name", ["litmus-format", "tutorial.md", "models"])
def test_docs_prints_a_document(name: str) -> None:
    code, out, _ = run("docs", name)
    assert code == 0
    assert out == (ROOT / "docs" / f"{name.removesuffix('.md')}.md").read_text(
        encoding="utf-8")


def test_docs_unknown_name_is_exit_2_with_a_hint() -> None:
    code, out, err = run("docs", "format")
    assert code == 2 and out == ""
    assert "no document 'format' (did you mean litmus-format?)" in err


def test_help_points_at_the_docs_and_the_library() -> None:
    code, out, _ = run("--help")
    assert code == 0
    assert "gdrcheck docs tutorial" in out and "gdrcheck docs litmus-format" in out
    assert "gdrcheck library" in out and "lib:gin/01-MP+put+strongsig.litmus" in out


# ---- gdrcheck library


def test_library_lists_every_shipped_test_by_its_lib_name() -> None:
    code, out, _ = run("library")
    assert code == 0
    want = sorted(p.relative_to(ROOT / "litmus").as_posix()
                  for p in (ROOT / "litmus").rglob("*.litmus"))
    assert out.split() == [f"lib:{n}" for n in want]


def test_library_pattern_and_paths() -> None:
    code, out, _ = run("library", "gin/0*")
    assert code == 0
    assert out.split()[0] == GIN01 and all(n.startswith("lib:gin/0") for n in out.split())
    code, out, _ = run("library", "strongsig", "--paths")
    assert code == 0
    assert str(LIBRARY_DIR / "gin" / "01-MP+put+strongsig.litmus") in out.split()
    assert library_tests("lib:classic/SB.") == ["classic/SB.litmus"]


def test_library_without_a_match_is_exit_2() -> None:
    code, _, err = run("library", "no-such-test")
    assert code == 2 and "no shipped litmus test matching 'no-such-test'" in err


# ---- lib: names


def test_resolve() -> None:
    assert resolve(SB) == ROOT / "litmus" / "classic" / "SB.litmus"
    assert resolve("lib:gin") == ROOT / "litmus" / "gin"
    assert resolve("lib:") == LIBRARY_DIR
    assert resolve("litmus/classic/SB.litmus") == Path("litmus/classic/SB.litmus")
    with pytest.raises(InputError, match="outside the shipped litmus library"):
        resolve("lib:../README.md")
    with pytest.raises(InputError, match=r"did you mean lib:classic/SB.litmus\?"):
        resolve("lib:SB.litmus")


def test_check_takes_a_lib_name() -> None:
    code, out, _ = run("check", SB)
    assert code == 0, out
    assert "Verdict SB x86tso Allowed" in out and "Verdict SB sc Forbidden" in out
    code, out, _ = run("check", GIN01, "--model", "all")
    assert code == 0
    assert GIN01 in out


def test_check_of_a_missing_lib_name_is_exit_2_without_traceback() -> None:
    code, out, err = run("check", "lib:gin/01-MP+put+strong.litmus")
    assert code == 2
    assert "no test 'gin/01-MP+put+strong.litmus' in the shipped litmus library" in err
    assert "Traceback" not in out + err


def test_json_names_the_file_read() -> None:
    code, out, _ = run("check", SB, "-m", "x86tso", "--format", "json")
    assert code == 0
    rec = json.loads(out)
    recs = rec if isinstance(rec, list) else [rec]
    assert Path(recs[0]["file"]) == ROOT / "litmus" / "classic" / "SB.litmus"


def test_explain_sweep_and_fix_take_lib_names() -> None:
    code, out, _ = run("explain", SB, "-m", "sc")
    assert code == 0 and "SB under sc: Forbidden" in out
    code, out, _ = run("sweep", "lib:gin/02-MP+put+weaksig.litmus", "-m", "gin-api")
    assert code in (0, 1) and "Sweep 02-MP+put+weaksig gin-api" in out
    code, out, _ = run("fix", SB, "-m", "x86tso")
    assert code in (0, 1) and "Fix SB under x86tso" in out


def test_run_takes_a_lib_folder(tmp_path: Path) -> None:
    results = tmp_path / "out.jsonl"
    code, _, err = run("run", "lib:classic/SB.litmus", "lib:nope", "-j", "0", "-o",
                       str(results))
    assert code == 2  # bad input, and SB still ran
    assert "lib:nope: no test 'nope' in the shipped litmus library" in err
    files = {json.loads(line)["file"] for line in results.read_text().splitlines()}
    assert files == {str(ROOT / "litmus" / "classic" / "SB.litmus")}
    assert litmus_files(["lib:classic"]) == sorted(
        str(p) for p in (ROOT / "litmus" / "classic").glob("*.litmus"))


def test_the_api_takes_a_lib_name() -> None:
    assert gdrcheck.check(SB, "x86tso").verdict == "Allowed"
    assert gdrcheck.check(GIN01, "gin-api").verdict == "Forbidden"
    gdrcheck.assert_forbidden(GIN01, "gin-api")


def test_the_pytest_plugin_takes_a_lib_name(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", SB],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 passed" in proc.stdout, proc.stdout
