"""The kernel front end (docs/kernels.md): a CUDA kernel becomes a GIN litmus test.

clang compiles the device code with gdrcheck's headers (:mod:`.compile`), llvmlite reads the
IR (:mod:`.ir`), every (rank, CTA, thread) is interpreted into a litmus thread
(:mod:`.extract`, :mod:`.calls`), and the threads become a test the litmus front end parses
(:mod:`.test`). The rest of the pipeline (lowering, models, engines) is unchanged.
"""

from __future__ import annotations

from pathlib import Path

from gdrcheck.errors import InputError
from gdrcheck.kernel.config import KernelRun, file_runs, make_run
from gdrcheck.kernel.extract import Config, KernelError
from gdrcheck.kernel.test import KernelTest

__all__ = ["Config", "KernelError", "KernelRun", "KernelTest", "file_runs", "load_kernel",
           "make_run", "read_source"]


def read_source(path: str | Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the file: {exc}", str(path)) from None


def load_kernel(path: str | Path, run: KernelRun, clang: str | None = None) -> KernelTest:
    """Compile ``path``, extract ``run``'s configuration, and parse the extracted test."""
    from gdrcheck.kernel.calls import Calls
    from gdrcheck.kernel.compile import INCLUDE_DIR, compile_to_ir
    from gdrcheck.kernel.extract import extract
    from gdrcheck.kernel.ir import read_module
    from gdrcheck.kernel.test import build_test

    name = str(path)
    source = read_source(path)
    try:
        module = read_module(compile_to_ir(path, clang, run.defines), name, INCLUDE_DIR)
        extraction = extract(module, run.config, name, source, Calls)
        return build_test(extraction, run.expect, run.liveness)
    except InputError as err:
        if err.path is None:
            err.path = name
            err.source = source
        raise
