"""Compile a kernel's device code to LLVM IR with clang (docs/kernels.md, "How a kernel is
read"): no CUDA SDK, gdrcheck's own headers, debug positions kept.

A compiler error becomes :class:`~gdrcheck.errors.InputError` at clang's own
``file:line:col`` (exit code 2): an API the shipped headers lack is clang's error at the
user's line.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from gdrcheck.errors import InputError, Pos

INCLUDE_DIR = Path(__file__).resolve().parent / "include"
"""The shipped headers (package data)."""

CLANG_ENV = "GDRCHECK_CLANG"
"""The environment variable naming the clang to run."""

CLANG_NAMES = ("clang++-19", "clang-19", "clang++-20", "clang-20", "clang++-21", "clang-21",
               "clang++-22", "clang-22", "clang++")
"""Searched on PATH in this order (clang 19 is the oldest measured to compile sm_90 device
code without the SDK: docs/kernels.md)."""

GPU_ARCH = "sm_90"

FLAGS = ("-x", "cuda", "--cuda-device-only", f"--cuda-gpu-arch={GPU_ARCH}", "-nocudainc",
         "-nocudalib", "-O1", "-g", "-Xclang", "-debug-info-kind=constructor", "-S",
         "-emit-llvm", "-Wno-unknown-cuda-version", "-fno-color-diagnostics")
"""``-debug-info-kind=constructor`` keeps the kernel's parameter names and types (plain
``-g`` on the device side keeps positions only)."""

COMPILE_TIMEOUT_S = 120.0

_DIAG_RE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?:fatal )?error: "
                      r"(?P<msg>.*)$", re.M)


class ClangError(InputError):
    """clang could not be found or refused the file."""


def find_clang(explicit: str | None = None) -> str:
    """The clang to run: ``explicit`` (``--clang``), else ``$GDRCHECK_CLANG``, else the
    first of :data:`CLANG_NAMES` on PATH."""
    for given, what in ((explicit, "--clang"), (os.environ.get(CLANG_ENV), CLANG_ENV)):
        if given:
            found = shutil.which(given)
            if found is None:
                raise ClangError(f"{what} names {given!r}, which is not an executable")
            return found
    for name in CLANG_NAMES:
        found = shutil.which(name)
        if found is not None:
            return found
    raise ClangError("no clang found: install clang 19 or newer (Debian: apt-get install "
                     f"clang-19), or name one with --clang PATH or {CLANG_ENV}")


def compile_command(clang: str, source: str | Path, output: str | Path,
                    defines: tuple[str, ...] = ()) -> list[str]:
    """The clang command line that compiles ``source`` to IR text in ``output``."""
    return [clang, *FLAGS, "-isystem", str(INCLUDE_DIR), "-include", "__gdrcheck_cuda.h",
            *(f"-D{d}" for d in defines), str(source), "-o", str(output)]


def compile_to_ir(source: str | Path, clang: str | None = None,
                  defines: tuple[str, ...] = ()) -> str:
    """The LLVM IR text of ``source``'s device code."""
    path = str(source)
    try:
        text = Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the file: {exc}", path) from None
    exe = find_clang(clang)
    with tempfile.TemporaryDirectory(prefix="gdrcheck-kernel-") as tmp:
        out = Path(tmp) / "kernel.ll"
        try:
            done = subprocess.run(compile_command(exe, source, out, defines),
                                  capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S,
                                  check=False)
        except subprocess.TimeoutExpired:
            raise ClangError(f"clang took longer than {COMPILE_TIMEOUT_S:.0f} s", path) from None
        except OSError as exc:
            raise ClangError(f"cannot run {exe}: {exc}", path) from None
        if done.returncode != 0 or not out.exists():
            raise _diagnostic(done.stderr, path, text)
        return out.read_text(encoding="utf-8")


def _diagnostic(stderr: str, path: str, text: str) -> ClangError:
    """clang's first error as an InputError at its own position (the user's file, or a
    shipped header)."""
    m = _DIAG_RE.search(stderr)
    if m is None:
        tail = stderr.strip().splitlines()[-1:] or ["no message"]
        return ClangError(f"clang failed: {tail[0]}", path)
    where = m["file"]
    same = os.path.abspath(where) == os.path.abspath(path)
    return ClangError(m["msg"], path if same else where,
                      Pos(int(m["line"]), int(m["col"])), text if same else None)
