"""``gdrcheck run`` options (gdrcheck/cli/run.py): the results file it refuses before any
work (issue 25, item 5), and ``--model`` as in check (issue 24, item 7: ``all``,
``a,b`` and ``-m a -m b``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from gdrcheck.cli import main

ROOT = Path(__file__).resolve().parents[2]
SB = ROOT / "litmus" / "classic" / "SB.litmus"
MP = ROOT / "litmus" / "classic" / "MP.litmus"
GIN = ROOT / "litmus" / "gin" / "01-MP+put+strongsig.litmus"


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(main, ["run", *args])
    return r.exit_code, r.stdout, r.stderr


def models_of(out: Path) -> dict[str, set[str]]:
    got: dict[str, set[str]] = {}
    for line in out.read_text().splitlines():
        rec = json.loads(line)
        got.setdefault(rec["file"], set()).add(rec["model"])
    return got


# --------------------------------------------------------------------------
# The results file: refused before any work
# --------------------------------------------------------------------------


@pytest.mark.parametrize("device", ["/dev/null", "/dev/zero", "/dev/full"])
def test_a_device_as_results_is_refused_before_any_work(tmp_path: Path, device: str) -> None:
    if not Path(device).exists():
        pytest.skip(f"no {device}")
    junit = tmp_path / "junit.xml"
    code, stdout, stderr = run(str(SB), "--jobs", "0", "-o", device, "--junit", str(junit))
    assert code == 2
    assert stderr.strip() == (f"{device}: not a regular file (a character device): the "
                              "results file must be a regular file or a new path")
    assert stdout == "" and not junit.exists()  # nothing ran, no summary, no report


def test_a_fifo_as_results_is_refused_and_does_not_block(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    code, _, stderr = run(str(SB), "--jobs", "0", "-o", str(fifo))
    assert code == 2 and "not a regular file (a FIFO)" in stderr


def test_a_file_that_is_not_a_results_file_is_refused_and_kept(tmp_path: Path) -> None:
    data = tmp_path / "data.json"
    data.write_text(json.dumps({"results": [1, 2], "name": "mine"}))  # no final newline
    before = data.read_bytes()
    code, stdout, stderr = run(str(SB), "--jobs", "0", "-o", str(data))
    assert code == 2 and stdout == ""
    assert stderr.startswith(f"{data}:1: not a line of a results file of gdrcheck run")
    assert data.read_bytes() == before


def test_a_results_file_edited_to_a_wrong_verdict_is_a_mismatch(tmp_path: Path) -> None:
    """SB under x86tso is Allowed (its Expect= line: Intel SDM Vol. 3A §8.2.3.4, Example
    8-3); a line edited to Forbidden, with its stored ``expect.met`` left true, is held
    against the Expect= line on resume."""
    out = tmp_path / "out.jsonl"
    assert run(str(SB), "-m", "x86tso", "--jobs", "0", "-o", str(out))[0] == 0
    rec = json.loads(out.read_text())
    out.write_text(json.dumps({**rec, "verdict": "Forbidden"}) + "\n")
    code, stdout, stderr = run(str(SB), "-m", "x86tso", "--jobs", "0", "-o", str(out))
    assert "1 job(s) already in" in stderr
    assert f"MISMATCH {os.path.normpath(SB)}::x86tso: Expect Allowed, got Forbidden" in stdout
    assert code == 1


# --------------------------------------------------------------------------
# --model as in check
# --------------------------------------------------------------------------


def test_model_all_runs_the_models_check_all_runs(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    code, _, stderr = run(str(SB), str(GIN), "-m", "all", "--jobs", "0", "-o", str(out))
    assert code in (0, 1), stderr
    got = models_of(out)
    for path in (SB, GIN):
        r = CliRunner().invoke(main, ["check", str(path), "-m", "all", "--format", "json"])
        want = json.loads(r.stdout)
        records = want if isinstance(want, list) else want.get("records", [want])
        assert got[os.path.normpath(path)] == {rec["model"] for rec in records}, r.stdout
    assert "x86tso" in got[os.path.normpath(SB)] and "sc" in got[os.path.normpath(SB)]


def test_model_all_with_a_variant_adds_it_where_a_model_has_it(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    run(str(GIN), "-m", "all", "--variant", "pcie-ro", "--jobs", "0", "-o", str(out))
    models = models_of(out)[os.path.normpath(GIN)]
    assert "gin-gdaki+pcie-ro" in models
    assert any("+" not in m for m in models)  # a model without that variant runs as is


def test_model_all_and_a_model_name_cannot_be_combined(tmp_path: Path) -> None:
    code, _, stderr = run(str(SB), "-m", "all", "-m", "sc", "-o", str(tmp_path / "o"))
    assert code == 2 and "cannot be combined" in stderr


def test_model_all_with_a_file_no_model_accepts_is_an_error_line() -> None:
    """The plan of ``-m all`` when the only model is x86tso: the GIN test gets an error
    line (key FILE::all, the reason check gives), the x86 test its job."""
    from gdrcheck.analysis.models import get_model
    from gdrcheck.batch import plan

    p = plan([SB, GIN], every={"x86tso": get_model("x86tso")})
    assert [j.key for j in p.jobs] == [f"{os.path.normpath(SB)}::x86tso"]
    (err,) = p.failed
    assert err["key"] == f"{os.path.normpath(GIN)}::all" and err["verdict"] == "Error"
    assert "no model accepts test '01-MP+put+strongsig'" in err["reason"], err["reason"]


@pytest.mark.parametrize("args", [["-m", "sc,x86tso"], ["-m", "sc", "-m", "x86tso"],
                                  ["-m", "sc", "--model", "x86tso,sc"]])
def test_models_comma_separated_or_repeated(tmp_path: Path, args: list[str]) -> None:
    out = tmp_path / "out.jsonl"
    code, _, stderr = run(str(SB), str(MP), *args, "--jobs", "0", "-o", str(out))
    assert code == 0, stderr
    assert models_of(out) == {os.path.normpath(p): {"sc", "x86tso"} for p in (SB, MP)}
