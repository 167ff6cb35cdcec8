"""What ``generate`` refuses up front, from the family's formula (issue 25 item 7), and
that the formula is the shape of what it builds."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from gdrcheck.cli import main
from gdrcheck.errors import InputError
from gdrcheck.gen.enumerate import MAX_SEQUENCES, check_enumeration, sequence_count
from gdrcheck.gen.families import FAMILIES, MAX_CELLS, family, family_shape
from gdrcheck.litmus import parse_litmus


@pytest.mark.parametrize("name", FAMILIES)
@pytest.mark.parametrize("size,width", [(2, 1), (3, 2), (5, 3)])
def test_the_formula_is_the_shape_built(name: str, size: int, width: int) -> None:
    dialect = "gin" if name.startswith("gin") else "x86"
    _, text = family(name, size, dialect, width)
    test = parse_litmus(text)
    threads, rows = family_shape(name, size, width)
    assert len(test.threads) == threads
    assert max(len(t.instrs) for t in test.threads) <= rows
    # the table as printed: the header line, then one line per row
    table = [line for line in text.splitlines() if line.rstrip().endswith(";")]
    assert len(table) - 1 == rows


@pytest.mark.parametrize("args,words", [
    (["--family", "SB", "--size", "1000000000"], "2,000,000,000 cells"),
    (["--family", "SB", "--size", "1" + "0" * 30], "cells, more than the 20,000"),
    (["--family", "gin-fan-in", "--size", "8", "--width", "1000000"], "72,000,072 cells"),
    (["--family", "SB", "--size", "100000"], "200,000 cells"),
    (["--enumerate", "--size", "50"], "edge sequences, more than the 20,000,000"),
    (["--enumerate", "--size", "9" * 40], "more than 2^64 edge sequences"),
])
def test_what_cannot_finish_is_refused_at_once(args: list[str], words: str) -> None:
    t0 = time.perf_counter()
    r = CliRunner().invoke(main, ["generate", *args])
    assert r.exit_code == 2 and r.exception is None or isinstance(r.exception, SystemExit)
    assert words in r.output
    assert time.perf_counter() - t0 < 5


def test_the_largest_allowed_family_is_written() -> None:
    n = MAX_CELLS // 2  # SB: n threads x 2 rows
    r = CliRunner().invoke(main, ["generate", "--family", "SB", "--size", str(n)])
    assert r.exit_code == 0, r.output
    with pytest.raises(InputError):
        family("SB", n + 1)


def test_the_enumeration_count() -> None:
    assert sequence_count(8, 6) == sum(8 ** k for k in range(2, 7)) == 299_584
    assert check_enumeration(8, 8) <= MAX_SEQUENCES  # x86 up to 8 edges is allowed
    with pytest.raises(InputError):
        check_enumeration(8, 9)
    with pytest.raises(InputError):
        check_enumeration(1, 10 ** 30)


def test_an_unwritable_output_is_an_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    r = CliRunner().invoke(main, ["generate", "--family", "SB", "--size", "3", "-o",
                                  str(blocker / "sub")])
    assert r.exit_code == 2
    assert "cannot write the generated tests: Not a directory" in r.output
    assert not isinstance(r.exception, OSError)
