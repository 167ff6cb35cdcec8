"""``gdrcheck fix``: minimal repairs, each re-checked (issue 16).

The human repairs compared with come from the library's buggy/fixed pairs and their
sources: DeepEP #674 registers the window NCCL_WIN_STRICT_ORDERING (cost 1 in the
catalogue); litmus/gin/19b adds fence.proxy.async after the TMA store (R-PTX-5, cost 2);
litmus/ptx/MP+rel+acq-gpu makes the flag store release and the flag load acquire at gpu
scope (ASPLOS'19 Fig. 5, cost 2 + 2); x86 SB+mfences puts an MFENCE in each thread
(cost 3 + 3); litmus/gin/04b issues the signal on the put's own context (R-GIN-2,
cost 1) where gin/05 uses another one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import gdrcheck
from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.fix import fix
from gdrcheck.analysis.strengthen import CATALOGUE, apply_edits, candidates
from gdrcheck.cli import main
from gdrcheck.litmus import load_litmus, parse_litmus
from gdrcheck.litmus.printer import print_litmus

ROOT = Path(__file__).resolve().parents[2]
LIB = ROOT / "litmus"

PAIRS = [
    # buggy test, target models, the cost of the human repair
    ("deepep/V2-dispatch+default-window.litmus",
     ["gin-api", "gin-gdaki+pcie-ro+nic-atomic-pcie", "gin-proxy+pcie-ro+nic-atomic-pcie"], 1),
    ("gin/19-TMA+put+sig.litmus", ["gin-gdaki", "gin-proxy"], 2),
    ("ptx/MP+weaks.litmus", ["ptx"], 4),
    ("classic/SB.litmus", ["x86tso"], 6),
    ("gin/05-MP+put+signal-otherctx.litmus", ["gin-api", "gin-gdaki", "gin-proxy"], 1),
]


@pytest.mark.parametrize("path,models,human", PAIRS, ids=[p[0] for p in PAIRS])
def test_a_repair_costs_no_more_than_the_human_one(path: str, models: list[str],
                                                    human: int) -> None:
    test = load_litmus(LIB / path)
    r = fix(test, models)
    assert r.status == "fixed", r
    rep = r.repairs[0]
    assert rep.cost <= human
    # the repaired test, printed and parsed again, is Forbidden under every target
    again = parse_litmus(print_litmus(rep.test), "repaired.litmus")
    for m in models:
        res = check_test(again, m)
        assert res.verdict == "Forbidden" and not res.vacuous, (m, res.verdict)


def test_the_strict_window_is_the_repair_of_deepep_661() -> None:
    r = fix(load_litmus(LIB / "deepep/V2-dispatch+default-window.litmus"),
            ["gin-api", "gin-gdaki+pcie-ro+nic-atomic-pcie"])
    assert [e.entry for e in r.repairs[0].edits] == ["strict-window"]


def test_already_forbidden_and_impossible() -> None:
    # gin/01 expects gin-api:Forbidden (R-GIN-2): nothing to fix
    assert fix(load_litmus(LIB / "gin/01-MP+put+strongsig.litmus"), ["gin-api"]).status \
        == "already"
    sb = load_litmus(LIB / "classic/SB.litmus")
    r = fix(sb, ["x86tso"], max_cost=5)
    assert r.status == "impossible" and not r.repairs  # two MFENCEs cost 6


def test_all_minimal_lists_every_repair_of_the_least_cost() -> None:
    r = fix(load_litmus(LIB / "classic/SB.litmus"), ["x86tso"], all_minimal=True)
    assert r.status == "fixed"
    assert len(r.repairs) == 1 and r.repairs[0].cost == 6


def test_minimality_by_brute_force_on_sb() -> None:
    """Every cheaper set of SB's candidate edits leaves the outcome allowed."""
    import itertools

    test = load_litmus(LIB / "classic/SB.litmus")
    r = fix(test, ["x86tso"])
    edits = candidates(test)
    for n in range(len(edits) + 1):
        for s in itertools.combinations(edits, n):
            if sum(e.cost for e in s) < r.repairs[0].cost:
                assert check_test(apply_edits(test, list(s)), "x86tso").verdict == "Allowed"


def test_every_entry_is_documented() -> None:
    for s in CATALOGUE:
        assert s.name and s.doc and s.sources


def test_an_unwritable_output_is_exit_2(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["fix", str(LIB / "classic/SB.litmus"), "-m", "x86tso",
                                  "-o", str(tmp_path / "no" / "such" / "dir" / "f.litmus")])
    assert r.exit_code == 2 and "cannot write the repaired test" in r.output
    assert r.exception is None or isinstance(r.exception, SystemExit)


def test_cli_text_json_and_output(tmp_path: Path) -> None:
    out = tmp_path / "fixed.litmus"
    path = str(LIB / "gin/19-TMA+put+sig.litmus")
    r = CliRunner().invoke(main, ["fix", path, "-m", "gin-gdaki", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert "Repair 1 (cost 2):" in r.output and "+" in r.output
    assert "After gin-gdaki Forbidden" in r.output and "Queries" in r.output
    fixed = out.read_text()
    assert "fence.proxy.async" in fixed
    # the user's file, edited: its Expect= lines are kept (they are the user's), and the
    # report says which of them the repair contradicts
    original = Path(path).read_text()
    assert [x for x in original.splitlines() if x.startswith("Expect=")] == \
        [x for x in fixed.splitlines() if x.startswith("Expect=")]
    assert "these no longer hold: line 3: gin-gdaki:Allowed, now Forbidden" in r.output
    r = CliRunner().invoke(main, ["fix", path, "-m", "gin-gdaki", "--format", "json"])
    rec = json.loads(r.output)
    assert rec["schema"] == "gdrcheck.fix/1" and rec["status"] == "fixed"
    assert rec["repairs"][0]["edits"][0]["entry"] == "fence.proxy.async"
    r = CliRunner().invoke(main, ["fix", str(LIB / "classic/SB.litmus"), "-m", "x86tso",
                                  "--max-cost", "5"])
    assert r.exit_code == 1 and "No set of catalogued strengthenings" in r.output


def test_the_python_api() -> None:
    r = gdrcheck.fix(LIB / "gin/19-TMA+put+sig.litmus", "gin-gdaki")
    assert r.status == "fixed" and r.repairs[0].cost == 2
