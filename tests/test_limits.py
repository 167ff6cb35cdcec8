"""Input size caps and a --timeout that bounds parsing and loading (issue 25 item 8).
Small inputs and short limits: every test here takes seconds."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.fix import fix
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.cli import main
from gdrcheck.engine.deadline import Deadline, Expired
from gdrcheck.engine.result import Verdict
from gdrcheck.errors import InputError, LitmusError
from gdrcheck.limits import MAX_LITMUS_BYTES, read_limited
from gdrcheck.litmus import load_litmus

ROOT = Path(__file__).parents[1]
CORR = ROOT / "litmus" / "classic" / "CoRR.litmus"


def big_model(path: Path, statements: int) -> Path:
    path.write_text('"big"\n' + "".join(f"let r{i} = po | rf\n" for i in range(statements))
                    + "acyclic po | rf\n")
    return path


def big_test(path: Path, rows: int) -> Path:
    path.write_text("X86 big\n{ x=0; }\n P0 ;\n" + " MOV [x],$1 ;\n" * rows
                    + "exists (x=1)\n")
    return path


def test_read_limited(tmp_path: Path) -> None:
    f = tmp_path / "f"
    f.write_bytes(b"x" * 10)
    assert read_limited(f, 10, "a thing") == b"x" * 10
    with pytest.raises(InputError, match="larger than 9 bytes, the limit of a thing"):
        read_limited(f, 9, "a thing")
    with pytest.raises(InputError, match="cannot read the file"):
        read_limited(tmp_path / "missing", 9, "a thing")


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_a_device_without_end_is_refused() -> None:
    t0 = time.perf_counter()
    with pytest.raises(LitmusError, match="larger than 1 MiB, the limit of a litmus test"):
        load_litmus("/dev/zero")
    r = CliRunner().invoke(main, ["check", "-m", "sc", "/dev/zero"])
    assert r.exit_code == 2 and "larger than 1 MiB" in r.output
    assert r.exception is None or isinstance(r.exception, SystemExit)
    assert time.perf_counter() - t0 < 10


def test_a_test_over_the_limit_is_refused(tmp_path: Path) -> None:
    path = big_test(tmp_path / "big.litmus", MAX_LITMUS_BYTES // 14 + 1)
    with pytest.raises(LitmusError, match="larger than 1 MiB"):
        load_litmus(path)


def test_the_test_parse_stops_at_the_deadline(tmp_path: Path) -> None:
    path = big_test(tmp_path / "big.litmus", 20_000)  # seconds to parse
    t0 = time.perf_counter()
    with pytest.raises(Expired):
        load_litmus(path, Deadline(0.3).tick)
    assert time.perf_counter() - t0 < 0.3 + 3
    for command in ("check", "explain", "sweep"):
        r = CliRunner().invoke(main, [command, "--timeout", "0.3", "-m", "sc", str(path)])
        assert r.exit_code == 2, (command, r.output)
        assert "timeout after 0.3 s while reading the test" in r.output


def test_the_model_load_counts_in_the_timeout(tmp_path: Path) -> None:
    model = big_model(tmp_path / "big.cat", 40_000)  # about 800 KB: seconds to parse
    t0 = time.perf_counter()
    res = check_test(load_litmus(CORR), str(model), options=CheckOptions(timeout=0.3))
    assert res.verdict == Verdict.UNKNOWN
    assert res.reason == "timeout while loading the model"
    assert time.perf_counter() - t0 < 0.3 + 3


def test_fix_keeps_to_one_budget() -> None:
    test = load_litmus(ROOT / "litmus" / "nvshmem" / "07-WRC+put+fence+signal.litmus")
    t0 = time.perf_counter()
    out = fix(test, ["nvshmem-api", "nvshmem-ibgda"], options=CheckOptions(timeout=1))
    # one step of encoding or z3's reaction to its limit may overrun (engine/deadline.py)
    assert time.perf_counter() - t0 < 1 + 4, out
