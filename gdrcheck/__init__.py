"""gdrcheck: herd7-style checking of litmus tests for GPUs, NICs and x86.

The Python API (:mod:`gdrcheck.api`) is re-exported here, imported on first use so
that ``import gdrcheck.litmus`` and friends stay light::

    import gdrcheck
    gdrcheck.assert_forbidden("litmus/gin/01-MP+put+strongsig.litmus", "gin-api")
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gdrcheck.api import (
        Outcome,
        assert_allowed,
        assert_forbidden,
        assert_verdict,
        check,
        check_kernel,
        expected_models,
        fix,
        kernel_test,
        load_test,
    )
    from gdrcheck.errors import InputError

__version__ = "0.1.0"
"""The package's version (pyproject.toml reads it from here)."""

__all__ = [
    "InputError", "Outcome", "assert_allowed", "assert_forbidden", "assert_hangs",
    "assert_live", "assert_verdict", "check", "check_kernel", "expected_models", "fix",
    "kernel_test", "load_test",
]


def __getattr__(name: str) -> Any:
    if name == "InputError":
        from gdrcheck.errors import InputError

        return InputError
    if name in __all__:
        from gdrcheck import api

        return getattr(api, name)
    raise AttributeError(f"module 'gdrcheck' has no attribute '{name}'")
