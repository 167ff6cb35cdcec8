"""Pictures of executions (gdrcheck/report/graph.py): DOT in herd7's conventions."""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.drawing import drawing_of
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.cli import main
from gdrcheck.litmus import load_litmus
from gdrcheck.lower import lower
from gdrcheck.report import graph
from gdrcheck.report.graph import drawing_dot, letters, witness_dot, write_graph

ROOT = Path(__file__).resolve().parents[2]
GIN09 = ROOT / "litmus" / "gin" / "09-MP+put+put-flag.litmus"
GIN01 = ROOT / "litmus" / "gin" / "01-MP+put+strongsig.litmus"
MP_PTX = ROOT / "litmus" / "ptx" / "MP+rel+acq-gpu.litmus"
TWO_W = ROOT / "litmus" / "classic" / "2+2W.litmus"


def _dot(path: Path, model: str, show: str = "witness") -> str:
    test = load_litmus(path)
    res = check_test(test, model)
    d = drawing_of(test, model, res, show=show)
    dot = None if d is None else drawing_dot(d)
    assert dot is not None
    return dot


def _clusters(dot: str) -> list[str]:
    return re.findall(r'subgraph cluster_\d+ \{ label="([^"]*)"', dot)


def _edges(dot: str, label: str) -> list[tuple[int, int]]:
    return [(int(a), int(b)) for a, b in
            re.findall(rf'e(\d+) -> e(\d+) \[[^\]]*label="{re.escape(label)}"', dot)]


def test_lanes_per_agent_grouped_by_rank_and_cta() -> None:
    dot = _dot(GIN09, "gin-gdaki+pcie-ro")
    assert dot.startswith("digraph G {") and dot.rstrip().endswith("}")
    lanes = _clusters(dot)
    # gin-gdaki has no proxy (it never names PXY): no proxy lane
    assert lanes == ["init", "GPU 0 (rank 0, node 0)", "CTA 0", "P0",
                     "NIC of rank 0", "nic0.c0.1",
                     "GPU 1 (rank 1, node 1)", "CTA 0", "P1"]
    # herd's node names, with the instruction below the access
    assert 'label="k: R f@1=1\\nld.acquire.sys r1, f"' in dot
    assert 'label="d: W x@1=1\\nwrite x@1"' in dot
    assert 'label="W x@1=0"' in dot  # an initial write


def test_rf_co_fr_edges_in_herd_colours() -> None:
    test = load_litmus(GIN09)
    # the witness z3 finds (the explicit engine, the default's choice for this test,
    # finds another execution reaching the outcome; docs/output.md, the witness)
    res = check_test(test, "gin-gdaki+pcie-ro", options=CheckOptions(engine="smt"))
    assert res.witness is not None
    dot = witness_dot(lower(test, 2), res.witness)
    rf = _edges(dot, "rf")
    assert sorted(rf) == sorted(res.witness.rf)
    assert all("color=red" in line for line in dot.splitlines() if 'label="rf"' in line)
    # the stale read of x is before the NIC's write of x in coherence: fr, orange, dashed
    (fr,) = _edges(dot, "fr")
    assert fr == (11, 3)
    (line,) = [ln for ln in dot.splitlines() if 'label="fr"' in ln]
    assert "color=orange" in line and "style=dashed" in line
    assert _edges(dot, "po") == [(0, 5), (10, 11)]
    # co between the non-initial writes of one location (herd's co-last), blue: 2+2W
    # is forbidden under x86-TSO, so the picture is explain's candidate execution
    dot2 = _dot(TWO_W, "x86tso")
    co = _edges(dot2, "co")
    assert len(co) == 2 and {a for a, _ in co} <= {2, 3, 4, 5}
    assert all("color=blue" in ln for ln in dot2.splitlines()
               if 'label="co"' in ln and "penwidth" not in ln)


