"""``gdrcheck kernel``: the kernels/ library meets its `// gdrcheck:` expectations, the extracted
test parses and gives the same verdicts, bad input is file:line:col with exit code 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gdrcheck.analysis.assumed import check_assumed
from gdrcheck.analysis.options import DEFAULT_OPTIONS
from gdrcheck.kernel import file_runs, load_kernel, read_source
from gdrcheck.litmus import parse_litmus
from gdrcheck.lower import DEFAULT_UNROLL

from .conftest import DATA, KERNELS

LIBRARY = sorted(KERNELS.rglob("*.cu"))


def _gdrcheck(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    root = Path(__file__).resolve().parents[2]
    return subprocess.run([sys.executable, "-m", "gdrcheck", *args], capture_output=True,
                          text=True, cwd=cwd, env={"PYTHONPATH": str(root), "PATH":
                                                   __import__("os").environ["PATH"]},
                          timeout=600, check=False)


def test_the_library_has_kernels_and_mutants() -> None:
    names = {p.name for p in LIBRARY}
    assert len(LIBRARY) >= 8
    for p in LIBRARY:
        if "+" not in p.stem:
            assert any(n.startswith(p.stem + "+") for n in names), f"{p.name} has no mutant"


@pytest.mark.parametrize("path", LIBRARY, ids=lambda p: p.name)
def test_library_kernel_meets_its_expectations(path: Path) -> None:
    runs = file_runs(read_source(path))
    assert runs, "every library kernel has a // gdrcheck: line"
    for run in runs:
        assert run.expect or run.liveness, "every configuration says what it expects"
        kt = load_kernel(path, run)
        options = DEFAULT_OPTIONS.overlay(unroll=run.unroll or DEFAULT_UNROLL)  # as the CLI
        results = {}
        for entry in [*run.expect, *run.liveness]:
            model, _, want = entry.rpartition(":")
            if model not in results:
                results[model] = check_assumed(kt.test, kt.kept, model, options=options)
            res = results[model]
            if want in ("Hang", "Live"):
                assert ("Hang" if res.liveness else "Live") == want, entry
            else:
                assert res.verdict == want and not res.vacuous, entry


def test_the_command_runs_the_files_configurations() -> None:
    ok = _gdrcheck("kernel", str(KERNELS / "nvshmem" / "ring-bcast+no-fence.cu"))
    assert ok.returncode == 0, ok.stderr
    assert "Expect ring_bcast+r3g1b1 nvshmem-api: Allowed -> Allowed ok" in ok.stdout
    assert "ring-bcast+no-fence.cu:" in ok.stdout and "host check can fail" in ok.stdout
    # the same kernel, told the wrong verdict: exit code 1
    bad = _gdrcheck("kernel", str(KERNELS / "nvshmem" / "ring-bcast+no-fence.cu"), "--kernel",
                    "ring_bcast", "--ranks", "3", "--arg", "nelem=1", "--arg", "root=0",
                    "--init", "host_init", "--check", "host_check",
                    "--expect", "nvshmem-api:Forbidden")
    assert bad.returncode == 1
    assert "MISMATCH" in bad.stdout


def test_witness_names_source_lines() -> None:
    out = _gdrcheck("kernel", str(DATA / "mp.cu"), "--kernel", "mp", "--ranks", "1", "--grid",
                    "2", "-m", "ptx", "-DRELAXED_POLL", "--show-witness")
    assert out.returncode == 0, out.stderr
    assert "mp.cu:26 assert(data[0] == 1) fails on P1" in out.stdout
    assert "mp.cu:21 store: st.weak data, 1 W(data@0)=1" in out.stdout


def test_emit_litmus_parses_and_gives_the_same_verdicts(tmp_path: Path) -> None:
    path = KERNELS / "nvshmem" / "ring-bcast+no-fence.cu"
    out = _gdrcheck("kernel", str(path), "--emit-litmus")
    assert out.returncode == 0, out.stderr
    litmus = tmp_path / "extracted.litmus"
    litmus.write_text(out.stdout)
    test = parse_litmus(out.stdout, str(litmus))
    [run] = file_runs(read_source(path))
    kt = load_kernel(path, run)
    assert test == kt.test  # the same AST: the same verdict under every model
    checked = _gdrcheck("check", str(litmus))  # its Expect= lines are the kernel's
    assert checked.returncode == 0, checked.stdout + checked.stderr
    kernel = _gdrcheck("kernel", str(path))
    verdicts = sorted(ln for ln in checked.stdout.splitlines() if ln.startswith("Verdict "))
    assert verdicts == sorted(ln for ln in kernel.stdout.splitlines()
                              if ln.startswith("Verdict "))
    assert len(verdicts) == 2


def test_bad_input_is_file_line_col_and_exit_2(tmp_path: Path) -> None:
    src = tmp_path / "bad.cu"
    src.write_text("#include <nvshmem.h>\n__global__ void k(int *x, int *y) {\n"
                   "    x[*y] = 1;\n}\n")
    out = _gdrcheck("kernel", str(src), "--kernel", "k", "--ranks", "2")
    assert out.returncode == 2
    assert out.stderr.startswith(f"{src}:3:")
    assert "Traceback" not in out.stderr
    missing = _gdrcheck("kernel", str(src), "--kernel", "nope", "--ranks", "2")
    assert missing.returncode == 2 and "no kernel named 'nope'" in missing.stderr
    none = _gdrcheck("kernel", str(src))
    assert none.returncode == 2 and "no `// gdrcheck:` line" in none.stderr


def test_witness_shows_the_floats_a_code_stands_for() -> None:
    # 01_rmsnorm_lsa+relaxed-barrier: rank 0's host reads rank 1's token as rank 1 initialised
    # it (3.0, its own code) while its own token is normalised: 5/sqrt(5^2 + 1) = 0.98058068,
    # rsqrt.approx.f32's interval around it (docs/kernels.md, "Floats in memory")
    out = _gdrcheck("kernel", str(KERNELS / "nccl" / "01_rmsnorm_lsa+relaxed-barrier.cu"),
                    "--show-witness")
    assert out.returncode == 0, out.stderr
    assert "W(window_1@0)=3 (float 3.0)" in out.stdout
    assert "(float [0.9805805683135986, 0.980580747127533])" in out.stdout
