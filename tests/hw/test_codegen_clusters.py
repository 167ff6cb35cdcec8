"""gdrcheck hw for thread block clusters and distributed shared memory
(docs/ptx-clusters.md, gdrcheck/hw/codegen.py's module doc): a cluster launch
(``__cluster_dims__``), groups laid out cluster by cluster, ``mapa``, ``barrier.cluster``,
st.async / red.async and remote mbarrier arrivals as inline PTX; compiled with nvcc for
sm_90 where nvcc exists (not run: that needs the GPU)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from gdrcheck.errors import UnsupportedError
from gdrcheck.hw.codegen import generate
from gdrcheck.litmus import load_litmus, parse_litmus
from hw.nvcc import compile_kernel

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = sorted([*(ROOT / "litmus" / "ptx75").glob("Cluster*.litmus"),
                  *(ROOT / "litmus" / "realbugs").glob("cutlass-3324*.litmus")])
NVCC = shutil.which("nvcc") is not None


def _kernel(name: str) -> str:
    return generate(load_litmus(str(ROOT / "litmus" / "ptx75" / name))).source


def test_a_cluster_test_is_a_cluster_launch() -> None:
    k = generate(load_litmus(str(ROOT / "litmus" / "ptx75" / "Cluster-MP+barrier.cluster.litmus")))
    assert k.cluster == 2 and k.groups == [[0], [1]]
    src = k.source
    assert "__cluster_dims__(2, 1, 1)" in src and "#define CLUSTER 2" in src
    assert 'asm volatile("mapa.shared::cluster.u32 %0, %1, 1;" : "=r"(a_pd)' in src
    assert 'asm volatile("st.shared::cluster.s32 [%0], %1;" :: "r"(a_pd)' in src
    assert 'asm volatile("barrier.cluster.arrive.release;"' in src
    assert 'asm volatile("barrier.cluster.wait.acquire;"' in src
    assert "int affg = group - group % CLUSTER;" in src  # one instance per cluster
    plain = generate(load_litmus(str(ROOT / "litmus" / "ptx" / "MP+weaks.litmus"))).source
    assert "__cluster_dims__(" not in plain and "barrier.cluster" not in plain


def test_scopes_st_async_red_async_and_remote_arrive() -> None:
    src = _kernel("Cluster-MP+st.async.litmus")
    assert ("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.s32 [%0], "
            "{%1, %2, %2, %2}, [%3];") in src
    assert "mbarrier.arrive.expect_tx.relaxed.cluster.shared::cta.b64 %0, [%1], 16;" in src
    assert "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64" in src
    red = _kernel("Cluster-MP+red.async.litmus")
    assert "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.s32" in red
    assert "mbarrier.arrive.expect_tx.relaxed.cluster.shared::cta.b64 %0, [%1], 4;" in red
    bug = generate(load_litmus(str(ROOT / "litmus" / "realbugs" /
                                   "cutlass-3324-trampoline-scope+fixed.litmus"))).source
    assert "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" in bug
    assert "ld.shared::cluster.s32 %0, [%1];" in bug
    fences = _kernel("Cluster-MP+fence.cluster.litmus")
    assert 'asm volatile("fence.acq_rel.cluster;"' in fences
    assert "ld.relaxed.cluster.global.s32" in fences


def test_clusters_are_laid_out_rank_by_rank() -> None:
    text = ("PTX T\n{ x = 0; }\n P0@cta 5,cluster 1 | P1@cta 2,cluster 1 | P2@cta 9 ;\n"
            " st.relaxed.cluster x, 1 | ld.relaxed.cluster r0, x | ld.weak r1, x ;\n"
            "exists (1:r0 = 1)\n")
    k = generate(parse_litmus(text, "t.litmus"))
    # cluster 1 = CTAs 2 (rank 0, P1) and 5 (rank 1, P0); CTA 9 alone, its rank 1 idle
    assert k.cluster == 2 and k.groups == [[1], [0], [2], []]
    assert k.group_gpus == [0, 0, 0, 0]


@pytest.mark.parametrize("path", CLUSTER, ids=[p.name for p in CLUSTER])
def test_the_run_path_generates_the_same_cluster_kernel(path: Path) -> None:
    # gdrcheck/hw/run.py asks for multi_gpu=True for every test (a test on one GPU gets one
    # launch); a cluster test on one GPU must get the one-launch layout, not be refused
    # (the H200 run of 2026-12-02 was refused until this held)
    test = load_litmus(str(path))
    try:
        plain = generate(test)
    except UnsupportedError as err:
        with pytest.raises(UnsupportedError, match=re.escape(err.args[0])):
            generate(test, multi_gpu=True)
        return
    run = generate(test, multi_gpu=True)
    assert (run.source, run.groups, run.group_gpus, run.cluster) == (
        plain.source, plain.groups, plain.group_gpus, plain.cluster)


def test_mixed_transaction_sizes_are_refused() -> None:
    text = ("PTX T\n{ x = 1; s : shared = 0; d : shared = 0; mb : mbarrier 1; }\n"
            " P0@cta 0,cluster 0 ;\n cp.async.bulk s, x, mb ;\n"
            " red.async.relaxed.cluster.add d, 1, mb ;\nexists (true)\n")
    with pytest.raises(UnsupportedError, match="red.async"):
        generate(parse_litmus(text, "t.litmus"))


@pytest.mark.skipif(not NVCC, reason="nvcc not installed")
def test_nvcc_compiles_a_cluster_kernel(tmp_path: Path) -> None:
    assert compile_kernel(ROOT / "litmus" / "ptx75" / "Cluster-MP+st.async.litmus", tmp_path)


@pytest.mark.slow  # about 5 s a kernel with nvcc 13.0 here, over a minute in all
@pytest.mark.skipif(not NVCC, reason="nvcc not installed")
def test_nvcc_compiles_every_cluster_test(tmp_path: Path) -> None:
    compiled = [p.name for p in CLUSTER if compile_kernel(p, tmp_path)]
    # mbarrier.init is not generated (the shared words and mbarriers are initialised by
    # the kernel's prologue): the two MBInit tests are refused
    assert len(compiled) == len(CLUSTER) - 2


@pytest.mark.parametrize("name", ["clusters-default", "clusters-best", "pdl-default",
                                  "pdl-one-wave"])
def test_the_committed_h200_runs_show_no_forbidden_state(name: str, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # docs/hardware.md, "Clusters and PDL on the H200": every observed state held against
    # ptx75 again here (hw report re-checks a line whose test file it finds, relative to the
    # checkout, and exits 1 on a state the model forbids)
    import json

    from click.testing import CliRunner

    from gdrcheck.cli import main

    monkeypatch.chdir(ROOT)
    data = ROOT / "docs" / "data" / f"hw-h200-{name}.jsonl"
    r = CliRunner().invoke(main, ["hw", "report", str(data), "--model", "ptx75"])
    assert r.exit_code == 0, r.output
    lines = [json.loads(line) for line in data.read_text().splitlines()]
    assert len(lines) == (11 if name.startswith("clusters") else 10)
    if name != "clusters-best":
        return
    # the same report fails on a planted state that ptx75 forbids: the message-passing
    # outcome of Cluster-MP+fence.cluster (its condition, exists (1:r0 = 1 /\ 1:r1 = 0);
    # Expect=ptx75:Forbidden)
    planted = [dict(d) for d in lines]
    for d in planted:
        if d["test"] == "Cluster-MP+fence.cluster":
            d["histogram"] = {**d["histogram"], "1:r0=1; 1:r1=0": 1}
    bad = tmp_path / "planted.jsonl"
    bad.write_text("".join(json.dumps(d) + "\n" for d in planted))
    r = CliRunner().invoke(main, ["hw", "report", str(bad), "--model", "ptx75"])
    assert r.exit_code == 1 and "1:r0=1; 1:r1=0" in r.output, r.output
