"""A solver that gives up yields Unknown, never a verdict."""

from __future__ import annotations

from pathlib import Path

import pytest
import z3

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.litmus import load_litmus

ROOT = Path(__file__).resolve().parents[2]


def test_solver_unknown_is_reported_as_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(z3.Solver, "check", lambda self, *a: z3.unknown)
    monkeypatch.setattr(z3.Solver, "reason_unknown", lambda self: "timeout")
    test = load_litmus(str(ROOT / "litmus" / "classic" / "SB.litmus"))
    # the z3 engine by name: the default (auto) answers so small a test by enumeration
    res = check_test(test, "x86tso", options=CheckOptions(engine="smt", timeout=60))
    assert res.verdict == "Unknown"
    assert res.reason == "solver: timeout"
    assert res.ok is None


def test_explicit_timeout_is_unknown() -> None:
    test = load_litmus(str(ROOT / "litmus" / "classic" / "IRIW.litmus"))
    res = check_test(test, "x86tso", options=CheckOptions(engine="explicit", timeout=1e-9))
    assert res.verdict == "Unknown"

