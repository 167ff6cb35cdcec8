"""The kernel tests run real clang and llvmlite; they skip, with the reason, only when one of
them is absent (docs/kernels.md)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
KERNELS = Path(__file__).resolve().parents[2] / "kernels"


def _missing() -> str | None:
    if importlib.util.find_spec("llvmlite") is None:
        return "llvmlite is not installed (pip install 'gdrcheck[kernel]')"
    from gdrcheck.kernel.compile import ClangError, find_clang

    try:
        find_clang()
    except ClangError as err:
        return err.message
    return None


MISSING = _missing()


@pytest.fixture(autouse=True)
def _needs_clang() -> None:
    if MISSING is not None:
        pytest.skip(MISSING)