def test_show_all_draws_the_bridge_relations() -> None:
    dot = _dot(GIN09, "gin-gdaki+pcie-ro", show="all")
    for rel in ("issue-rel", "nic-data", "nic-sync", "local-completion"):
        assert _edges(dot, rel), rel
    assert _edges(dot, "nic-sync") == [(8, 10)]
    assert "label=\"sync\"" not in dot  # empty relations are not drawn


def test_forbidden_draws_the_explained_cycle_in_bold() -> None:
    dot = _dot(GIN01, "gin-api")
    assert "Causality fails" in dot
    bold = [ln for ln in dot.splitlines() if "penwidth=2.5" in ln]
    labels = [re.search(r'label="([^"]*)"', ln).group(1) for ln in bold]  # type: ignore[union-attr]
    assert labels[0] == "publish-bundled (R-GIN-2)" and labels[2:] == ["po", "fr (fr-ptx)"]
    # the rules behind the nic-sync edge: those of the candidate z3 finds (R-GDR-6 too in
    # a fresh process; not after other queries in the same one)
    assert labels[1].startswith("nic-sync (R-GDR-4, R-GIN-10, R-PTX-6"), labels[1]


def test_letters() -> None:
    assert [letters(i) for i in (0, 1, 25, 26, 27, 51, 52)] == [
        "a", "b", "z", "aa", "ab", "az", "ba"]


def test_dot_file_is_written_as_is(tmp_path: Path) -> None:
    p, msg = write_graph("digraph G {}\n", tmp_path / "x.dot")
    assert msg is None and p.read_text() == "digraph G {}\n"


def test_without_dot_the_dot_file_is_written_with_an_install_hint(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(graph.shutil, "which", lambda _name: None)
    p, msg = write_graph("digraph G {}\n", tmp_path / "x.svg")
    assert p == tmp_path / "x.dot" and p.is_file()
    assert not (tmp_path / "x.svg").exists()
    assert msg is not None and "apt-get install graphviz" in msg
    assert "brew install graphviz" in msg and "conda install graphviz" in msg
    # the command's exit code is not affected
    r = CliRunner().invoke(main, ["check", str(MP_PTX), "-m", "ptx", "--graph",
                                  str(tmp_path / "mp.svg")])
    assert r.exit_code == 0
    assert "apt-get install graphviz" in r.stderr
    assert (tmp_path / "mp.dot").is_file()


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_svg_is_rendered(tmp_path: Path) -> None:
    out = tmp_path / "w.svg"
    r = CliRunner().invoke(main, ["check", str(GIN09), "-m", "gin-gdaki+pcie-ro",
                                  "--show", "all", "--graph", str(out)])
    assert r.exit_code == 0, r.output
    text = html.unescape(out.read_text())
    assert text.lstrip().startswith("<?xml") and "<svg" in text
    assert "nic-sync" in text and "nic0.c0.1" in text


def test_cli_graph_several_results(tmp_path: Path) -> None:
    out = tmp_path / "g.dot"
    r = CliRunner().invoke(main, ["check", str(MP_PTX), "--graph", str(out)])
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "g-MP+rel+acq-gpu-ptx.dot", "g-MP+rel+acq-gpu-sc.dot"]


def test_cli_graph_to_stdout() -> None:
    r = CliRunner().invoke(main, ["check", str(GIN09), "-m", "gin-gdaki+pcie-ro",
                                  "--format", "json", "--graph", "-"])
    assert r.exit_code == 0, r.output
    # the DOT alone on stdout; the report (here JSON) on stderr
    assert r.stdout.startswith("digraph G {") and r.stdout.rstrip().endswith("}")
    assert '"verdict"' in r.stderr and '"verdict"' not in r.stdout


