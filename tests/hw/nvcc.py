"""Compiling a generated kernel with nvcc (sm_90), for the codegen tests."""

from __future__ import annotations

import subprocess
from pathlib import Path

from gdrcheck.errors import UnsupportedError
from gdrcheck.hw.codegen import generate
from gdrcheck.litmus import load_litmus


def compile_kernel(path: Path, workdir: Path, multi_gpu: bool = False) -> bool:
    """Compile the kernel of the test at ``path`` (``multi_gpu``: as it runs on several
    GPUs); False when the generator refuses the test. Fails the calling test with nvcc's
    message when the source does not compile."""
    try:
        k = generate(load_litmus(str(path)), multi_gpu=multi_gpu)
    except UnsupportedError:
        return False
    cu = workdir / "k.cu"
    cu.write_text(k.source)
    r = subprocess.run(["nvcc", "-arch=sm_90", "-c", str(cu), "-o", str(workdir / "k.o")],
                       capture_output=True, text=True)
    assert r.returncode == 0, f"{path.name}: {r.stderr[-800:]}"
    return True
