"""The cluster barrier wrappers of the CUDA subset header (gdrcheck/kernel/include/
__gdrcheck_cuda.h; docs/kernels.md, docs/ptx-clusters.md): their inline PTX is
barrier.cluster as the litmus front end reads it (checked without clang)."""

from __future__ import annotations

import re
from pathlib import Path

from gdrcheck.litmus import ast as A
from gdrcheck.litmus import parse_litmus

HEADER = (Path(__file__).resolve().parents[2] / "gdrcheck" / "kernel" / "include"
          / "__gdrcheck_cuda.h")


def test_the_wrappers_are_barrier_cluster() -> None:
    text = HEADER.read_text(encoding="utf-8")
    pattern = r"void (__cluster_barrier_\w+)\(void\) \{\s*asm volatile\(\"([^\"]+);\""
    found = dict(re.findall(pattern, text))
    assert set(found) == {"__cluster_barrier_arrive", "__cluster_barrier_arrive_relaxed",
                          "__cluster_barrier_wait"}
    want = {"__cluster_barrier_arrive": ("arrive", "release"),
            "__cluster_barrier_arrive_relaxed": ("arrive", "relaxed"),
            "__cluster_barrier_wait": ("wait", "acquire")}
    for name, ptx in found.items():
        t = parse_litmus(f"PTX T\n{{ }}\n P0 ;\n {ptx} ;\nexists (true)\n", "t.litmus")
        ins, = t.threads[0].instrs
        assert isinstance(ins, A.PtxClusterBarrier)
        assert (ins.action, ins.sem) == want[name]
