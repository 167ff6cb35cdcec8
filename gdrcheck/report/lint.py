"""Lint lines (``file:line:col: warning: message [L001]``, as compilers write them) and
lint records (schema ``gdrcheck.lint/1``: docs/json-schema.md)."""

from __future__ import annotations

from typing import Any

from gdrcheck.analysis.lint import Lint

SCHEMA = "gdrcheck.lint/1"


def format_lint(lint: Lint) -> str:
    """``file:line:col: warning: message [CODE]`` (the position left out when unknown)."""
    where = lint.path or "<test>"
    if lint.pos.line:
        where += f":{lint.pos.line}:{lint.pos.col}" if lint.pos.col else f":{lint.pos.line}"
    return f"{where}: warning: {lint.message} [{lint.code}]"


def lint_json(lint: Lint) -> dict[str, Any]:
    """One lint as JSON (``$defs/lint``): the same fields in every output that has them."""
    return {
        "schema": SCHEMA,
        "code": lint.code,
        "message": lint.message,
        "file": lint.path,
        "line": lint.pos.line or None,
        "col": lint.pos.col or None,
    }
