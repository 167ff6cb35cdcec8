"""``gdrcheck fix FILE.cu``: the kernel's repair at its source lines (docs/kernels.md "Fix")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gdrcheck.cli import main
from tests.kernel.conftest import MISSING
from tests.kernel.test_fix import MP_NO_FENCE

pytestmark = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(main, list(args))
    return r.exit_code, r.stdout, r.stderr


def test_fix_reports_the_repair_at_the_kernels_line(tmp_path: Path) -> None:
    src = tmp_path / "mp.cu"
    src.write_text(MP_NO_FENCE)
    code, out, _ = run("fix", str(src), "--kernel", "k", "--ranks", "2", "-m", "nvshmem-api")
    assert code == 0, out
    assert "Before nvshmem-api Allowed" in out
    assert ("mp.cu:7: insert nvshmem_fence() before nvshmemx_signal_op(s, 1, "
            "NVSHMEM_SIGNAL_SET, 1) [shmem.fence, cost 2; P0]") in out
    assert "After nvshmem-api Forbidden" in out
    code, out, _ = run("fix", str(src), "--kernel", "k", "--ranks", "2", "-m", "nvshmem-api",
                       "--format", "json")
    assert code == 0
    rec = json.loads(out)
    [edit] = rec["repairs"][0]["source_edits"]
    assert (edit["line"], edit["entry"], edit["threads"]) == (7, "shmem.fence", [0])
    assert edit["text"].startswith("insert nvshmem_fence() before nvshmemx_signal_op(")


def test_fix_of_a_kernel_refuses_what_it_cannot_do(tmp_path: Path) -> None:
    src = tmp_path / "mp.cu"
    src.write_text(MP_NO_FENCE)
    code, _, err = run("fix", str(src), "--kernel", "k", "--ranks", "2", "-o",
                       str(tmp_path / "out.cu"))
    assert code == 2 and "reported at its source lines" in err
    code, _, err = run("fix", str(src))  # no // gdrcheck: line and no --ranks
    assert code == 2 and "no configuration to repair" in err
    code, _, err = run("fix", str(src), "--kernel", "nope", "--ranks", "2")
    assert code == 2 and "nope" in err