GIN05 = ROOT / "litmus" / "gin" / "05-MP+put+signal-otherctx.litmus"


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
@pytest.mark.parametrize("command", [
    # gin/05 under gin-proxy: the picture Graphviz 2.43 aborts on with the lanes' root
    ["check", str(GIN05), "-m", "gin-proxy"],
    ["explain", str(GIN05), "-m", "gin-gdaki"],
    # several results: the first is drawn, the others named on stderr
    ["check", str(MP_PTX)],
    ["explain", str(GIN01), "-m", "gin-api"],
])
def test_graph_to_stdout_pipes_into_dot(command: list[str]) -> None:
    """`gdrcheck check F --graph - | dot -Tsvg` (issue 24: the text was mixed in)."""
    gdr = subprocess.run([sys.executable, "-m", "gdrcheck", *command, "--graph", "-"],
                         capture_output=True, text=True, timeout=300, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert gdr.returncode == 0, gdr.stderr
    assert gdr.stdout.count("digraph G {") == 1
    assert " under " in gdr.stderr  # the report, on stderr
    svg = subprocess.run(["dot", "-Tsvg"], input=gdr.stdout, capture_output=True,
                         text=True, timeout=120)
    assert svg.returncode == 0, svg.stderr
    assert "<svg" in svg.stdout and svg.stdout.count("<svg") == 1
    if command[1] == str(MP_PTX):
        assert "MP+rel+acq-gpu sc: not drawn: --graph - prints one picture" in gdr.stderr


def test_both_lane_orders_keep_the_lanes_left_to_right() -> None:
    test = load_litmus(GIN05)
    d = drawing_of(test, "gin-proxy", check_test(test, "gin-proxy"))
    assert d is not None
    root, chain = graph.drawing_dots(d)
    firsts = re.findall(r"  lanes -> (e\d+)", root)
    assert len(firsts) == 6
    assert f"{{rank=same; {'; '.join(firsts)};}}" in chain
    assert f"  {' -> '.join(firsts)} [style=invis];" in chain and "lanes" not in chain


def test_explain_graph(tmp_path: Path) -> None:
    out = tmp_path / "e.dot"
    r = CliRunner().invoke(main, ["explain", str(GIN01), "-m", "gin-api", "--graph", str(out)])
    assert r.exit_code == 0, r.output
    assert "penwidth=2.5" in out.read_text()


NV03 = ROOT / "litmus" / "nvshmem" / "03-MP+put+put_signal.litmus"
NV07 = ROOT / "litmus" / "nvshmem" / "07-WRC+put+fence+signal.litmus"

WRC_REVERSED = """GIN WRC3-reversed
{ x = 0; S = 0; T = 0; buf@2 = 1; }
 P0@cta 0,gpu 2,node 2       | P1@cta 0,gpu 1,node 1       | P2@cta 0,gpu 0,node 0     ;
 shmem.put_nbi x@0, buf      | shmem.wait_until S, >=, 1   | shmem.wait_until T, >=, 1 ;
 shmem.fence                 | shmem.signal_op T@0, 1, add | ld.relaxed.sys r0, x      ;
 shmem.signal_op S@1, 1, add |                             |                           ;
exists (2:r0 = 0)
"""


def _dot_text(text: str, model: str) -> str:
    from gdrcheck.litmus import parse_litmus

    test = parse_litmus(text, "wrc.litmus")
    d = drawing_of(test, model, check_test(test, model))
    assert d is not None
    return drawing_dot(d)


def _node_labels(dot: str) -> dict[int, str]:
    return {int(a): b for a, b in re.findall(r'^\s*e(\d+) \[label="([^"]*)"', dot, re.M)}


def test_issue_edges_from_a_call_to_its_nic_events() -> None:
    dot = _dot(GIN09, "gin-gdaki+pcie-ro")
    labels = _node_labels(dot)
    issue = _edges(dot, "issue")
    # each gin.put (e0, e5) to the first event its NIC queue carries out for it
    assert [(labels[a].split(":")[0], labels[b]) for a, b in issue] == [
        ("a", "c: R a@0=1\\nread a@0"), ("f", "h: R b@0=1\\nread b@0")]
    # with a CPU proxy (gin-proxy names PXY): the call, its proxy, then the NIC
    dot = _dot(GIN01, "gin-proxy")
    labels = _node_labels(dot)
    steps = [(labels[a].split(":")[1].strip().split(" ")[0], labels[b]) for a, b in
             _edges(dot, "issue")]
    assert steps[0] == ("gin.put", "b: proxy")
    assert steps[1][0] == "proxy" and steps[1][1].startswith("c: R buf@0")


def test_no_empty_proxy_lanes_under_a_model_without_a_proxy() -> None:
    for model in ("gin-api", "gin-gdaki"):
        dot = _dot(GIN01, model)
        assert "proxy0" not in dot and "proxy" not in " ".join(_clusters(dot)), model
        assert "NIC of rank 0" in _clusters(dot)
    dot = _dot(GIN01, "gin-proxy")
    assert "proxy0" in _clusters(dot) and "NIC and proxy of rank 0" in _clusters(dot)


def test_three_ranks_come_out_in_rank_order() -> None:
    # the threads are declared rank 2, 1, 0: the lanes are still rank 0, 1, 2, each
    # rank's GPU followed by its NIC queues, in peer order
    for dot in (_dot_text(WRC_REVERSED, "nvshmem-ibgda"), _dot(NV07, "nvshmem-ibgda")):
        ranks = [c for c in _clusters(dot) if c.startswith(("GPU", "NIC"))]
        order = [int(re.search(r"rank (\d+)", c).group(1)) for c in ranks]  # type: ignore[union-attr]
        assert order == sorted(order) and set(order) == {0, 1, 2}, ranks
        queues = [c for c in _clusters(dot) if c.startswith("nic")]
        assert queues == sorted(queues, key=lambda q: [int(x) for x in q[3:].split(".")
                                                       if x.isdigit()])
        # the invisible chain that places lanes left to right follows the clusters
        assert "rank=same" not in dot  # it aborts Graphviz 16 with newrank and clusters
        firsts = [int(x) for x in re.findall(r"^  lanes -> e(\d+) \[style=invis\];", dot, re.M)]
        assert "ordering=out" in dot
        cluster_firsts = [int(m) for m in re.findall(
            r'subgraph cluster_\d+ \{ label="(?:init|P\d+|nic[^"]*|proxy\d+)";[^\n]*\n\s*e(\d+)',
            dot)]
        assert firsts == cluster_firsts


def test_relaxed_ordering_overtake_is_drawn_for_an_allowed_outcome() -> None:
    # nic-atomic-pcie: the signal's AtomicOp may pass the earlier RO write of x
    # (specs/pcie.cat, R-PCIE-4), which is why 1:r0=0 is Allowed
    dot = _dot(NV03, "nvshmem-ibgda+ibgda-single-qp+nic-atomic-pcie")  # one QP: RO is why
    labels = _node_labels(dot)
    why = "may overtake: Relaxed Ordering (pcie-pass)"
    passes = {(labels[a].split("\\n")[0].split(": ")[1], labels[b].split("\\n")[0].split(": ")[1])
              for a, b in _edges(dot, why)}
    assert ("W S@1=1", "W x@1=1") in passes
    assert all("style=dashed" in ln for ln in dot.splitlines() if why in ln)
    # gin-gdaki+pcie-ro: the flag's RO write may pass the data's (R-PCIE-1)
    dot = _dot(GIN09, "gin-gdaki+pcie-ro")
    labels = _node_labels(dot)
    assert [(labels[a][:1], labels[b][:1]) for a, b in _edges(dot, why)] == [("i", "d")]
    # without Relaxed Ordering nothing may pass: the default model forbids the outcome
    # and draws the arrival order the cycle runs through, and no overtake
    dot = _dot(GIN09, "gin-gdaki")
    assert not _edges(dot, why) and "may overtake" not in dot
    assert _edges(dot, "arrive")


def test_api_models_draw_no_arrival_order() -> None:
    dot = _dot(GIN09, "gin-api")
    assert not _edges(dot, "arrive") and "may overtake" not in dot
