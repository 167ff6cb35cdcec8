"""The results file of ``gdrcheck run`` is read, repaired and trusted only as far as it
is ours (issue 25, item 5): a file that is not a results file is refused and left as it
is; a torn last line (a kill -9 in the middle of a write) is cut; a whole last line
without its newline is kept; a record's ``expect`` is computed again on resume."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gdrcheck.analysis.models import ModelSpec
from gdrcheck.batch import NotResults, read_results, run_batch
from tests.batch.test_batch import MP, ROOT, SB, lines_of


def sb_lines(tmp_path: Path) -> list[str]:
    """The two lines of SB (sc, then x86tso) as a run writes them."""
    out = tmp_path / "sb.jsonl"
    run_batch([SB], out, workers=0)
    return sorted(out.read_text().splitlines(), key=lambda line: json.loads(line)["model"])


@pytest.mark.parametrize("content", [
    json.dumps({"results": [1, 2, 3], "ok": True}).encode(),  # json.dump: no newline
    (ROOT / "README.md").read_bytes()[:4000].rstrip(b"\n"),  # text without a final newline
    bytes(range(256)) * 64,  # binary
    b'{"key":"x"}',  # a JSON object that starts as a line does but is no record
    b"",  # not refused: an empty file is a results file of no line
], ids=["json-dump", "readme", "binary", "key-only", "empty"])
def test_a_file_that_is_not_a_results_file_is_refused_and_left_alone(
        tmp_path: Path, content: bytes) -> None:
    out = tmp_path / "not-results"
    out.write_bytes(content)
    if not content:
        assert read_results(out, repair=True) == {}
        return
    with pytest.raises(NotResults, match="not a line of a results file"):
        run_batch([SB], out, workers=0)
    assert out.read_bytes() == content  # not one byte cut, none added


def test_a_bad_line_in_the_middle_is_refused_with_its_number(tmp_path: Path) -> None:
    first, second = sb_lines(tmp_path)
    out = tmp_path / "out.jsonl"
    text = f"{first}\nnot json\n{second}\n"
    out.write_text(text)
    with pytest.raises(NotResults) as err:
        read_results(out, repair=True)
    assert err.value.message.startswith(f"{out}:2: not a line of a results file")
    assert out.read_text() == text


@pytest.mark.parametrize("edit", [
    lambda r: {**r, "key": r["key"].replace("SB", "MP")},  # key is not file::model
    lambda r: {**r, "verdict": "Maybe"},  # no such verdict
    lambda r: {**r, "schema": "other/1"},  # not a schema of a results line
    lambda r: {k: v for k, v in r.items() if k != "key"},  # no key
], ids=["key", "verdict", "schema", "no-key"])
def test_an_inconsistent_record_is_refused(tmp_path: Path, edit: object) -> None:
    first, second = sb_lines(tmp_path)
    out = tmp_path / "out.jsonl"
    text = first + "\n" + json.dumps(edit(json.loads(second))) + "\n"  # type: ignore[operator]
    out.write_text(text)
    with pytest.raises(NotResults, match=f"^{out}:2: "):
        run_batch([SB], out, workers=0)
    assert out.read_text() == text


@pytest.mark.parametrize("fragment", [b'{"ke', b'{"key":"', b'{"key":"a/b.litmus::sc","sch'])
def test_a_torn_last_line_is_cut(tmp_path: Path, fragment: bytes) -> None:
    first, _ = sb_lines(tmp_path)
    out = tmp_path / "out.jsonl"
    out.write_bytes(first.encode() + b"\n" + fragment)
    done = read_results(out, repair=True)
    assert list(done) == [json.loads(first)["key"]]
    assert out.read_bytes() == first.encode() + b"\n"


def test_a_torn_first_line_is_cut(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_bytes(b'{"key":"' + str(SB).encode())
    assert read_results(out, repair=True) == {}
    assert out.read_bytes() == b""


def test_a_whole_last_line_without_its_newline_is_kept(tmp_path: Path) -> None:
    """A file edited by hand (an editor that drops the final newline): the line is a
    record, so it counts, and the next line starts on a line of its own."""
    first, second = sb_lines(tmp_path)
    out = tmp_path / "out.jsonl"
    out.write_text(first + "\n" + second)
    report = run_batch([SB, MP], out, workers=0)
    assert (report.resumed, report.new) == (2, 2)
    lines = lines_of(out)
    assert [json.dumps(r, separators=(",", ":")) for r in lines[:2]] == [first, second]
    assert len(lines) == 4


def test_expect_met_is_computed_again_on_resume(tmp_path: Path) -> None:
    """A record edited to a wrong verdict, its ``expect.met`` left true: the summary
    holds the verdict against the Expect= line (SB: x86tso Allowed, Intel SDM Vol. 3A
    §8.2.3.4 Example 8-3, as the file says) and reports the mismatch."""
    first, second = sb_lines(tmp_path)
    tso = json.loads(second)
    assert tso["model"] == "x86tso" and tso["verdict"] == "Allowed"
    edited = {**tso, "verdict": "Forbidden", "expect": {"verdict": "Allowed", "met": True}}
    out = tmp_path / "out.jsonl"
    out.write_text(first + "\n" + json.dumps(edited) + "\n")
    report = run_batch([SB], out, workers=0)
    assert report.new == 0 and report.resumed == 2
    (mismatch,) = report.mismatches()
    assert (mismatch.key, mismatch.want, mismatch.got) == (
        f"{os.path.normpath(SB)}::x86tso", "Allowed", "Forbidden")
    assert report.records[mismatch.key]["expect"] == {"verdict": "Allowed", "met": False}
    assert report.exit_code == 1


def test_expect_follows_the_files_expect_line_now(tmp_path: Path) -> None:
    """The Expect= line changed since the record was written: the record's verdict is
    held against the line as it is now."""
    test = tmp_path / "SB.litmus"
    test.write_text(SB.read_text())
    out = tmp_path / "out.jsonl"
    assert run_batch([test], out, models=[ModelSpec("x86tso")], workers=0).exit_code == 0
    test.write_text(SB.read_text().replace("x86tso:Allowed", "x86tso:Forbidden"))
    report = run_batch([test], out, models=[ModelSpec("x86tso")], workers=0)
    assert report.new == 0
    assert report.records[f"{test}::x86tso"]["expect"] == {"verdict": "Forbidden",
                                                           "met": False}
    assert report.exit_code == 1


@pytest.mark.parametrize("device", ["/dev/null", "/dev/zero", "/dev/full"])
def test_a_device_is_refused(device: str) -> None:
    if not Path(device).exists():
        pytest.skip(f"no {device}")
    with pytest.raises(NotResults, match="not a regular file \\(a character device\\)"):
        run_batch([SB], Path(device), workers=0)


def test_a_fifo_and_a_directory_are_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(NotResults, match="not a regular file \\(a FIFO\\)"):
        run_batch([SB], fifo, workers=0)
    with pytest.raises(NotResults, match="not a regular file \\(a directory\\)"):
        run_batch([SB], tmp_path, workers=0)
