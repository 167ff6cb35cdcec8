"""clang as the front end's compiler: which clang, its IR, its errors at the user's line."""

from __future__ import annotations

from pathlib import Path

import pytest

from gdrcheck.kernel.compile import CLANG_ENV, INCLUDE_DIR, ClangError, compile_to_ir, find_clang
from gdrcheck.kernel.ir import FuncRef, read_module


def test_find_clang_explicit_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    found = find_clang()
    monkeypatch.setenv(CLANG_ENV, found)
    assert find_clang() == found
    monkeypatch.setenv(CLANG_ENV, "no-such-clang-here")
    with pytest.raises(ClangError, match=CLANG_ENV):
        find_clang()
    with pytest.raises(ClangError, match="--clang"):
        find_clang("/nonexistent/clang")


def test_headers_are_package_data() -> None:
    for name in ("__gdrcheck_cuda.h", "assert.h", "cuda.h", "cuda_runtime.h", "nvshmem.h",
                 "nvshmemx.h"):
        assert (INCLUDE_DIR / name).is_file(), name


def test_an_api_the_headers_lack_is_clangs_error_at_the_users_line(tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    src.write_text("#include <nvshmem.h>\n__global__ void k(int *x) {\n"
                   "    nvshmem_int_get(x, x, 1, 0);\n}\n")
    with pytest.raises(ClangError) as info:
        compile_to_ir(src)
    err = info.value
    assert err.path == str(src)
    assert (err.pos.line, err.pos.col) == (3, 5)
    assert "nvshmem_int_get" in err.message
    assert err.render().startswith(f"{src}:3:5: ")


def test_ir_keeps_calls_positions_and_parameters(tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    src.write_text("#include <nvshmem.h>\n"
                   "__global__ void k(long *data, uint64_t *sig, int n) {\n"
                   "    nvshmem_long_put_signal_nbi(data, data, n, sig, 1, NVSHMEM_SIGNAL_ADD,"
                   " 1);\n}\n")
    module = read_module(compile_to_ir(src), str(src), INCLUDE_DIR)
    fn = module.kernel("k")
    assert [(p.name, p.pointer, p.elem_bytes) for p in fn.params] == [
        ("data", True, 8), ("sig", True, 8), ("n", False, None)]
    calls = [i for b in fn.blocks.values() for i in b.instrs if i.opcode == "call"]
    assert len(calls) == 1
    call = calls[0]
    assert isinstance(call.callee, FuncRef)
    assert call.callee.name == "__gdrcheck_shmem_put_signal"
    assert call.pos is not None
    assert (call.pos.line, call.pos.api) == (3, "nvshmem_long_put_signal_nbi")
