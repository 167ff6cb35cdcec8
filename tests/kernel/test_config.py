"""`// gdrcheck:` lines and option values: each error at its line."""

from __future__ import annotations

import pytest

from gdrcheck.errors import InputError
from gdrcheck.kernel.config import file_runs, parse_arg


def test_a_configuration_line_with_continuations() -> None:
    text = ("// a kernel\n"
            "// gdrcheck: --kernel k --ranks 2 --arg pe=0,1 -D FOO=1 \\\n"
            "//    --grid 2 --block 4 --nodes 0,0 -m nvshmem-api --expect nvshmem-api:Forbidden\n"
            "__global__ void k() {}\n"
            "// gdrcheck: --kernel k --ranks 3 --liveness nvshmem-ibgda:Hang --unroll 3\n")
    first, second = file_runs(text)
    assert first.config.kernel == "k" and first.config.ranks == 2
    assert (first.config.grid, first.config.block, first.config.nodes) == (2, 4, (0, 0))
    assert first.config.args == (("pe", (0, 1)),)
    assert first.defines == ("FOO=1",)
    assert first.models == ("nvshmem-api",) and first.expect == ("nvshmem-api:Forbidden",)
    assert (first.pos.line, second.pos.line) == (2, 5)
    assert second.liveness == ("nvshmem-ibgda:Hang",) and second.unroll == 3


@pytest.mark.parametrize(("line", "message"), [
    ("// gdrcheck: --kernel k --ranks 2 --bogus 1", "unknown option '--bogus'"),
    ("// gdrcheck: --kernel k", "--ranks R is needed"),
    ("// gdrcheck: --kernel k --ranks two", "--ranks: expected an integer"),
    ("// gdrcheck: --kernel k --ranks 2 --expect nvshmem-api:Maybe", "MODEL:Allowed"),
    ("// gdrcheck: --kernel k --ranks 2 --arg pe", "expected NAME=VALUE"),
    ("// gdrcheck: --kernel k --ranks 2 --nodes 0,x", "--nodes: expected an integer"),
    ("// gdrcheck: --kernel 'k", "does not split"),
])
def test_a_bad_configuration_line_is_an_error_at_its_line(line: str, message: str) -> None:
    with pytest.raises(InputError, match=message) as info:
        file_runs("int x;\n" + line + "\n")
    assert info.value.pos.line == 2


def test_arg_values() -> None:
    assert parse_arg("iter=3") == ("iter", (3,))
    assert parse_arg("pe=0,1,2") == ("pe", (0, 1, 2))
    assert parse_arg("mask=0x10") == ("mask", (16,))
