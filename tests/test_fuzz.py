"""No traceback on any input: 2,000 mutations of the litmus library (lines deleted,
duplicated, swapped; tokens replaced by tokens of the corpus; pieces repeated; conditions
nested deep; huge integers, long names, bytes that are not UTF-8) through every command of
the CLI, in-process (click's CliRunner on gdrcheck.cli.main, exceptions caught).

Derandomised: seed 0, inputs 0..499 (0..1999 with ``-m slow``) of scripts/fuzz.py's
``--small`` profile, on two worker processes. An input fails when the command raises
anything but SystemExit, exits with a code outside {0, 1, 2} or prints a traceback, or runs
longer than 30 s. The long run
(100,000 inputs, docs/input-rules.md) is ``python scripts/fuzz.py --n 100000``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
INPUTS = 2000
SHORT = 500  # the default suite's share of the same inputs (0..499); -m slow runs all 2,000


def _fuzz() -> ModuleType:
    scripts = str(ROOT / "scripts")
    if scripts not in sys.path:
        sys.path.insert(0, scripts)  # the spawned workers import it by name too
    spec = importlib.util.spec_from_file_location("fuzz", ROOT / "scripts" / "fuzz.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["fuzz"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("inputs", [
    SHORT, pytest.param(INPUTS, marks=pytest.mark.slow)])  # about 17 s and 70 s here
def test_mutated_library_tests_never_give_a_traceback(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str],
                                                       inputs: int) -> None:
    fuzz = _fuzz()
    code = fuzz.main(["--n", str(inputs), "--seed", "0", "--jobs", "2", "--small",
                      "--hang", "30", "--kill-after", "60", "--every", "500",
                      "--out", str(tmp_path / "failures")])
    out = capsys.readouterr().out
    assert f"done: {inputs} inputs" in out, out
    assert code == 0, out


def test_the_mutations_are_deterministic() -> None:
    fuzz = _fuzz()
    first = [(c.command, c.text) for c in fuzz.cases(30, 7)]
    again = [(c.command, c.text) for c in fuzz.cases(30, 7)]
    assert first == again
    assert [c.text for c in fuzz.cases(30, 7, start=20)] == [t for _, t in first[20:]]
    assert len({t for _, t in first}) > 25  # they do mutate


def test_a_failure_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The oracle can fail: an exception other than SystemExit is a failure."""
    import gdrcheck.litmus

    fuzz = _fuzz()
    case = fuzz.Case(0, ("check",), "PTX T\n{ x = 0; }\n P0 ;\n st.weak x, 1 ;\nexists (x=1)\n")
    assert fuzz.run_case(case, tmp_path).failure is None

    def broken(*args: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(gdrcheck.litmus, "load_litmus", broken)
    failure = fuzz.run_case(case, tmp_path).failure
    assert failure is not None and "RuntimeError: boom" in failure


def test_shards_split_the_range() -> None:
    fuzz = _fuzz()
    parts = [fuzz.shard_range(5, 105, f"{i}/4") for i in range(4)]
    assert parts[0][0] == 5 and parts[-1][1] == 105
    assert all(a[1] == b[0] for a, b in zip(parts, parts[1:], strict=False))
    assert fuzz.shard_range(5, 105, None) == (5, 105)
    with pytest.raises(SystemExit):
        fuzz.shard_range(0, 10, "4/4")


def test_the_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    fuzz = _fuzz()
    summary = tmp_path / "s.json"
    code = fuzz.main(["--n", "8", "--seed", "3", "--jobs", "1", "--small", "--shard", "1/2",
                      "--out", str(tmp_path / "failures"), "--summary", str(summary)])
    capsys.readouterr()
    data = json.loads(summary.read_text())
    assert (data["first"], data["stop"], data["inputs"]) == (4, 8, 4)
    assert data["failures"] == data["hangs"] == data["worker_deaths"] == 0 and code == 0
    assert data["problems"] == []
    assert sorted(s["index"] for s in data["slowest"]) == [4, 5, 6, 7]
    assert data["wall_seconds"] >= 0
