"""Refinement on the library (issue 3, docs/refinement.md): the GIN backends allow
nothing the GIN API forbids; NVSHMEM-IBGDA does so on exactly the four tests that
docs/refinement.md explains, and on none once Relaxed Ordering is off and a completion
means placement. Outcome by outcome (final-state sets)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gdrcheck.refine import refine

LIBRARY = Path(__file__).resolve().parents[1] / "litmus"


@pytest.mark.parametrize("impl,spec", [
    ("gin-gdaki", "gin-api"),
    ("gin-proxy", "gin-api"),
    ("gin-gdaki+pcie-ro+nic-atomic-pcie", "gin-api"),
    ("gin-proxy+adaptive-routing+ack-placed", "gin-api"),
    ("nvshmem-ibgda+no-pcie-ro+ack-placed", "nvshmem-api"),
])
def test_refines_on_the_library(impl: str, spec: str) -> None:
    report = refine(impl, spec, [LIBRARY], states=True)
    assert not report.errors and not report.inconclusive
    assert len(report.comparisons) > 80
    assert report.refines, [c.test for c in report.violations]


def test_nvshmem_ibgda_hits_are_the_documented_ones() -> None:
    report = refine("nvshmem-ibgda", "nvshmem-api", [LIBRARY])
    assert sorted(c.test for c in report.violations) == [
        "07b-WRC+put+quiet+signal", "08-WAW+put+fence+put", "09b-MP+put+fence+put",
        "16-MP+put+quiet+p",
    ]


def test_gin_backends_are_stronger_where_documented() -> None:
    report = refine("gin-gdaki", "gin-api", [LIBRARY])
    assert sorted(c.test for c in report.stronger) == [
        "03-MP+put+put-weaksig", "04c-MP+put+weaksignal", "08-WAW+put+put-sig",
        "08b-WAW+put+put-sig-strict", "09-MP+put+put-flag", "12-MP+signal+weaksignal",
        "V2-dispatch+lanes",
    ]
