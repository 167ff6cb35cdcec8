"""The pytest plugin collects a .cu file's `// gdrcheck:` configurations as items."""

from __future__ import annotations

import pytest

from .conftest import DATA

pytest_plugins = ["pytester"]


def test_a_kernel_file_gives_one_item_per_expectation(pytester: pytest.Pytester) -> None:
    body = (DATA / "mp_atomic_ref.cu").read_text()
    # MP+rel+acq-gpu: ptx Forbidden; the relaxed poll, MP+rel+rlx-gpu: ptx Allowed; and a
    # wrong expectation, which fails
    lines = ("// gdrcheck: --kernel mp --ranks 1 --grid 2 --expect ptx:Forbidden\n"
             "// gdrcheck: --kernel mp --ranks 1 --grid 2 -D RELAXED_POLL --expect ptx:Allowed\n"
             "// gdrcheck: --kernel mp --ranks 1 --grid 2 -D RELAXED_POLL --expect sc:Allowed\n")
    pytester.makefile(".cu", mp=lines + body)
    result = pytester.runpytest("mp.cu", "-v")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*mp.cu::mp+r1g2b1#1::ptx PASSED*",
                                 "*mp.cu::mp+r1g2b1#3::sc FAILED*"])


def test_a_kernel_that_does_not_compile_is_a_collection_error(
        pytester: pytest.Pytester) -> None:
    pytester.makefile(".cu", bad="// gdrcheck: --kernel k --ranks 1 --expect ptx:Forbidden\n"
                      "__global__ void k(int *x) { undeclared(x); }\n")
    result = pytester.runpytest("bad.cu")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*bad.cu:2:*undeclared*"])
